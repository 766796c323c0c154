"""Keep what the sender wrote: drop quoted history and signatures from a mail body.

Own rules, not a library: email-reply-parser misses non-English reply headers (Russian/German/Chinese) and
talon drags in numpy/scipy/scikit-learn while its ML signature module no longer imports with current
scikit-learn (see the connector report). The rules are deliberately conservative:

1. cut at the first reply header (EN "On ... wrote:", DE "Am ... schrieb ...:", ZH "在 ... 写道：", RU "...
   написал:", FR "Le ... a écrit :", Outlook "-----Original Message-----" / "From: + Sent:" blocks and their
   German/Chinese forms, "Begin forwarded message" is NOT cut: a forward's content is the point);
2. drop ``>`` quoted lines;
3. drop a signature: the last "-- " delimiter block, "Sent from my ..." style lines, or a closing
   ("Thanks,", "Best regards", "Mit freundlichen Grüßen", "此致"...) followed by a short name block.

Never remove the whole message: if stripping leaves nothing, the original text is returned.
"""

import re

_WROTE_EN = re.compile(r"^\s*On\b.{0,300}\b(wrote|writes)\s*:\s*$", re.IGNORECASE | re.DOTALL)
_WROTE_DE = re.compile(r"^\s*Am\b.{0,300}\bschrieb\b.{0,200}:\s*$", re.DOTALL)
_WROTE_ZH = re.compile(r"^\s*在.{0,300}写道\s*[:：]\s*$", re.DOTALL)
_WROTE_RU = re.compile(r"^.{0,300}\bнаписал[аи]?\s*[:：]\s*$", re.IGNORECASE | re.DOTALL)
_WROTE_FR = re.compile(r"^\s*Le\b.{0,300}\ba\s+écrit\s*:\s*$", re.IGNORECASE | re.DOTALL)
_WROTE_GENERIC = re.compile(
    r"^.{0,200}<?[\w.+-]+@[\w.-]+>?\s*(wrote|schrieb|a écrit|escribió|написал)\s*:\s*$", re.IGNORECASE
)
_WROTE_LINES = (_WROTE_EN, _WROTE_DE, _WROTE_ZH, _WROTE_RU, _WROTE_FR, _WROTE_GENERIC)

_ORIGINAL_MESSAGE = re.compile(
    r"^\s*[-_=]{2,}\s*(Original Message|Ursprüngliche Nachricht|Originalnachricht|原始邮件|Message d'origine|"
    r"Mensaje original|Исходное сообщение|Reply message)\s*[-_=]{2,}\s*$",
    re.IGNORECASE,
)
_RULE = re.compile(r"^\s*_{10,}\s*$")
_HEADER_FROM = re.compile(r"^\s*\*?(From|Von|De|发件人|寄件者|От)\s*\*?\s*[:：]", re.IGNORECASE)
_HEADER_NEXT = re.compile(
    r"^\s*\*?(Sent|Date|To|Subject|Cc|Gesendet|Datum|An|Betreff|Envoyé|Objet|À|发送时间|日期|收件人|主题|抄送|"
    r"Отправлено|Кому|Тема)\s*\*?\s*[:：]",
    re.IGNORECASE,
)

_SIG_DELIMITER = re.compile(r"^(-- ?|--|__|-{4,}|_{4,})\s*$")
_CONTACT = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|https?://|www\.|\+?\(?\d[\d ()./-]{6,}\d|^\s*(t|f|m|tel|fax|mobile|phone|skype)\s*[.:]",
    re.IGNORECASE,
)
_NAME = re.compile(r"^\s*[A-ZÀ-Ý][\w'.-]+(\s+[A-ZÀ-Ý][\w'.-]*){0,3}\s*$")
_SENT_FROM = re.compile(
    r"^\s*(Sent (from|with|via) (my )?\S.{0,60}|Get Outlook for \S.{0,40}|Von meinem \S.{0,40} gesendet|"
    r"Gesendet von meinem \S.{0,40}|发自我的\S.{0,40}|Envoyé de mon \S.{0,40})\s*$",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"^\s*(thanks( (a lot|again|and regards|& regards))?|thank you( very much)?|many thanks|cheers|regards|"
    r"best( regards| wishes)?|kind regards|warm regards|best wishes|sincerely( yours)?|yours( truly| sincerely)?|"
    r"all the best|br|mfg|mit freundlichen grüßen|mit freundlichen gruessen|freundliche grüße|viele grüße|"
    r"beste grüße|liebe grüße|lg|vg|gruß|grüße|danke( schön| sehr)?|此致|敬礼|此致敬礼|谢谢|多谢|祝好|顺祝商祺)"
    r"\s*[,.!，。！]?\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"^(On|Am|Le|在)\b|^在|^\d")
_ATTRIBUTION_END = re.compile(r"(wrote|schrieb|a écrit|написал[аи]?|写道)\s*[:：]?\s*$")
MAX_SIGNATURE_LINES = 12  # a "-- " block longer than this is probably content, not a signature
MAX_NAME_BLOCK_LINES = 4  # lines allowed after a closing
MAX_NAME_LINE_CHARS = 60


def strip_reply(text: str) -> str:
    """The new content of a reply: quoted history and signature removed; the original when nothing would remain."""
    if not text or not text.strip():
        return text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = _cut_at_reply_header(lines)
    lines = [line for line in lines if not line.lstrip().startswith(">")]
    lines = _strip_signature(_trim(lines))
    result = "\n".join(_trim(lines)).strip()
    return result if result else text.strip()


def _trim(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _cut_at_reply_header(lines: list[str]) -> list[str]:
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if _ORIGINAL_MESSAGE.match(line):
            return lines[:index]
        if _HEADER_FROM.match(line) and _header_block_follows(lines, index):
            return lines[: index - 1] if index and _RULE.match(lines[index - 1]) else lines[:index]
        if not _starts_reply_header(line):  # the cheap guard first: most lines start no attribution
            continue
        # "On <date>, <name> wrote:" is often wrapped over two or three lines by the replying client.
        for span in (1, 2, 3):
            joined = " ".join(part.strip() for part in lines[index : index + span])
            if len(joined) <= 400 and any(p.match(joined) for p in _WROTE_LINES):
                rest = [line for line in lines[index + span :] if line.strip()]
                if rest and rest[0].lstrip().startswith(">") and any(not r.lstrip().startswith(">") for r in rest):
                    # Bottom-posting or inline reply: the new text is below the quote, keep it.
                    return lines[:index] + _cut_at_reply_header(lines[index + span :])
                return lines[:index]
    return lines


def _starts_reply_header(line: str) -> bool:
    """Guard for multi-line joins: the first line must itself look like the start of an attribution."""
    stripped = line.strip()
    return "@" in stripped or bool(_ATTRIBUTION_START.match(stripped)) or bool(_ATTRIBUTION_END.search(stripped))


def _header_block_follows(lines: list[str], index: int) -> bool:
    """An Outlook-style header block: From: followed within 4 lines by Sent:/Date:/To:/Subject: (any language)."""
    following = [line for line in lines[index + 1 : index + 6] if line.strip()][:4]
    return sum(1 for line in following if _HEADER_NEXT.match(line)) >= 1


def _strip_signature(lines: list[str]) -> list[str]:
    if not lines:
        return lines
    after = 0  # non-blank lines below `index`, counted as the scan goes up
    for index in range(len(lines) - 1, -1, -1):
        if after > MAX_SIGNATURE_LINES:
            break
        if _SIG_DELIMITER.match(lines[index]) and index > 0:
            lines = _trim(lines[:index])
            break
        if lines[index].strip():
            after += 1
    while lines and _SENT_FROM.match(lines[-1]):
        lines = _trim(lines[:-1])
    return _strip_contact_block(_strip_closing(lines))


def _strip_contact_block(lines: list[str]) -> list[str]:
    """A last paragraph that is a name line plus contact lines (mail, phone, web): a signature without "-- "."""
    start = len(lines)
    while start > 0 and lines[start - 1].strip():
        start -= 1
    block = lines[start:]
    if start == 0 or not 2 <= len(block) <= 6 or not _NAME.match(block[0]):
        return lines
    if sum(1 for line in block[1:] if _CONTACT.search(line)) >= max(1, (len(block) - 1) // 2):
        return _strip_closing(_trim(lines[:start]))
    return lines


def _strip_closing(lines: list[str]) -> list[str]:
    """A closing word within the last few lines, followed only by short name-like lines."""
    last = len(lines) - 1
    for index in range(last, max(-1, last - MAX_NAME_BLOCK_LINES - 1), -1):
        if _CLOSING.match(lines[index]):
            tail = [line for line in lines[index + 1 :] if line.strip()]
            if len(tail) <= MAX_NAME_BLOCK_LINES and all(_name_like(line) for line in tail) and index > 0:
                return _trim(lines[:index])
            return lines
    return lines


_REFERENCE = re.compile(r"^\s*\[\d+\]|://")


def _name_like(line: str) -> bool:
    """A line of a name block under a closing; a reference list ("[1] https://...") is content, not a name."""
    stripped = line.strip()
    return (
        len(stripped) <= MAX_NAME_LINE_CHARS
        and not stripped.endswith(("?", ":"))
        and len(stripped.split()) <= 8
        and not _REFERENCE.search(stripped)
    )
