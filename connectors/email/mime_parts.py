"""Reading one parsed message defensively: header text, the body part, attachments, MIME defects.

Python's ``email`` (policy.default) is lenient but some accessors raise on hostile input (unknown charsets,
broken encoded words, odd address syntax). Every accessor here catches that and falls back to the raw value,
because one bad header must not cost the whole message.
"""

import hashlib
import mimetypes
import re
from collections.abc import Iterator
from email.header import decode_header, make_header
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage, Message
from email.utils import getaddresses

from connectors.email.unstructured import LONG, unstructured_text
from ground.records import Attachment
from transforms.html_text import html_to_text

MAX_DEPTH = 64
_TAGS = re.compile(r"<[^>]+>")


def unescape_bytes(text: str) -> str:
    """Undo surrogateescape: raw 8-bit bytes in headers come back as lone surrogates, which no JSON or database
    accepts. Re-read those bytes as UTF-8, else as cp1252 (the usual culprit), never failing."""
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return text
    data = text.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def raw_header(msg: Message, name: str) -> str | None:
    """The undecoded value of the first header called ``name`` (no parsing, cannot raise)."""
    values = raw_headers(msg).get(name.lower())
    return values[0] if values else None


def raw_headers(msg: Message) -> dict[str, list[str]]:
    """Lower-cased name -> the undecoded values of every header so called, in order. Built once per message and kept
    on it (a record looks up ~35 headers, most absent: a scan of all headers each was half the cost of a tiny mail);
    rebuilt when the headers changed since."""
    items = list(msg.raw_items() if hasattr(msg, "raw_items") else msg.items())
    cached = getattr(msg, _INDEX, None)
    if cached is not None and cached[0] == items:
        return cached[1]
    index: dict[str, list[str]] = {}
    for key, value in items:
        index.setdefault(key.lower(), []).append(str(value))
    try:
        setattr(msg, _INDEX, (items, index))
    except AttributeError:  # an object that takes no attributes: index built per call
        pass
    return index


_INDEX = "_graphfeed_raw_headers"


# Headers policy.default parses as unstructured text (every name outside its registry, and Subject): for those, an
# ASCII value without an encoded word ("=?") decodes to itself, so the parse (~0.3 ms each, most Subjects unique) is
# skipped. Structured headers (addresses, dates, ids) still go through the parser, which reformats them.
_STRUCTURED = frozenset(HeaderRegistry().registry) - {"subject"}


def header_text(msg: Message, name: str) -> str | None:
    """Decoded header text: RFC 2047 words resolved, folding removed. None when absent."""
    raw = raw_header(msg, name)
    if raw is None:
        return None
    if name.lower() not in _STRUCTURED:
        if raw.isascii() and "=?" not in raw:
            return " ".join(raw.split())
        if len(raw) > LONG:  # the stdlib parse is quadratic in the length: same text, parsed in pieces
            try:
                return _flat(unstructured_text(raw))
            except Exception:  # noqa: BLE001 - the usual path below decides
                pass
    try:
        value = msg[name]
        if value is not None:
            return _flat(str(value))
    except Exception:  # noqa: BLE001 - fall through to the older decoder
        pass
    try:
        return _flat(str(make_header(decode_header(raw))))
    except Exception:  # noqa: BLE001
        return _flat(raw)


def _flat(text: str) -> str:
    """One line (folding and runs of whitespace collapsed), undecodable bytes restored as text."""
    return unescape_bytes(" ".join(text.split()))


# A bare address in dot-atom form (``u0@example.com``), the whole header value: its parse is the value itself.
_PLAIN_ADDRESS = re.compile(r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")


def header_addresses(msg: Message, name: str) -> list[tuple[str, str]]:
    """[(display name, address)] of every header ``name``; structured parse first, plain split as fallback."""
    values = raw_headers(msg).get(name.lower())
    if not values:
        return []
    plain = [v.strip(" \t") for v in values]
    if all(_PLAIN_ADDRESS.fullmatch(v) for v in plain):
        # what the stdlib's address parse gives for these (~10 us each, most senders unique), without it
        return [("", v) for v in plain]
    pairs: list[tuple[str, str]] = []
    try:
        for header in msg.get_all(name) or []:
            for address in getattr(header, "addresses", ()):
                pairs.append((address.display_name or "", address.addr_spec or ""))
        if pairs or not msg.get_all(name):
            return [(unescape_bytes(n), unescape_bytes(a)) for n, a in pairs if a and a != "<>"]
    except Exception:  # noqa: BLE001
        pairs = []
    raw_values = [str(v) for k, v in _raw_items(msg) if k.lower() == name.lower()]
    for display, address in getaddresses(raw_values):
        try:
            display = str(make_header(decode_header(display)))
        except Exception:  # noqa: BLE001
            pass
        if address:
            pairs.append((unescape_bytes(display), unescape_bytes(address)))
    return pairs


def _raw_items(msg: Message) -> list[tuple[str, str]]:
    return list(msg.raw_items()) if hasattr(msg, "raw_items") else list(msg.items())


def leaf_parts(part: Message, depth: int = 0) -> Iterator[Message]:
    """Non-multipart parts in order; an attached message/rfc822 is one leaf (it is an attachment, not body)."""
    if depth > MAX_DEPTH:
        return
    if part.get_content_maintype() == "multipart" and part.is_multipart() and isinstance(part.get_payload(), list):
        for sub in part.get_payload():
            if isinstance(sub, Message):
                yield from leaf_parts(sub, depth + 1)
    else:
        yield part


def all_defects(msg: Message, depth: int = 0) -> list[str]:
    """Names of the MIME defects Python reported anywhere in the message, first occurrence order."""
    names: list[str] = []
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, level = stack.pop(0)
        for defect in getattr(part, "defects", []):
            name = type(defect).__name__
            if name not in names:
                names.append(name)
        if level < MAX_DEPTH and part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((sub, level + 1) for sub in payload if isinstance(sub, Message))
    return names


def part_text(part: Message) -> str:
    """Decoded text of a text/* part, whatever its charset claims; undecodable bytes become U+FFFD."""
    try:
        content = part.get_content() if isinstance(part, EmailMessage) else None
        if isinstance(content, str):
            return content
    except Exception:  # noqa: BLE001 - unknown charset / broken transfer encoding: decode by hand below
        pass
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if payload is None:
        raw = part.get_payload()
        return raw if isinstance(raw, str) else ""
    charset = _charset(part)
    for candidate in (charset, "utf-8"):
        try:
            return payload.decode(candidate, errors="replace" if candidate == charset else "strict")
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


def _charset(part: Message) -> str:
    try:
        return part.get_content_charset() or "utf-8"
    except Exception:  # noqa: BLE001
        return "utf-8"


def _is_attachment_disposition(part: Message) -> bool:
    try:
        return (part.get_content_disposition() or "") == "attachment"
    except Exception:  # noqa: BLE001
        return False


def _filename(part: Message) -> str | None:
    try:
        name = part.get_filename()
    except Exception:  # noqa: BLE001
        return None
    return " ".join(str(name).split()) if name else None


def find_body_part(msg: Message) -> Message | None:
    """text/plain preferred, else text/html (RFC 2046 alternative rules via get_body), else any inline text."""
    body: Message | None = None
    if isinstance(msg, EmailMessage):
        try:
            body = msg.get_body(preferencelist=("plain", "html"))
        except Exception:  # noqa: BLE001
            body = None
        if body is not None and body.get_content_subtype() == "plain" and not part_text(body).strip():
            try:
                body = msg.get_body(preferencelist=("html",)) or body
            except Exception:  # noqa: BLE001
                pass
    if body is None:
        for part in leaf_parts(msg):
            if (
                part.get_content_maintype() in ("text", "multipart")
                and not _is_attachment_disposition(part)
                and not _filename(part)
            ):
                return part  # a multipart leaf is one whose boundary was never found: its raw text is the body
    return body


def body_text(part: Message | None) -> tuple[str, str]:
    """(text, kind) where kind is plain/html/<subtype>/none."""
    if part is None:
        return "", "none"
    text = part_text(part)
    subtype = part.get_content_subtype()
    if part.get_content_maintype() == "multipart":
        # Broken boundary: keep the raw text (MIME headers and all) rather than lose the message content.
        lowered = text.lower()
        return (
            (html_to_text(text), "broken_multipart")
            if "<html" in lowered or "<body" in lowered
            else (text.strip("\n"), "broken_multipart")
        )
    if subtype == "html":
        return html_to_text(text), "html"
    if subtype == "enriched":
        return _TAGS.sub("", text).strip(), "enriched"
    return text.strip("\n"), subtype


def attachments(msg: Message, body: Message | None) -> list[Attachment]:
    """Every leaf that is not the body or one of its text alternatives, as a reference (name, size, sha256)."""
    result: list[Attachment] = []
    for number, part in enumerate(leaf_parts(msg)):
        if part is body:
            continue
        maintype = part.get_content_maintype()
        if maintype == "multipart":
            continue  # an unsplittable multipart is body text (see find_body_part), never a file
        name = _filename(part)
        if maintype == "text" and not name and not _is_attachment_disposition(part):
            continue  # an alternative rendering of the body, not an attachment
        if part is msg and maintype == "text" and body is None and not name:
            continue
        data = _payload_bytes(part)
        media_type = part.get_content_type()
        if not name:
            extension = ".eml" if media_type == "message/rfc822" else mimetypes.guess_extension(media_type) or ".bin"
            name = f"part-{number}{extension}"
        result.append(
            Attachment(
                name=name,
                size=len(data) if data is not None else None,
                sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
                media_type=media_type,
            )
        )
    return result


def _payload_bytes(part: Message) -> bytes | None:
    try:
        if part.get_content_maintype() == "message":
            inner = part.get_payload()
            if isinstance(inner, list) and inner:
                return inner[0].as_bytes()
        data = part.get_payload(decode=True)
        if data is None:
            raw = part.get_payload()
            data = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else None
        return data
    except Exception:  # noqa: BLE001
        return None
