"""Intent evaluation figures: macro-F1 over the labels present, per-label P/R/F1, per-family F1, confusion matrix.

Shared by bench/intent_bench.py and `graphfeed intent eval`, so both print the same numbers for the same units.
"""

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple


class LabelScore(NamedTuple):
    precision: float
    recall: float
    f1: float
    support: int


class Report(NamedTuple):
    n: int
    accuracy: float
    macro_f1: float
    per_label: dict[str, LabelScore]
    per_family: dict[str, tuple[float, int]]  # family -> (macro-F1, n)
    confusion: dict[tuple[str, str], int]  # (gold, predicted) -> count
    labels: list[str]


def _scores(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> dict[str, LabelScore]:
    out = {}
    for lab in labels:
        tp = sum(1 for g, p in zip(gold, pred) if g == lab and p == lab)
        fp = sum(1 for g, p in zip(gold, pred) if g != lab and p == lab)
        fn = sum(1 for g, p in zip(gold, pred) if g == lab and p != lab)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        out[lab] = LabelScore(prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0, tp + fn)
    return out


def macro_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> float:
    """Mean F1 over the labels that occur in `gold` (a label nobody wrote cannot be scored)."""
    present = [lab for lab in labels if lab in set(gold)]
    scores = _scores(gold, pred, present)
    return sum(s.f1 for s in scores.values()) / len(present) if present else 0.0


def report(gold: Sequence[str], pred: Sequence[str], families: Sequence[str], labels: Sequence[str]) -> Report:
    if not len(gold) == len(pred) == len(families):
        raise ValueError("gold, pred and families must have the same length")
    fams: dict[str, list[int]] = {}
    for i, fam in enumerate(families):
        fams.setdefault(fam, []).append(i)
    per_family = {
        fam: (macro_f1([gold[i] for i in idx], [pred[i] for i in idx], labels), len(idx))
        for fam, idx in sorted(fams.items())
    }
    return Report(
        n=len(gold),
        accuracy=sum(g == p for g, p in zip(gold, pred)) / len(gold) if gold else 0.0,
        macro_f1=macro_f1(gold, pred, labels),
        per_label=_scores(gold, pred, labels),
        per_family=per_family,
        confusion=dict(Counter(zip(gold, pred))),
        labels=list(labels),
    )


def format_report(rep: Report, title: str = "") -> str:
    lines = [f"{title}units {rep.n}  macro-F1 {rep.macro_f1:.3f}  accuracy {rep.accuracy:.3f}"]
    lines.append(f"  {'label':<20} {'P':>5} {'R':>5} {'F1':>5} {'n':>5}")
    for lab in rep.labels:
        s = rep.per_label[lab]
        lines.append(f"  {lab:<20} {s.precision:5.2f} {s.recall:5.2f} {s.f1:5.2f} {s.support:5d}")
    lines.append(
        "  per source family (macro-F1, n): "
        + ", ".join(f"{fam} {f1:.3f} ({n})" for fam, (f1, n) in rep.per_family.items())
    )
    short = [lab[:6] for lab in rep.labels]
    lines.append("  confusion (rows gold, columns predicted):")
    lines.append("  " + " " * 20 + " ".join(f"{s:>6}" for s in short))
    for g in rep.labels:
        lines.append(f"  {g:<20}" + " ".join(f"{rep.confusion.get((g, p), 0):6d}" for p in rep.labels))
    return "\n".join(lines)
