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


def parse_rfc5322_date(value: str | None) -> dt.datetime | None:
    if not value or not value.strip():
        return None
    try:
        parsed = parsedate_to_datetime(" ".join(value.split()))
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
