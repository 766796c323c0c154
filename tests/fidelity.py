"""Fidelity: how much of a source's own text reaches the episode content. Shared by every source's fidelity test.

Token recall, not similarity: every word the source wrote should be in the content (extra words -- a title, labels,
rendered field lines -- cost nothing). Counted as a multiset, so a paragraph kept once of twice scores half.
"""

from collections.abc import Iterable

from tests.corpus import corpus_dir  # noqa: F401  (re-exported for the fidelity tests)
from transforms.fidelity import missing_tokens, token_recall, tokens  # noqa: F401  (one definition, re-exported)

THRESHOLD = 0.95


def below(scores: Iterable[tuple[str, float, str, str]], threshold: float = THRESHOLD) -> list[str]:
    """(record, recall, source text, content) -> one line per record under the threshold, worst first."""
    low = sorted((s for s in scores if s[1] < threshold), key=lambda s: s[1])
    return [f"{name}: recall {score:.2f}, missing {missing_tokens(src, content)}" for name, score, src, content in low]


def report(source: str, scores: list[tuple[str, float, str, str]], lost: list[str]) -> None:
    """What the fidelity test measured, printed (pytest -s shows it): mean recall, the worst records, lost ones."""
    mean = sum(s[1] for s in scores) / len(scores) if scores else 0.0
    print(
        f"\n{source} fidelity: {len(scores)} records, mean recall {mean:.4f}, "
        f"{sum(s[1] < THRESHOLD for s in scores)} below {THRESHOLD}, {len(lost)} lost"
    )
    for line in below(scores)[:40]:
        print(" ", line)
    if lost:
        print(" lost:", lost[:20])
