"""Dates people state in their own words: confirmations ("I confirm 14 July for the go-live") and slot statements
("Go-live moved to 14 July", "Die Frist ist der 30. Juni") of what an episode is about, whatever its intent.

Read only from the author's new prose (transforms.author_text: quotes, {quote} blocks, reply history, signatures and
code blocks gone; URLs, paths, file names and inline code masked), never from a question, a hedge ("could",
"vielleicht"), a request ("please confirm"), a negation or an old value ("from 1 July", "statt 1.7."). Dates come from
transforms.text_dates.find_dates against the record's own time (a year-less "14 July" takes the closest year,
"nächsten Dienstag"/"tomorrow" count from the record's day).

A slot statement needs a slot word (go-live, deadline, due, delivery, release, target date, Go-Live, Frist,
Stichtag, Liefertermin, Termin ...) tied to the date by a stating word ("is", "moved to", "by", "ist", "verschoben
auf", "bis", ":"), or the date first ("Am 14.07. ist Go-Live"). Each becomes a single-valued slot per (subject, slot
kind): a later statement ends the earlier value in the graph writer (graph/timeline.py), valid_at = the
record time of the statement.
"""

import datetime as dt
import re
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from ground.episode import Episode
from ground.source_traits import SourceTraits
from transforms.author_text import author_text
from transforms.text_dates import TextDate, find_dates


class SlotKind(NamedTuple):
    predicate: str
    phrase: str  # "The {phrase} of <subject> is <date>"
    words: str  # the regex of the words that name it (EN, DE), specific compounds first


SLOT_KINDS: dict[str, SlotKind] = {
    "go_live": SlotKind(
        "HAS_GO_LIVE_DATE",
        "go-live date",
        r"go[- ]?live(?:[- ]?(?:termin|datum|date))?|golive|livegang|produktivstart|produktivsetzung|"
        r"inbetriebnahme|launch(?:\s+date)?|roll-?out(?:[- ]?(?:termin|date))?",
    ),
    "delivery": SlotKind(
        "HAS_DELIVERY_DATE", "delivery date", r"delivery(?:\s+date)?|liefer(?:termin|datum|ung)|auslieferung"
    ),
    "deadline": SlotKind(
        "HAS_DEADLINE", "deadline", r"deadline|due\s+date|due(?!\s+to\b)|abgabetermin|\w*frist|stichtag|fällig(?:keit)?"
    ),
    "release": SlotKind("HAS_RELEASE_DATE", "release date", r"release(?:[- ]?(?:date|termin))?|veröffentlichung"),
    "target": SlotKind("HAS_TARGET_DATE", "target date", r"target\s+date|\w*termin"),
}
SLOT_RELATIONS = {kind.predicate: name for name, kind in SLOT_KINDS.items()}

_NOUN = re.compile(
    r"(?<![\w-])(?:" + "|".join(f"(?P<{name}>{kind.words})" for name, kind in SLOT_KINDS.items()) + r")(?![\w])",
    re.IGNORECASE,
)
# What ties a slot word to a date: a copula, a verb of setting or moving, a limit, a colon.
_LINK = re.compile(
    r"\b(?:is|are|will\s+be|remains|stays|now|moved|moves|pushed|postponed|shifted|rescheduled|changed|"
    r"brought\s+forward|pulled\s+in|slipped|slips|delayed|set|fixed|planned|scheduled|confirmed|agreed|targeted|"
    r"targeting|by|until|ist|sind|bleibt|liegt|lautet|wird|wurde|jetzt|nun|neu|verschoben|verlegt|vorgezogen|"
    r"geplant|festgelegt|terminiert|bestätigt|vereinbart|gesetzt|angesetzt|endet|bis|spätestens)\b|[:=]",
    re.IGNORECASE,
)
# The date is the value being replaced ("from 1 July to 14 July", "statt 1.7.", "was 30 June").
_OLD_VALUE = re.compile(
    r"\b(?:from|von|vom|instead\s+of|statt|anstatt|previously|originally|ursprünglich|bisher|was|war|"
    r"not|nicht)\s+(?:the\s+|den\s+|dem\s+|der\s+)?$",
    re.IGNORECASE,
)
# The date is named first: "14 July is the go-live", "Am 14.07. ist Go-Live".
_DATE_FIRST = re.compile(
    r"^[\s,)]*(?:is|ist|wird|bleibt|remains|will\s+be)\s+(?:(?:the|our|new|final|der|die|das|unser\w*|neue\w*)\s+)*",
    re.IGNORECASE,
)
# A sentence that hedges, negates or asks states no value (precision over recall: see the module docstring).
_HEDGE = re.compile(
    r"\b(?:propos\w*|suggest\w*|maybe|perhaps|might|could|would|should|possibly|tentativ\w*|hopefully|hope|if|"
    r"unless|whether|assum\w*|unclear|tbd|risk\w*|cannot|not|no\s+longer|never|vorschlag\w*|schlage\w*|"
    r"vielleicht|eventuell|evtl|möglicherweise|falls|wenn|ob|hoffentlich|könnte\w*|würde\w*|sollte\w*|unklar|"
    r"gefährdet|fraglich|nicht|kein\w*|nie|will\s+decide|to\s+be\s+(?:confirmed|decided)|tbc|pending|awaiting|"
    r"entscheide[nt]?|steht\s+noch\s+aus|noch\s+offen)\b|n't\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"\b(?:please|pls|kindly|can\s+you|could\s+you|bitte|können\s+sie|könnten\s+sie|kannst\s+du|könnt\s+ihr)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\W*(?:when|what|which|is|are|was|will|can|could|does|do|did|shall|wann|was|welche\w*|ist|sind|wird|"
    r"kann|können|könnte|gibt)\b",
    re.IGNORECASE,
)
CONFIRMS = re.compile(
    r"\b(confirm(s|ed|ing)?|agreed|approved|bestätig\w*|zugesagt|vereinbart|festgelegt|steht fest|"
    r"confirm[eéoa](?!tion)\w*|confirmons|convenu\w*|validé\w*|acordad\w*|aprobad\w*)\b|确认|确定|敲定",
    re.IGNORECASE,
)
# Not prose: addresses, paths, file names ("golive_2026-07-14.png"), attachment placeholders ("[attachment:
# Screenshot 2025-06-12 at 1.33.58 ]"), machine timestamps with seconds (log lines), inline code. Masked first.
_NOT_PROSE = re.compile(
    r"(?:https?|ftp)://\S+|www\.\S+|`[^`\n]*`|\[attachment:[^\]\n]*\]|\S*\d[ T]\d\d?:\d\d:\d\d\S*|"
    r"\S*[A-Za-z_]\S*[/\\]\S*|\S*[/\\]\S*[A-Za-z_]\S*|"
    r"[\w.-]*\w\.(?:png|jpe?g|gif|bmp|svg|pdf|docx?|xlsx?|pptx?|csv|txt|log|zip|gz|tgz|tar|json|xml|ya?ml|py|"
    r"java|js|ts|sql|sh|msg|eml|mp4|mov|heic|webp)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_ISSUE_KEY = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d+(?![\w-])")
_CLAUSE_END = re.compile(r";\s*|(?<=[.!])\s+(?=[A-ZÄÖÜ])")
# A slot word that states by itself: "due 10 April", "fällig am 30.6." (only a preposition between).
_SELF_STATING = re.compile(r"^(?:due|fällig)$", re.IGNORECASE)
_PREPOSITIONS = frozenset({"on", "by", "am", "bis", "zum", "the", "den", "dem"})
MAX_GAP_WORDS = 8  # slot word ... date: "Die Frist für die Abnahme ist der 30. Juni" has six between
LEAD_WORDS = 4  # a moving verb before the slot word: "We moved the go-live from 1 July to 14 July"


class DateStatement(BaseModel):
    """One date the author states: the date, its words and sentence, whether it confirms, which slot it fills."""

    model_config = ConfigDict(frozen=True)

    date: dt.date
    surface: str
    sentence: str
    form: str
    confirms: bool
    slot: str | None  # a SLOT_KINDS name


def prose(episode: Episode, traits: SourceTraits) -> str:
    """The author's new prose of the episode body (its title line is the subject, often a reply's inherited one);
    a record's rendered field block ("Salesforce Task, ...\nActivity date: ...") and field history are fields, where
    its source renders them (traits.field_block_prefixes)."""
    content, title = episode.content, (episode.metadata.title or "").strip()
    if title and content.startswith(title):
        content = content[len(title) :]
    blocks = traits.field_block_prefixes
    if blocks and episode.metadata.kind not in traits.field_block_free_kinds:
        paragraphs = content.strip().split("\n\n")
        content = "\n\n".join(p for p in paragraphs if not p.startswith(blocks))
    kind = traits.author_text_kind or episode.metadata.kind or "note"
    return _NOT_PROSE.sub(" ", author_text(content, kind=kind).text)


def stated_by_prose(episode: Episode, traits: SourceTraits) -> bool:
    """False for kinds whose text is no one's prose (CRM master data and field records)."""
    return episode.metadata.kind not in traits.no_prose_kinds


def date_statements(text: str, language: str, when: dt.datetime) -> list[DateStatement]:
    """Every date a sentence of the text confirms or sets a slot to, in text order (one scan per line, so the same
    date in two lines is read in both)."""
    out: list[DateStatement] = []
    for line in text.splitlines():
        found = find_dates(line, language, when).dates
        for date in found:
            others = [f for f in found if f.sentence == date.sentence and f is not date]
            statement = _statement(date, others)
            if statement is not None:
                out.append(statement)
    return out


def _statement(found: TextDate, others: list[TextDate]) -> DateStatement | None:
    """The date as a statement, given the other dates of its sentence: a slot word's value is the first current
    date after it ("Go-live target: 2026-07-15 (confirmed ... on 2026-06-10)"), and a confirming sentence confirms
    its first current date only."""
    sentence, spans = _clause(found, others)
    if sentence is None or _asks_or_hedges(sentence):
        return None
    at = sentence.find(found.surface)
    if _OLD_VALUE.search(sentence[:at]):
        return None
    earlier = [pos for pos, _ in spans if pos < at and not _OLD_VALUE.search(sentence[:pos])]
    confirms = bool(CONFIRMS.search(sentence)) and not earlier
    slot = _slot(sentence, at, at + len(found.surface), confirms, max(earlier, default=-1))
    if slot is None and not confirms:
        return None
    return DateStatement(
        date=found.date, surface=found.surface, sentence=sentence, form=found.form, confirms=confirms, slot=slot
    )


def _clause(found: TextDate, others: list[TextDate]) -> tuple[str | None, list[tuple[int, int]]]:
    """The clause of the sentence around the date (";" and sentence ends outside dates bound it: a date's own
    period, "on 9 April. Please review ...", ends no sentence for find_dates), with the other dates' spans in it."""
    sentence = found.sentence
    at = sentence.find(found.surface)
    if at < 0:
        return None, []
    dates = [(p, p + len(o.surface)) for o in others if (p := sentence.find(o.surface)) >= 0]
    inside = [*dates, (at, at + len(found.surface))]
    cuts = [m for m in _CLAUSE_END.finditer(sentence) if not any(a <= m.start() < b for a, b in inside)]
    left = max((m.end() for m in cuts if m.end() <= at), default=0)
    right = min((m.start() for m in cuts if m.start() >= at + len(found.surface)), default=len(sentence))
    clause = sentence[left:right]
    return clause, [(a - left, b - left) for a, b in dates if left <= a and b <= right]


def _asks_or_hedges(sentence: str) -> bool:
    s = sentence.strip()
    return (
        s.endswith(("?", "？")) or "?" in s or bool(_QUESTION_START.match(s) or _HEDGE.search(s) or _REQUEST.search(s))
    )


def _kind(m: re.Match[str]) -> str:
    return next(name for name, value in m.groupdict().items() if value is not None)


def _slot(sentence: str, start: int, end: int, confirms: bool, previous: int) -> str | None:
    """The slot the date at [start, end) fills: the nearest slot word before it (and after the sentence's previous
    current date, at `previous`) that a stating word ties to it, or a slot word right after "<date> is"; in a
    confirming sentence any slot word it names."""
    nouns = list(_NOUN.finditer(sentence))
    for m in reversed([n for n in nouns if previous < n.start() and n.end() <= start]):
        between = sentence[m.end() : start]
        lead = " ".join(_WORD.findall(sentence[: m.start()])[-LEAD_WORDS:])
        words = _WORD.findall(between)
        if len(words) <= MAX_GAP_WORDS and (_LINK.search(between) or _LINK.search(lead)):
            return _kind(m)
        if _SELF_STATING.match(m.group()) and {w.lower() for w in words} <= _PREPOSITIONS and len(words) <= 2:
            return _kind(m)
    after = _DATE_FIRST.match(sentence[end:])
    if after:
        m = _NOUN.match(sentence, end + after.end())
        if m:
            return _kind(m)
    return _kind(nouns[-1]) if confirms and nouns else None


def slot_values(statements: list[DateStatement], subject: str) -> dict[str, DateStatement]:
    """slot kind -> the value the episode leaves its subject's slot at (its last statement of that slot). A clause
    that names an issue key the subject (its key and name) does not ("- SSO (ACME-15): due 10 April" in a status
    mail) states that issue's date, not the subject's."""
    own = {k.upper() for k in _ISSUE_KEY.findall(subject)}
    return {
        s.slot: s
        for s in statements
        if s.slot is not None and {k.upper() for k in _ISSUE_KEY.findall(s.sentence)} <= own
    }
