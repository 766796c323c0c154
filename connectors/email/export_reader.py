"""EmailExportReader: mbox files, .eml files, Outlook .msg and zip archives of them -> records.

Walks paths in sorted order (deterministic output and checkpoints), decides the container by content first
(zip/CFB signatures, a leading ``From `` line) and by extension second, streams mbox files and zip members
(nothing is extracted to disk), and turns every bad file, member or message into a RecordFailure.
"""

import os
import zipfile
import zlib
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from connectors.archives import ArchiveLimits, checked_members, open_zip
from connectors.email.mbox_scan import iter_mbox
from connectors.email.outlook_msg import CFB_MAGIC, record_from_msg_bytes
from connectors.email.records import SOURCE, failure, record_from_bytes
from connectors.files import read_files, walk
from ground.contract import FileCheckpoint, Item, TimeWindow
from ground.records import ErrorClass, Origin, RecordFailure, SourceRecord

MBOX_SUFFIXES = {".mbox", ".mbx"}
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")


class EmailExportReader:
    source = SOURCE

    def __init__(
        self,
        paths: Sequence[str | Path],
        max_message_bytes: int = 50_000_000,
        archive_limits: ArchiveLimits | None = None,
    ):
        self.paths = [Path(p) for p in paths]
        self.max_message_bytes = max_message_bytes
        self.archive_limits = archive_limits or ArchiveLimits()

    def read(
        self, window: TimeWindow | None = None, checkpoint: FileCheckpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, FileCheckpoint]:
        return (yield from read_files(self._files(), self._read_file, window, checkpoint, self.source))

    def _files(self) -> Iterator[Path | RecordFailure]:
        return walk(self.source, self.paths)

    def _read_file(self, path: Path) -> Iterator[Item]:
        origin = Origin(file=str(path))
        try:
            with open(path, "rb") as stream:
                head = stream.peek(8)[:8]
                if head.startswith(ZIP_MAGICS) or path.suffix.lower() == ".zip":
                    stream.close()
                    yield from self._read_zip(path)
                    return
                size = os.fstat(stream.fileno()).st_size
                yield from self._read_stream(stream, path.name, origin, head, size)
        except OSError as exc:
            yield failure(origin, ErrorClass.io_error, f"cannot read file: {exc.strerror or exc}")

    def _read_zip(self, path: Path) -> Iterator[Item]:
        archive = open_zip(path, SOURCE, self.archive_limits)
        if isinstance(archive, RecordFailure):
            yield archive
            return
        with archive:
            infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
            for info in checked_members(path, infos, SOURCE, self.archive_limits):
                if isinstance(info, RecordFailure):
                    yield info
                    continue
                origin = Origin(file=str(path), member=info.filename)
                if info.flag_bits & 0x1:
                    yield failure(origin, ErrorClass.unsupported, "encrypted zip member: no password is configured")
                    continue
                try:
                    with archive.open(info) as stream:
                        head = stream.peek(8)[:8]
                        if head.startswith(ZIP_MAGICS):
                            yield failure(origin, ErrorClass.unsupported, "zip inside a zip is not read; unpack it")
                            continue
                        yield from self._read_stream(stream, info.filename, origin, head, info.file_size)
                except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, ValueError) as exc:
                    yield failure(origin, ErrorClass.parse_error, f"zip member cannot be decompressed: {exc}")

    def _read_stream(self, stream: BinaryIO, name: str, origin: Origin, head: bytes, size: int) -> Iterator[Item]:
        """One file or zip member whose first bytes are ``head``: an mbox, an Outlook .msg or one message."""
        suffix = Path(name).suffix.lower()
        if head.startswith(b"From ") or suffix in MBOX_SUFFIXES:
            yield from self._read_mbox(stream, origin)
            return
        if size > self.max_message_bytes:
            yield failure(
                origin,
                ErrorClass.too_large,
                f"message of {size:,} bytes is over the {self.max_message_bytes:,}-byte limit",
            )
            return
        data = stream.read(self.max_message_bytes + 1)
        if head.startswith(CFB_MAGIC):
            yield record_from_msg_bytes(data, origin)
        else:
            yield record_from_bytes(data, origin)

    def _read_mbox(self, stream: BinaryIO, origin: Origin) -> Iterator[Item]:
        for message in iter_mbox(stream, self.max_message_bytes):
            where = origin.model_copy(update={"index": message.index, "offset": message.offset})
            if message.data is None:
                yield failure(
                    where,
                    ErrorClass.too_large,
                    f"message of {message.size:,} bytes is over the {self.max_message_bytes:,}-byte limit",
                )
                continue
            yield record_from_bytes(message.data, where, message.from_line)


def read_email_exports(paths: Sequence[str | Path], window: TimeWindow | None = None) -> Iterator[Item]:
    """All records and failures of the given exports, ignoring the checkpoint."""
    yield from EmailExportReader(paths).read(window)
