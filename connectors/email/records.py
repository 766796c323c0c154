"""One RFC 822 message -> one SourceRecord (or a RecordFailure saying why not).

Shared by every container (mbox, .eml, zip member, Outlook .msg): containers only find the bytes and the
Origin; everything about what a mail *means* is decided here, so the same message keys the same everywhere.
"""

import datetime as dt
import functools
import re
from email import policy
from email.headerregistry import HeaderRegistry
from email.message import Message
from email.parser import BytesParser

from connectors.email.dates import message_date
from connectors.email.identity import (
    UNKNOWN_SENDER_ID,
    actor_for,
    is_automated,
    message_ids,
    normalise_message_id,
    synthetic_key,
)
from connectors.email.mime_parts import (
    all_defects,
    attachments,
    body_text,
    find_body_part,
    header_addresses,
    header_text,
    raw_header,
    raw_headers,
)
from connectors.email.plain_message import read_plain
from ground.records import Actor, Attachment, ErrorClass, Origin, Participant, RecordFailure, SourceRecord

SOURCE = "email"

# Headers kept verbatim (decoded) in fields["headers"]: list/thread context and client hints.
KEPT_HEADERS = (
    "List-Id",
    "List-Archive",
    "List-Post",
    "X-Mailer",
    "User-Agent",
    "Organization",
    "Reply-To",
    "Sender",
    "Auto-Submitted",
    "Precedence",
    "Importance",
    "X-Priority",
    "Thread-Topic",
    "Thread-Index",
    "Content-Language",
    "Archived-At",
    "X-Original-To",
    "Delivered-To",
)
# Headers whose <URI> values become record links.
LINK_HEADERS = ("List-Archive", "List-Post", "List-Help", "List-Subscribe", "List-Unsubscribe", "Archived-At")
# A file is only taken for mail when at least one of these is present (SOURCES.md lists text that is not mail).
MAIL_HEADERS = {
    "from",
    "to",
    "cc",
    "bcc",
    "subject",
    "date",
    "message-id",
    "received",
    "mime-version",
    "content-type",
    "return-path",
    "sender",
    "in-reply-to",
    "references",
    "delivered-to",
    "reply-to",
}
# The synthetic key hashes these plus the body: stable across archives, independent of transport headers.
SYNTHETIC_KEY_HEADERS = ("From", "To", "Cc", "Subject", "Date")

_URI = re.compile(r"<\s*([a-zA-Z][a-zA-Z0-9+.-]*:[^<>\s]+)\s*>")
_HEADER_LINE = re.compile(rb"^[\x21-\x39\x3b-\x7e]+[ \t]*:")


class _CachingHeaderRegistry(HeaderRegistry):
    """policy.default's header factory, memoised: the stdlib re-parses a header (and builds a class) on every
    access, which made header handling ~60% of the reader's time. Header objects are immutable str subclasses,
    so sharing them is safe. The cache is small (1024 entries, a few MB) because unique headers (Message-ID,
    Subject, References) would otherwise fill it with parse trees: 8192 entries cost ~60 MB of RSS in the bench."""

    def __init__(self) -> None:
        super().__init__()
        self._cached = functools.lru_cache(maxsize=1024)(super().__call__)

    def __call__(self, name, value):
        try:
            return self._cached(name, value)
        except TypeError:  # unhashable value: never expected, but never fatal
            return super().__call__(name, value)


MAIL_POLICY = policy.default.clone(header_factory=_CachingHeaderRegistry())
_PARSER = BytesParser(policy=MAIL_POLICY)


def parse_message(data: bytes) -> Message:
    return _PARSER.parsebytes(data)


def not_mail_reason(data: bytes, msg: Message, in_mbox: bool = False) -> str | None:
    """Why these bytes are not an RFC 822 message, or None when they are.

    Inside an mbox the separator already says "this is a message", so any header block will do; a lone file
    must carry at least one real mail header (exports are full of READMEs, HTML fragments and images).
    """
    if not data.strip():
        return "empty message: no RFC 822 header block"
    names = {key.lower() for key, _ in msg.raw_items()}
    if names & MAIL_HEADERS or (in_mbox and names):
        return None
    first = data.lstrip(b"\r\n").split(b"\n", 1)[0][:80]
    if not _HEADER_LINE.match(first):
        shown = first.decode("utf-8", "replace").strip()
        return f"no RFC 822 header block: first line {shown!r} is not a header field"
    return "no RFC 822 header block: none of From/To/Subject/Date/Message-ID/Content-Type present"


UTF8_BOM = b"\xef\xbb\xbf"


def record_from_bytes(data: bytes, origin: Origin, from_line: str | None = None) -> SourceRecord | RecordFailure:
    """Parse and convert; never raises (a crash inside the stdlib parser becomes a parse_error failure)."""
    if data.startswith(UTF8_BOM):  # editors and some exporters write one; it is not part of the first header
        data = data[len(UTF8_BOM) :]
    try:
        plain = read_plain(data, MAIL_POLICY)  # plain single-part text: the stdlib's parse and body lookup skipped
        msg = plain[0] if plain is not None else parse_message(data)
    except Exception as exc:  # noqa: BLE001
        return failure(origin, ErrorClass.parse_error, f"the email parser gave up: {type(exc).__name__}: {exc}")
    reason = not_mail_reason(data, msg, in_mbox=from_line is not None)
    if reason:
        return failure(origin, ErrorClass.parse_error, reason)
    return record_from_message(msg, origin, from_line, None if plain is None else plain[1])


def record_from_message(
    msg: Message, origin: Origin, from_line: str | None = None, plain_body: str | None = None
) -> SourceRecord | RecordFailure:
    """``plain_body``: the body text when read_plain already found it (a single text/plain part, no attachment,
    no defect), else None and the stdlib finds it."""
    key = None
    try:
        key = normalise_message_id(raw_header(msg, "Message-ID"))
        if plain_body is not None:
            return build_record(msg, plain_body, "plain", [], [], origin, from_line)
        body_part = find_body_part(msg)
        body, body_kind = body_text(body_part)
        files = attachments(msg, body_part)
        return build_record(msg, body, body_kind, files, all_defects(msg), origin, from_line)
    except Exception as exc:  # noqa: BLE001 - one message must never stop the export
        return failure(origin, ErrorClass.parse_error, f"could not read this message: {type(exc).__name__}: {exc}", key)


def build_record(
    headers: Message,
    body: str,
    body_kind: str,
    files: list[Attachment],
    defects: list[str],
    origin: Origin,
    from_line: str | None = None,
    fallback_date: dt.datetime | None = None,
) -> SourceRecord | RecordFailure:
    """Turn decoded parts into a record. ``headers`` only needs the header fields (the .msg path passes those)."""
    present = raw_headers(headers)  # most of the ~35 headers asked for below are absent: answered from the index

    def raw(name: str) -> str | None:
        values = present.get(name.lower())
        return values[0] if values else None

    def text(name: str) -> str | None:
        return header_text(headers, name) if name.lower() in present else None

    def addresses(name: str) -> list[tuple[str, str]]:
        return header_addresses(headers, name) if name.lower() in present else []

    own_key = normalise_message_id(raw("Message-ID"))
    synthetic = own_key is None
    if synthetic:
        own_key = synthetic_key(((n, text(n) or "") for n in SYNTHETIC_KEY_HEADERS), body)

    moment, date_source = message_date(headers, from_line)
    if moment is None and fallback_date is not None:
        moment, date_source = fallback_date, "container"
    if moment is None:
        if date_source == "unparseable":
            return failure(
                origin,
                ErrorClass.bad_value,
                f"Date header {raw('Date')!r} is not a date, and there is no mbox "
                "envelope or Received timestamp to fall back on",
                own_key,
            )
        return failure(
            origin,
            ErrorClass.missing_field,
            "no Date header, no mbox envelope date and no Received timestamp: cannot place this message in time",
            own_key,
        )

    lowered = {n.lower(): (text(n) or "") for n in ("Auto-Submitted", "Precedence", "List-Id")}
    senders = [(n, a.lower()) for n, a in addresses("From") if a]
    if not senders:
        senders = [(n, a.lower()) for n, a in addresses("Sender") if a]
    if senders:
        name, address = senders[0]
        actor = actor_for(" ".join(name.split()), "".join(address.split()), is_automated(address, lowered))
    else:
        actor = Actor(type="system", id=UNKNOWN_SENDER_ID, name=None, email=None)

    participants: list[Participant] = []
    recipients: dict[str, list[str]] = {}
    for role in ("to", "cc", "bcc"):
        pairs = [(" ".join(n.split()), "".join(a.split()).lower()) for n, a in addresses(role)]
        seen: set[str] = set()
        recipients[role] = []
        for name, address in pairs:
            if not address or address in seen:
                continue
            seen.add(address)
            recipients[role].append(address)
            participants.append(Participant(role=role, actor=actor_for(name, address, is_automated(address, {}))))

    references = message_ids(raw("References"))
    reply_to = message_ids(raw("In-Reply-To"))
    related = [ref for ref in references if ref != own_key]
    # In-Reply-To names the parent; the last References id is the RFC 5322 fallback. A message never
    # parents itself (seen in the wild: loops), which keeps every parent walk finite.
    parent = next((ref for ref in reply_to if ref != own_key), None) or (related[-1] if related else None)
    thread = related[0] if related else parent or own_key

    kept = {}
    for name in KEPT_HEADERS:
        value = text(name)
        if value:
            kept[name] = value
    links: list[str] = []
    for name in LINK_HEADERS:
        for uri in _URI.findall(raw(name) or ""):
            if uri not in links:
                links.append(uri)
    archived = _URI.findall(raw("Archived-At") or "")
    language = (text("Content-Language") or "").split(",")[0].strip() or None

    fields: dict = {
        "to": recipients["to"],
        "cc": recipients["cc"],
        "headers": kept,
        "defects": defects,
        "date_source": date_source,
        "body_kind": body_kind,
        "synthetic_key": synthetic,
    }
    if recipients["bcc"]:
        fields["bcc"] = recipients["bcc"]
    if actor.id == UNKNOWN_SENDER_ID:
        fields["sender_missing"] = True
    if from_line is not None:
        fields["envelope"] = from_line

    return SourceRecord(
        source=SOURCE,
        kind="email",
        source_key=own_key,
        version="1",
        url=archived[0] if archived else None,
        title=text("Subject") or "",
        body=body,
        actor=actor,
        occurred_at=moment,
        updated_at=moment,
        participants=participants,
        attachments=files,
        links=links,
        parent_key=parent,
        thread_key=thread,
        related_keys=related,
        language=language,
        fields=fields,
        origin=origin,
    )


failure = functools.partial(RecordFailure.at, SOURCE)  # (origin, error_class, reason, key=None)
