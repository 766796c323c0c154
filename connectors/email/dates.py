"""When a message happened: the Date header, else the mbox envelope line, else the newest Received hop.

Mail has no edit history, so this one moment is both occurred_at and updated_at. A missing/garbled Date is
common in old archives; the envelope and Received timestamps are written by servers and are good enough.
"""

import datetime as dt
import re
from email.message import Message
from email.utils import parsedate_to_datetime

from connectors.email.mime_parts import raw_header
from ground.records import as_utc

_ENVELOPE_DATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*,?\s+(\w{3})\w*\s+(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+(\d{4})",
    re.IGNORECASE,
)
_MONTHS = {
    m: i
    for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)
}


# The canonical RFC 5322 form (``Mon, 04 May 2026 10:00:00 +0000``): read directly, as parsedate_to_datetime reads
# it (~6 us a message in the stdlib). Every other form, and any value this one cannot build, goes to the stdlib.
_CANONICAL_DATE = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d{1,2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})"
)


def _canonical_date(text: str) -> dt.datetime | None:
    match = _CANONICAL_DATE.fullmatch(text)
    if match is None:
        return None
    month = _MONTHS.get(match.group(2).lower())
    if month is None or int(match.group(3)) < 100:  # the stdlib reads years below 100 as 19xx/20xx
        return None
    day, _, year, hour, minute, second, sign, tz_hours, tz_minutes = match.groups()
    offset = int(tz_hours) * 3600 + int(tz_minutes) * 60
    if sign == "-":
        if offset == 0:  # "-0000": no zone information, which parsedate_to_datetime returns naive (taken as UTC)
            return dt.datetime(int(year), month, int(day), int(hour), int(minute), int(second), tzinfo=dt.UTC)
        offset = -offset
    zone = dt.timezone(dt.timedelta(seconds=offset))
    moment = dt.datetime(int(year), month, int(day), int(hour), int(minute), int(second), tzinfo=zone)
    return moment.astimezone(dt.UTC)


def parse_rfc5322_date(value: str | None) -> dt.datetime | None:
    if not value or not value.strip():
        return None
    text = " ".join(value.split())
    try:
        found = _canonical_date(text)
    except (ValueError, OverflowError):  # a day, time or offset out of range: the stdlib decides
        found = None
    if found is not None:
        return found
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return as_utc(parsed) if parsed is not None else None


def parse_envelope_date(from_line: str | None) -> dt.datetime | None:
    """mbox ``From sender Wed Nov 01 06:04:53 2017`` (asctime, taken as UTC)."""
    if not from_line:
        return None
    match = _ENVELOPE_DATE.search(from_line)
    if not match:
        return parse_rfc5322_date(from_line.partition(" ")[2])
    month = _MONTHS.get(match.group(1).lower()[:3])
    if month is None:
        return None
    try:
        return dt.datetime(
            int(match.group(6)),
            month,
            int(match.group(2)),
            int(match.group(3)),
            int(match.group(4)),
            int(match.group(5) or 0),
            tzinfo=dt.UTC,
        )
    except ValueError:
        return None


def received_date(msg: Message) -> dt.datetime | None:
    """Timestamp after the ';' of the topmost Received header (the last hop, closest to delivery)."""
    for key, value in msg.raw_items() if hasattr(msg, "raw_items") else msg.items():
        if key.lower() == "received" and ";" in str(value):
            found = parse_rfc5322_date(str(value).rpartition(";")[2])
            if found is not None:
                return found
    return None


def message_date(msg: Message, from_line: str | None = None) -> tuple[dt.datetime | None, str]:
    """(moment, where it came from): date_header | mbox_from_line | received | none | unparseable."""
    raw = raw_header(msg, "Date")
    found = parse_rfc5322_date(raw)
    if found is not None:
        return found, "date_header"
    envelope = parse_envelope_date(from_line)
    if envelope is not None:
        return envelope, "mbox_from_line"
    hop = received_date(msg)
    if hop is not None:
        return hop, "received"
    return None, "unparseable" if raw and raw.strip() else "none"
