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
    for path in (STOP_FILE, *map(Path, extra_files)):
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ValueError(f"{path}: cannot read NER stop-name list: {exc}") from exc
        names.update(line.strip().casefold() for line in lines if line.strip() and not line.lstrip().startswith("#"))
    return frozenset(names)


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


def name_confidence(name: str, label: str, text: str, start: int, stop: frozenset[str]) -> float:
    """0 when `name` (found at `start` in `text`) is no party's name, else how sure (0.4-0.9)."""
    words = name.split()
    if not words or len(words) > 6 or name.casefold() in stop or "  " in name:
        return 0.0  # double spaces: the span ran over blanked code or ids
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
    significant = [w for w in words if w.casefold() not in PARTICLES | ORG_WORDS]
    if not significant:
        return 0.0
    lowered = [w for w in significant if re.search(rf"(?<![\w-]){re.escape(w.lower())}(?![\w-])", text)]
    if len(significant) == 1:
        if lowered:  # "Maven ... maven": a common word or a tool, not a name
            return 0.0
        initial = bool(_SENTENCE_START.search(text[:start]))
        if label == "PERSON":
            return 0.4 if initial else 0.6
        return 0.4 if initial else 0.5 if words[0].isupper() else 0.6
    if lowered:  # "Invalid Version": words this text also writes in lower case
        return 0.4
    return 0.9 if label == "PERSON" else 0.85


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


def organisation_shaped(name: str) -> bool:
    """A 'PERSON' whose last word names a kind of business ("Alpine Dairy") is an organisation."""
    words = name.split()
    return len(words) >= 2 and words[-1].casefold() in ORG_HINTS
