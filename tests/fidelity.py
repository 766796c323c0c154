"""Fidelity: how much of a source's own text reaches the episode content. Shared by every source's fidelity test.

Token recall, not similarity: every word the source wrote should be in the content (extra words -- a title, labels,
rendered field lines -- cost nothing). Counted as a multiset, so a paragraph kept once of twice scores half.
"""

import collections
import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import pytest

THRESHOLD = 0.95
_WORD = re.compile(r"[^\W_]+")
CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def tokens(text: str) -> collections.Counter:
    """Lower-cased NFKC word tokens (runs of letters and digits); punctuation, underscores and markup are not words."""
    return collections.Counter(_WORD.findall(unicodedata.normalize("NFKC", text or "").casefold()))


def token_recall(source_text: str, content: str) -> float:
    """Share of the source's word tokens (with multiplicity) found in the content; 1.0 for a source without words."""
    wanted = tokens(source_text)
    total = sum(wanted.values())
    if not total:
        return 1.0
    have = tokens(content)
    return sum(min(n, have[word]) for word, n in wanted.items()) / total


def missing_tokens(source_text: str, content: str, limit: int = 12) -> list[str]:
    """The source words the content lacks (for the failure listing)."""
    have = tokens(content)
    return [w for w, n in (tokens(source_text) - have).most_common(limit)]


def below(scores: Iterable[tuple[str, float, str, str]], threshold: float = THRESHOLD) -> list[str]:
    """(record, recall, source text, content) -> one line per record under the threshold, worst first."""
    low = sorted((s for s in scores if s[1] < threshold), key=lambda s: s[1])
    return [f"{name}: recall {score:.2f}, missing {missing_tokens(src, content)}" for name, score, src, content in low]


def corpus_dir(*parts: str) -> Path:
    """../shared/corpus/<parts>; skips when absent, FAILS when GRAPHFEED_REQUIRE_CORPUS=1 (CI)."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        if os.environ.get("GRAPHFEED_REQUIRE_CORPUS", "").strip() == "1":
            pytest.fail(f"shared corpus missing at {path} (GRAPHFEED_REQUIRE_CORPUS=1)", pytrace=False)
        pytest.skip(f"shared corpus not present at {path}")
    return path
