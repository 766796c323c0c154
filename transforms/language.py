"""Language id for routing (en / de / zh): which NER and date rules apply to a text.

Recipe from notes/nlp.md §5: py3langid restricted to the three languages we route (0.995 on the synthetic set,
0.04 ms/text), a CJK-ratio pre-check (Chinese mails often carry Latin company names and ids, which confuse
n-gram models) and a fallback for very short texts, where every detector guesses.
"""

import os
import re
import threading
from typing import NamedTuple

LANGUAGES = ("en", "de", "zh")
MIN_LETTERS = 20  # below this many letters the detector is noise: return the caller's default
CJK_RATIO = 0.15  # CJK share of all letters above which a text is Chinese
MIN_CJK = 2

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef]")
# Tokens that are not language: URLs, addresses, ids. Removed before counting and classifying.
# ASCII classes on purpose: `\S`/`\w` would swallow whole runs of Chinese text, which has no spaces.
# Each alternative may only start where its run of characters starts (the lookbehinds): without them a long word
# with no digit or "@" was rescanned from every position, quadratic in its length (110 s for 100k characters).
_NOISE = re.compile(
    r"https?://[!-~]+"
    r"|(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+"
    r"|(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*\d[A-Za-z0-9_.-]*"
)
MAX_CHARS = 20_000  # the language of a text shows in its first pages; the rest only costs time

_lock = threading.Lock()
_identifier = None


def _model():
    """The py3langid model, loaded once per process (about 0.2 s) and shared."""
    global _identifier
    if _identifier is None:
        with _lock:
            if _identifier is None:
                import py3langid.langid as langid

                path = os.path.join(os.path.dirname(langid.__file__), langid.MODEL_FILE)
                identifier = langid.LanguageIdentifier.from_modelpath(path, norm_probs=True)
                identifier.set_languages(list(LANGUAGES))
                _identifier = identifier
    return _identifier


def _primary(tag: str | None) -> str:
    """'de-DE' / 'zh_CN' / 'EN' -> 'de' / 'zh' / 'en'; anything we do not route becomes 'en'."""
    primary = re.split(r"[-_]", (tag or "").strip().lower(), maxsplit=1)[0]
    return primary if primary in LANGUAGES else "en"


def detect_language(text: str, default: str = "en") -> str:
    """Return "en", "de" or "zh". `default` (e.g. the source system's locale) answers for texts too short to tell."""
    fallback = _primary(default)
    if not text:
        return fallback
    cleaned = _NOISE.sub(" ", text[:MAX_CHARS])
    cjk = len(_CJK.findall(cleaned))
    letters = sum(1 for ch in cleaned if ch.isalpha())
    if cjk >= MIN_CJK and cjk / max(letters, 1) >= CJK_RATIO:
        return "zh"
    if letters < MIN_LETTERS:
        return fallback
    ranked = _model().rank(cleaned)
    # Without CJK characters "zh" is never right: take the best Latin-script language instead.
    for lang, _score in ranked:
        if lang != "zh":
            return lang
    return fallback


# ------------------------------------------------------------------------------------------- per-segment language
# One document-level label hides the languages inside a text: a Korean page with Latin UI labels ("Workflow를",
# "Approval Rule") is routed as English and English NER then reads the labels as people and organisations. NER needs
# to know where its model's language holds, so each line gets its own language: by script when a non-Latin script
# holds SCRIPT_RATIO of its letters (a Hangul syllable or Han character carries as much as several Latin letters),
# else by py3langid over Latin-script languages for paragraphs with enough letters; a line too short to tell takes the
# language that holds most letters of the text (a Latin heading on a Korean page is Korean), else `default`.

SCRIPT_RATIO = 0.15
SEGMENT_MIN_LETTERS = 40  # a Latin paragraph shorter than this takes the text's language
SEGMENT_CONFIDENCE = 0.9  # a Latin paragraph is non-English only when py3langid is this sure
SEGMENT_SAMPLE = 300  # py3langid reads this many characters of a paragraph (its cost grows with the length)
_SCRIPTS = (
    ("ko", re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("zh", _CJK),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
)
_NON_LATIN = re.compile("|".join(p.pattern for _, p in _SCRIPTS))
_LATIN_LANGUAGES = [
    "en",
    "de",
    "fr",
    "es",
    "it",
    "pt",
    "nl",
    "ro",
    "pl",
    "cs",
    "sv",
    "da",
    "no",
    "fi",
    "hu",
    "tr",
    "id",
]
_latin_identifier = None


# English function words: a stretch of text where they make ENGLISH_RATIO of the words is English without asking
# py3langid (which costs ~0.7 µs per character, 0.9 ms for a 1,200-character mail). Other Latin languages share
# almost none of them ("is", "in" and "a" are left out for that reason).
_ENGLISH = frozenset(
    "the and to of that for you with this it be are was not have has on at by from or we they will would can "
    "could should there their what which when if but all any please thanks do does did been an".split()
)
ENGLISH_RATIO = 0.12
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _english_words(text: str) -> bool:
    words = _WORD.findall(text.lower())
    if len(words) < 8:
        return False
    return sum(1 for w in words if w in _ENGLISH) >= ENGLISH_RATIO * len(words)


class Segment(NamedTuple):
    start: int
    end: int
    language: str


def _latin_model():
    global _latin_identifier
    if _latin_identifier is None:
        with _lock:
            if _latin_identifier is None:
                import py3langid.langid as langid

                path = os.path.join(os.path.dirname(langid.__file__), langid.MODEL_FILE)
                identifier = langid.LanguageIdentifier.from_modelpath(path, norm_probs=True)
                identifier.set_languages(_LATIN_LANGUAGES)
                _latin_identifier = identifier
    return _latin_identifier


def _script(line: str) -> str | None:
    """The non-Latin language of a line whose letters are mostly of that script, else None."""
    if not _NON_LATIN.search(line):
        return None
    letters = sum(map(str.isalpha, line))
    for language, pattern in _SCRIPTS:
        count = len(pattern.findall(line))
        if count >= MIN_CJK and count / max(letters, 1) >= SCRIPT_RATIO:
            return language
    return None


def segments(text: str, default: str = "en") -> list[Segment]:
    """Non-empty lines of `text` with their language (see above); offsets into `text`."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]
    decided: list[str | None] = [_script(text[a:b]) for a, b in lines]
    if lines and all(d is None for d in decided):
        # All Latin script (most texts): one call decides a text that is English throughout (1.4 -> ~0.2 ms/record).
        if _english_words(text[:MAX_CHARS]):
            return [Segment(a, b, "en") for a, b in lines]
    # Latin lines: py3langid per paragraph (consecutive Latin lines), only when long enough to tell.
    i = 0
    while i < len(lines):
        if decided[i] is not None:
            i += 1
            continue
        j = i
        while j < len(lines) and decided[j] is None and (j == i or "\n\n" not in text[lines[j - 1][1] : lines[j][0]]):
            j += 1
        paragraph = _NOISE.sub(" ", " ".join(text[a:b] for a, b in lines[i:j]))
        if _english_words(paragraph):
            for k in range(i, j):
                decided[k] = "en"
        elif sum(map(str.isalpha, paragraph)) >= SEGMENT_MIN_LETTERS:
            language, score = _latin_model().classify(paragraph[:SEGMENT_SAMPLE])
            label = language if language != "en" and score >= SEGMENT_CONFIDENCE else "en"
            for k in range(i, j):
                decided[k] = label
        else:
            for k in range(i, j):
                decided[k] = ""  # too short: decided below
        i = j
    weight: dict[str, int] = {}
    for (a, b), language in zip(lines, decided):
        if language:
            weight[language] = weight.get(language, 0) + sum(map(str.isalpha, text[a:b]))
    fallback = max(weight, key=lambda k: weight[k]) if weight else _primary(default)
    return [Segment(a, b, language or fallback) for (a, b), language in zip(lines, decided)]


def foreign_spans(text: str, language: str = "en", default: str = "en") -> list[tuple[int, int]]:
    """Spans of `text` whose segments are not in `language` (what a `language` model must not read)."""
    return [(s.start, s.end) for s in segments(text, default) if s.language != language]
