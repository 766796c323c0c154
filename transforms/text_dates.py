"""Dates written in prose -> ISO dates, by a small rule set (EN, DE, FR, ES, IT, ZH); pure and deterministic.

Chosen over dateparser's search_dates after measuring both on tests/transforms/golden/text_dates.json (see the README
section "Intent facts and dates"): search_dates reads amounts, versions and times as dates ("1.6 TB", "08:40") and
resolves day/month order silently, while a confirmation needs precision more than recall.

What is written: ISO (2026-09-14), day-month-year with a month name in any of the six languages ("14 September 2026",
"14. September 2026", "14 septembre 2026", "14 de septiembre de 2026", "September 14, 2026", "Sept 14"), dotted
European dates (14.09.2026, "am 14.09."), CJK dates (2026年9月14日, 9月14日), slashed dates where the language fixes
the order (DE/FR/ES day first) or a part above 12 decides it, and a few relative forms ("next Tuesday", "nächsten
Dienstag", "mardi prochain", "el próximo martes", "下周二", "by Friday"/"bis Freitag" (the coming one), "next week"/
"nächste Woche"/"la semaine prochaine" (its Monday), tomorrow/morgen/demain/mañana/明天, yesterday/gestern/ayer)
against the record's own time. A dotted date without a year ("am 14.09.") counts only in day-first languages: in
English "fixed in 10.5." is a version. A date without a year takes the year that puts it closest to the record's time. 03/04/2026 in English text
is ambiguous: it is reported as such and never turned into a date. Italian (issue 28, fifth round): month and weekday
names ("1 dicembre 2015", "venerdì prossimo", "entro giovedì", domani/oggi/ieri); old mail's "12/22/95" (a two-digit
year, in the century nearest the record, only where the order is clear). For references only, a weekday written alone
where the text looks ahead (_bare_weekdays).
"""

import datetime as dt
import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from transforms.text_date_scan import PatternScanner

MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "january jan januar janvier janv enero ene gennaio",
        "february feb februar févr fevrier février fév febrero febbraio",
        "march mar märz maerz mars marzo",
        "april apr avril avr abril abr aprile",
        "may mai mayo maggio",
        "june jun juni juin junio giugno",
        "july jul juli juillet juil julio luglio",
        "august aug août aout agosto ago",
        "september sep sept septembre septiembre set setiembre settembre",
        "october oct oktober okt octobre octubre ottobre",
        "november nov novembre noviembre",
        "december dec dezember dez décembre decembre déc diciembre dic dicembre",
    ),
    start=1,
):
    for _name in _names.split():
        MONTHS[_name] = _number

WEEKDAYS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "monday mon montag lundi lunes lunedì lunedi",
        "tuesday tue tues dienstag mardi martes martedì martedi",
        "wednesday wed mittwoch mercredi miércoles miercoles mercoledì mercoledi",
        "thursday thu thurs donnerstag jeudi jueves giovedì giovedi",
        "friday fri freitag vendredi viernes venerdì venerdi",
        "saturday sat samstag sonnabend samedi sábado sabado sabato",
        "sunday sun sonntag dimanche domingo domenica",
    )
):
    for _name in _names.split():
        WEEKDAYS[_name] = _number
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS), key=len, reverse=True))
_WEEKDAY = "|".join(sorted((re.escape(w) for w in WEEKDAYS), key=len, reverse=True))
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_B = r"(?<![\w.,/-])"  # not glued to a number, word, version or path
_E = r"(?![\w/-]|[.,]\d)"

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(_B + r"(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)" + _E)),
    ("cjk", re.compile(r"(?:(?P<y>(?:19|20)\d\d)\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号號]")),
    (
        "dmy_name",
        re.compile(
            _B
            + r"(?P<d>\d{1,2})(?:\.|er|st|nd|rd|th)?\s*(?:de\s+|of\s+)?(?P<mn>"
            + _MONTH
            + r")\.?(?:,?\s*(?:de(?:l)?\s+)?"
            + _YEAR
            + r")?"
            + _E,
            re.IGNORECASE,
        ),
    ),
    (
        "mdy_name",
        re.compile(
            r"(?<![\w.])(?P<mn>" + _MONTH + r")\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+" + _YEAR + r")?" + _E,
            re.IGNORECASE,
        ),
    ),
    ("dotted", re.compile(_B + r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?:" + _YEAR + r"(?!\w|[.,]\d)|(?=\s|$|[,;:)]))")),
    ("slashed", re.compile(_B + r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/" + _YEAR + _E)),
    # "12/22/97" in old mail: a two-digit year, read in the century nearest the record (only where the order is clear)
    ("slashed", re.compile(_B + r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<yy>\d\d)" + _E)),
]
RELATIVE: list[tuple[str, re.Pattern[str]]] = [
    (
        "next_weekday",
        re.compile(
            r"\b(?:next|nächste[nm]?|naechste[nm]?|kommende[nm]?|el\s+próximo|el\s+proximo|"
            r"próximo|proximo|prossimo)\s+(?P<wd>" + _WEEKDAY + r")\b",
            re.IGNORECASE,
        ),
    ),
    (
        "next_weekday",
        re.compile(r"\b(?P<wd>" + _WEEKDAY + r")\s+(?:prochain|que\s+viene|próximo|proximo|prossimo)\b", re.IGNORECASE),
    ),
    (
        "coming_weekday",
        re.compile(
            r"\b(?:by|until|till|before|bis|spätestens|avant|antes\s+del?|hasta\s+el|entro)\s+(?:(?:this|next|diesen|"
            r"nächsten|naechsten)\s+)?(?P<wd>" + _WEEKDAY + r")\b",
            re.IGNORECASE,
        ),
    ),
    ("zh_next_weekday", re.compile(r"下(?:个)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])")),
    (
        "next_week",
        re.compile(
            r"\b(?:next\s+week|nächste[nr]?\s+Woche|naechste[nr]?\s+Woche|kommende[nr]?\s+Woche|"
            r"la\s+semaine\s+prochaine|la\s+semana\s+que\s+viene|la\s+próxima\s+semana|la\s+proxima\s+semana|"
            r"la\s+prossima\s+settimana|la\s+settimana\s+prossima)\b",
            re.IGNORECASE,
        ),
    ),
    ("next_week", re.compile(r"下(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天])")),
    (
        "offset",
        re.compile(
            r"\b(?P<w>tomorrow|übermorgen|morgen|demain|mañana|manana|domani|dopodomani|today|heute|aujourd'hui|hoy|oggi|"
            r"yesterday|gestern|ieri|"
            r"ayer)\b",
            re.IGNORECASE,
        ),
    ),
    ("offset", re.compile(r"(?P<w>明天|后天|今天|昨天)")),
]
OFFSETS = {
    "tomorrow": 1,
    "morgen": 1,
    "demain": 1,
    "mañana": 1,
    "manana": 1,
    "明天": 1,
    "übermorgen": 2,
    "后天": 2,
    "today": 0,
    "heute": 0,
    "aujourd'hui": 0,
    "hoy": 0,
    "今天": 0,
    "yesterday": -1,
    "gestern": -1,
    "ayer": -1,
    "domani": 1,
    "dopodomani": 2,
    "oggi": 0,
    "ieri": -1,
    "昨天": -1,
}
DAY_FIRST_LANGUAGES = frozenset({"de", "fr", "es", "it", "nl", "pt"})

# The words each pattern needs (one of them) before it is worth trying (transforms/text_date_scan.py).
_NEEDS: dict[str, frozenset[str]] = {
    "dmy_name": frozenset(MONTHS),
    "mdy_name": frozenset(MONTHS),
    "next_weekday": frozenset(WEEKDAYS),
    "coming_weekday": frozenset(WEEKDAYS),
    "next_week": frozenset({"week", "woche", "semaine", "semana", "settimana"}),
    "offset": frozenset(OFFSETS) | {"aujourd"},
}
_CLOCK = re.compile(r"[ \t]+\d{1,2}:\d\d")
_MORNING = re.compile(r"\b(guten|jeden|am|den|diesen|heute|früh)\s+$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]|\n")
# A weekday written alone ("Soleggiato mercoledì e giovedì", "back Monday"): only full names, never "Mon"/"Sat",
# never one the words around it place in the past ("last Monday", "lunedì scorso").
_ABBREVIATED_WEEKDAYS = frozenset({"mon", "tue", "tues", "wed", "thu", "thurs", "fri", "sat", "sun"})
_BARE_WEEKDAY = re.compile(
    r"(?<![\w-])(?P<wd>"
    + "|".join(sorted((re.escape(w) for w in WEEKDAYS if w not in _ABBREVIATED_WEEKDAYS), key=len, reverse=True))
    + r")(?![\w-])",
    re.IGNORECASE,
)
_PAST_BEFORE = re.compile(
    r"\b(?:last|past|previous|letzten|letzte|vergangenen|dernier|pasado|scorso|scorsa|passato)\s+$", re.IGNORECASE
)
_PAST_AFTER = re.compile(r"\s+(?:dernier|passé|pasado|scorso|scorsa|passato)\b", re.IGNORECASE)


class TextDate(BaseModel):
    """One date a text states: the ISO date, the words it came from and the sentence around them."""

    model_config = ConfigDict(frozen=True)

    date: dt.date
    surface: str
    sentence: str
    form: Literal["absolute", "year_inferred", "relative"]
    start: int = -1  # character offsets of `surface` in the text (references keep them)
    end: int = -1


class DateScan(BaseModel):
    dates: list[TextDate]
    ambiguous: list[str]  # surfaces that name a date but not which one (03/04/2026 in English)


def _closest_year(month: int, day: int, reference: dt.date) -> dt.date | None:
    options = []
    for year in (reference.year - 1, reference.year, reference.year + 1):
        try:
            options.append(dt.date(year, month, day))
        except ValueError:
            continue
    return min(options, key=lambda d: abs((d - reference).days)) if options else None


def _absolute(kind: str, m: re.Match[str], language: str, reference: dt.date) -> tuple[dt.date | None, str, bool]:
    """(date or None, form, ambiguous)."""
    g = m.groupdict()
    if kind == "slashed":
        a, b = int(g["a"]), int(g["b"])
        if a > 12 >= b:
            day, month = a, b
        elif b > 12 >= a:
            day, month = b, a
        elif a == b:
            day = month = a
        elif language.split("-")[0] in DAY_FIRST_LANGUAGES:
            day, month = a, b
        else:
            return None, "absolute", True
    else:
        day = int(g["d"])
        month = MONTHS[g["mn"].lower()] if g.get("mn") else int(g["m"])
    if g.get("y") or g.get("yy"):
        year = (
            int(g["y"])
            if g.get("y")
            else min((1900 + int(g["yy"]), 2000 + int(g["yy"])), key=lambda y: abs(y - reference.year))
        )
        try:
            return dt.date(year, month, day), "absolute", False
        except ValueError:
            return None, "absolute", False
    return _closest_year(month, day, reference), "year_inferred", False


def _relative(kind: str, m: re.Match[str], reference: dt.date) -> dt.date:
    if kind == "offset":
        return reference + dt.timedelta(days=OFFSETS[m.group("w").lower()])
    monday = reference - dt.timedelta(days=reference.weekday()) + dt.timedelta(days=7)  # of next calendar week
    if kind == "zh_next_weekday":  # 下周二: Tuesday of next calendar week
        return monday + dt.timedelta(days=ZH_WEEKDAYS[m.group("wd")])
    if kind == "next_week":
        return monday
    if kind == "coming_weekday":  # "by Friday" said on a Friday: that day
        return reference + dt.timedelta(days=(WEEKDAYS[m.group("wd").lower()] - reference.weekday()) % 7)
    ahead = (WEEKDAYS[m.group("wd").lower()] - reference.weekday()) % 7 or 7  # next occurrence after the day
    return reference + dt.timedelta(days=ahead)


def _bare_weekdays(
    text: str, ref: dt.date, hits: list[tuple[int, int, dt.date, str]], free: Callable[[int, int], bool]
) -> list[tuple[int, int, dt.date, str]]:
    """A weekday written alone, as the next such day after the record's, but only in a text that itself dates a day
    of the coming week ("Domani ...", "LUNEDÌ 30 NOVEMBRE"): a forecast or a plan, where "mercoledì e giovedì" are
    the days ahead. Elsewhere a bare "Monday" may as well be the one past, so it is no date (docs/references.md)."""
    if not any(ref < date <= ref + dt.timedelta(days=7) for _, _, date, _ in hits):
        return []
    found = []
    for m in _BARE_WEEKDAY.finditer(text):
        if not free(m.start(), m.end()) or _PAST_BEFORE.search(text, max(0, m.start() - 20), m.start()):
            continue
        if _PAST_AFTER.match(text, m.end()) or not free(m.start(), m.end() + 3) or not free(m.start() - 3, m.end()):
            continue  # "domenica 29 novembre", "Mon, 6 Nov": the weekday of a date written beside it
        found.append((m.start(), m.end(), _relative("next_weekday", m, ref), "relative"))
    return found


def _sentence(text: str, start: int, end: int, protected: list[tuple[int, int]]) -> str:
    """The sentence around [start, end): sentence ends inside another date ("14. September") do not count."""

    def is_end(pos: int) -> bool:
        return not any(a <= pos < b for a, b in protected)

    left = 0
    for found in _SENTENCE_END.finditer(text, 0, start):
        if is_end(found.start()):
            left = found.end()
    right = len(text)
    for found in _SENTENCE_END.finditer(text, end):
        if is_end(found.start()):
            right = found.end() if found.group() != "\n" else found.start()
            break
    return " ".join(text[left:right].split())


_SCANNER = PatternScanner(PATTERNS + RELATIVE, _NEEDS, {"cjk": "月"}, _B)


def find_dates(
    text: str,
    language: str,
    reference: dt.datetime | dt.date,
    *,
    next_week: bool = False,
    bare_weekdays: bool = False,
    sentences: bool = True,
) -> DateScan:
    """Every date the text states, in order of appearance, one per distinct (date, surface).

    `next_week`: also "next week" as the Monday of that week (references count it, docs/references.md); a
    confirmation of "next week" names no day, so the intent facts leave it out. `bare_weekdays`: also a weekday
    written alone, where the text looks ahead (see _bare_weekdays). `sentences=False` leaves TextDate.sentence empty
    (references need only the offsets)."""
    ref = reference.date() if isinstance(reference, dt.datetime) else reference
    hits: list[tuple[int, int, dt.date, str]] = []
    ambiguous: list[str] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    words = _SCANNER.trigger_words(text)
    for kind, pattern in PATTERNS:
        for m in _SCANNER.scan(pattern, text, words):
            if not free(m.start(), m.end()):
                continue
            if (
                kind == "mdy_name"
                and not m.group("y")
                and m.group("mn").lower() in ("may", "mar", "jun", "jul", "sat", "sun", "mon", "set", "ago")
            ):
                if not m.group("mn")[0].isupper() or (m.group("mn").lower() == "set" and language.startswith("en")):
                    continue  # "may 3 people" is a verb, not a month; so is "Set 1" in English ("set" is Italian)
            if m.groupdict().get("yy") and _CLOCK.match(text, m.end()):
                continue  # "Timestamp = 03/28/16 14:12": a tool's stamp, not a day the author states
            if kind == "dotted" and not m.group("y") and language.split("-")[0] not in DAY_FIRST_LANGUAGES:
                continue  # "fixed in 10.5." is a version in English text
            date, form, unclear = _absolute(kind, m, language, ref)
            taken.append((m.start(), m.end()))
            if unclear:
                ambiguous.append(m.group())
            elif date is not None:
                hits.append((m.start(), m.end(), date, form))
    for kind, pattern in RELATIVE:
        if kind == "next_week" and not next_week:
            continue
        for m in _SCANNER.scan(pattern, text, words):
            if kind == "offset" and m.group("w").lower() == "morgen" and _MORNING.search(text[: m.start()]):
                continue  # "Guten Morgen", "am Morgen": the morning, not tomorrow
            if free(m.start(), m.end()):
                taken.append((m.start(), m.end()))
                hits.append((m.start(), m.end(), _relative(kind, m, ref), "relative"))
    if bare_weekdays:
        hits.extend(_bare_weekdays(text, ref, hits, free))
    hits.sort()
    out: list[TextDate] = []
    seen: set[tuple[dt.date, str]] = set()
    for start, end, date, form in hits:
        surface = text[start:end]
        if (date, surface) in seen:
            continue
        seen.add((date, surface))
        out.append(
            TextDate(
                date=date,
                surface=surface,
                sentence=_sentence(text, start, end, taken) if sentences else "",
                form=form,
                start=start,
                end=end,
            )
        )
    return DateScan(dates=out, ambiguous=ambiguous)
