"""Jira timestamps in every spelling the exports use -> aware UTC datetimes (None when unreadable)."""

import datetime as dt
import email.utils
import functools
import re

from ground.records import as_utc

_OFFSET_NO_COLON = re.compile(r"([+-]\d{2})(\d{2})$")
CSV_FORMATS = (
    "%d/%b/%y %I:%M %p",
    "%d/%b/%Y %I:%M %p",
    "%d/%b/%y %H:%M",
    "%Y-%m-%d %H:%M",
    "%d.%m.%Y %H:%M",
    "%Y-%m-%d",
)


def parse_time(value: object, default_tz: dt.tzinfo = dt.UTC) -> dt.datetime | None:
    """ISO 8601 with '+0000' offsets (REST), epoch milliseconds (webhooks), RFC 2822 (XML/RSS), CSV export dates.

    Values without a zone (CSV exports are written in the exporting user's zone) are read in default_tz.
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return dt.datetime.fromtimestamp(float(value) / 1000, dt.UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return _parse_text(str(value).strip(), default_tz)


@functools.lru_cache(maxsize=1 << 14)
def _parse_text(text: str, default_tz: dt.tzinfo) -> dt.datetime | None:
    """Cached: an export repeats the same minute-resolution dates row after row (a 200k-row CSV parses each once)."""
    if text.isdigit() and len(text) >= 10:
        return parse_time(int(text), default_tz)
    iso = text.replace("Z", "+00:00")
    iso = _OFFSET_NO_COLON.sub(r"\1:\2", iso)
    try:
        parsed = dt.datetime.fromisoformat(iso)
    except ValueError:
        parsed = None
    if parsed is None and ("," in text or re.search(r"[+-]\d{4}$", text)):
        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            parsed = None
    if parsed is None:
        for fmt in CSV_FORMATS:
            try:
                parsed = dt.datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=default_tz)
    return as_utc(parsed)


def iso(value: dt.datetime | None) -> str | None:
    return as_utc(value).isoformat() if value is not None else None


def epoch_ms(value: dt.datetime) -> int:
    return int(as_utc(value).timestamp() * 1000)
