"""A cheaper read of the commonest mail: one text/plain part, no transfer encoding, a well-formed header block.

The stdlib's feed parser, ``get_body`` and ``get_content`` cost ~70 us on a 190-byte notification, more than a
third of its record (issue 30: archives of millions of tiny messages must read at the contract's rate). For a
message this module accepts, it builds the same ``EmailMessage`` the parser would (the header lines split exactly
as ``FeedParser._parse_headers`` and ``EmailPolicy.header_source_parse`` split them, so every header accessor
behaves identically) and decodes the body as ``get_content`` would. Anything it is not sure of (a CR in the header
block, a line the parser would flag as a defect, MIME, an encoding, another charset, a disposition) returns None
and goes through the stdlib unchanged. ``tests/email/test_plain_message.py`` compares the two paths record by
record, over generated messages and every qualifying corpus message.
"""

import re
from email.message import EmailMessage
from email.policy import Policy

# A header line as the feed parser takes it without a defect: a field name, a colon (an "From " envelope line, a
# line without a name or a colon is handled by the stdlib path), or a continuation after the first line.
_FIELD = re.compile(r"[\x21-\x39\x3b-\x7e]+:")
# Content-Type values whose body get_content decodes with that charset (absent: ASCII) and nothing else.
_PLAIN_TYPE = re.compile(
    r'[ \t]*text/plain[ \t]*(?:;[ \t]*charset=(?:"(us-ascii|utf-8)"|(us-ascii|utf-8))[ \t]*)?', re.I
)
_IDENTITY_ENCODING = re.compile(r"[ \t]*(?:7bit|8bit)[ \t]*", re.I)
# Headers whose presence or repetition changes how the stdlib reads the body: left to it.
_BODY_HEADERS = ("content-type", "content-transfer-encoding")


def read_plain(data: bytes, policy: Policy) -> tuple[EmailMessage, str] | None:
    """(the message as the parser builds it, its body text as find_body_part + body_text give it), or None when
    the message is not plain single-part text with a header block the parser reads without a defect."""
    end = data.find(b"\n\n")
    if end <= 0 or b"\r" in data[:end]:
        return None
    text = data[:end].decode("ascii", "surrogateescape")  # what BytesParser does to the whole message
    headers: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    lines = text.split("\n")
    for line in lines:
        if line[:1] in (" ", "\t"):
            if not headers:
                return None  # FirstHeaderLineIsContinuationDefect
            name, value = headers[-1]
            headers[-1] = (name, value + "\n" + line)
            continue
        match = _FIELD.match(line)
        if match is None:
            return None
        name = line[: match.end() - 1]
        lowered = name.lower()
        if lowered == "content-disposition" or (lowered in _BODY_HEADERS and lowered in seen):
            return None
        value = line[match.end() :].lstrip(" \t")
        seen[lowered] = value
        headers.append((name, value))
    content_type = seen.get("content-type")
    charset = "ascii"
    if content_type is not None:
        typed = _PLAIN_TYPE.fullmatch(content_type)
        if typed is None or "\n" in content_type:
            return None
        charset = typed.group(1) or typed.group(2) or "ascii"
    encoding = seen.get("content-transfer-encoding")
    if encoding is not None and (_IDENTITY_ENCODING.fullmatch(encoding) is None or "\n" in encoding):
        return None
    msg = EmailMessage(policy=policy)
    for name, value in headers:
        msg.set_raw(name, value.rstrip("\r\n"))
    body = data[end + 2 :]
    msg.set_payload(body.decode("ascii", "surrogateescape"))
    return msg, body.decode(charset, "replace").strip("\n")
