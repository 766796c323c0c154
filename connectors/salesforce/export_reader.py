"""SalesforceExportReader: the weekly Data Export (zip of one CSV per object), loose CSVs, and saved REST responses.

Two passes over the files: the first fills a Directory (users, contacts, accounts, histories, comments: what a row
needs from other files), the second converts rows to records. Child rows (OpportunityHistory, *History, CaseComment)
are folded into their parent; Users only resolve owners. Everything bad becomes a RecordFailure and the read goes on.
"""

import os
import zipfile
import zlib
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path

from connectors.archives import ArchiveLimits, checked_members, open_zip
from connectors.files import guarded
from connectors.salesforce.directory import Directory
from connectors.salesforce.export_files import RowItem, csv_rows, json_rows
from connectors.salesforce.objects import CHILDREN, DIRECTORY_ONLY, HISTORY_CHILDREN
from connectors.salesforce.records import SOURCE, convert_row, failure
from connectors.salesforce.values import canonical, org_currency
from ground.contract import FileCheckpoint, Item, TimeWindow
from ground.records import Deletion, ErrorClass, Origin, RecordFailure, SourceRecord

SUFFIXES = {".csv": csv_rows, ".json": json_rows}
SUBQUERY_CHILDREN = {
    "opportunityhistories": "OpportunityHistory",
    "casecomments": "CaseComment",
    "histories": None,
    "feeds": None,
}


def _child_object(parent: str, relationship: str) -> str | None:
    low = relationship.lower()
    if low == "histories":
        return "OpportunityFieldHistory" if parent == "Opportunity" else f"{parent}History"
    return SUBQUERY_CHILDREN.get(low)


class SalesforceExportReader:
    source = SOURCE

    def __init__(
        self,
        paths: Sequence[str | Path],
        instance_url: str | None = None,
        max_file_bytes: int = 2_000_000_000,
        currency: str | None = None,
        archive_limits: ArchiveLimits | None = None,
    ):
        """currency: the org's currency for rows without CurrencyIsoCode (single-currency orgs have no such field)."""
        self.paths = [Path(p) for p in paths]
        self.instance_url = instance_url
        self.currency = org_currency(currency)
        self.max_file_bytes = max_file_bytes
        self.archive_limits = archive_limits or ArchiveLimits()

    def read(
        self, window: TimeWindow | None = None, checkpoint: FileCheckpoint | None = None
    ) -> Generator[Item, None, FileCheckpoint]:
        """One export unit at a time (a zip, or the loose files of one folder): its own Directory, so two weekly
        snapshots never mix their histories."""
        done = list(checkpoint.files_done) if checkpoint else []
        skip = set(done)
        for unit in self._units():
            if isinstance(unit, RecordFailure):
                yield unit
                continue
            files = [f for f in unit if str(f) not in skip]
            if not files:
                continue
            yield from guarded(
                self.source,
                Origin(file=str(unit[0].parent if len(unit) > 1 else unit[0])),
                self._read_unit(unit, files, window),
            )
            for f in files:
                done.append(str(f))
                skip.add(str(f))
        return FileCheckpoint(has_more=False, files_done=done)

    def _read_unit(self, unit: list[Path], files: list[Path], window: TimeWindow | None) -> Iterator[Item]:
        directory = Directory()
        for item in self._rows(unit):
            if not isinstance(item, RecordFailure):
                learn(directory, *snapshot(*item[:2]))
        orphans: dict[str | None, tuple[str, Origin]] = {}
        converted: set[str] = set()
        for item in self._rows(files):
            if isinstance(item, RecordFailure):
                yield item
                continue
            obj, row, origin = item
            obj, row = snapshot(obj, row)
            if obj in CHILDREN:
                orphans.setdefault(_parent_id(obj, row), (CHILDREN[obj][0], origin))
                continue
            if obj in DIRECTORY_ONLY:
                continue
            record = convert_row(obj, row, directory, origin, self.instance_url, self.currency)
            if isinstance(record, SourceRecord):
                converted.add(record.fields["id"])
            elif isinstance(record, Deletion):  # its orphaned children make no partial parent either
                converted.add(record.source_key.partition(":")[2])
            if window is None or _in_window(record, window):
                yield record
        for record in partial_parents(directory, orphans, converted, self.instance_url, self.currency):
            if window is None or window.contains(record.updated_at):
                yield record

    # ------------------------------------------------------------------ files

    def _units(self) -> Iterator[list[Path] | RecordFailure]:
        """Zips are units of their own; loose files group by folder (sorted, deterministic)."""
        for root in self.paths:
            if root.is_dir():
                for folder, dirs, names in os.walk(root):
                    dirs.sort()
                    loose = []
                    for name in sorted(names):
                        path = Path(folder) / name
                        if _is_zip(path):
                            yield [path]
                        else:
                            loose.append(path)
                    if loose:
                        yield loose
            elif root.exists():
                yield [root]
            else:
                yield failure(Origin(file=str(root)), ErrorClass.io_error, "no such file or folder")

    def _rows(self, paths: list[Path]) -> Iterator[RowItem | RecordFailure]:
        for path in paths:
            origin = Origin(file=str(path))
            try:
                if _is_zip(path):
                    yield from guarded(self.source, origin, self._zip_rows(path))
                    continue
                parse = SUFFIXES.get(path.suffix.lower())
                if parse is None:
                    yield failure(
                        origin,
                        ErrorClass.unsupported,
                        f"not a Salesforce export file ({path.suffix or 'no extension'}): "
                        "expected .csv, .json or a Data Export .zip",
                    )
                    continue
                if path.stat().st_size > self.max_file_bytes:
                    yield failure(origin, ErrorClass.too_large, f"file over {self.max_file_bytes:,} bytes")
                    continue
                yield from guarded(self.source, origin, parse(lambda p=path: open(p, "rb"), path.name, origin))
            except OSError as exc:
                yield failure(origin, ErrorClass.io_error, f"cannot read file: {exc.strerror or exc}")

    def _zip_rows(self, path: Path) -> Iterator[RowItem | RecordFailure]:
        archive = open_zip(path, SOURCE, self.archive_limits)
        if isinstance(archive, RecordFailure):
            yield archive
            return
        with archive:
            infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
            # Data Export zips also carry attachments/documents folders: not records, not read
            for nested in (i for i in infos if Path(i.filename).suffix.lower() == ".zip"):
                yield failure(
                    Origin(file=str(path), member=nested.filename),
                    ErrorClass.unsupported,
                    "zip inside a zip is not read; unpack it",
                )
            wanted = [i for i in infos if Path(i.filename).suffix.lower() in SUFFIXES]
            for info in checked_members(path, wanted, SOURCE, self.archive_limits):
                if isinstance(info, RecordFailure):
                    yield info
                    continue
                origin = Origin(file=str(path), member=info.filename)
                if info.file_size > self.max_file_bytes:
                    yield failure(origin, ErrorClass.too_large, f"member over {self.max_file_bytes:,} bytes")
                    continue
                parse = SUFFIXES[Path(info.filename).suffix.lower()]
                try:
                    rows = parse(lambda i=info: archive.open(i), info.filename, origin)
                    yield from guarded(self.source, origin, rows)
                except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
                    yield failure(origin, ErrorClass.parse_error, f"zip member cannot be read: {exc}")


def _in_window(item: Item, window: TimeWindow) -> bool:
    """Failures always come; a record by its update time, a deletion by when it was deleted."""
    if isinstance(item, SourceRecord):
        return window.contains(item.updated_at)
    if isinstance(item, Deletion):
        return item.detected_at is None or window.contains(item.detected_at)
    return True


def _is_zip(path: Path) -> bool:
    if path.suffix.lower() == ".zip":
        return True
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def snapshot(obj: str, row: dict) -> tuple[str, dict]:
    """Fivetran-style history tables are versioned copies of the parent (``_fivetran_start``), not field history."""
    if obj in HISTORY_CHILDREN:
        start = next((v for k, v in row.items() if canonical(k) == "fivetranstart"), None)
        if start and not any(canonical(k) == "field" for k in row):
            return HISTORY_CHILDREN[obj][0], {**row, "SystemModstamp": start}
    return obj, row


def _parent_id(obj: str, row: dict) -> str | None:
    from connectors.salesforce.directory import sid
    from connectors.salesforce.values import Row

    return sid(Row(row).get(CHILDREN[obj][1], "ParentId"))


def partial_parents(
    directory: Directory, orphans: dict, converted: set[str], instance_url: str | None, currency: str | None = None
) -> Iterator[SourceRecord]:
    """History/comments whose parent row is not in this read: the parent as far as its children tell it.

    Its version is the latest change, so the full parent row (next export, API) simply supersedes it.
    """
    for parent, (obj, origin) in sorted(orphans.items(), key=lambda kv: str(kv[0])):
        if parent is None or parent in converted:
            continue
        changes = directory.history.get(parent, []) + directory.comments.get(parent, [])
        times = [c["at"] for c in changes if c.get("at")]
        if not times:
            continue
        row = {"Id": parent, "SystemModstamp": max(times), "CreatedDate": min(times)}
        record = convert_row(obj, row, directory, origin, instance_url, currency)
        if isinstance(record, SourceRecord):
            record.fields["partial"] = True
            converted.add(parent)
            yield record


def learn(directory: Directory, obj: str, row: dict) -> None:
    """Directory pass for one row, including sub-query children a saved REST response carries inline."""
    from connectors.salesforce.values import Row

    directory.learn(obj, Row(row))
    for column, value in row.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            child = _child_object(obj, column)
            if child:
                for child_row in value:
                    directory.learn(child, Row({**child_row, "ParentId": row.get("Id"), **{f"{obj}Id": row.get("Id")}}))


def read_salesforce_exports(paths: Sequence[str | Path], window: TimeWindow | None = None):
    yield from SalesforceExportReader(paths).read(window)
