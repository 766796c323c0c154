"""The claimed spans of the rule pass: a candidate per rule match, and the greedy claim by rule priority that keeps
them from overlapping (transforms/references.py says the order)."""

import bisect
from typing import NamedTuple

from transforms.reference_model import ReferenceKind


class _Candidate(NamedTuple):
    start: int
    end: int
    kind: ReferenceKind
    id: str | None  # None: the span is claimed (blocks lower rules and NER) but yields no reference


class _Spans:
    """Non-overlapping claimed spans kept sorted, so an overlap test is one bisect instead of a scan."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.starts, end)  # spans before i start before `end`
        return i > 0 and self.ends[i - 1] > start

    def add(self, start: int, end: int) -> None:
        i = bisect.bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


def _claim(groups: list[list[_Candidate]]) -> tuple[list[_Candidate], _Spans]:
    """Greedy by rule priority, then position: a candidate that overlaps an already claimed span is dropped."""
    claimed: list[_Candidate] = []
    taken = _Spans()
    for group in groups:
        for candidate in sorted(group, key=lambda c: (c.start, -c.end)):
            if candidate.end <= candidate.start or taken.overlaps(candidate.start, candidate.end):
                continue
            claimed.append(candidate)
            taken.add(candidate.start, candidate.end)
    return claimed, taken
