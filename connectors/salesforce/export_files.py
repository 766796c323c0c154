"""Rows out of Salesforce export files: Data Export CSVs (any delimiter/quoting/encoding the csv module handles),
zips of them, and saved REST responses (query results, queryAll pages, getDeleted, sObject Tree JSON).

Each function yields ``(object name, flat row, origin)`` or a RecordFailure for what cannot be rows at all.
"""

import codecs
import csv
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from connectors.safe_json import load_json
from connectors.salesforce.objects import object_from_file_name
from connectors.salesforce.records import failure, object_of
from connectors.salesforce.values import canonical, flatten
from ground.records import ErrorClass, Origin, RecordFailure

RowItem = tuple[str, dict[str, Any], Origin]
Opener = Callable[[], BinaryIO]  # opens the file or zip member afresh (a read takes two passes)
CHUNK = 1 << 20
SNIFF_BYTES = 65536
DELIMITERS = ",;\t|^`"
ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")
csv.field_size_limit(64 * 1024 * 1024)  # long descriptions / email bodies


def decode(data: bytes) -> tuple[str, str]:
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def _opener(data: bytes | Opener) -> Opener:
    return (lambda: io.BytesIO(data)) if isinstance(data, bytes) else data


def stream_encoding(open_stream: Opener) -> str:
    """The first of ENCODINGS the whole stream decodes in, found chunk by chunk (memory flat in file size)."""
    for encoding in ENCODINGS[:-1]:
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            with open_stream() as stream:
                while chunk := stream.read(CHUNK):
                    decoder.decode(chunk)
                decoder.decode(b"", final=True)
            return encoding
        except UnicodeDecodeError:
            continue
    return ENCODINGS[-1]


def sniff_delimiter(text: str) -> str:
    sample = text[:65536]
    header = sample.split("\n", 1)[0]
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        counts = {d: header.count(d) for d in DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] else ","


def csv_rows(data: bytes | Opener, name: str, origin: Origin) -> Iterator[RowItem | RecordFailure]:
    """Rows streamed from the file (or zip member) that ``data`` opens, one at a time: memory stays flat however many
    rows the export has. The encoding is settled by a first pass, so no row is decoded with the wrong one."""
    obj = object_from_file_name(Path(name).stem)
    open_stream = _opener(data)
    with open_stream() as stream:
        head = stream.read(SNIFF_BYTES)
    if not head.strip() and len(head) < SNIFF_BYTES:
        yield failure(origin, ErrorClass.parse_error, "empty file: no CSV header")
        return
    encoding = stream_encoding(open_stream)
    delimiter = sniff_delimiter(head.decode(encoding, errors="ignore"))
    with open_stream() as raw, io.TextIOWrapper(raw, encoding=encoding, newline="") as text:
        yield from _rows(csv.reader(text, delimiter=delimiter), obj, origin)


def _rows(reader, obj: str, origin: Origin) -> Iterator[RowItem | RecordFailure]:
    try:
        header = next(reader)
    except (csv.Error, StopIteration) as exc:
        yield failure(origin, ErrorClass.parse_error, f"CSV header cannot be read: {exc}")
        return
    header = [h.strip() for h in header]
    if "id" not in {canonical(h) for h in header}:
        shown = ", ".join(header[:6]) + (", ..." if len(header) > 6 else "")
        yield failure(
            origin,
            ErrorClass.missing_field,
            f"CSV has no Id column (columns: {shown}): not an export of Salesforce records "
            "(an import/seed file?), nothing to key the rows by",
        )
        return
    index = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield failure(origin.model_copy(update={"index": index}), ErrorClass.parse_error, f"bad CSV row: {exc}")
            index += 1
            continue
        if not any(c.strip() for c in cells):
            continue
        where = origin.model_copy(update={"index": index})
        index += 1
        if len(cells) != len(header):
            yield failure(
                where,
                ErrorClass.parse_error,
                f"row has {len(cells)} cells, the header has {len(header)}: quoting or delimiter is broken",
            )
            continue
        yield obj, dict(zip(header, cells)), where


def _error_entry(item: Any) -> bool:
    return isinstance(item, dict) and "errorCode" in item


def json_rows(data: bytes | Opener, name: str, origin: Origin) -> Iterator[RowItem | RecordFailure]:
    if not isinstance(data, bytes):
        with data() as stream:
            data = stream.read()
    if not data.strip():
        yield failure(origin, ErrorClass.parse_error, "empty file: no JSON document (an HTTP 204-style empty body?)")
        return
    try:
        doc = load_json(decode(data)[0])
    except ValueError as exc:
        yield failure(origin, ErrorClass.parse_error, f"not JSON: {exc}")
        return
    fallback = object_from_file_name(Path(name).stem)
    yield from _doc_rows(doc, fallback, origin)


def _doc_rows(doc: Any, fallback: str, origin: Origin) -> Iterator[RowItem | RecordFailure]:
    if isinstance(doc, list) and doc and all(_error_entry(i) for i in doc):
        for i, item in enumerate(doc):
            yield failure(
                origin.model_copy(update={"index": i}),
                ErrorClass.api_error,
                f"saved Salesforce error response: {item.get('errorCode')}: {item.get('message')}",
            )
        return
    if isinstance(doc, dict) and isinstance(doc.get("deletedRecords"), list):  # getDeleted
        for i, item in enumerate(doc["deletedRecords"]):
            if isinstance(item, dict):
                rid = str(item.get("id") or "")
                yield (
                    object_of(rid),
                    {"Id": rid, "IsDeleted": True, "SystemModstamp": item.get("deletedDate")},
                    origin.model_copy(update={"index": i}),
                )
        return
    if isinstance(doc, dict) and isinstance(doc.get("queryResult"), dict):  # sf CLI exemplar
        yield from _doc_rows(doc["queryResult"], fallback, origin)
        return
    if isinstance(doc, dict) and doc and all(isinstance(v, dict) and "queryResult" in v for v in doc.values()):
        for key, value in doc.items():
            yield from _doc_rows(value["queryResult"], fallback, origin.model_copy(update={"member": key}))
        return
    records = doc.get("records") if isinstance(doc, dict) else doc if isinstance(doc, list) else None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        shape = f"object with keys {', '.join(list(doc)[:5])}" if isinstance(doc, dict) else type(doc).__name__
        yield failure(
            origin,
            ErrorClass.unsupported,
            f"not Salesforce records: a JSON {shape} (no 'records' list, not a query result)",
        )
        return
    if records and all({"sobject", "files"} & set(r) for r in records):
        yield failure(origin, ErrorClass.unsupported, "sObject Tree data plan (names files to import), not records")
        return
    flat = [flatten(r) for r in records]
    if records and not any(row.get("Id") for row in flat):
        refs = sum(1 for r in records if isinstance(r.get("attributes"), dict) and "referenceId" in r["attributes"])
        kind = "sObject Tree import file" if refs else "seed data"
        yield failure(
            origin,
            ErrorClass.missing_field,
            f"{kind}: {len(records)} record(s), none has an Id (records of an org always do); nothing to key them by",
        )
        return
    for i, row in enumerate(flat):
        obj = row.pop("_type", None) or fallback
        row.pop("_url", None)
        yield str(obj), row, origin.model_copy(update={"index": i})
