"""Machine ids a text names by their shape: URLs (classified as Jira issue, Confluence page, Salesforce record or plain
URL), Message-IDs and e-mail addresses, and file names (bracketed or bare; reference_files strips Chinese connector
words and decides when a bare one is an attachment).

Used by the rule pass in transforms/references.py; see its docstring for the rules and their priority.
"""

import re
from collections.abc import Iterator, Sequence
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from ground.identity import salesforce_id18, salesforce_ref_id
from transforms.reference_model import ReferenceKind, _Base, _fold, _Prepared

# --------------------------------------------------------------------------------------------------- organisations

# A legal form at the end of a name, written with or without its dots and the comma before it: "Acme Corp." and
# "Acme Corp", "CAIXABANK, S.A." and "Caixabank SA", "IBM Italia S.p.A." and "IBM Italia SpA" are one organisation.
_LEGAL_TAIL = re.compile(
    r",?[ ]((?:[a-z]{1,2}\.[ ]?){1,3}[a-z]{0,2}|inc|corp|ltd|co|llc|plc|gmbh|ag|kg|spa|srl|sa|sl|sas|bv|nv|ev|pty|oy)"
    r"\.?$"
)


def org_key(name: str) -> str:
    """An organisation name as its id compares it: casefolded, the legal form without dots or comma, no final dot."""
    folded = _fold(name)
    tail = _LEGAL_TAIL.search(folded)
    if tail and tail.start() > 0:
        folded = f"{folded[: tail.start()]} {tail.group(1).replace('.', '').replace(' ', '')}"
    return folded.rstrip(". ")


def org_ref_id(name: str) -> str:
    """The one place an organisation's id is made (NER, legal forms, the export's accounts and mail domains)."""
    return f"org:{org_key(name)}"


# A company written as its domain ("MySurvey.com: You have a survey waiting!", "Профессионалы.ru"): a capital, a
# lower-case letter in the name and a common top-level domain; no file extension (.py, .js, .pl, .sh, .cc, .md); not
# the tail of a joined name ("Barnes & Noble.com").
_TLD = r"\.(?:com|net|org|io|info|biz|ru|de|fr|it|es|nl|ch|eu)(?![\w@/-]|\.\w)"
_DOMAIN_NAME = re.compile(r"(?<![\w.@/:-])(?<!& )([A-ZА-ЯЁ][\w-]*[a-zа-яё][\w-]*" + _TLD + ")")
_TLD_END = re.compile(_TLD)  # searched first: a scan from every capital letter costs ~0.05 ms per mail


def domain_names(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, organisation id) of names written as a domain; URLs and addresses claim their text first."""
    if _TLD_END.search(text):
        for m in _DOMAIN_NAME.finditer(text):
            yield m.start(1), m.end(1), org_ref_id(m.group(1))


# --------------------------------------------------------------------------------------------------- URLs

# ASCII-only URL body; CJK text (Chinese, Japanese kana, Korean Hangul: a particle glued to a URL, "…/setup에서", is
# not part of it) and fullwidth punctuation end a URL. Trailing punctuation is trimmed afterwards.
_URL = re.compile(
    r"(?<![A-Za-z0-9])https?://[^\s<>\"'`{}|\\^\u3000-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uff00-\uffef"
    r"\u1100-\u11ff\u2026]+",
    re.I,
)
_URL_TRAILING = ".,;:!?*'\""
_SALESFORCE_HOSTS = (".force.com", ".salesforce.com", ".cloudforce.com", ".salesforce-setup.com")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_JIRA_KEY_IN_PATH = re.compile(
    r"/browse/([A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6})(?:/|$)|"
    r"/rest/api/(?:\d+|latest)/issue/([A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6})(?:/|$)"
)
_JIRA_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6}")
# A key of a project the export does not know counts where the text itself says it is an issue: a "[KEY-12] Title"
# tag opening a line or following "...: " (commit and pull-request subjects), or a cue word right before it ("see",
# "described in", "ticket (", "fixed in"). Standards and encodings share the shape ("see ISO-9001", "as UTF-8").
_ISSUE_CUE = re.compile(
    r"(?i)(?<![A-Za-z])(?:issues?|tickets?|bugs?|jira|see|duplicates?(?:[ \t]+of)?|described[ \t]+in|"
    r"fixed[ \t]+(?:in|by)|blocked[ \t]+by|relates[ \t]+to|caused[ \t]+by|covered[ \t]+by)[ \t]*[(#]?[ \t]*$"
)
_TITLE_TAG_BEFORE = re.compile(r"(?:^|\n)[ \t]*\[$|:[ \t]+\[$")
_NOT_PROJECTS = frozenset({"ISO", "IEC", "UTF", "RFC", "CVE", "COVID", "SHA", "MD", "EN", "DIN", "IEEE", "ECMA", "PEP"})


def marked_issue_key(text: str, start: int, end: int) -> bool:
    """Whether the text marks the key at [start, end) as an issue (see _ISSUE_CUE), whatever its project."""
    if text[start:end].rsplit("-", 1)[0] in _NOT_PROJECTS:
        return False
    if _TITLE_TAG_BEFORE.search(text, max(0, start - 40), start) and re.match(r"\][ \t]+[A-Za-z]", text[end : end + 3]):
        return True
    return bool(_ISSUE_CUE.search(text, max(0, start - 30), start))


_CONFLUENCE_PAGE_PATH = re.compile(r"/spaces/[^/]+/pages/(?:edit-v2/|edit/)?(\d+)(?:/|$)")
_PAGE_SLUG = re.compile(r"/spaces/[^/\s]+/pages/(\d+)/([^/?#\s]+)")


def confluence_page_titles(text: str) -> dict[str, str]:
    """confluence:page:<id> -> the title a Confluence page link's slug spells ("/pages/131074/Data+Migration+Plan")."""
    titles = {}
    for m in _PAGE_SLUG.finditer(text) if "/pages/" in text else ():
        title = " ".join(unquote_plus(m.group(2)).split())
        if title and not title.isdigit():
            titles.setdefault(f"confluence:page:{int(m.group(1))}", title)
    return titles


_CONFLUENCE_VIEWPAGE = re.compile(r"/pages/(?:viewpage|editpage|viewpageattachments)\.action$")


# The rest of a URL a mail client wrapped onto the next line: one token of URL characters with a path/query mark.
_WRAPPED_TAIL = re.compile(
    r"\n[A-Za-z0-9_.~/?=&%#+-]*(?:[/?=&_]|\.[A-Za-z0-9])[A-Za-z0-9_.~/?=&%#+-]*(?<!\.)[ \t]*(?:\n|$)"
)
_WRAP_WIDTH = 60  # mail is wrapped at 72-78 columns: a shorter line ended on purpose


def truncated_url(text: str, end: int) -> bool:
    """Whether the URL found up to `end` is a link label the UI cut short ("…/pu...", "…/long-pa…") or a URL a mail
    client wrapped at a long line's end ("…/meteo/c" + "ancellazione_i.asp?arg=meteo" on the next line): its real
    target is elsewhere or broken, so it is no reference."""
    if text.endswith("..", 0, end) or text.startswith("\u2026", end):
        return True
    line_start = text.rfind("\n", 0, end) + 1
    return end - line_start >= _WRAP_WIDTH and _WRAPPED_TAIL.match(text, end) is not None


def _trim_url(url: str) -> str:
    """Cut at the first closing bracket that closes nothing ("(see https://x/a)(Do" -> .../a), then drop sentence
    punctuation and unbalanced closing brackets from the end ("(see https://x/a)." -> .../a)."""
    depth = {")": 0, "]": 0}
    opener = {"(": ")", "[": "]"}
    for i, char in enumerate(url):
        if char in opener:
            depth[opener[char]] += 1
        elif char in depth:
            if depth[char] == 0:
                url = url[:i]
                break
            depth[char] -= 1
    while url:
        last = url[-1]
        if last in _URL_TRAILING:
            url = url[:-1]
        elif last == ")" and url.count("(") < url.count(")"):
            url = url[:-1]
        elif last == "]" and url.count("[") < url.count("]"):
            url = url[:-1]
        else:
            break
    return url


def normalise_url(url: str) -> str | None:
    """Lower-case scheme and host, no default port or user info, no utm_* parameters, no plain #fragment."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not host or scheme not in _DEFAULT_PORTS:
        return None
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    query = "&".join(p for p in parts.query.split("&") if p and not p.lower().startswith("utm_"))
    fragment = parts.fragment if parts.fragment.startswith(("/", "!")) else ""  # keep SPA routes only
    return (
        f"{scheme}://{netloc}{parts.path or '/'}"
        + (f"?{query}" if query else "")
        + (f"#{fragment}" if fragment else "")
    )


def _under(host: str, path: str, bases: Sequence[_Base]) -> bool:
    return any(host == b.host and (path == b.path or path.startswith(b.path + "/") or not b.path) for b in bases)


def _classify_url(url: str, prepared: _Prepared) -> tuple[ReferenceKind, str, str | None] | None:
    """(kind, id, jira project or None) for a URL found in text."""
    normalised = normalise_url(url)
    if normalised is None:
        return None
    parts = urlsplit(normalised)
    host = parts.netloc
    path = parts.path
    query = dict(parse_qsl(parts.query, keep_blank_values=True))

    if not prepared.jira_bases or _under(host, path, prepared.jira_bases):
        match = _JIRA_KEY_IN_PATH.search(path)
        key = (match.group(1) or match.group(2)) if match else None
        if (
            key is None
            and _JIRA_KEY.fullmatch(query.get("selectedIssue", ""))
            and (prepared.jira_bases or "/jira/" in path or "/secure/" in path)
        ):
            key = query["selectedIssue"]
        if key:
            key = key.upper()
            return "jira_issue", f"jira:issue:{key}", key.rsplit("-", 1)[0]

    if not prepared.confluence_bases or _under(host, path, prepared.confluence_bases):
        page = None
        match = _CONFLUENCE_PAGE_PATH.search(path)
        if match:
            page = match.group(1)
        elif _CONFLUENCE_VIEWPAGE.search(path) and query.get("pageId", "").isdigit():
            page = query["pageId"]
        if page:
            version = query.get("pageVersion", "")
            suffix = f"@v{int(version)}" if version.isdigit() else ""
            return "confluence_page", f"confluence:page:{int(page)}{suffix}", None

    bare_host = host.split(":")[0]
    if bare_host.endswith(_SALESFORCE_HOSTS) or _under(host, path, prepared.salesforce_bases):
        for segment in [*path.split("/"), query.get("id", "")]:
            id18 = salesforce_id18(segment, strict=False) if segment else None
            if id18:
                return "salesforce_record", salesforce_ref_id(id18), None

    return "url", f"url:{normalised}", None


# --------------------------------------------------------------------------------------------------- mail

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
# <local@domain> with ASCII printable characters other than <, > and @.
_BRACKETED = re.compile(r"<([!-;=?A-~]+)@([!-;=?A-~]+)>")
_MSGID_HEADER = re.compile(r"(?i)(?:message-id|in-reply-to|references|msg-id)\s*:[^\n]*$")


# Hosts list archives put into Message-IDs they rewrote; such an id names no message any mailer sent, so it is marked
# `email:external:` instead of posing as the message it replaced. Each with its reason:
_REWRITTEN_ID_HOSTS = {
    # Gmane's archive replaced the domain of every address and address-like Message-ID with a per-address hash at
    # this host ("<CA+x-JsoAw...@public.gmane.org>"); the original domain is not recoverable from the id.
    "public.gmane.org"
}


def message_ref_id(message_id: str) -> str | None:
    cleaned = message_id.strip().strip("<>").strip()
    if not cleaned or "@" not in cleaned or any(c.isspace() for c in cleaned):
        return None
    if cleaned.rsplit("@", 1)[1].lower() in _REWRITTEN_ID_HOSTS:
        return f"email:external:{cleaned}"
    return f"email:{cleaned}"


def _looks_like_message_id(text: str, start: int, local: str, domain: str) -> bool:
    """<x@y> is a Message-ID in a header line or when the local part is machine-made; else an address."""
    line_start = text.rfind("\n", 0, start) + 1
    if _MSGID_HEADER.search(text, line_start, start):
        return True
    if any(c in local for c in "$=#&^{}~/") or "." not in domain:
        return True
    return len(local) >= 16 and any(c.isdigit() for c in local)


# --------------------------------------------------------------------------------------------------- files

_EXT = (
    r"pdf|docx?|docm|xlsx?|xlsm|pptx?|csv|tsv|txt|rtf|odt|ods|odp|zip|7z|rar|tgz|gz|png|jpe?g|gif|tiff?|"
    r"msg|eml|json|xml|ya?ml|log|vsdx?|mpp|key|numbers|pages"
)
_FILE_STOP = r"\s/\\:*?\"<>|,;，。；：、（）()\[\]【】《》「」『』〈〉“”‘’"
# Bare names are found from the extension backwards: a left-to-right lazy regex costs 120 steps per character in
# text without spaces (Chinese), i.e. seconds per 10 kB.
_FILE_EXT = re.compile(rf"\.(?:{_EXT})(?![A-Za-z0-9])", re.I)
_FILE_STOP_CHARS = frozenset(re.sub(r"\\(.)", r"\1", _FILE_STOP.replace(r"\s", "")))
_FILE_MAX_STEM = 120
_PATH_LIKE_FILE = re.compile(r"(?i)\.(?:xml|json|ya?ml|log)$|^tar\.gz$")


def _bare_file_names(text: str):
    """(start, end) of names like `Q3_quote.xlsx`: the extension plus up to 120 non-separator chars before it,
    never reaching back into the previous name."""
    previous_end = 0
    for m in _FILE_EXT.finditer(text):
        start = m.start()
        limit = max(previous_end, m.start() - _FILE_MAX_STEM)
        while start > limit and not text[start - 1].isspace() and text[start - 1] not in _FILE_STOP_CHARS:
            start -= 1
        if start < m.start():
            yield start, m.end()
            previous_end = m.end()


_FILE_BRACKETED = re.compile(
    rf"([《「『【〈“‘\"])([^\n《》「」『』【】〈〉“”‘’\"]{{1,120}}?\.(?:{_EXT}))([》」』】〉”’\"])", re.I
)
# File references written by graphfeed's renderers ("[attachment: Screen Shot 1.png]", connectors/jira/wiki.py and
# connectors/atlassian/adf.py) and Jira wiki markup left in mail ("[^crash log.txt]", "!image 1.png|thumbnail!"): the
# brackets delimit a name that may hold spaces, so no fragment of it ("PM.png") becomes a file of its own.
_FILE_MARKUP = re.compile(
    r"\[attachment:\s*(?P<a>[^\]\n]{1,200}?)\s*\]|\[\^(?P<b>[^\]\n|]{1,200})\]|"
    r"!(?<![\w!]!)(?P<c>[^!\n|]{1,200}?\.[A-Za-z0-9]{1,5})(?:\|[^!\n]{0,100})?!"
)
_HAS_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
# A bare name whose stem is only a clock time or an AM/PM marker ("5.30.02.png", "PM.png") is the tail of a
# timestamped name with spaces ("Screenshot 2025-03-06 at 2.23.37 PM.png"), never a file of its own.
_FRAGMENT_STEM = re.compile(r"(?i)[\d.:_-]+|[ap]\.?m\.?")


def file_markup(text: str):
    """(start, end, name or None) of every file written in bracket markup; None: not a file name (no extension)."""
    for m in _FILE_MARKUP.finditer(text):
        group = next(g for g in ("a", "b", "c") if m.group(g) is not None)
        name = m.group(group).strip()
        yield (
            m.start(group),
            m.start(group) + len(m.group(group).rstrip()),
            (name if _HAS_EXTENSION.search(name) else None),
        )


_TIMESTAMP_BEFORE = re.compile(r"(?:\d{1,4}[-.:]\d{1,2}(?:[-.:]\d{1,4})*|at|um|à|오전|오후|午前|午後)[ \u202f\u00a0]$")


def fragment_name(text: str, start: int, name: str) -> bool:
    """Whether the bare name at `start` is the tail of a timestamped name with spaces: its stem is a clock time or
    AM/PM and a date, time or "at" comes right before it ("... 2025-03-06 at 2.23.37 PM.png"). A camera name such as
    "2013-08-13_19-08-28-1.jpg" stands alone."""
    if _FRAGMENT_STEM.fullmatch(name.rsplit(".", 1)[0]) is None:
        return False
    return _TIMESTAMP_BEFORE.search(text, max(0, start - 24), start) is not None


def attachment_name_id(name: str, scope: str | None) -> str:
    """The id of a file known only by its name: per scope (the issue or thread it belongs to), because `.log` or
    `image.png` on two issues are two files. Files with a content hash are ids of their own (sha256)."""
    return f"attachment:name:{scope}/{name}" if scope else f"attachment:name:{name}"


def name_pattern(name: str) -> str:
    """A regex for an attachment name as the normalised text writes it: any run of spaces (U+202F before "PM" in
    macOS screenshot names, NBSP) matches any whitespace."""
    return r"\s+".join(re.escape(part) for part in name.split())


_BRACKET_PAIRS = {"《": "》", "「": "」", "『": "』", "【": "】", "〈": "〉", "“": "”", "‘": "’", '"': '"'}
