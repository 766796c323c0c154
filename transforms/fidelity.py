"""Token recall: how much of a source's own text reaches an episode. The check behind "nothing lost".

Tokens are runs of Unicode letters and digits after NFKC (so Korean and English count alike), compared case-folded
as multisets: a word the source says three times must appear three times. Punctuation, underscores and markup are not
content and are not counted. Extra words in the content (a title, field lines) cost nothing.
"""

import re
import unicodedata
from collections import Counter

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> Counter[str]:
    return Counter(_TOKEN.findall(unicodedata.normalize("NFKC", text or "").casefold()))


def token_recall(source: str, content: str) -> float:
    """Share of the source's tokens found in the content (1.0 for a source without words)."""
    wanted, got = tokens(source), tokens(content)
    total = sum(wanted.values())
    return sum(min(n, got[t]) for t, n in wanted.items()) / total if total else 1.0


def missing_tokens(source: str, content: str, limit: int = 20) -> list[str]:
    """The most frequent source tokens the content lacks (for a failure message)."""
    wanted, got = tokens(source), tokens(content)
    short = Counter({t: n - got[t] for t, n in wanted.items() if n > got[t]})
    return [t for t, _ in short.most_common(limit)]
