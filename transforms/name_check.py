"""Is an NER "PERSON"/"ORG" span really a party's name, and how sure are we?

spaCy's small English model, run on technical text, makes persons and organisations of products, code and common
words (`string`, `android`, `jenkins`, `sdk`, `xcode`, `ti::calldata const&`). A candidate must be name-shaped
(capitalised words, no code characters), not a known product/technology/code token (data/references/stop_names.txt,
extendable by users), and not a common word the same text also writes in lower case. The confidence it gets decides
whether it becomes a graph entity on its own (transforms/facts.py) or stays a reference on the episode.
"""

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

STOP_FILE = Path(__file__).resolve().parents[1] / "data" / "references" / "stop_names.txt"
# Generic terms with the reason each is no party (status words, team and tech abbreviations, OS names, chat slang).
GENERIC_FILE = STOP_FILE.with_name("stop_names_generic.txt")
# Frequent given names (1990 US Census, public domain): a person the model tagged ORG (person_shaped).
GIVEN_NAMES_FILE = STOP_FILE.with_name("given_names.txt")
# Common words newer than the dictionaries common_word reads ("software", "desktop", "email").
MODERN_WORDS_FILE = STOP_FILE.with_name("modern_words.txt")
PARTICLES = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "da",
        "di",
        "du",
        "del",
        "della",
        "le",
        "la",
        "bin",
        "al",
        "y",
        "zu",
        "ten",
        "ter",
    }
)
ORG_WORDS = frozenset({"of", "and", "for", "the", "&", "und", "de"})
_LETTERS = re.compile(r"^[^\W\d_]+$")
_NAME_WORD = re.compile(r"^(?:Mc|Mac|O'|O’|D'|D’)?[^\W\d_]+(?:[-'’][^\W\d_]+)*\.?$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*)$")


def load_stop_names(extra_files: Iterable[str | Path] = (), extra_names: Iterable[str] = ()) -> frozenset[str]:
    """The shipped stop list plus users' files (one name per line, '#' comments) and names, casefolded."""
    return _load(tuple(str(p) for p in extra_files)) | frozenset(n.strip().casefold() for n in extra_names if n.strip())


@lru_cache(maxsize=8)
def _load(extra_files: tuple[str, ...]) -> frozenset[str]:
    names: set[str] = set()
    for path in (STOP_FILE, GENERIC_FILE, *map(Path, extra_files)):
        names.update(name.casefold() for name in list_entries(Path(path), "NER stop-name list"))
    return frozenset(names)


def list_entries(path: Path, what: str) -> list[str]:
    """The entries of a word list file, one per line: `name  # reason` -> 'name'; a line starting with '#' is a
    comment. An unreadable file is a ValueError naming it and `what` it holds."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read {what}: {exc}") from exc
    entries = (line.split(" #", 1)[0].strip() for line in lines if not line.lstrip().startswith("#"))
    return [entry for entry in entries if entry]


# ------------------------------------------------------------------------------------------ English dictionary
# A Title-Case run of dictionary words ("Quick Filters", "Derived Data", "Success", "Push") is a UI label, a feature
# or a status, not a party; companies are mostly coined words (Samsung, Google, Axway). The word lists are the public
# domain Webster's Second (web2) and GCIDE, both shipped by english-words: words both list in lower case are common
# words, web2's capitalised entries proper nouns (given names among them: "Martin", "Peter").


@lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(common words, proper nouns). Common: lower-case in web2 AND a headword of GCIDE (Webster's 1913 + WordNet),
    since web2 alone lists rare lower-case forms of given names ("julio", "hans"), plus the modern words both lack."""
    from english_words import get_english_words_set

    web2 = get_english_words_set(["web2"], lower=False, alpha=True)
    gcide = get_english_words_set(["gcide"], lower=True, alpha=True)
    modern = list_entries(MODERN_WORDS_FILE, "the modern common-word list")
    common = frozenset(w for w in web2 if w.islower() and w in gcide) | frozenset(modern)
    proper = frozenset(w for w in web2 if w[:1].isupper())
    return common, proper


_INFLECTIONS = (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("ers", "er"))


def common_word(word: str) -> bool:
    """`word` (any case) is a common dictionary word or a regular inflection of one."""
    w = word.strip(".,'’").lower()
    common = _lexicon()[0]
    if w in common:
        return True
    if any(
        w.endswith(suffix) and len(w) - len(suffix) >= 3 and w[: -len(suffix)] + repl in common
        for suffix, repl in _INFLECTIONS
    ):
        return True
    stem = w.removesuffix("ed") if w.endswith("ed") else w.removesuffix("ing")
    return len(stem) >= 4 and stem != w and stem[-1] == stem[-2] and stem[:-1] in common  # "embedded", "shipping"


@lru_cache(maxsize=1)
def _given_names() -> frozenset[str]:
    return frozenset(list_entries(GIVEN_NAMES_FILE, "the given-name list"))


def person_shaped(name: str) -> bool:
    """A name shaped as a person's: a frequent given name, perhaps an initial, then a surname that is no dictionary
    word nor a given name ("Lance Schuler", "Carol J. Scherer"). The small model tags such names ORG in mail (7 of 34
    wrong held-out organisations); two given names tagged ORG are more often a firm named after its founders ("Morgan
    Stanley"), which the model then keeps."""
    words = name.split()
    if not 2 <= len(words) <= 3 or (len(words) == 3 and not re.fullmatch(r"[A-Z]\.?", words[1])):
        return False
    last = words[-1]
    return (
        words[0] in _given_names()
        and bool(_NAME_WORD.match(last))
        and _capitalised(last)
        and not common_word(last)
        and last not in _given_names()
        and last.casefold() not in COMPANY_WORDS | ORG_HINTS
    )


def proper_word(word: str) -> bool:
    """`word` is a capitalised dictionary entry: a given name, a place, a people."""
    w = word.strip(".,'’")
    return len(w) > 1 and w[0].upper() + w[1:].lower() in _lexicon()[1]


# Words that follow a name in a sentence but are no part of it ("@Gary It's", "@Carlos The test app").
SENTENCE_WORDS = frozenset(
    "the a an it its it's i i'm we you he she they this that these those there here thanks thank please can could "
    "would should will is are was were do does did have has had not no yes ok hi hello dear and or but so if then "
    "when what why how who which as at on in to for from with by of about just also any".split()
)


def compound(word: str) -> bool:
    """Two dictionary words run together ("Homeowner", "Troubleshooting", "Searchbar"): a thing, not a name."""
    w = word.casefold()
    return any(common_word(w[:i]) and common_word(w[i:]) for i in range(3, len(w) - 2))


def acronym(word: str) -> bool:
    return 2 <= len(word) <= 6 and word.isalpha() and word.isupper()


def expanded(abbreviation: str, text: str) -> bool:
    """The text spells the acronym out as a body ("Apache Software Foundation (ASF)"): capitalised words with its
    initials, one of them a word of organisations ("DB Access Control" spells a feature, "Generic Test for
    Unsolicited Bulk Email" a test pattern)."""
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    significant = [w for w in words if w.casefold() not in ORG_WORDS]
    n = len(abbreviation)
    for i, w in enumerate(significant):
        if w[0] == abbreviation[0] and i + n <= len(significant):
            run = significant[i : i + n]
            if all(x[0].isupper() for x in run) and "".join(x[0] for x in run) == abbreviation:
                if any(x.casefold() in _BODY_WORDS for x in run):
                    return True
    return False


def generic_name(name: str, label: str, text: str, start: int | None = None) -> bool:
    """A name made only of generic words: an unexpanded acronym as an organisation, dictionary words none of which
    is a proper noun (persons), one dictionary word or a run of them written as a thing (organisations: "the Derived
    Data folders", '"Quick Filters"'; "Evergreen Retail" after "from" stays a company) unless a word names a kind of
    business, and a run of them ending in a unit word ("Energy Operations"). `start`: where the name stands in `text`
    (None: no context)."""
    words = [w for w in name.split() if w.casefold() not in PARTICLES | ORG_WORDS]
    if not words:
        return True
    if label != "PERSON" and len(words) == 1 and acronym(words[0]):
        return not expanded(words[0], text)
    if label == "PERSON":
        return all(common_word(w) and not proper_word(w) for w in words)
    # "LCD Flat Panel Display": an acronym beside dictionary words adds no name ("MAILBOX FULL" is no acronym)
    plain = [w for w in words if not acronym(w) or common_word(w)] if len(words) > 1 else words
    if len(plain) < min(2, len(words)) or not all(map(common_word, plain)):
        return False
    if len(words) > 1 and words[-1].strip(".,").casefold() in UNIT_WORDS:
        return True  # "Production Methods Group", "Energy Operations": a unit of an organisation
    if any(w.strip(".,").casefold() in ORG_HINTS | COMPANY_WORDS - UNIT_WORDS for w in words):
        return False
    if any(w.strip(".,").casefold() in UNIT_WORDS for w in words):
        return False
    if len(words) == 1 or start is None:
        return True
    end = start + len(name)
    return _written_as_a_thing(text, start, end) or not _dealt_with(text, start, end)


# What a company made of dictionary words needs around it ("Signed with Evergreen Retail", "Peak Outfitters wants a
# quote"): without it, such a run is a heading, a feature or a status ("Embedded Binaries", "Delivery Status
# Notification", "Early Access is available", "World Trade Center").
_DEALT_BEFORE = re.compile(r"\b(?:with|from|at|by|via|contacted|joined|visited)\s+$", re.I)
_DEALT_AFTER = re.compile(
    r"(?:['’]s)?\s+(?:wants|said|says|asked|asks|confirmed|confirms|signed|signs|sent|sends|agreed|agrees|announced|"
    r"acquired|offers|offered|needs|requested|requests|replied|approved|approves|wrote)\b",
    re.I,
)


def _dealt_with(text: str, start: int, end: int) -> bool:
    return bool(_DEALT_BEFORE.search(text, max(0, start - 12), start) or _DEALT_AFTER.match(text, end))


_THING_BEFORE = re.compile(r"""(?:\b(?:the|my|your|our|this|that|a|an)\s+|["'“‘`*_])$""", re.I)
_THING_AFTER = re.compile(  # a closing quote, but not a possessive ("via Bell Mobility's service")
    r"""["”`*_]|['’](?!s\b)|\s+(?:button|menu|tab|page|folder|folders|field|option|setting|settings|screen|dialog|view|panel|section)\b""",
    re.I,
)


def _written_as_a_thing(text: str, start: int, end: int) -> bool:
    """Quoted, after an article, before a UI noun, or a line of its own (a title or heading: "Project Charter")."""
    own_line = (start == 0 or text[start - 1] == "\n") and (end == len(text) or text[end] == "\n")
    return own_line or bool(_THING_BEFORE.search(text, max(0, start - 8), start) or _THING_AFTER.match(text, end))


def _capitalised(word: str) -> bool:
    core = word.lstrip("'’")
    return (
        bool(core)
        and core[0].isupper()
        and (len(core) == 1 or not core[1:].replace("-", "").isupper() or len(core) <= 2)
    )


def _internal_caps(word: str) -> bool:
    """CamelCase (`GitHub`, `TiApp`, `setTimeout`) reads as code, except Mc/Mac/O' names and hyphen parts."""
    core = re.sub(r"^(Mc|Mac|O'|O’|D'|D’)", "", word)
    parts = re.split(r"[-'’]", core)
    return any(any(c.isupper() for c in part[1:]) and not part.isupper() for part in parts if part)


_FIELD_LABEL = re.compile(r"[ \t]*[:=][ \t]*\S")


def name_confidence(name: str, label: str, text: str, start: int, stop: frozenset[str], *, cued: bool = False) -> float:
    """0 when `name` (found at `start` in `text`) is no party's name, else how sure (0.4-0.9). `cued`: the words
    around it already say what it is ("Apple's event"), so a dictionary word may be the name."""
    words = name.split()
    if not words or len(words) > 6 or name.casefold() in stop or "  " in name:
        return 0.0  # double spaces: the span ran over blanked code or ids
    if not (cued and len(words) == 1 and not acronym(name)) and generic_name(name, label, text, start):
        return 0.0
    if label != "PERSON" and len(words) == 1 and acronym(name):
        return 0.85  # spelled out in this text
    if label == "PERSON":
        if len(words) > 4 or any(w.casefold() in stop for w in words if w.casefold() not in PARTICLES):
            return 0.0
        for w in words:
            if w.casefold() in PARTICLES:
                continue
            if not _NAME_WORD.match(w) or not _capitalised(w) or _internal_caps(w) or (w.isupper() and len(w) > 2):
                return 0.0
    else:
        for w in words:
            if w.casefold() in ORG_WORDS:
                continue
            if not _NAME_WORD.match(w.rstrip(".,")) or not w[0].isupper() or _internal_caps(w) or w.casefold() in stop:
                return 0.0
    if label != "PERSON" and not_a_body(words):
        return 0.0
    significant = [w for w in words if w.casefold() not in PARTICLES | ORG_WORDS]
    if not significant:
        return 0.0
    repeats = len({w.casefold() for w in significant}) < len(significant)
    if label != "PERSON" and len(significant) > 1 and (_FIELD_LABEL.match(text, start + len(name)) or repeats):
        return 0.0  # "Baseband Version: n/a", "Core Package = 5.1.0"; "SAC Type Requests SAC" (a table's cells)
    lowered = [w for w in significant if re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w-])", text)]
    if len(significant) == 1:
        if lowered:  # "Maven ... maven": a common word or a tool, not a name
            return 0.0
        if label == "PERSON" and compound(significant[0]) and not proper_word(significant[0]):
            return 0.0  # "Searchbar": a UI element
        initial = bool(_SENTENCE_START.search(text[:start]))
        if label == "PERSON":
            return 0.4 if initial else 0.6
        return 0.4 if initial else 0.5 if words[0].isupper() else 0.6
    if lowered:  # "Invalid Version": words this text also writes in lower case
        return 0.4
    return 0.9 if label == "PERSON" else 0.85


# Last words that make a name a place, an event, a document or a group of people, not a party ("Enron Building",
# "Wisconsin Ave", "Killian Hall Wedding Expo", "Tremont Hotel", "Linnton Manufactured Gas Plant", "Corporate Services
# Agreement", "Calif GOP Lawmakers"): spaCy's small model tags them ORG in held-out mail.
_NOT_A_BODY_LAST_WORDS = frozenset(
    "building tower hall plaza street st ave avenue road rd blvd boulevard highway hwy lane drive expo conference "
    "summit festival webinar symposium convention hotel motel inn plant refinery airport station mall park facility "
    "agreement contract investigation proposal memo memorandum "
    "lawmakers officials employees members customers investors shareholders voters executives".split()
)


def not_a_body(words: list[str]) -> bool:
    """An ORG span that is cut ("Naval Ravikant of", "A PCH SUPERPRIZE"), a list ("Maureen, Janel", "Title,
    Company"), or names a place, an event, a document or a group of people."""
    first, last = words[0].casefold(), words[-1].strip(".,").casefold()
    listed = any(w.endswith(",") for w in words[:-1])
    venue = last in ("center", "centre") and words[-2].casefold() in _NOT_A_BODY_LAST_WORDS  # "Conference Center"
    return len(words) > 1 and (
        listed or venue or last in ORG_WORDS or first in ("a", "an") or last in _NOT_A_BODY_LAST_WORDS
    )


# Legal-form and group words that make any name a company ("Acme Corporation", "General Motors Company").
COMPANY_WORDS = frozenset(
    "inc corp corporation co company ltd limited llc llp plc gmbh ag kg se sa sarl bv nv oy ab group holding "
    "holdings technologies systems solutions partners association society council ministry agency department "
    "commission committee fund trust foundation school college academy club union federation league alliance "
    "consortium bureau services times journal".split()
)
# Words that make a coined name a company ("Hartwell Group") but, after dictionary words only, name a unit of one
# ("Energy Operations", "Volume Management": held-out mail). Not "services" nor "committee": "Horizon Card Services"
# is a company, "Appropriations Committee" a legislature's body.
UNIT_WORDS = frozenset("group department division section unit operations management desk team engineering".split())
ORG_HINTS = frozenset(
    {
        "dairy",
        "pharma",
        "logistics",
        "health",
        "foods",
        "food",
        "resorts",
        "resort",
        "traders",
        "transit",
        "bank",
        "insurance",
        "energy",
        "motors",
        "airlines",
        "labs",
        "software",
        "consulting",
        "industries",
        "media",
        "capital",
        "university",
        "foundation",
        "institute",
        "hospital",
        "clinic",
        "stadtwerke",
        "werke",
        "bau",
        "versicherung",
        "gruppe",
    }
)


# The words an organisation's spelled-out acronym holds ("Foundation", "Administration", "Organization").
_BODY_WORDS = (
    COMPANY_WORDS
    | ORG_HINTS
    | {"administration", "organization", "organisation", "authority", "office", "center", "centre"}
)


def organisation_shaped(name: str) -> bool:
    """A 'PERSON' whose last word names a kind of business ("Alpine Dairy") is an organisation."""
    words = name.split()
    return len(words) >= 2 and words[-1].casefold() in ORG_HINTS
