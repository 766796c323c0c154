"""Reference extraction: which issues, pages, records, messages, files, parties, dates and amounts a text names.

Every reference gets a canonical id that is the same whichever system mentions it, so the graph links a Jira
comment, an e-mail and a Salesforce note that talk about the same thing. Rules (regexes on the raw text, with
character offsets) find the machine ids; spaCy NER (English only) finds people, organisations and dates.

Rules that are not obvious (measured in notes/nlp.md §3.5):
* ASCII-only character classes and look-arounds: Python's `\\w`/`\\b` match CJK letters, so `工单ABC-123` would be
  missed with them.
* Jira keys are validated, because `UTF-8`, `COVID-19` and `ISO-9001` have the same shape:
  - `jira_project_keys` set: a bare key counts only if its project is listed;
  - `jira_project_keys` empty: a bare key counts only if its project also appears in a Jira issue URL in the same
    text (`.../browse/SALES-1` makes `SALES-7` acceptable); otherwise bare keys are dropped.
  Keys inside Jira URLs always count (when `jira_base_urls` is set, only URLs under those bases are Jira URLs).
* Salesforce 18-char ids must pass their checksum; 15-char ids must look like ids (known prefix shape, a digit,
  a letter) and are converted to 18 chars, so both spellings give one id.
* Overlaps: a span belongs to the first rule that claims it, in this order: URL, Message-ID, e-mail address,
  known attachment name, bracketed file name, bare file name, Jira key, Salesforce id, money, date. NER entities
  that overlap any rule span are dropped (the small model tags ids as CARDINAL and SaaS names as GPE/PERSON).

Offsets refer to the text as given; pass `transforms.text.normalise(text)` so fullwidth forms are folded first.
"""

import bisect
import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ground.identity import salesforce_id18, salesforce_ref_id
from ground.records import Attachment
from transforms import ner, reference_names

ReferenceKind = Literal[
    "jira_issue", "confluence_page", "salesforce_record", "url", "email_message", "attachment",
    "person", "organization", "date", "money", "email_address",
]


class ReferenceConfig(BaseModel):
    """What the ETL knows about the source systems. Treat as immutable: derived lookups are cached on it."""

    model_config = ConfigDict(frozen=True)

    jira_project_keys: list[str] = Field(default_factory=list)
    jira_base_urls: list[str] = Field(default_factory=list)
    confluence_base_urls: list[str] = Field(default_factory=list)
    salesforce_base_urls: list[str] = Field(default_factory=list)
    # A name (file name, "Acme Corp", "Sarah Miller") -> canonical id; matched exactly, then casefolded.
    name_map: dict[str, str] = Field(default_factory=dict)
    ner: bool = True
    # NER persons/organisations: below name_min_confidence a candidate is dropped; below entity_confidence it stays
    # a reference on the episode but becomes a graph node only if it resolves to a known party (transforms/facts.py).
    name_min_confidence: float = 0.5
    entity_confidence: float = 0.8
    stop_names_files: list[str] = Field(default_factory=list)     # users' stop lists (data/references/stop_names.txt)
    stop_names: list[str] = Field(default_factory=list)

    _prepared: Any = PrivateAttr(default=None)


class Reference(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ReferenceKind
    id: str                          # canonical and globally unique, versioned where the source has versions
    text: str                        # surface form (for metadata references: the name or id given)
    start: int | None = None         # char offsets into the text; None when the reference came from metadata
    end: int | None = None
    confidence: float = 1.0          # rules and metadata 1.0; NER names by transforms/name_check.py


# --------------------------------------------------------------------------------------------------- config


class _Base(NamedTuple):
    host: str
    path: str       # without trailing slash


def _base(url: str) -> _Base | None:
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
        host = (parts.hostname or "").lower()
        if parts.port:
            host = f"{host}:{parts.port}"
    except ValueError:
        return None
    return _Base(host, parts.path.rstrip("/")) if host else None


class _Prepared(NamedTuple):
    source: tuple                       # the config field objects this was built from (identity-checked)
    project_keys: frozenset[str]
    jira_bases: tuple[_Base, ...]
    confluence_bases: tuple[_Base, ...]
    salesforce_bases: tuple[_Base, ...]
    names: dict[str, str]               # exact names
    folded_names: dict[str, str]        # casefolded names


def _prepare(config: ReferenceConfig) -> _Prepared:
    source = (config.jira_project_keys, config.jira_base_urls, config.confluence_base_urls,
              config.salesforce_base_urls, config.name_map)
    cached = config._prepared
    if cached is not None and all(a is b for a, b in zip(cached.source, source)):
        return cached

    def bases(urls):
        return tuple(b for b in map(_base, urls) if b is not None)

    prepared = _Prepared(
        source=source,
        project_keys=frozenset(k.strip().upper() for k in config.jira_project_keys if k.strip()),
        jira_bases=bases(config.jira_base_urls),
        confluence_bases=bases(config.confluence_base_urls),
        salesforce_bases=bases(config.salesforce_base_urls),
        names=dict(config.name_map),
        folded_names={_fold(k): v for k, v in config.name_map.items()},
    )
    config._prepared = prepared
    return prepared


def _fold(name: str) -> str:
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def _mapped(name: str, prepared: _Prepared) -> str | None:
    return prepared.names.get(name) or prepared.folded_names.get(_fold(name))


# --------------------------------------------------------------------------------------------------- salesforce

# --------------------------------------------------------------------------------------------------- URLs

# ASCII-only URL body; CJK text and fullwidth punctuation end a URL. Trailing punctuation is trimmed afterwards.
_URL = re.compile(r"(?<![A-Za-z0-9])https?://[^\s<>\"'`{}|\\^\u3000-\u303f\uff00-\uffef\u3400-\u9fff]+", re.I)
_URL_TRAILING = ".,;:!?*'\""
_SALESFORCE_HOSTS = (".force.com", ".salesforce.com", ".cloudforce.com", ".salesforce-setup.com")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_JIRA_KEY_IN_PATH = re.compile(r"/browse/([A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6})(?:/|$)|"
                               r"/rest/api/(?:\d+|latest)/issue/([A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6})(?:/|$)")
_JIRA_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,9}-[1-9]\d{0,6}")
_CONFLUENCE_PAGE_PATH = re.compile(r"/spaces/[^/]+/pages/(?:edit-v2/|edit/)?(\d+)(?:/|$)")
_CONFLUENCE_VIEWPAGE = re.compile(r"/pages/(?:viewpage|editpage|viewpageattachments)\.action$")


def _trim_url(url: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end ("(see https://x/a)." -> .../a)."""
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
    fragment = parts.fragment if parts.fragment.startswith(("/", "!")) else ""   # keep SPA routes only
    return (f"{scheme}://{netloc}{parts.path or '/'}" + (f"?{query}" if query else "")
            + (f"#{fragment}" if fragment else ""))


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
        if key is None and _JIRA_KEY.fullmatch(query.get("selectedIssue", "")) and (
                prepared.jira_bases or "/jira/" in path or "/secure/" in path):
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


def message_ref_id(message_id: str) -> str | None:
    cleaned = message_id.strip().strip("<>").strip()
    return f"email:{cleaned}" if cleaned and "@" in cleaned and not any(c.isspace() for c in cleaned) else None


def _looks_like_message_id(text: str, start: int, local: str, domain: str) -> bool:
    """<x@y> is a Message-ID in a header line or when the local part is machine-made; else an address."""
    line_start = text.rfind("\n", 0, start) + 1
    if _MSGID_HEADER.search(text, line_start, start):
        return True
    if any(c in local for c in "$=#&^{}~/") or "." not in domain:
        return True
    return len(local) >= 16 and any(c.isdigit() for c in local)


# --------------------------------------------------------------------------------------------------- files

_EXT = (r"pdf|docx?|docm|xlsx?|xlsm|pptx?|csv|tsv|txt|rtf|odt|ods|odp|zip|7z|rar|tgz|gz|png|jpe?g|gif|tiff?|"
        r"msg|eml|json|xml|ya?ml|log|vsdx?|mpp|key|numbers|pages")
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
_FILE_BRACKETED = re.compile(rf"([《「『【〈“‘\"])([^\n《》「」『』【】〈〉“”‘’\"]{{1,120}}?\.(?:{_EXT}))([》」』】〉”’\"])", re.I)
_BRACKET_PAIRS = {"《": "》", "「": "」", "『": "』", "【": "】", "〈": "〉", "“": "”", "‘": "’", '"': '"'}
# Chinese words that glue onto a bare file name ("请查看附件Q3报价单.pdf", "和合同草案.docx"). Stripped from the front,
# longest first. Single characters that also start common nouns (发票, 附录, 见面) are left out on purpose.
_CJK_CONNECTORS = sorted(
    ["请", "请查看", "查看", "查阅", "参见", "参阅", "参考", "详见", "附件", "附上", "附带", "已附", "已", "上传", "上传了",
     "发送", "发送了", "和", "及", "以及", "与", "或", "或者", "把", "将", "在", "的", "是", "为", "即", "文件", "下载",
     "打开", "见附件", "收到", "修改", "更新", "更新了", "最新"], key=len, reverse=True)
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")


_CONNECTOR = re.compile("|".join(map(re.escape, _CJK_CONNECTORS)))    # longest first: alternation order


def _strip_connectors(name: str) -> tuple[str, int]:
    """(name without leading Chinese connector words, number of chars removed)."""
    removed = 0
    while _CJK_CHAR.match(name):
        match = _CONNECTOR.match(name)
        if match is None:
            break
        rest = name[match.end():]
        if len(rest.rsplit(".", 1)[0]) < 2:          # "附件1.pdf" stays whole
            break
        name = rest
        removed += match.end()
    return name, removed


# --------------------------------------------------------------------------------------------------- money

_NUM = r"\d{1,3}(?:[,.'\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_MAG = (r"k|K|mn|m|M|MM|bn|B|million|millions|billion|billions|thousand|Mio\.?|Mrd\.?|Tsd\.?|Millionen|Milliarden|"
        r"万|亿|千|百万")
_CODES = "USD|EUR|GBP|CHF|CNY|RMB|JPY|CAD|AUD|HKD|SGD|INR|SEK|NOK|DKK|PLN|CZK|NZD"
_PREFIX_SYMBOLS = r"US\$|C\$|A\$|HK\$|S\$|NZ\$|\$|€|£|¥|人民币|美元|欧元"
_SUFFIX_WORDS = r"€|£|¥|元|美元|欧元|英镑|日元|港元|港币|人民币|块钱|块|dollars?|euros?|Euro"
_MONEY_PREFIX = re.compile(
    rf"(?:(?<![A-Za-z0-9])(?P<code>{_CODES})\s?|(?<![A-Za-z0-9$])(?P<sym>{_PREFIX_SYMBOLS})\s?)"
    rf"(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG})(?![A-Za-z]))?(?P<tail>元)?(?![0-9])")
_MONEY_SUFFIX = re.compile(
    rf"(?<![A-Za-z0-9.,$€£¥])(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG}))?\s?"
    rf"(?:(?P<code>{_CODES})(?![A-Za-z])|(?P<word>{_SUFFIX_WORDS})(?![A-Za-z]))")
_CURRENCY = {
    "$": "USD", "US$": "USD", "C$": "CAD", "A$": "AUD", "HK$": "HKD", "S$": "SGD", "NZ$": "NZD", "€": "EUR",
    "£": "GBP", "RMB": "CNY", "人民币": "CNY", "元": "CNY", "块": "CNY", "块钱": "CNY", "美元": "USD", "欧元": "EUR",
    "英镑": "GBP", "日元": "JPY", "港元": "HKD", "港币": "HKD", "dollar": "USD", "dollars": "USD", "euro": "EUR",
    "euros": "EUR", "Euro": "EUR",
}
_MAGNITUDE = {
    "k": 10**3, "K": 10**3, "thousand": 10**3, "Tsd": 10**3, "千": 10**3, "万": 10**4, "m": 10**6, "M": 10**6,
    "MM": 10**6, "mn": 10**6, "million": 10**6, "millions": 10**6, "Mio": 10**6, "Millionen": 10**6,
    "百万": 10**6, "亿": 10**8, "bn": 10**9, "B": 10**9, "billion": 10**9, "billions": 10**9, "Mrd": 10**9,
    "Milliarden": 10**9,
}


def parse_amount(number: str) -> Decimal | None:
    """'48,500' / '48.500' / '1.200,50' / '1,200.50' / '3.5' -> Decimal. A lone separator before exactly three
    digits is a thousands separator in every language (money is never written to three decimals)."""
    s = number.replace("'", "").replace("\u202f", "")
    if "," in s and "." in s:
        decimal_sep = "," if s.rfind(",") > s.rfind(".") else "."
        s = s.replace("." if decimal_sep == "," else ",", "").replace(decimal_sep, ".")
    elif "," in s or "." in s:
        sep = "," if "," in s else "."
        parts = s.split(sep)
        s = "".join(parts) if len(parts) > 2 or len(parts[-1]) == 3 else ".".join(parts)
    try:
        return Decimal(s)
    except InvalidOperation:
        return None


def format_amount(amount: Decimal) -> str:
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def _money(match: re.Match, language: str) -> str | None:
    groups = match.groupdict()
    if groups.get("sym") == "$" and match.group()[1:2].isspace():
        return None                                   # "$ 1" is a shell prompt, not a dollar
    symbol = groups.get("code") or groups.get("sym") or groups.get("word") or ""
    if symbol == "¥":
        currency = "CNY" if language == "zh" else "JPY"
    else:
        currency = _CURRENCY.get(symbol, symbol)
    amount = parse_amount(groups["num"])
    if amount is None or not currency:
        return None
    magnitude = (groups.get("mag") or "").rstrip(".")
    amount *= _MAGNITUDE.get(magnitude, 1)
    return f"money:{currency}:{format_amount(amount)}"


# --------------------------------------------------------------------------------------------------- dates

_EN_MONTHS = {m: i + 1 for i, m in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
     "November", "December"])}
_EN_MONTHS.update({m[:3]: i for m, i in list(_EN_MONTHS.items())})
_EN_MONTHS["Sept"] = 9
_DE_MONTHS = {m: i + 1 for i, m in enumerate(
    ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
     "November", "Dezember"])}
_DE_MONTHS.update({"Jänner": 1, "Maerz": 3, "Jan": 1, "Feb": 2, "Mär": 3, "Mrz": 3, "Apr": 4, "Jun": 6, "Jul": 7,
                   "Aug": 8, "Sep": 9, "Sept": 9, "Okt": 10, "Nov": 11, "Dez": 12})


def _alternation(words) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_ORD = r"(?:st|nd|rd|th)?"
_DATE_ISO = re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d-])")
_DATE_DOTTED = re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?![\d]|\.\d)")
_DATE_SLASHED = re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})(?![\d/])")
_DATE_ZH = re.compile(r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*(?P<suffix>[日号])?")
_DATE_EN_MD = re.compile(rf"(?<![A-Za-z])(?P<mon>{_alternation(_EN_MONTHS)})\.?\s+(?P<d>\d{{1,2}}){_ORD}"
                         rf"(?![\d:])(?:,?\s+(?P<y>\d{{4}})(?!\d))?")
_DATE_EN_DM = re.compile(rf"(?<![\d.])(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_alternation(_EN_MONTHS)})\.?"
                         rf"(?![A-Za-z])(?:,?\s+(?P<y>\d{{4}})(?!\d))?")
_DATE_DE = re.compile(rf"(?<![\d.])(?P<d>\d{{1,2}})\.\s*(?P<mon>{_alternation(_DE_MONTHS)})\.?(?![A-Za-zäöü])"
                      rf"(?:\s+(?P<y>\d{{4}})(?!\d))?")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


def _year_context(text: str, reference_date: dt.date | None) -> int | None:
    """The year a date without one belongs to: the only year the text names, else the reference date's."""
    years = set(_YEAR.findall(text))
    if len(years) == 1:
        return int(years.pop())
    return reference_date.year if reference_date else None


def _date_id(year: int | str | None, month: int | str, day: int | str, context: int | None) -> str | None:
    year = int(year) if year else context
    if year is None or not 1900 <= year <= 2100:
        return None
    try:
        return f"date:{dt.date(year, int(month), int(day)).isoformat()}"
    except ValueError:
        return None


def _rule_dates(text: str, language: str, context: int | None):
    """(start, end, id) for dates written in a fixed shape (all languages: ISO, numeric, Chinese)."""
    for m in _DATE_ISO.finditer(text):
        yield m.start(), m.end(), _date_id(m["y"], m["m"], m["d"], context)
    for m in _DATE_DOTTED.finditer(text):
        yield m.start(), m.end(), _date_id(m["y"], m["m"], m["d"], context)
    for m in _DATE_SLASHED.finditer(text):
        a, b = int(m["a"]), int(m["b"])
        month_first = language == "en" and a <= 12
        month, day = (a, b) if month_first else (b, a)
        yield m.start(), m.end(), _date_id(m["y"], month, day, context)
    for m in _DATE_ZH.finditer(text):
        if m["y"] or m["suffix"]:
            yield m.start(), m.end(), _date_id(m["y"], m["m"], m["d"], context)
    if language == "en":
        for pattern in (_DATE_EN_MD, _DATE_EN_DM):
            for m in pattern.finditer(text):
                yield m.start(), m.end(), _date_id(m["y"], _EN_MONTHS[m["mon"]], m["d"], context)
    if language == "de":
        for m in _DATE_DE.finditer(text):
            yield m.start(), m.end(), _date_id(m["y"], _DE_MONTHS[m["mon"]], m["d"], context)


# An NER date phrase is words and numbers (ordinals, 15/09, 2024-09-15), never a glued id such as `2358a2a`,
# and it names a month or has a separator: dateutil reads a bare `100644` as 2010-06-44-ish YYMMDD.
_DATE_WORD = r"(?:[A-Za-z]+\.?|\d+(?:st|nd|rd|th)?|\d+(?:[-/.]\d+)+)"
_DATE_PHRASE = re.compile(rf"{_DATE_WORD}(?:[\s,]+{_DATE_WORD})*,?")
_DATE_NUMERIC = re.compile(r"\d{1,4}[-/.]\d{1,2}")
_EN_MONTH_WORD = re.compile(rf"(?<![A-Za-z])(?:{_alternation(_EN_MONTHS)})(?![a-z])")
_DEFAULT_A = dt.datetime(1904, 1, 1)
_DEFAULT_B = dt.datetime(1908, 3, 3)


def resolve_date(phrase: str, context: int | None) -> str | None:
    """date:YYYY-MM-DD for an NER date phrase only when dateutil finds day and month in it (and a year in it or
    the context). Parsing with two different defaults shows which parts came from the phrase itself."""
    from dateutil import parser

    if not _DATE_PHRASE.fullmatch(phrase.strip()):
        return None
    if not (_DATE_NUMERIC.search(phrase) or _EN_MONTH_WORD.search(phrase)):
        return None
    try:
        a = parser.parse(phrase, default=_DEFAULT_A, fuzzy=True)
        b = parser.parse(phrase, default=_DEFAULT_B, fuzzy=True)
    except (ValueError, OverflowError, TypeError):
        return None
    if a.day != b.day or a.month != b.month:
        return None
    return _date_id(a.year if a.year == b.year else None, a.month, a.day, context)


# --------------------------------------------------------------------------------------------------- assembly


class _Candidate(NamedTuple):
    start: int
    end: int
    kind: ReferenceKind
    id: str | None        # None: the span is claimed (blocks lower rules and NER) but yields no reference


def _attachment_id(attachment: Attachment, prepared: _Prepared) -> str:
    if attachment.sha256:
        return f"attachment:sha256:{attachment.sha256.lower().removeprefix('sha256:')}"
    return _mapped(attachment.name, prepared) or f"attachment:name:{attachment.name}"


def _file_id(name: str, by_name: dict[str, Attachment], prepared: _Prepared) -> str:
    attachment = by_name.get(_fold(name))
    if attachment is not None:
        return _attachment_id(attachment, prepared)
    return _mapped(name, prepared) or f"attachment:name:{name}"


def _basename(name: str) -> str:
    return re.split(r"[/\\]", name)[-1].strip()


def _rule_candidates(text: str, language: str, attachments: Sequence[Attachment], prepared: _Prepared,
                     context: int | None) -> list[list[_Candidate]]:
    """Candidates per rule, in priority order (see module docstring)."""
    urls, msgids, addresses, known_files, bracketed, bare, keys, sf_ids, money, dates = ([] for _ in range(10))
    url_projects: set[str] = set()

    for m in _URL.finditer(text):
        url = _trim_url(m.group())
        classified = _classify_url(url, prepared)
        urls.append(_Candidate(m.start(), m.start() + len(url), *(classified[:2] if classified else ("url", None))))
        if classified and classified[2]:
            url_projects.add(classified[2])

    for m in _BRACKETED.finditer(text):
        local, domain = m.group(1), m.group(2)
        if _looks_like_message_id(text, m.start(), local, domain):
            msgids.append(_Candidate(m.start(), m.end(), "email_message", message_ref_id(m.group())))
    for m in _EMAIL.finditer(text):
        address = m.group().strip(".")
        if re.search(r"[A-Za-z]{2,}$", address):
            addresses.append(_Candidate(m.start(), m.start() + len(address), "email_address",
                                        f"email_address:{address.lower()}"))

    by_name: dict[str, Attachment] = {}
    for attachment in attachments:
        name = _basename(attachment.name)
        if name:
            by_name.setdefault(_fold(name), attachment)
    for attachment in attachments:
        name = _basename(attachment.name)
        if len(name) < 3:
            continue
        pattern = rf"(?<![A-Za-z0-9_.-]){re.escape(name)}(?![A-Za-z0-9])"
        for m in re.finditer(pattern, text, re.I):
            known_files.append(_Candidate(m.start(), m.end(), "attachment", _attachment_id(attachment, prepared)))

    for m in _FILE_BRACKETED.finditer(text):
        if _BRACKET_PAIRS.get(m.group(1)) == m.group(3):
            name = _basename(m.group(2))                        # "/images/logo.png" -> logo.png
            start = m.end(2) - len(name)
            bracketed.append(_Candidate(start, start + len(name), "attachment", _file_id(name, by_name, prepared)))
    for found_start, found_end in _bare_file_names(text):
        name, removed = _strip_connectors(text[found_start:found_end])
        if name and not name.startswith("."):
            start = found_start + removed
            # `tiapp.xml`, `config.json`, `build.log`, `x.tar.gz` in prose are project files, not attachments,
            # unless the record carries an attachment of that name: claimed (no NER on them), no reference.
            known = _fold(name) in by_name
            path_like = _PATH_LIKE_FILE.search(name) is not None
            bare.append(_Candidate(start, found_end, "attachment",
                                   _file_id(name, by_name, prepared) if known or not path_like else None))

    for m in re.finditer(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9_]{1,9}-[1-9]\d{0,6}(?![A-Za-z0-9_-])", text):
        project = m.group().rsplit("-", 1)[0]
        allowed = project in prepared.project_keys if prepared.project_keys else project in url_projects
        keys.append(_Candidate(m.start(), m.end(), "jira_issue", f"jira:issue:{m.group()}" if allowed else None))

    for m in re.finditer(r"(?<![A-Za-z0-9])[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?(?![A-Za-z0-9])", text):
        id18 = salesforce_id18(m.group())
        if id18:
            sf_ids.append(_Candidate(m.start(), m.end(), "salesforce_record", salesforce_ref_id(id18)))

    for pattern in (_MONEY_PREFIX, _MONEY_SUFFIX):
        for m in pattern.finditer(text):
            ref = _money(m, language)
            if ref:
                money.append(_Candidate(m.start(), m.end(), "money", ref))

    for start, end, ref in _rule_dates(text, language, context):
        if ref:
            dates.append(_Candidate(start, end, "date", ref))

    return [urls, msgids, addresses, known_files, bracketed, bare, keys, sf_ids, money, dates]


class _Spans:
    """Non-overlapping claimed spans kept sorted, so an overlap test is one bisect instead of a scan."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.starts, end)          # spans before i start before `end`
        return i > 0 and self.ends[i - 1] > start

    def add(self, start: int, end: int) -> None:
        i = bisect.bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


def _claim(groups: list[list[_Candidate]]) -> tuple[list[_Candidate], _Spans]:
    """Greedy by rule priority, then position: a candidate that overlaps an already claimed span is dropped."""
    claimed: list[_Candidate] = []
    taken = _Spans()
    for group in groups:
        for candidate in sorted(group, key=lambda c: (c.start, -c.end)):
            if candidate.end <= candidate.start or taken.overlaps(candidate.start, candidate.end):
                continue
            claimed.append(candidate)
            taken.add(candidate.start, candidate.end)
    return claimed, taken


def _entity_reference(entity: ner.Entity, prepared: _Prepared, context: int | None, text: str,
                      config: ReferenceConfig) -> Reference | None:
    if entity.label == "DATE":
        ref = resolve_date(entity.text, context)
        return Reference(kind="date", id=ref, text=entity.text, start=entity.start, end=entity.end) if ref else None
    label = "ORG" if entity.label == "PERSON" and reference_names.organisation_shaped(entity.text) else entity.label
    kind: ReferenceKind = "person" if label == "PERSON" else "organization"
    prefix = "person" if kind == "person" else "org"
    mapped = _mapped(entity.text, prepared)
    confidence = 1.0 if mapped else reference_names.name_confidence(
        entity.text, label, text, entity.start, reference_names.stop_list(config))
    if confidence < config.name_min_confidence:
        return None
    return Reference(kind=kind, id=mapped or f"{prefix}:{_fold(entity.text)}", text=entity.text, start=entity.start,
                     end=entity.end, confidence=confidence)


class _Rules(NamedTuple):
    context: int | None
    claimed: list[_Candidate]
    spans: _Spans


def _rules(text: str, language: str, attachments: Sequence[Attachment], prepared: _Prepared,
           reference_date: dt.date | None) -> _Rules:
    context = _year_context(text, reference_date)
    candidates = _rule_candidates(text, language, attachments, prepared, context) if text else []
    claimed, spans = _claim(candidates)
    return _Rules(context, claimed, spans)


def _assemble(text: str, attachments: Sequence[Attachment], message_ids: Sequence[str], prepared: _Prepared,
              rules: _Rules, entities: Sequence[ner.Entity], config: ReferenceConfig) -> list[Reference]:
    found = [Reference(kind=c.kind, id=c.id, text=text[c.start:c.end], start=c.start, end=c.end)
             for c in rules.claimed if c.id]
    for mention in reference_names.mentions(text, rules.spans.overlaps, reference_names.stop_list(config)):
        found.append(Reference(kind="person", id=_mapped(mention.text, prepared) or f"person:{_fold(mention.text)}",
                               text=mention.text, start=mention.start, end=mention.end,
                               confidence=reference_names.MENTION_CONFIDENCE))
    for entity in entities:
        if not rules.spans.overlaps(entity.start, entity.end):
            ref = _entity_reference(entity, prepared, rules.context, text, config)
            if ref is not None:
                found.append(ref)
    found.sort(key=lambda r: (r.start, r.end, r.kind, r.id))

    for attachment in attachments:
        found.append(Reference(kind="attachment", id=_attachment_id(attachment, prepared), text=attachment.name))
    for message_id in message_ids:
        ref = message_ref_id(message_id)
        if ref:
            found.append(Reference(kind="email_message", id=ref, text=message_id.strip()))

    seen: set[str] = set()
    unique = []
    for ref in found:
        if ref.id not in seen:
            seen.add(ref.id)
            unique.append(ref)
    return unique


_DEFAULT_CONFIG = ReferenceConfig()


def extract_references(text: str, *, language: str = "en", attachments: Sequence[Attachment] = (),
                       message_ids: Sequence[str] = (), config: ReferenceConfig = _DEFAULT_CONFIG,
                       reference_date: dt.date | None = None) -> list[Reference]:
    """References in `text` plus the given attachments and Message-IDs, in text order (metadata after),
    de-duplicated by id (the first, i.e. the one with offsets, wins).

    `reference_date` (e.g. the record's date) supplies the year for dates written without one when the text
    itself names no single year. NER reads the text with every rule span, code token and path blanked out.
    """
    return extract_references_batch([text], [language], attachments=[attachments], message_ids=[message_ids],
                                    config=config, reference_dates=[reference_date])[0]


def extract_references_batch(texts: Sequence[str], languages: Sequence[str], *,
                             attachments: Sequence[Sequence[Attachment]] | None = None,
                             message_ids: Sequence[Sequence[str]] | None = None,
                             config: ReferenceConfig = _DEFAULT_CONFIG,
                             reference_dates: Sequence[dt.date | None] | None = None) -> list[list[Reference]]:
    """`extract_references` for many texts; English NER runs through nlp.pipe. Result i belongs to texts[i]."""
    if len(languages) != len(texts):
        raise ValueError("texts and languages must have the same length")
    texts = [t or "" for t in texts]
    prepared = _prepare(config)
    rules = [_rules(text, languages[i], attachments[i] if attachments else (), prepared,
                    reference_dates[i] if reference_dates else None) for i, text in enumerate(texts)]
    entities: list[Sequence[ner.Entity]] = [() for _ in texts]
    if config.ner:
        english = [i for i, (t, lang) in enumerate(zip(texts, languages)) if lang == "en" and t.strip()]
        views = (reference_names.ner_view(texts[i], rules[i].spans.starts, rules[i].spans.ends) for i in english)
        for i, found in zip(english, ner.entities_batch(views)):
            entities[i] = found
    return [
        _assemble(text, attachments[i] if attachments else (), message_ids[i] if message_ids else (), prepared,
                  rules[i], entities[i], config)
        for i, text in enumerate(texts)
    ]
