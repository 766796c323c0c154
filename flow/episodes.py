"""Episode building, what a <source>/episodes asset does, as a plain function over staging (testable without Dagster):
each partition's staged raw records become episodes (intent, references, fingerprint), duplicates merged and recorded.

The failure rate is failures / everything the reads produced: the read failures staged for these partitions plus the
records that could not become an episode.
"""

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from flow import project_keys
from flow.staging import EPISODE_FAILURES, EPISODES, RAW, READ_STATS, Staging, spooled_dedup
from ground.episode import Episode
from ground.records import SourceRecord
from transforms.build import EpisodeSettings, IntentPredictor, build_episodes

if TYPE_CHECKING:  # the cascade pulls in the LLM client: imported only when one is given
    from graph.llm.intent import LLMIntentCascade


class EpisodeStats(BaseModel):
    records: int = 0
    episodes: int = 0
    duplicates: int = 0
    failures: int = 0  # read failures staged for these partitions, plus build failures below
    build_failures: int = 0  # records that could not become an episode
    records_read: int = 0  # what the reads behind those failures produced
    empty_content: int = 0
    missing_intent_or_fingerprint: int = 0
    intents: dict[str, int] = Field(default_factory=dict)
    languages: dict[str, int] = Field(default_factory=dict)
    per_partition: dict[str, int] = Field(default_factory=dict)
    intent_llm: dict[str, float | int | str] = Field(default_factory=dict)  # the LLM intent cascade's figures, if on
    duplicate_groups: dict[str, list[str]] = Field(default_factory=dict)
    preview: list[Episode] = Field(default_factory=list)

    @property
    def dedup_rate(self) -> float:
        return self.duplicates / self.records if self.records else 0.0

    @property
    def failure_rate(self) -> float:
        total = self.records_read + self.failures
        return self.failures / total if total else 0.0


def stage_episodes(
    staging: Staging,
    source: str,
    partition_keys: Sequence[str],
    classifier: IntentPredictor,
    settings: EpisodeSettings,
    preview_size: int = 5,
    intent_cascade: "LLMIntentCascade | None" = None,
) -> EpisodeStats:
    """`intent_cascade` (opt-in, flow/intent_cascade.py) relabels the unique episodes the local model is unsure of."""
    stats = EpisodeStats()
    # Jira project keys: what this run's Jira records name joins what earlier Jira runs taught (flow/project_keys.py)
    learned = (
        project_keys.learn_staged(staging, partition_keys) if settings.traits(source).names_project_keys else set()
    )
    settings = project_keys.with_known(settings, project_keys.remember(staging, learned))
    intents: Counter[str] = Counter()
    languages: Counter[str] = Counter()
    for key in partition_keys:
        records = (SourceRecord.model_validate(row) for row in staging.rows(source, RAW, key))
        if staging.exists(source, READ_STATS, key):
            for row in staging.rows(source, READ_STATS, key):
                stats.failures += row["failures"]
                stats.records_read += row["records_read"]
        build_failures = staging.writer(source, EPISODE_FAILURES, key)
        out = staging.writer(source, EPISODES, key)
        try:
            built = build_episodes(records, classifier, settings, on_failure=build_failures.write)
            with spooled_dedup(built) as (unique, dstats):
                for episode in _cascaded(unique, intent_cascade, settings.batch_size):
                    out.write(episode)
                    intents[episode.intent] += 1
                    languages[episode.metadata.language] += 1
                    stats.empty_content += not episode.content.strip()
                    stats.missing_intent_or_fingerprint += not (episode.intent and episode.fingerprint)
                    if len(stats.preview) < preview_size:
                        stats.preview.append(episode)
        except BaseException:
            out.abort()
            build_failures.abort()
            raise
        out.commit()
        build_failures.commit()
        stats.records += dstats.seen
        stats.build_failures += build_failures.rows
        stats.failures += build_failures.rows
        stats.per_partition[key] = out.rows
        stats.episodes += out.rows
        stats.duplicates += dstats.duplicates
        stats.duplicate_groups.update(dstats.groups)
    stats.intents = dict(intents.most_common())
    stats.languages = dict(languages.most_common())
    if intent_cascade is not None:
        stats.intent_llm = intent_cascade.stats.metrics()
    return stats


def _cascaded(
    episodes: Iterable[Episode], cascade: "LLMIntentCascade | None", batch_size: int
) -> Iterable[Episode] | Iterator[Episode]:
    if cascade is None:
        return episodes
    from flow.intent_cascade import cascaded

    return cascaded(episodes, cascade, batch_size)
