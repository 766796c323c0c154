"""The contract's cases: which fixtures each source must supply, how a case is laid out for a read, how a read is
drained (items and the checkpoint a reader returns) so every check sees the same stream."""

import shutil
from dataclasses import dataclass
from pathlib import Path

from connectors.registry import SOURCE_NAMES, export_reader
from ground.contract import Checkpoint
from ground.records import Deletion, RecordFailure, SourceRecord

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOOD = "good"
BROKEN = ("truncated", "binary_junk", "empty", "bad_member")  # each must become a failure naming its file
TOLERATED = ("wrong_encoding", "huge_line")  # decoded, clipped or refused: never an exception, never silence
DELETED = "deleted"
CASES = (GOOD, *BROKEN, *TOLERATED, DELETED)
NO_DELETIONS = "NONE.md"  # in deleted/: why this source's exports cannot say a record was deleted
HUGE = b"@@HUGE@@"
HUGE_BYTES = 8_000_000  # one 8 MB line: far past any line buffer, small enough for the fast tier

SOURCES = SOURCE_NAMES  # from the registry: a new source without fixtures fails the suite


@dataclass
class Read:
    items: list[object]
    checkpoint: object
    files: list[Path]

    @property
    def records(self) -> list[SourceRecord]:
        return [i for i in self.items if isinstance(i, SourceRecord)]

    @property
    def failures(self) -> list[RecordFailure]:
        return [i for i in self.items if isinstance(i, RecordFailure)]

    @property
    def deletions(self) -> list[Deletion]:
        return [i for i in self.items if isinstance(i, Deletion)]


def case_dir(source: str, case: str) -> Path:
    return FIXTURES / source / case


def laid_out(source: str, case: str, tmp: Path) -> Path:
    """A copy of the case's files under tmp, the HUGE marker expanded to one long line of text."""
    target = tmp / source / case
    shutil.copytree(case_dir(source, case), target)
    for path in target.iterdir():
        data = path.read_bytes()
        if HUGE in data:
            path.write_bytes(data.replace(HUGE, b"Lorem ipsum dolor sit amet " * (HUGE_BYTES // 27)))
    return target


def drain(source: str, folder: Path) -> Read:
    """Every item of an export read of the case's folder, and what the reader returned; an exception escapes."""
    generator = export_reader(source, [folder]).read(None)
    items: list[object] = []
    while True:
        try:
            items.append(next(generator))
        except StopIteration as done:
            return Read(items, done.value, sorted(p for p in folder.rglob("*") if p.is_file()))


def names_a_file(failure: RecordFailure, files: list[Path]) -> bool:
    """The failure's location is one of the case's files (a zip member's failure names the zip and the member)."""
    return failure.location.file in {str(p) for p in files} and bool(failure.reason.strip())


def is_checkpoint(value: object) -> bool:
    return isinstance(value, Checkpoint) and value.has_more is False
