"""Decoded text of a long unstructured header (Subject, X-*, ...) in linear time, equal to policy.default's.

The stdlib parser (email._header_value_parser.get_unstructured) copies the rest of the value for every token and
keeps each copy in its parse tree, so time and memory grow with the square of the length: one 210k-character
Subject of 3,470 encoded words (a hostile corpus message) took 0.5 s, a third of all reading time of the e-mail
corpus. A long value is therefore parsed in pieces cut where the stdlib parser ends a token anyway (after "?=",
before a space or tab), and the pieces' text is joined; the one rule that looks across a cut (the whitespace
between two encoded words is dropped) is applied at each cut. tests/email/test_unstructured_header.py compares
the result with the stdlib's on generated values.
"""

import functools
import re
from email import _header_value_parser as parser  # noqa: PLC2701 - the stdlib parser policy.default itself uses
from email import utils

LONG = 4096  # shorter values go through the stdlib parser as they are (cheap below a few thousand characters)
PIECE = 2048  # characters a piece has at least (cut at the next "?=" followed by a space or tab)

# "?=" before a space or tab, not "=?=": an encoded word starting at that "=" would look for its end past the cut.
_CUT = re.compile(r"(?<!=)\?=(?=[ \t])")
_LINESEP = re.compile(r"\n|\r")  # what policy.header_fetch_parse removes before parsing (unfolding)


@functools.lru_cache(maxsize=16)  # a message reads its Subject twice (synthetic key, title); few values are long
def unstructured_text(raw: str, piece: int = PIECE) -> str:
    """str(policy.default's header object) for an unstructured header whose raw (folded) value is `raw`.

    Why a cut after "?=" before whitespace is safe: no token of the stdlib parser spans it (a vtext stops at
    whitespace, an encoded word ends at the first "?=" after its "=?"), so each piece yields the tokens the whole
    value would, except that the whitespace opening a piece is dropped when it lies between two encoded words."""
    value = "".join(_LINESEP.split(raw))
    texts: list[str] = []
    last_type = None
    start = 0
    while start < len(value):
        cut = _CUT.search(value, start + piece)
        end = cut.end() if cut else len(value)
        tokens = list(parser.get_unstructured(value[start:end]))
        if (
            last_type == "encoded-word"
            and len(tokens) > 1
            and tokens[0].token_type == "fws"
            and tokens[1].token_type == "encoded-word"
        ):
            tokens = tokens[1:]
        texts.append("".join(str(token) for token in tokens))
        last_type = tokens[-1].token_type if tokens else last_type
        start = end
    decoded = "".join(texts)
    return utils._sanitize(decoded) if utils._has_surrogates(decoded) else decoded
