"""Fingerprint dedup over a stream of episodes, without holding the episodes in memory.

Pass 1 remembers, per fingerprint, the canonical copy (smallest (timestamp, source, source_key, origin): the choice does
not depend on file order, so reruns pick the same one) and where every other copy came from. Pass 2 re-reads the stream
and emits each canonical episode once, with its copies recorded in metadata (duplicate_keys, duplicate_origins).
"""

from collections.abc import Callable, Iterable, Iterator

from pydantic import BaseModel, Field

from ground.episode import Episode


class DedupStats(BaseModel):
    seen: int = 0
    unique: int = 0
    duplicates: int = 0
    groups: dict[str, list[str]] = Field(default_factory=dict)  # canonical source key -> keys of its copies

    @property
    def dedup_rate(self) -> float:
        return self.duplicates / self.seen if self.seen else 0.0


def _rank(ep: Episode) -> tuple[str, ...]:
    return (ep.timestamp.isoformat(), ep.source, ep.metadata.source_key, ep.metadata.origin.describe())


def dedup(stream: Callable[[], Iterable[Episode]]) -> tuple[Iterator[Episode], DedupStats]:
    """`stream` is called twice (two passes). Stats are complete when this returns; the episodes are lazy."""
    copies: dict[str, list[tuple[tuple[str, ...], str]]] = {}  # fingerprint -> [(rank, episode id)]
    stats = DedupStats()
    for ep in stream():
        stats.seen += 1
        copies.setdefault(ep.fingerprint, []).append((_rank(ep), ep.id))
    canonical: dict[str, tuple[tuple[str, ...], list[tuple[str, ...]]]] = {}
    for fp, found in copies.items():
        found.sort()
        canonical[fp] = (found[0][0], [rank for rank, _ in found[1:]])
        if len(found) > 1:
            stats.groups[found[0][0][2]] = [rank[2] for rank, _ in found[1:]]
    copies.clear()
    stats.unique = len(canonical)
    stats.duplicates = stats.seen - stats.unique

    def unique() -> Iterator[Episode]:
        for ep in stream():
            first, others = canonical[ep.fingerprint]
            if _rank(ep) != first:
                continue
            if others:
                meta = ep.metadata.model_copy(
                    update={
                        "duplicate_keys": sorted(set(ep.metadata.duplicate_keys) | {rank[2] for rank in others}),
                        "duplicate_origins": [rank[3] for rank in others],
                    }
                )
                ep = ep.model_copy(update={"metadata": meta})
            yield ep

    return unique(), stats
