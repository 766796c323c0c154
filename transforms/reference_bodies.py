"""Public bodies as organisations: a court, region, municipality, ministry or agency named by its head word
("Amtsgericht Stuttgart", "Regione Lombardia", "Comune di Lecco", "Ministry of Health", "US Food Safety Agency").

Government bodies are organisations (docs/references.md), but the small English model reads only English segments
and rarely tags them even there; like a legal form (reference_orgs.py), a public body's head word says
"organisation" in any Latin-script language. The rule runs on NER's view of the text (rule spans and code blanked),
and its names pass the same stop list and name map as the model's. Two shapes:
* head first (German, Italian, French, Spanish; English "Ministry/Department/University of"): the head word, then
  capitalised or all-capital words and joiners ("di", "de", "d'", "von", "of"), up to a second head or an office
  word ("REGIONE AUTONOMA X UFFICIO STAMPA" -> the region; the office is a part of it);
* head last (English): at least two capitalised words before "Agency", "Authority", "Commission", "Ministry" or
  "Administration" ("the Travel Agency" is a shop, "Agency" alone a word).
A head word alone ("das Amtsgericht", "the agency") names no body.
"""

import re

from transforms import ner
from transforms.name_check import SENTENCE_WORDS

_HEAD_FIRST = (
    "amtsgericht landgericht oberlandesgericht verwaltungsgericht arbeitsgericht sozialgericht finanzgericht "
    "finanzamt landratsamt bezirksamt bundesamt landesamt regierungspräsidium ministerium "
    "regione provincia comune tribunale ministero prefettura questura agenzia "
    "région préfecture mairie tribunal ministère "
    "ayuntamiento generalitat diputación ministerio"
).split()
_OF_HEADS = frozenset({"ministry", "department", "university"})  # English: only with "of" ("Ministry of Health")
_HEAD_LAST = frozenset({"agency", "authority", "commission", "ministry", "administration"})
# Parts of a body that end its name: "... UFFICIO STAMPA", "... Abteilung Recht", "... Office".
_OFFICE = frozenset({"ufficio", "servizio", "settore", "dipartimento", "abteilung", "referat", "office", "division"})
_HEADS = frozenset(_HEAD_FIRST) | _OF_HEADS
_ALL_HEADS = tuple(sorted(_HEADS | _HEAD_LAST))
_JOINERS = frozenset({"di", "del", "della", "dei", "delle", "de", "du", "des", "la", "von", "der", "of", "for"})
# English words inside a body's name before its head ("Food and Drug Administration"); other function words end it.
_BODY_JOINERS = frozenset({"and", "of", "for", "&"})
_FUNCTION_WORDS = (SENTENCE_WORDS | {"based", "via", "per", "into", "onto", "over", "under", "upon"}) - _BODY_JOINERS
_WORD = re.compile(r"[^\W\d_][^\W\d_'’.&-]*(?:[-'’][^\W\d_]+)*\.?")
_MAX_WORDS = 6


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def may_name_body(text: str) -> bool:
    """False when `text` holds no head word at all, in any case, so public_body_names would find nothing (a
    substring test: ~40 scans in C, where one case-insensitive alternation cost 0.7 ms per mail)."""
    folded = text.casefold()
    return any(head in folded for head in _ALL_HEADS)


def public_body_names(view: str, text: str) -> list[ner.Entity]:
    """ORG entities for public bodies in `view` (NER's view of `text`, same offsets)."""
    words = list(_WORD.finditer(view))
    found: list[ner.Entity] = []
    used_until = -1
    for i, word in enumerate(words):
        token = word.group().rstrip(".")
        key = token.casefold()
        if word.start() < used_until or not _capitalised(token):
            continue
        span = None
        if key in _HEADS:
            span = _head_first(words, i, view, key)
        elif key in _HEAD_LAST:
            span = _head_last(words, i, view)
        if span is not None:
            start, end = span
            found.append(ner.Entity("ORG", text[start:end], start, end))
            used_until = end
    return found


def _joined(view: str, left: re.Match[str], right: re.Match[str]) -> bool:
    return view[left.end() : right.start()] == " " or (
        left.group().endswith(("'", "’")) and left.end() == right.start()
    )


def _head_first(words: list[re.Match[str]], i: int, view: str, key: str) -> tuple[int, int] | None:
    run = [words[i]]
    for word in words[i + 1 : i + 1 + _MAX_WORDS]:
        if not _joined(view, run[-1], word):
            break
        token = word.group().rstrip(".")
        folded = token.casefold()
        if folded in _HEADS or folded in _OFFICE or folded in _HEAD_LAST:
            break
        if not (_capitalised(token) or folded in _JOINERS or re.fullmatch(r"d['’]", folded)):
            break
        run.append(word)
    while len(run) > 1 and run[-1].group().casefold() in _JOINERS:
        run.pop()
    if len(run) < 2 or key in _OF_HEADS and (len(run) < 3 or run[1].group().casefold() != "of"):
        return None  # a head word alone; "Ministry of Health" needs its "of" and a name after it
    return run[0].start(), run[-1].end()


def _head_last(words: list[re.Match[str]], i: int, view: str) -> tuple[int, int] | None:
    run = [words[i]]
    for word in reversed(words[max(0, i - _MAX_WORDS) : i]):
        token = word.group()
        if not _joined(view, word, run[0]) or token.endswith(".") or token.casefold() in _FUNCTION_WORDS:
            break  # Title Case prose: "Terrain Based On US Mapping Agency" -> "US Mapping Agency"
        if not (_capitalised(token) or token.casefold() in _BODY_JOINERS):
            break
        run.insert(0, word)
    while run and run[0].group().casefold() in _BODY_JOINERS:
        run.pop(0)
    if len(run) < 3:  # "Travel Agency": one word before the head is a shop or a unit, not a body
        return None
    return run[0].start(), run[-1].end()


def public_body(name: str) -> bool:
    """The name is a public body by its head word (what public_body_names returns); the head word alone ("the
    Commission") names none."""
    words = name.split()
    return len(words) >= 2 and (words[0].casefold() in _HEADS or words[-1].casefold() in _HEAD_LAST)
