"""Text normalisation for episode content and fingerprints.

Why: the same event arrives from several systems with different Unicode forms (fullwidth digits from CJK input
methods, NBSP from HTML, CRLF from mail, zero-width joiners from rich editors). Content gets a readable, stable
form; fingerprints get a stricter fold so cosmetic differences never split one event into two.
"""

import re
import unicodedata

# Line separators other than "\n" become "\n" (CR, CRLF, VT, FF, NEL, U+2028/U+2029).
_NEWLINES = re.compile(r"\r\n|[\r\x0b\x0c\x85\u2028\u2029]")

# Control characters (Cc) except tab and newline, plus invisible format characters that carry no text
# (zero-width space/joiners, word joiner, BOM, soft hyphen, bidi marks). Built once: str.translate is fast.
_INVISIBLE = [
    0x00AD,
    0x200B,
    0x200C,
    0x200D,
    0x200E,
    0x200F,
    0x2060,
    0x2061,
    0x2062,
    0x2063,
    0x2064,
    0xFEFF,
    0x202A,
    0x202B,
    0x202C,
    0x202D,
    0x202E,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
]
_DROP = {cp: None for cp in range(0x100) if unicodedata.category(chr(cp)) == "Cc"}  # all Cc live below U+0100
_DROP.pop(ord("\t"))
_DROP.pop(ord("\n"))
_DROP.update({cp: None for cp in _INVISIBLE})

_HSPACE = re.compile(r"[^\S\n]+")  # any whitespace except newline (after NFKC: space, tab, NBSP...)
_TRAILING = re.compile(r" +\n")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_SURROGATES = re.compile("[\ud800-\udfff]")  # lone surrogates (undecodable bytes) are not text; JSON refuses them


def normalise(text: str) -> str:
    """NFKC, controls removed, spaces/tabs folded to one space, trailing spaces and 3+ newlines trimmed.

    Paragraph breaks (one blank line) survive because intent and reply splitting read them.
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text)
    text = _NEWLINES.sub("\n", text)
    text = text.translate(_DROP)
    text = _SURROGATES.sub("\ufffd", text)
    text = _HSPACE.sub(" ", text)
    text = _TRAILING.sub("\n", text)
    text = _MANY_NEWLINES.sub("\n\n", text)
    return text.strip()


def fold_for_fingerprint(text: str) -> str:
    """What the fingerprint hashes: normalised, casefolded, every whitespace run one space."""
    return " ".join(normalise(text).casefold().split())
