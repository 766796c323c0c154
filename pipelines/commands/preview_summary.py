"""What `graphfeed preview` says on stderr per record kind: records read, episodes made, failures, and how many
episodes carry nothing but their title (or nothing at all), so a reader that silently loses bodies shows at once."""

from collections import defaultdict

from pydantic import BaseModel

from ground.episode import Episode
from ground.records import Deletion, RecordFailure, SourceRecord

EXAMPLES = 3


class KindCounts(BaseModel):
    records: int = 0
    episodes: int = 0
    failures: int = 0
    title_only: int = 0
    empty: int = 0
    content_chars: int = 0
    examples: list[str] = []  # source keys of title-only/empty episodes (the first few)

    @property
    def mean_length(self) -> float:
        return self.content_chars / self.episodes if self.episodes else 0.0


def is_title_only(episode: Episode) -> bool:
    title = (episode.metadata.title or "").strip()
    return bool(title) and episode.content.strip() == title


class PreviewSummary:
    def __init__(self) -> None:
        self.kinds: dict[str, KindCounts] = defaultdict(KindCounts)

    def record(self, record: SourceRecord) -> None:
        self.kinds[record.kind].records += 1

    def failure(self, failure: RecordFailure) -> None:
        """Failures carry no kind: one row per source, `failed:<source>`."""
        self.kinds[f"failed:{failure.source}"].failures += 1

    def deletion(self, deletion: Deletion) -> None:
        """Deletions the read saw: one row per kind, `deleted:<kind>` (they become tombstones, not episodes)."""
        self.kinds[f"deleted:{deletion.kind}"].records += 1

    def episode(self, episode: Episode) -> None:
        counts = self.kinds[episode.metadata.kind]
        counts.episodes += 1
        counts.content_chars += len(episode.content)
        hollow = not episode.content.strip()
        if hollow or is_title_only(episode):
            if hollow:
                counts.empty += 1
            else:
                counts.title_only += 1
            if len(counts.examples) < EXAMPLES:
                counts.examples.append(episode.metadata.source_key)

    def lines(self) -> list[str]:
        out = [
            f"{'kind':<24} {'records':>8} {'episodes':>8} {'failures':>8} {'title-only':>10} {'empty':>6} "
            f"{'mean chars':>10}"
        ]
        for kind in sorted(self.kinds):
            c = self.kinds[kind]
            out.append(
                f"{kind:<24} {c.records:>8} {c.episodes:>8} {c.failures:>8} {c.title_only:>10} {c.empty:>6} "
                f"{c.mean_length:>10.0f}"
            )
        for kind in sorted(self.kinds):
            c = self.kinds[kind]
            if c.title_only or c.empty:
                out.append(
                    f"WARNING: {c.title_only} title-only and {c.empty} empty {kind} episode(s) of "
                    f"{c.episodes}: nothing but a title (empty in the source, or lost by the reader; e.g. {', '.join(c.examples)})"
                )
        return out
