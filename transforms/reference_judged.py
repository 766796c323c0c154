"""Precision on held-out text: references judged right or wrong by hand on real text no rule had been written on
before the eighth round (data/references/judged: e-mail sentences and Jira issue summaries, docs/references.md
"Eighth round"; the ninth round's rules were written reading them, so their organisation figures are in-sample since).

The frozen labelled set (reference_labels.py) gives precision and recall on whole episodes; these judgments widen
precision to text of other kinds. They are pooled, as in TREC: a reference today's extractor finds that nobody judged
is counted as unjudged, never guessed; a judged one it no longer finds is reported apart (a right one lost is a
recall loss, a wrong one lost a fix). Split `tune`: judged while rules were written; `test`: judged afterwards.
"""

import datetime as dt
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from transforms.reference_eval import figure, proportion, wilson


class JudgedReferenceError(ValueError):
    """A judged file or line that cannot be read; the message names it."""


class JudgedReference(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    uid: str  # the text's id: its corpus file and line or key
    split: Literal["tune", "test"]
    corpus_file: str  # under ../shared/corpus
    title: bool  # the text is a record's title (a Jira summary): read as such
    record_date: dt.date | None  # the record's day, for dates without a year
    text: str
    kind: str
    id: str
    surface: str
    right: bool


def load_judged(path: Path) -> list[JudgedReference]:
    """Every judged reference of a JSON-lines file, or of the *.jsonl files of a folder."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise JudgedReferenceError(f"{path}: no judged reference file (JSON lines)")
    judged = []
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                judged.append(JudgedReference.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise JudgedReferenceError(f"{file}:{number}: not a judged reference: {exc}") from exc
    return judged


class JudgedKind(NamedTuple):
    kind: str
    right: int  # found today and judged right
    wrong: int  # found today and judged wrong
    unjudged: int  # found today, never judged
    lost_right: int  # judged right, no longer found
    lost_wrong: int  # judged wrong, no longer found

    @property
    def precision(self) -> float | None:
        return proportion(self.right, self.right + self.wrong)

    @property
    def precision_ci(self) -> tuple[float, float] | None:
        return wilson(self.right, self.right + self.wrong)


def judge(judged: Sequence[JudgedReference], found: Mapping[str, Iterable[tuple[str, str]]]) -> list[JudgedKind]:
    """Per kind: today's (kind, id) references of each judged text (`found`, by uid) against the judgments."""
    verdicts = {(j.uid, j.id): j for j in judged}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for uid, refs in found.items():
        for kind, ref_id in refs:
            verdict = verdicts.pop((uid, ref_id), None)
            counts[kind]["unjudged" if verdict is None else "right" if verdict.right else "wrong"] += 1
    for verdict in verdicts.values():  # judged, no longer found
        counts[verdict.kind]["lost_right" if verdict.right else "lost_wrong"] += 1
    columns = ("right", "wrong", "unjudged", "lost_right", "lost_wrong")
    return [JudgedKind(kind, *(row[c] for c in columns)) for kind, row in sorted(counts.items())]


def format_judged(rows: Sequence[JudgedKind], *, title: str) -> str:
    """Per kind: precision over the judged references found today, then the unjudged ones found, then the judged
    ones no longer found (right: lost; wrong: fixed)."""
    head = f"{'right':>5} {'wrong':>5} {'unjudged':>8} {'lost right':>10} {'fixed':>5}"
    lines = [title, f"  {'kind':<18} {'P [95% CI]':<17} {head}"]
    for r in rows:
        counts = f"{r.right:5d} {r.wrong:5d} {r.unjudged:8d} {r.lost_right:10d} {r.lost_wrong:5d}"
        lines.append(f"  {r.kind:<18} {figure(r.precision, r.precision_ci)} {counts}")
    return "\n".join(lines)
