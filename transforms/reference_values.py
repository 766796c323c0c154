"""Values a text states: money amounts (symbol or code, magnitude words, any thousands separator) and dates -> canonical
ids money:<CUR>:<amount> and date:YYYY-MM-DD.

Dates are found by transforms/text_dates.py (the one date finder: absolute, year-less and relative forms resolved
against the record's day); this module only keeps the dates a reference may take: not the timestamp inside a file
name ("Screenshot 2025-03-06 at 2.23.37 PM.png"). Code, logs and traces are masked by the assembler."""

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

from transforms.reference_ids import _EXT
from transforms.text_dates import find_dates

# --------------------------------------------------------------------------------------------------- money

_NUM = r"\d{1,3}(?:[,.'\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_MAG = (
    r"k|K|mn|m|M|MM|bn|B|[Mm]illions?|[Bb]illions?|[Tt]rillions?|[Tt]housand|Mio\.?|Mrd\.?|Tsd\.?|Millionen|"
    r"Milliarden|тыс\.?|млн\.?|млрд\.?|трлн\.?|万|亿|千|百万"
)
_CODES = (
    "USD|EUR|GBP|CHF|CNY|RMB|JPY|CAD|AUD|HKD|SGD|INR|SEK|NOK|DKK|PLN|CZK|NZD|RUB|BRL|MXN|ZAR|KRW|TRY|HUF|"
    "DEM|FRF|ITL|ESP|ATS|NLG|BEF"  # pre-euro currencies: old mail and archives state prices in them
)
# "DM" is also a word ("send me a DM"): money only after an amount ("3000 DM"). ("FF" is left out: hex dumps.)
_LEGACY = "DM"
_PREFIX_SYMBOLS = r"US\$|C\$|A\$|HK\$|S\$|NZ\$|\$|€|£|¥|人民币|美元|欧元"
_SUFFIX_WORDS = r"€|£|¥|元|美元|欧元|英镑|日元|港元|港币|人民币|块钱|块|dollars?|euros?|Euro"
# A currency word before an amount ("euro 12.500,50") counts only with a separator or cents: "Euro 2024" is an event.
_PREFIX_WORDS = r"[Ee]uros?|[Dd]ollars?"
_MONEY_PREFIX = re.compile(
    rf"(?:(?<![A-Za-z0-9])(?P<code>{_CODES})\s?|(?<![A-Za-z0-9$])(?P<sym>{_PREFIX_SYMBOLS})\s?|"
    rf"(?<![A-Za-z])(?P<pword>{_PREFIX_WORDS})[ \t])"
    rf"(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG})(?![A-Za-z]))?(?P<tail>元)?(?![0-9]|[.,][A-Za-z])"  # not "$38,OOO.OO"
)
_MONEY_SUFFIX = re.compile(
    rf"(?<![A-Za-z0-9.,$€£¥])(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG}))?\s?"
    # a code may stand in parentheses after the amount, as statements print it: "5 (EUR )"
    rf"(?:(?P<paren>\([ \t]?))?(?:(?P<code>{_CODES}|{_LEGACY})(?![A-Za-z])|(?P<word>{_SUFFIX_WORDS})(?![A-Za-z]))"
    r"(?(paren)[ \t]?\))"
)
_CURRENCY = {
    "$": "USD",
    "US$": "USD",
    "C$": "CAD",
    "A$": "AUD",
    "HK$": "HKD",
    "S$": "SGD",
    "NZ$": "NZD",
    "€": "EUR",
    "£": "GBP",
    "RMB": "CNY",
    "人民币": "CNY",
    "元": "CNY",
    "块": "CNY",
    "块钱": "CNY",
    "美元": "USD",
    "欧元": "EUR",
    "英镑": "GBP",
    "日元": "JPY",
    "港元": "HKD",
    "港币": "HKD",
    "dollar": "USD",
    "dollars": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "Euro": "EUR",
    "DM": "DEM",
}
_MAGNITUDE = {
    "k": 10**3,
    "K": 10**3,
    "thousand": 10**3,
    "Tsd": 10**3,
    "千": 10**3,
    "万": 10**4,
    "m": 10**6,
    "M": 10**6,
    "MM": 10**6,
    "mn": 10**6,
    "million": 10**6,
    "millions": 10**6,
    "Mio": 10**6,
    "Millionen": 10**6,
    "百万": 10**6,
    "亿": 10**8,
    "bn": 10**9,
    "B": 10**9,
    "billion": 10**9,
    "billions": 10**9,
    "Mrd": 10**9,
    "Milliarden": 10**9,
    "trillion": 10**12,
    "trillions": 10**12,
    "тыс": 10**3,
    "млн": 10**6,
    "млрд": 10**9,
    "трлн": 10**12,
}


# Every money pattern holds one of these; most texts hold none, and `in` tests (C substring search) say so in a few
# microseconds where the two money regexes (look-behind first) take ~0.15 ms per kB.
_MONEY_HINTS = (
    *"$€£¥元块",
    *_CODES.split("|"),
    *_LEGACY.split("|"),
    *(w for w in _SUFFIX_WORDS.replace("?", "").split("|") if not w.isascii()),
    "ollar",
    "uro",
)


def may_name_money(text: str) -> bool:
    return any(hint in text for hint in _MONEY_HINTS)


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
        if len(parts) > 2 and len(parts[-1]) < 3:  # "103,349,35": thousands groups, then the cents
            s = "".join(parts[:-1]) + "." + parts[-1]
        else:
            s = "".join(parts) if len(parts) > 2 or len(parts[-1]) == 3 else ".".join(parts)
    try:
        return Decimal(s)
    except InvalidOperation:
        return None


def format_amount(amount: Decimal) -> str:
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


# `$1`, `$5`: positional variables of shell, awk, sed and regex replacements. Glued to code characters on either side
# ('$1', "$1@", {print $5}, (\$1)) or listed with another one ("$1, $5", "mv $1 $2"); a lone "$5 per seat" stays money.
_VAR_BEFORE = frozenset("'\"({[=$\\/:")
_VAR_AFTER = frozenset("'\"@<>)}]$\\/:=_")
_VAR_LIST = re.compile(r"\$\d{1,2}(?![\d.,]\d)[\s,;]+\$\d{1,2}(?![\d.,]\d)")


def _positional_variable(match: re.Match) -> bool:
    if match.group("mag") or not re.fullmatch(r"\d{1,2}", match.group("num")):
        return False
    text, start, end = match.string, match.start(), match.end()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before in _VAR_BEFORE or after in _VAR_AFTER or after.isalpha():
        return True
    window = text[max(0, start - 8) : end + 8]
    return any(m.start() <= start - max(0, start - 8) < m.end() for m in _VAR_LIST.finditer(window))


def _glued_code(match: re.Match) -> bool:
    text, start, end = match.string, match.start(), match.end()
    return (start > 0 and text[start - 1] in "-_/+=") or (
        end < len(text) and (text[end].isalpha() or text[end] in "_+/=")
    )


def _money(match: re.Match, language: str) -> str | None:
    groups = match.groupdict()
    if groups.get("sym") == "$" and match.group()[1:2].isspace():
        return None  # "$ 1" is a shell prompt, not a dollar
    if groups.get("sym") == "$" and _positional_variable(match):
        return None
    if groups.get("pword") and not groups.get("mag") and not re.search(r"[.,'\u202f]", groups["num"]):
        return None  # "Euro 2024", "dollar 5": an event, a phrase; "euro 12.500,50" is an amount
    if groups.get("code") and match.group()[:1].isalpha() and _glued_code(match):
        return None  # "…-4E64-BEF8-8094…" (a UUID), "…/ESP1ey4+eA==" (base64): an identifier, not an amount
    symbol = groups.get("code") or groups.get("sym") or groups.get("word") or groups.get("pword") or ""
    if symbol == "¥":
        currency = "CNY" if language == "zh" else "JPY"
    else:
        currency = _CURRENCY.get(symbol) or _CURRENCY.get(symbol.lower(), symbol)
    amount = parse_amount(groups["num"])
    if amount is None or not currency:
        return None
    magnitude = (groups.get("mag") or "").rstrip(".")
    amount *= _MAGNITUDE.get(magnitude, _MAGNITUDE.get(magnitude.lower(), 1))
    return f"money:{currency}:{format_amount(amount)}"


# --------------------------------------------------------------------------------------------------- dates

# A date followed by a clock time and a file extension is the timestamp in a file name (macOS, Windows and Android
# screenshot names, exported reports), never a date the author states.
_FILE_TIMESTAMP_TAIL = re.compile(
    r"(?:[ _.-]*(?:at|um|à|오전|오후|午前|午後)?[ _.-]*\d{1,2}[.:_-]\d{2}(?:[.:_-]\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?)?"
    r"(?:[ _-]\w{0,20})?\.(?:" + _EXT + r")(?![A-Za-z0-9])",
    re.I,
)


def text_dates(text: str, language: str, reference: dt.date | None) -> Iterator[tuple[int, int, str]]:
    """(start, end, date:YYYY-MM-DD) of every date the text states (transforms.text_dates.find_dates). Without a
    record day, a date without a year takes the only year the text names, if any, and relative dates are skipped."""
    anchor = reference
    if anchor is None:
        years = set(_YEAR.findall(text))
        anchor = dt.date(int(years.pop()), 7, 1) if len(years) == 1 else None
    scan = find_dates(text, language, anchor or _NO_DAY, next_week=True, bare_weekdays=True, sentences=False)
    for found in scan.dates:
        if reference is None and (found.form == "relative" or (found.form == "year_inferred" and anchor is None)):
            continue
        if _FILE_TIMESTAMP_TAIL.match(text, found.end) or _header_or_attribution(text, found.start):
            continue
        if _ASSIGNED.search(text, max(0, found.start - 40), found.start):
            continue  # "Path=/; Expires=Fri, 11 Nov 2016 06:04:04 GMT": a value in code or a header, not prose
        if found.form == "relative" and found.date == reference and found.surface.lower() in _TODAY:
            continue  # "Register today", "as of today": the record's own day, already its timestamp
        yield found.start, found.end, f"date:{found.date.isoformat()}"


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_ASSIGNED = re.compile(r"[A-Za-z_][\w.-]*=[\"']?(?:[A-Za-z]{3,9},?[ \t]*)?$")  # "Expires=Tue, 04 Mar 2031"
# Headers a reproduced mail's folded second line may belong to ("Received: by host\n id 1F; Wed, 23 Feb 2005 ...").
_ANY_HEADER = re.compile(r"(?:Received|X-[A-Za-z-]+|Delivered-To|Return-Path|DKIM-Signature|ARC-[A-Za-z-]+)[ \t]*:")
_TODAY = frozenset({"today", "heute", "aujourd'hui", "hoy", "oggi", "今天"})
_NO_DAY = dt.date(2000, 7, 1)  # only absolute dates are kept when neither a record day nor a text year is known


# Mail and commit headers reproduced in a text ("Date: ...", "Authored: Sun Jun 5 ...", "Gesendet: ...") and reply
# attribution lines ("On Mon, 6 Nov 2017, X wrote:", "2017-11-28 7:46 GMT+01:00 Name <a@b>:") date the message they
# introduce, not something the author states (docs/references.md: never dates).
_HEADER_LINE = re.compile(
    r"[ \t>]*(?:date|sent|authored|committed|authordate|commitdate|datum|gesendet|envoy[ée]|enviado|inviato|"
    r"received|delivered)[ \t]*:",
    re.I,
)
_ATTRIBUTION_LINE = re.compile(
    r".*(?:@\S+>?|\b(?:wrote|writes|schrieb|a écrit|escribió|ha scritto)\b.*)[ \t]*:[ \t]*$", re.I
)  # also "Hervé BOUTEMY wrote on 2017-11-16 05:49:"


def _header_or_attribution(text: str, start: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    folded, folded_start = line, line_start
    while folded[:1] in (" ", "\t") and folded_start:  # a folded header: "Received: by host\n id 1F; Wed, 23 Feb ..."
        previous_start = text.rfind("\n", 0, folded_start - 1) + 1  # over every folded line up to the header's own
        folded, folded_start = text[previous_start : folded_start - 1], previous_start
        if _HEADER_LINE.match(folded) or _ANY_HEADER.match(folded):
            return True
    return bool(_HEADER_LINE.match(line) or _ATTRIBUTION_LINE.match(line))
