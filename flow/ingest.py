"""What a <source>/graph asset does, as a plain function: register the staged episodes in the ledger, then write the
backlog (this partition's episodes plus anything pending or due for retry) in bounded batches.

A batch is a unit: written to the graph, then marked ingested in one ledger transaction. A crash between the two leaves
the batch pending; the rerun writes it again, which changes nothing because every graph id is deterministic. A batch
that fails is retried episode by episode, so one bad episode is retried with backoff and finally quarantined while
the rest of its batch goes in.
"""

import datetime as dt
import logging
import math
import statistics
import time
from collections.abc import Sequence
from typing import Protocol, cast

from pydantic import BaseModel

from flow.stage import Tombstone
from flow.staging import EPISODES, TOMBSTONES, Staging
from graph.config import EmbedderMismatch
from graph.ledger.ledger import Ledger, backlog_growing
from graph.llm.meter import Usage
from graph.write.sink import BatchResult, Budget, Failure, GraphSink, OutcomeStatus
from ground.episode import Episode
from ground.errors import ConfigError

log = logging.getLogger(__name__)
FATAL = (ConfigError, EmbedderMismatch)  # configuration problems: stop the run, never blame an episode
MAX_EPISODES_PER_RUN = 5000  # a nightly run's default bound; what it leaves stays pending for the next night


class IngestLimits(BaseModel):
    batch_size: int = 50
    max_episodes: int | None = MAX_EPISODES_PER_RUN  # None: no per-run bound (a backfill writes its whole backlog)
    max_cost_usd: float = 5.0
    max_attempts: int = 3
    backoff_seconds: float = 300.0


class IngestStats(BaseModel):
    registered_new: int = 0
    already_known: int = 0
    duplicates: int = 0
    attempted: int = 0
    ingested: int = 0
    failed: int = 0
    quarantined: int = 0
    batches: int = 0
    entities_written: int = 0
    facts_written: int = 0
    facts_invalidated: int = 0
    facts_by_relation: dict[str, int] = {}
    facts_by_kind: dict[str, int] = {}
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    tombstoned: int = 0
    backlog: int = 0
    backlog_growing: bool = False
    seconds_per_episode: list[float] = []
    stopped_by: str | None = None  # "max_episodes" | "max_cost" | "max_cost_source_night": work left for later
    index_build_seconds: float = 0.0  # a backfill: building the vector indexes once at the end
    # LLM extraction (sources in llm/both mode); all zero in structured mode.
    llm_calls: int = 0
    embedding_tokens: int = 0
    llm_retries: int = 0
    llm_rate_limited: int = 0
    llm_timeouts: int = 0
    llm_invalid_output: int = 0  # malformed JSON + schema-invalid answers (each retried)
    llm_unparseable_dates: int = 0
    llm_truncated: int = 0  # answers cut at max_tokens (not retried blindly: graph/llm/client.py)
    llm_guard: dict[str, int] = {}  # what the grounding guard dropped/cleared, by reason (graph/llm/guard.py)
    llm_entities: int = 0
    llm_facts: int = 0
    held_for_review: int = 0
    llm_skipped: int = 0  # intents configured as not worth a model call
    llm_tokens_by_prompt: dict[str, dict[str, int]] = {}
    batch_costs_usd: list[float] = []

    @property
    def failure_rate(self) -> float:
        return (self.failed + self.quarantined) / self.attempted if self.attempted else 0.0

    def percentile(self, q: float) -> float:
        if not self.seconds_per_episode:
            return 0.0
        if len(self.seconds_per_episode) == 1:
            return self.seconds_per_episode[0]
        return statistics.quantiles(self.seconds_per_episode, n=100, method="inclusive")[int(q) - 1]


def register_partitions(
    ledger: Ledger, staging: Staging, source: str, partition_keys: Sequence[str], stats: IngestStats
) -> None:
    for key in partition_keys:
        episodes = (Episode.model_validate(row) for row in staging.rows(source, EPISODES, key))
        result = ledger.register(episodes, partition=key)
        stats.registered_new += result.new
        stats.already_known += result.already_known
        stats.duplicates += result.duplicates


def apply_tombstones(
    ledger: Ledger, sink: GraphSink, staging: Staging, source: str, partition_keys: Sequence[str], stats: IngestStats
) -> None:
    """Records deleted upstream: their episodes become tombstoned in the ledger (never claimed again) and the facts
    only they supported get invalid_at = the deletion time; nothing is deleted from the graph."""
    for key in partition_keys:
        if not staging.exists(source, TOMBSTONES, key):
            continue
        for row in staging.rows(source, TOMBSTONES, key):
            tombstone = Tombstone.model_validate(row)
            episode_ids = ledger.tombstone(source, [tombstone.source_key])
            if episode_ids:
                stats.tombstoned += len(episode_ids)
                stats.facts_invalidated += sink.invalidate_episodes(episode_ids, tombstone.at)


def _add(stats: IngestStats, result: BatchResult) -> None:
    stats.entities_written += result.entities_written
    stats.facts_written += result.facts_written
    stats.facts_invalidated += result.facts_invalidated
    for mine, theirs in (
        (stats.facts_by_relation, result.facts_by_relation),
        (stats.facts_by_kind, result.facts_by_kind),
    ):
        for name, count in theirs.items():
            mine[name] = mine.get(name, 0) + count
    stats.seconds_per_episode.extend(result.per_episode_seconds)


def _add_llm(stats: IngestStats, result: BatchResult) -> None:
    usage = result.llm
    stats.tokens_in += usage.tokens_in
    stats.tokens_out += usage.tokens_out
    stats.cost_usd += usage.cost_usd
    stats.llm_calls += usage.calls
    stats.embedding_tokens += usage.embedding_tokens
    stats.llm_retries += usage.retries
    stats.llm_rate_limited += usage.rate_limited
    stats.llm_timeouts += usage.timeouts
    stats.llm_invalid_output += usage.malformed + usage.schema_invalid
    stats.llm_unparseable_dates += usage.unparseable_dates
    stats.llm_truncated += usage.truncated
    for reason, n in usage.guard.items():
        stats.llm_guard[reason] = stats.llm_guard.get(reason, 0) + n
    stats.llm_entities += result.llm_entities
    stats.llm_facts += result.llm_facts
    stats.held_for_review += result.held_for_review
    stats.llm_skipped += result.llm_skipped
    if result.llm_metered:  # a writer with no LLM source reports no batch costs
        stats.batch_costs_usd.append(round(usage.cost_usd, 6))
    for prompt, p in usage.by_prompt.items():
        mine = stats.llm_tokens_by_prompt.setdefault(prompt, {"calls": 0, "tokens_in": 0, "tokens_out": 0})
        mine["calls"] += p.calls
        mine["tokens_in"] += p.tokens_in
        mine["tokens_out"] += p.tokens_out


def _budget(limits: IngestLimits, stats: IngestStats) -> Budget:
    return Budget(max_cost_usd=max(0.0, limits.max_cost_usd - stats.cost_usd))


def _mark_failed(
    ledger: Ledger, episode_id: str, failure: Failure, usage: Usage | None, limits: IngestLimits, stats: IngestStats
) -> None:
    status = ledger.mark_failed(
        episode_id,
        failure.error_class,
        failure.message,
        max_attempts=limits.max_attempts if failure.retryable else 1,
        backoff_base_s=limits.backoff_seconds,
        tokens_in=usage.tokens_in if usage else 0,
        tokens_out=usage.tokens_out if usage else 0,
        cost_usd=usage.cost_usd if usage else 0.0,
    )
    if status == "quarantined":
        stats.quarantined += 1
    else:
        stats.failed += 1


def _settle(ledger: Ledger, result: BatchResult, limits: IngestLimits, stats: IngestStats) -> None:
    """Per episode outcome: ingested with its tokens/cost, failed (retry/quarantine) with its tokens/cost, or deferred
    (not attempted, left pending)."""
    outcomes = result.outcomes
    stats.attempted -= sum(1 for o in outcomes if o.status == OutcomeStatus.deferred)
    done = [o for o in outcomes if o.status == OutcomeStatus.ingested]
    if done:
        share = (result.facts_written + result.llm_facts) // len(done)
        spent = {o.episode_id: o.usage for o in done if o.usage is not None}
        ledger.mark_ingested(
            [o.episode_id for o in done],
            facts_written={o.episode_id: share for o in done},
            tokens_in={i: u.tokens_in for i, u in spent.items()},
            tokens_out={i: u.tokens_out for i, u in spent.items()},
            cost_usd={i: u.cost_usd for i, u in spent.items()},
        )
        stats.ingested += len(done)
    for outcome in outcomes:
        if outcome.status == OutcomeStatus.failed and outcome.failure is not None:
            _mark_failed(ledger, outcome.episode_id, outcome.failure, outcome.usage, limits, stats)
    _add(stats, result)
    _add_llm(stats, result)
    if result.stopped_by:
        stats.stopped_by = result.stopped_by


def write_backlog(ledger: Ledger, sink: GraphSink, source: str, limits: IngestLimits, stats: IngestStats) -> None:
    """Claim, write through the sink, settle each episode's outcome in the ledger; until the backlog is empty or a
    bound (episodes, cost, a budget inside the sink) stops the run. Structured and LLM modes alike.

    Pipelined: each claim looks one batch further ahead, and a sink that can (`coming`, SyncGraphWriter) embeds that
    batch while it writes this one. The look-ahead only warms a cache: the next claim returns those episodes again
    (claiming locks nothing), so what is written and marked stays exactly as without it.
    """
    announce = getattr(sink, "coming", None)
    while True:
        left = math.inf if limits.max_episodes is None else limits.max_episodes - stats.attempted
        if left <= 0:
            stats.stopped_by = "max_episodes"
            break
        if stats.cost_usd >= limits.max_cost_usd:
            stats.stopped_by = "max_cost"
            break
        size = int(min(limits.batch_size, left))
        ahead = int(min(limits.batch_size, left - size)) if announce else 0
        window = ledger.claim(size + ahead, sources=[source])
        batch = window[:size]
        if not batch:
            break
        if announce is not None:
            announce(window[size:])
        stats.batches += 1
        stats.attempted += len(batch)
        try:
            result = sink.write(batch, _budget(limits, stats))
        except FATAL:
            raise
        except Exception:  # noqa: BLE001 - isolate the bad episode(s) below
            _write_one_by_one(ledger, sink, batch, limits, stats)
        else:
            _settle(ledger, result, limits, stats)
        if stats.stopped_by:
            break


def _write_one_by_one(
    ledger: Ledger, sink: GraphSink, batch: list[Episode], limits: IngestLimits, stats: IngestStats
) -> None:
    for episode in batch:
        if stats.stopped_by:
            stats.attempted -= 1  # not attempted: stays pending
            continue
        try:
            result = sink.write([episode], _budget(limits, stats))
        except FATAL:
            raise
        except Exception as exc:  # noqa: BLE001 - failures are data: recorded, retried, then quarantined
            _mark_failed(ledger, episode.id, Failure.of(exc), None, limits, stats)
            continue
        _settle(ledger, result, limits, stats)


class BulkSink(GraphSink, Protocol):
    """A sink opened for a backfill (vector indexes deferred): builds them once the load is written."""

    def build_vector_indexes(self) -> dict[str, float]: ...


def backfill_backlog(ledger: Ledger, sink: BulkSink, source: str, limits: IngestLimits, stats: IngestStats) -> None:
    """A backfill's graph write: the whole backlog (no per-run episode bound: a first load is chosen, and stopping
    early would leave the rest to nightly runs that keep the indexes in place), then the vector indexes built once.
    Killed mid-way, the rerun writes what is pending (the ledger) and builds the indexes at its end; stopped by an
    error, the indexes are built before it is raised, so a failed backfill never leaves search without them."""
    try:
        write_backlog(ledger, sink, source, limits.model_copy(update={"max_episodes": None}), stats)
    except Exception:
        try:
            sink.build_vector_indexes()
        except Exception:  # noqa: BLE001 - the write's error is the one to raise; the next run builds them
            log.warning("building the vector indexes after a failed backfill failed too", exc_info=True)
        raise
    stats.index_build_seconds = round(sum(sink.build_vector_indexes().values()), 3)


def ingest(
    ledger: Ledger,
    sink: GraphSink,
    staging: Staging,
    source: str,
    partition_keys: Sequence[str],
    limits: IngestLimits,
    run_id: str,
    growth_runs: int = 3,
    backfill: bool = False,
) -> IngestStats:
    """backfill: the sink was opened with its vector indexes deferred (`graphfeed run --backfill`): backfill_backlog."""
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    stats = IngestStats()
    register_partitions(ledger, staging, source, partition_keys, stats)
    apply_tombstones(ledger, sink, staging, source, partition_keys, stats)
    if backfill:
        backfill_backlog(ledger, cast(BulkSink, sink), source, limits, stats)
    else:
        write_backlog(ledger, sink, source, limits, stats)
    stats.backlog = ledger.backlog(source)
    ledger.record_run(
        run_id,
        source=source,
        partition=partition_keys[-1],
        started_at=started,
        finished_at=dt.datetime.now(dt.UTC),
        counts={
            "ingested": stats.ingested,
            "failed": stats.failed,
            "quarantined": stats.quarantined,
            "tombstoned": stats.tombstoned,
            "duplicates": stats.duplicates,
            "cost_usd": stats.cost_usd,
            "seconds": round(time.perf_counter() - t0, 3),
        },
    )
    stats.backlog_growing = backlog_growing(ledger.recent_runs(source, growth_runs + 1), growth_runs)
    return stats
