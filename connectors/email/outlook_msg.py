"""Outlook .msg (CFB/OLE container) -> record, through extract-msg.

The transport headers extract-msg recovers are re-parsed with policy.default so keys, dates and addresses
go through exactly the same code as RFC 822 mail; body and attachments come from the MAPI properties.
"""

import hashlib
import logging
import mimetypes
from email import policy
from email.message import EmailMessage
from email.parser import HeaderParser
from email.utils import format_datetime

from connectors.email.records import build_record, failure
from ground.records import Attachment, ErrorClass, Origin, RecordFailure, SourceRecord
from transforms.html_text import html_to_text

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# extract-msg logs loudly about every property it does not know; that is noise for an export run.
logging.getLogger("extract_msg").setLevel(logging.ERROR)


def record_from_msg_bytes(data: bytes, origin: Origin) -> SourceRecord | RecordFailure:
    if not data.startswith(CFB_MAGIC):
        return failure(origin, ErrorClass.parse_error, "not an Outlook .msg (no CFB/OLE signature)")
    try:
        import extract_msg  # imported lazily: it is heavy and only .msg exports need it
        from extract_msg.msg_classes import MessageBase

        msg = extract_msg.openMsg(data)
    except Exception as exc:  # noqa: BLE001
        return failure(origin, ErrorClass.parse_error, f"extract-msg could not open it: {type(exc).__name__}: {exc}")
    try:
        if not isinstance(msg, MessageBase):
            return failure(
                origin, ErrorClass.unsupported, f"Outlook item of type {type(msg).__name__} is not a mail message"
            )
        headers = _headers(msg)
        body = msg.body or ""
        kind = "plain"
        if not body.strip() and msg.htmlBody:
            html = msg.htmlBody
            body, kind = html_to_text(html.decode("utf-8", "replace") if isinstance(html, bytes) else html), "html"
        files = [_attachment(n, a) for n, a in enumerate(msg.attachments)]
        return build_record(
            headers, body.replace("\r\n", "\n").strip("\n"), kind, files, [], origin, fallback_date=msg.date
        )
    except Exception as exc:  # noqa: BLE001
        return failure(
            origin, ErrorClass.parse_error, f"could not read this Outlook message: {type(exc).__name__}: {exc}"
        )
    finally:
        try:
            msg.close()
        except Exception:  # noqa: BLE001
            pass


def _headers(msg) -> EmailMessage:
    """Transport headers when the .msg kept them (received mail), else headers rebuilt from MAPI fields."""
    parsed: EmailMessage | None = None
    if msg.header is not None:
        try:
            parsed = HeaderParser(policy=policy.default).parsestr(msg.header.as_string())
        except Exception:  # noqa: BLE001
            parsed = None
    if parsed is None:
        parsed = EmailMessage(policy=policy.default)
    for name, value in (
        ("Subject", msg.subject),
        ("From", msg.sender),
        ("To", msg.to),
        ("Cc", msg.cc),
        ("Message-ID", getattr(msg, "messageId", None)),
    ):
        if value and parsed.get(name) is None:
            try:
                parsed[name] = value
            except Exception:  # noqa: BLE001
                pass
    if parsed.get("Date") is None and msg.date is not None:
        parsed["Date"] = format_datetime(msg.date)
    return parsed


def _attachment(number: int, item) -> Attachment:
    name = (
        getattr(item, "longFilename", None)
        or getattr(item, "shortFilename", None)
        or getattr(item, "name", None)
        or f"part-{number}.bin"
    )
    data = getattr(item, "data", None)
    media_type = getattr(item, "mimetype", None) or mimetypes.guess_type(str(name))[0]
    if isinstance(data, bytes):
        return Attachment(
            name=str(name), size=len(data), sha256=hashlib.sha256(data).hexdigest(), media_type=media_type
        )
    # An embedded Outlook item: a reference by name only (its bytes are a nested container, not a file).
    return Attachment(name=str(name), media_type=media_type or "application/vnd.ms-outlook")
