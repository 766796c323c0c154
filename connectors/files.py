"""Walking export paths, shared by every export reader: sorted (deterministic output and checkpoints), a missing or
unlistable path becomes a failure instead of an exception, and files already in the checkpoint are skipped."""

import os
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path

from ground.contract import FileCheckpoint, Item, TimeWindow
from ground.records import ErrorClass, Origin, RecordFailure, SourceRecord


def walk(
    source: str, roots: Iterable[Path], keep: Callable[[str], bool] = lambda name: True
) -> Iterator[Path | RecordFailure]:
    for root in roots:
        if root.is_dir():
            errors: list[OSError] = []
            for folder, dirs, files in os.walk(root, onerror=errors.append):
                dirs.sort()
                for name in sorted(files):
                    if keep(name):
                        yield Path(folder) / name
            for error in errors:
                yield RecordFailure.at(
                    source,
                    Origin(file=str(error.filename or root)),
                    ErrorClass.io_error,
                    f"cannot list folder: {error.strerror or error}",
                )
        elif root.exists():
            yield root
        else:
            yield RecordFailure.at(source, Origin(file=str(root)), ErrorClass.io_error, "no such file or folder")


def guarded(source: str, origin: Origin, items: Iterable[Item]) -> Iterator[Item]:
    """One file's items; an exception its reader did not expect (RecursionError, TypeError from a hostile value...)
    ends that file with a failure naming it, never the whole read: the next file is read as usual."""
    try:
        yield from items
    except Exception as exc:  # noqa: BLE001 - a bad file is data, the run goes on
        yield RecordFailure.at(
            source,
            origin,
            ErrorClass.parse_error,
            f"reading stopped in this file: {type(exc).__name__}: {str(exc)[:300]}",
        )


def read_files(
    files: Iterable[Path | RecordFailure],
    read_file: Callable[[Path], Iterator[Item]],
    window: TimeWindow | None,
    checkpoint: FileCheckpoint | None,
    source: str = "unknown",
) -> Generator[Item, None, FileCheckpoint]:
    """Records inside the window (all failures: they have no trustworthy date), file by file; returns the checkpoint."""
    done = list(checkpoint.files_done) if checkpoint else []
    skip = set(done)
    for path in files:
        if isinstance(path, RecordFailure):
            yield path
            continue
        name = str(path)
        if name in skip:
            continue
        for item in guarded(source, Origin(file=name), read_file(path)):
            if not isinstance(item, SourceRecord) or window is None or window.contains(item.updated_at):
                yield item
        done.append(name)
        skip.add(name)
    return FileCheckpoint(has_more=False, files_done=done)
