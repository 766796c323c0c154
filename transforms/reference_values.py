"""Values a text states: money amounts (symbol or code, magnitude words, any thousands separator) and dates (fixed
shapes in every language, English/German month names, NER date phrases checked with dateutil) -> canonical ids
money:<CUR>:<amount> and date:YYYY-MM-DD."""

import datetime as dt
import re
from decimal import Decimal, InvalidOperation

# --------------------------------------------------------------------------------------------------- money

_NUM = r"\d{1,3}(?:[,.'\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_MAG = (
    r"k|K|mn|m|M|MM|bn|B|million|millions|billion|billions|thousand|Mio\.?|Mrd\.?|Tsd\.?|Millionen|Milliarden|"
    r"万|亿|千|百万"
)
_CODES = "USD|EUR|GBP|CHF|CNY|RMB|JPY|CAD|AUD|HKD|SGD|INR|SEK|NOK|DKK|PLN|CZK|NZD"
_PREFIX_SYMBOLS = r"US\$|C\$|A\$|HK\$|S\$|NZ\$|\$|€|£|¥|人民币|美元|欧元"
_SUFFIX_WORDS = r"€|£|¥|元|美元|欧元|英镑|日元|港元|港币|人民币|块钱|块|dollars?|euros?|Euro"
_MONEY_PREFIX = re.compile(
    rf"(?:(?<![A-Za-z0-9])(?P<code>{_CODES})\s?|(?<![A-Za-z0-9$])(?P<sym>{_PREFIX_SYMBOLS})\s?)"
    rf"(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG})(?![A-Za-z]))?(?P<tail>元)?(?![0-9])"
)
_MONEY_SUFFIX = re.compile(
    rf"(?<![A-Za-z0-9.,$€£¥])(?P<num>{_NUM})(?:\s?(?P<mag>{_MAG}))?\s?"
    rf"(?:(?P<code>{_CODES})(?![A-Za-z])|(?P<word>{_SUFFIX_WORDS})(?![A-Za-z]))"
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
        return None  # "$ 1" is a shell prompt, not a dollar
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

_EN_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ]
    )
}
_EN_MONTHS.update({m[:3]: i for m, i in list(_EN_MONTHS.items())})
_EN_MONTHS["Sept"] = 9
_DE_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ]
    )
}
_DE_MONTHS.update(
    {
        "Jänner": 1,
        "Maerz": 3,
        "Jan": 1,
        "Feb": 2,
        "Mär": 3,
        "Mrz": 3,
        "Apr": 4,
        "Jun": 6,
        "Jul": 7,
        "Aug": 8,
        "Sep": 9,
        "Sept": 9,
        "Okt": 10,
        "Nov": 11,
        "Dez": 12,
    }
)


def _alternation(words) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_ORD = r"(?:st|nd|rd|th)?"
_DATE_ISO = re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d-])")
_DATE_DOTTED = re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?![\d]|\.\d)")
_DATE_SLASHED = re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})(?![\d/])")
_DATE_ZH = re.compile(r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*(?P<suffix>[日号])?")
_DATE_EN_MD = re.compile(
    rf"(?<![A-Za-z])(?P<mon>{_alternation(_EN_MONTHS)})\.?\s+(?P<d>\d{{1,2}}){_ORD}"
    rf"(?![\d:])(?:,?\s+(?P<y>\d{{4}})(?!\d))?"
)
_DATE_EN_DM = re.compile(
    rf"(?<![\d.])(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_alternation(_EN_MONTHS)})\.?"
    rf"(?![A-Za-z])(?:,?\s+(?P<y>\d{{4}})(?!\d))?"
)
_DATE_DE = re.compile(
    rf"(?<![\d.])(?P<d>\d{{1,2}})\.\s*(?P<mon>{_alternation(_DE_MONTHS)})\.?(?![A-Za-zäöü])"
    rf"(?:\s+(?P<y>\d{{4}})(?!\d))?"
)
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
