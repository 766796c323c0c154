"""Salesforce values as they arrive from REST JSON, Bulk 2.0 CSV and Data Export CSV, normalised once.

REST writes datetimes as ``2026-03-02T15:15:00.000+0000``, Bulk 2.0 as ``2026-03-02T15:15:00.000Z``, the weekly Data
Export as ``2026-03-02T15:15:00.000Z`` or ``2026-03-02 15:15:00``; REST nulls are JSON null, Bulk/Export nulls are
empty cells (``#N/A`` appears in some tools' exports). Column names differ too (``SystemModstamp``,
``systemmodstamp``, Fivetran's ``system_modstamp``), so lookups go through a canonical form.
"""

import datetime as dt
import functools
import re
from collections.abc import Mapping
from typing import Any

from ground.records import as_utc

NULLS = {"", "#N/A", "null", "NULL"}
_OFFSET = re.compile(r"([+-]\d{2})(\d{2})$")
_FRACTION = re.compile(r"\.(\d+)")


@functools.lru_cache(maxsize=1 << 12)
def canonical(name: str) -> str:
    """``system_modstamp`` / ``SystemModstamp`` / ``SYSTEMMODSTAMP`` -> ``systemmodstamp``."""
    return name.replace("_", "").replace(" ", "").lower()


def is_null(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    # strip() only when an end is blank: the common cell is neither, and this runs for every cell of every row
    return value in NULLS or ((value[0].isspace() or value[-1].isspace()) and value.strip() in NULLS)


def parse_datetime(value: Any) -> dt.datetime | None:
    """Any Salesforce datetime or date string -> tz-aware UTC; None for nulls; ValueError for garbage.

    A date without time (CloseDate, ActivityDate) is midnight UTC of that day: Salesforce stores dates without zone.
    """
    if is_null(value):
        return None
    if isinstance(value, dt.datetime):
        return as_utc(value)
    return _parse_text(str(value))


@functools.lru_cache(maxsize=1 << 14)
def _parse_text(value: str) -> dt.datetime:
    """Cached: an export's rows share their dates (a bulk load stamps thousands of rows alike); ValueError uncached."""
    text = value.strip().replace(" ", "T", 1)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _OFFSET.sub(r"\1:\2", text)
    text = _FRACTION.sub(lambda m: "." + (m.group(1) + "000000")[:6], text, count=1)
    if len(text) == 10:
        return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
    return as_utc(dt.datetime.fromisoformat(text))


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"true", "1", "yes", "y"}


def parse_number(value: Any) -> float | None:
    if is_null(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return float(str(value).replace(",", "").strip())


def money(amount: Any, currency: str | None) -> str:
    """``USD 4,500`` with a currency the data (or the org setting) gives; the number alone without one."""
    number = parse_number(amount)
    if number is None:
        return str(amount)
    shown = f"{number:,.0f}" if number == int(number) else f"{number:,.2f}"
    return f"{currency} {shown}" if currency else shown


def org_currency(value: str | None) -> str | None:
    """A configured org currency: an ISO 4217 code (``EUR``), upper-cased; None when unset."""
    code = (value or "").strip().upper()
    if not code:
        return None
    if not re.fullmatch(r"[A-Z]{3}", code):
        raise ValueError(f"GRAPHFEED_SALESFORCE_CURRENCY {value!r} is not an ISO 4217 currency code such as EUR")
    return code


def clean_value(value: Any) -> Any:
    """JSON-safe, null-free scalar: strings stripped, nulls removed by the caller."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float, bool)):
        return value
    return str(value)


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """REST JSON -> the flat ``Owner.Email`` columns Bulk 2.0 and exports use; ``attributes`` kept as ``_type``/``_url``.

    Nested query results (child relationships: a dict with ``records``) are kept as lists of flat rows under their
    relationship name, so the converter can read sub-queries (``OpportunityHistories``) the same way as joined files.
    """
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if key == "attributes" and isinstance(value, Mapping):
            if not prefix:
                flat["_type"] = value.get("type")
                flat["_url"] = value.get("url")
            continue
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and isinstance(value.get("records"), list):
            flat[name] = [flatten(child) for child in value["records"] if isinstance(child, Mapping)]
        elif isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        elif isinstance(value, list):
            flat[name] = [clean_value(v) for v in value if not isinstance(v, (Mapping, list))]
        else:
            flat[name] = value
    return flat


@functools.lru_cache(maxsize=1 << 8)
def _layout(keys: tuple[str, ...]) -> tuple[dict[str, str], bool, bool]:
    """Per column set (a CSV's header: every row of the file has it): canonical name -> the column that spelling
    finds, whether any relationship column (``Owner.Name``) is present, whether any custom field (``__c``) is."""
    index = {canonical(k): k for k in keys}
    return index, any("." in k for k in keys), any(k.endswith("__c") for k in keys)


class Row:
    """A flat row with case/underscore-insensitive lookup (``row.get("SystemModstamp")``)."""

    def __init__(self, values: Mapping[str, Any]):
        self.values = dict(values)
        self._index, self.dotted, self.custom = _layout(tuple(self.values))  # shared: never changed
        # every non-null cell, nullness decided once per cell (lookups and scalars both need it)
        # (the common cell, a str neither null nor blank at an end, is decided here without a call)
        self._filled = {
            k: v
            for k, v in self.values.items()
            if (v.__class__ is str and v not in NULLS and not v[0].isspace() and not v[-1].isspace()) or not is_null(v)
        }
        # canonical name -> value of the column that spelling finds, nulls left out: one lookup per get()
        self._present = {c: self._filled[k] for c, k in self._index.items() if k in self._filled}
        self._scalars: dict[str, Any] | None = None

    def get(self, *names: str) -> Any:
        """The first non-null value among the names (tries each spelling), else None."""
        for name in names:
            value = self._present.get(canonical(name))
            if value is not None:
                return value
        return None

    def text(self, *names: str) -> str | None:
        value = self.get(*names)
        return None if value is None or isinstance(value, list) else str(value).strip()

    def when(self, *names: str) -> dt.datetime | None:
        """First parseable datetime among names; raises ValueError naming the column when a value is garbage."""
        for name in names:
            value = self.get(name)
            if value is None:
                continue
            try:
                return parse_datetime(value)
            except (ValueError, TypeError):
                raise ValueError(f"{name} {str(value)[:40]!r} is not a Salesforce date/time") from None
        return None

    def scalars(self) -> dict[str, Any]:
        """Every non-null scalar column, JSON-safe (what goes into SourceRecord.fields['values']); a copy of the
        row's one computation (the converter asks twice per row)."""
        if self._scalars is None:
            self._scalars = {
                k: clean_value(v)
                for k, v in self._filled.items()
                if not k.startswith("_") and not isinstance(v, (list, dict))
            }
        return dict(self._scalars)
