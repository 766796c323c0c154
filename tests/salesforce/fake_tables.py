"""The fake Salesforce server's data: Data Export CSVs (the bundled sample) read into object -> rows, each column
given the describe() type the real API would report, and the datetime parsing its SOQL filters use."""

import csv
import datetime as dt
import io
import re
import zipfile
from pathlib import Path


def load_export(zip_path: Path) -> dict[str, list[dict[str, str]]]:
    """Data Export zip -> object -> rows (every cell a string, as the export writes it)."""
    tables: dict[str, list[dict[str, str]]] = {}
    with zipfile.ZipFile(zip_path) as archive:
        for name in archive.namelist():
            text = archive.read(name).decode("utf-8-sig")
            tables[Path(name).stem] = list(csv.DictReader(io.StringIO(text, newline="")))
    return tables


def field_type(name: str, values: list[str]) -> str:
    if name == "Id":
        return "id"
    if name.endswith("Id") and name != "MessageIdentifier":
        return "reference"
    if name.startswith("Is") or name in ("Incoming",):
        return "boolean"
    if name in ("Amount", "ExpectedRevenue"):
        return "currency"
    if name == "Probability":
        return "percent"
    if name in ("CallDurationInSeconds",):
        return "int"
    if name in ("OldValue", "NewValue"):
        return "anyType"
    sample = next((v for v in values if v), "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", sample):
        return "date"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T.*", sample) or name in ("SystemModstamp", "CreatedDate", "LastModifiedDate"):
        return "datetime"
    return "string"


def parse_when(value: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
