"""JiraExportReader: folders/files of Jira JSON (REST responses, webhook payloads), CSV and XML/RSS exports.

The format is decided by content first (a JSON bracket, an XML angle bracket, a CSV header with 'Issue key') and by the
file extension second. Files are walked in sorted order so output and checkpoints are deterministic.
"""

import datetime as dt
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path

from connectors.files import read_files, walk
from connectors.jira.flat_exports import items_from_csv, items_from_xml
from connectors.jira.json_export import items_from_json
from connectors.jira.records import SOURCE, failure
from ground.contract import FileCheckpoint, Item, TimeWindow
from ground.records import ErrorClass, Origin, RecordFailure, SourceRecord


def sniff(head: bytes, name: str) -> str | None:
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    suffix = Path(name).suffix.lower()
    if stripped[:1] in (b"{", b"["):
        return "json"
    if stripped[:1] == b"<":
        return "xml"
    if b"Issue key" in head.split(b"\n", 1)[0] or suffix == ".csv":
        return "csv"
    if suffix in (".json", ".xml"):
        return suffix[1:]
    return None


class JiraExportReader:
    source = SOURCE

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        base_url: str | None = None,
        content_fields: Sequence[str] = (),
        csv_timezone: dt.tzinfo = dt.UTC,
        max_file_bytes: int = 200_000_000,
    ):
        self.paths = [Path(p) for p in paths]
        self.base_url = base_url
        self.content_fields = tuple(content_fields)
        self.csv_timezone = csv_timezone
        self.max_file_bytes = max_file_bytes

    def read(
        self, window: TimeWindow | None = None, checkpoint: FileCheckpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, FileCheckpoint]:
        return (yield from read_files(self._files(), self.read_file, window, checkpoint, self.source))

    def _files(self) -> Iterator[Path | RecordFailure]:
        return walk(self.source, self.paths)

    def read_file(self, path: Path) -> Iterator[Item]:
        origin = Origin(file=str(path))
        try:
            size = path.stat().st_size
            if size > self.max_file_bytes:
                yield failure(
                    origin,
                    ErrorClass.too_large,
                    f"file of {size:,} bytes is over the {self.max_file_bytes:,}-byte limit",
                )
                return
            with open(path, "rb") as stream:
                head = stream.read(4096)
                kind = sniff(head, path.name)
                if kind == "csv":  # streamed: a 200k-row export is never held whole
                    stream.seek(0)
                    yield from items_from_csv(stream, origin, self.base_url, self.content_fields, self.csv_timezone)
                    return
            data = path.read_bytes() if kind in ("json", "xml") else head
        except OSError as exc:
            yield failure(origin, ErrorClass.io_error, f"cannot read file: {exc.strerror or exc}")
            return
        if kind == "json":
            yield from items_from_json(data, origin, self.base_url, self.content_fields)
        elif kind == "xml":
            yield from items_from_xml(data, origin, self.base_url, self.content_fields)
        elif not data.strip() and size == len(data):
            yield failure(origin, ErrorClass.parse_error, f"empty file ({size} bytes)")
        else:
            yield failure(
                origin,
                ErrorClass.unsupported,
                "not a Jira export: expected JSON (REST/webhook), CSV with an 'Issue key' column, or XML/RSS",
            )
