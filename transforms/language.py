"""Language id for routing (en / de / zh): which NER and date rules apply to a text.

Recipe from notes/nlp.md §5: py3langid restricted to the three languages we route (0.995 on the synthetic set,
0.04 ms/text), a CJK-ratio pre-check (Chinese mails often carry Latin company names and ids, which confuse
n-gram models) and a fallback for very short texts, where every detector guesses.
"""

import os
import re
import threading

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
