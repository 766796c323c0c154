"""The asset chain every source gets: <source>/raw_records -> <source>/episodes -> <source>/graph.

All assets are daily-partitioned with a single-run backfill policy: a UI backfill over a date range is one run that
reads the export files once.
"""

import contextlib
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg

from assets.intent_model import INTENT_MODEL_KEY
from assets.partitions import daily_partitions
from assets.resources import (
    EpisodeConfig,
    ExportsResource,
    GraphResource,
    HomeResource,
    IngestConfig,
    IntentModelResource,
    LedgerResource,
    SourceApisResource,
    plain_value,
)
from flow.episodes import stage_episodes
from flow.ingest import ingest
from flow.stage import stage_raw_records
from flow.staging import EPISODES, FAILURES, RAW
from graph.config import EmbedderMismatch

# The run tag that makes the graph steps a bulk load (`graphfeed run --backfill`; in the UI: Launch backfill -> Add tag
# graphfeed/backfill = bulk): vector indexes dropped while writing, built once at the end, no per-run episode bound.
BACKFILL_TAG, BACKFILL_BULK = "graphfeed/backfill", "bulk"


def graph_pool(source: str) -> str:
    """One graph step per source at a time (two runs of a source would claim the same backlog). Writes to one group
    are serialised by the writer's per-group lock (graph/write/group_locks.py), not by this pool, so sources
    writing to different groups write in parallel."""
    return f"graph_write_{source}"


def _preview(episodes) -> str:
    lines = ["| when (UTC) | actor | intent | conf | title |", "|---|---|---|---:|---|"]
    for ep in episodes:
        title = (ep.metadata.title or ep.content[:60]).replace("|", "\\|").replace("\n", " ")[:80]
        lines.append(
            f"| {ep.timestamp:%Y-%m-%d %H:%M} | {ep.actor.id} | {ep.intent} | {ep.intent_confidence:.2f} | {title} |"
        )
    return "\n".join(lines)


def build_source_chain(source: str, partitions_def: dg.PartitionsDefinition | None = None) -> list[dg.AssetsDefinition]:
    """`partitions_def`: the code location's daily partitions (default: built from the environment now). Nothing here
    knows a source: readers, settings and checkpoints come from its spec through the `apis` resource."""
    partitions = partitions_def or daily_partitions()
    return [raw_records_asset(source, partitions), episodes_asset(source, partitions), graph_asset(source, partitions)]


def _common(source: str, partitions: dg.PartitionsDefinition) -> dict[str, Any]:
    """What every asset of a source's chain is declared with."""
    return {
        "group_name": source,
        "partitions_def": partitions,
        "backfill_policy": dg.BackfillPolicy.single_run(),
        "tags": {"source": source},
    }


def raw_records_asset(source: str, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    """<source>/raw_records: the source's API reader for the window when its settings name one, else its export
    files; records, failures and deletions staged per partition."""

    @dg.asset(
        key=dg.AssetKey([source, RAW]),
        **_common(source, partitions),
        kinds={"python"},
        pool=f"{source}_api",
        description=f"{source} records whose updated time falls in the partition's UTC day (plus overlap), "
        "and the failures met while reading.",
    )
    def raw_records(
        context: dg.AssetExecutionContext,
        home: HomeResource,
        exports: ExportsResource,
        apis: SourceApisResource,
        episode_config: EpisodeConfig,
    ) -> dg.MaterializeResult:
        keys = context.partition_keys
        api_reader = apis.reader(source)
        reader = api_reader or apis.export_reader(source, exports.paths(source))
        staging = home.staging()
        saved = apis.saved_checkpoint(source, staging) if api_reader else None
        stats = stage_raw_records(
            reader,
            staging,
            source,
            keys,
            whole_export=api_reader is None,
            checkpoint=saved,
            overlap=dt.timedelta(minutes=episode_config.overlap_minutes),
        )
        if api_reader:
            apis.save_checkpoint(source, staging, stats.checkpoint)
        context.log.info(
            "%s: %d records, %d failures over %d partition(s)",
            source,
            stats.distinct_records,
            stats.failures,
            len(keys),
        )
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": stats.records,
                "records": stats.distinct_records,
                "records_read": stats.records_read,
                "failures": stats.failures,
                "failure_rate": dg.MetadataValue.float(round(stats.failure_rate, 4)),
                "tombstones": stats.tombstones,
                **{f"failures/{cls}": n for cls, n in sorted(stats.failures_by_class.items())},
                **{f"reader/{name}": n for name, n in sorted(stats.reader_counts.items())},
                "partitions": len(keys),
                "mode": "api" if api_reader else "export files",
                "staged": dg.MetadataValue.path(str(staging.path(source, RAW, keys[-1]).parent)),
                "failures_file": dg.MetadataValue.path(str(staging.path(source, FAILURES, keys[-1]))),
            }
        )

    return raw_records


def episodes_asset(source: str, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    """<source>/episodes: staged records -> episodes (intent, references, fingerprint), with the source's traits."""
    episodes_key = dg.AssetKey([source, EPISODES])

    @dg.asset(
        key=episodes_key,
        **_common(source, partitions),
        deps=[dg.AssetKey([source, RAW]), INTENT_MODEL_KEY],
        kinds={"python", "spacy"},
        check_specs=[
            dg.AssetCheckSpec("no_empty_content", asset=episodes_key, description="Every episode has content."),
            dg.AssetCheckSpec(
                "intent_and_fingerprint",
                asset=episodes_key,
                description="Every episode has an intent and a fingerprint.",
            ),
            dg.AssetCheckSpec(
                "failure_rate_below_bound",
                asset=episodes_key,
                blocking=True,
                description="Share of records that failed to read stays below the configured bound.",
            ),
        ],
        description=f"{source} episodes: intent, references, fingerprint; duplicates merged and recorded.",
    )
    def episodes(
        context: dg.AssetExecutionContext,
        home: HomeResource,
        intent_model: IntentModelResource,
        episode_config: EpisodeConfig,
    ) -> dg.MaterializeResult:
        keys = context.partition_keys
        staging = home.staging()
        classifier = intent_model.classifier(home.root)
        settings = episode_config.episode_settings()
        with _intent_cascade(home.root, classifier, settings, intent_model) as cascade:
            stats = stage_episodes(staging, source, keys, classifier, settings, intent_cascade=cascade)
        bound = episode_config.max_failure_rate
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": stats.episodes,
                "records": stats.records,
                "episodes": stats.episodes,
                "failures": stats.failures,
                "build_failures": stats.build_failures,
                "duplicates": stats.duplicates,
                "dedup_rate": dg.MetadataValue.float(round(stats.dedup_rate, 4)),
                **{f"intent/{name}": n for name, n in sorted(stats.intents.items())},
                **{f"language/{name}": n for name, n in sorted(stats.languages.items())},
                **{f"intent_llm/{name}": value for name, value in stats.intent_llm.items()},
                "preview": dg.MetadataValue.md(_preview(stats.preview)),
                "staged": dg.MetadataValue.path(str(staging.path(source, EPISODES, keys[-1]).parent)),
            },
            check_results=[
                dg.AssetCheckResult(
                    check_name="no_empty_content",
                    passed=stats.empty_content == 0,
                    metadata={"empty": stats.empty_content},
                ),
                dg.AssetCheckResult(
                    check_name="intent_and_fingerprint",
                    passed=stats.missing_intent_or_fingerprint == 0,
                    metadata={"missing": stats.missing_intent_or_fingerprint},
                ),
                dg.AssetCheckResult(
                    check_name="failure_rate_below_bound",
                    passed=stats.failure_rate <= bound,
                    metadata={
                        "failure_rate": dg.MetadataValue.float(round(stats.failure_rate, 4)),
                        "bound": dg.MetadataValue.float(bound),
                        "failures": stats.failures,
                    },
                ),
            ],
        )

    return episodes


def graph_asset(source: str, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    """<source>/graph: staged episodes (and the backlog) written to the graph in bounded batches."""
    graph_key = dg.AssetKey([source, "graph"])

    @dg.asset(
        key=graph_key,
        **_common(source, partitions),
        deps=[dg.AssetKey([source, EPISODES])],
        kinds={"graphiti"},
        pool=graph_pool(source),
        check_specs=[
            dg.AssetCheckSpec(
                "embedder_matches",
                asset=graph_key,
                blocking=True,
                description="The graph was written with the embedder and dimension this run uses.",
            ),
            dg.AssetCheckSpec(
                "ingest_failure_rate_below_bound",
                asset=graph_key,
                description="Share of attempted episodes that failed stays below the bound.",
            ),
            dg.AssetCheckSpec(
                "backlog_not_growing", asset=graph_key, description="The ledger backlog did not rise run after run."
            ),
        ],
        description=f"{source} episodes (and the backlog) written to the Graphiti graph in bounded batches; "
        "the ledger records every episode's status.",
    )
    def graph_ingest(
        context: dg.AssetExecutionContext,
        home: HomeResource,
        graph: GraphResource,
        ledger: LedgerResource,
        ingest_config: IngestConfig,
    ) -> dg.MaterializeResult:
        limits = ingest_config.limits()
        bulk = context.run.tags.get(BACKFILL_TAG) == BACKFILL_BULK
        with ledger.open(home.root) as book, graph.writer(home.root, plain_value(ledger.url), backfill=bulk) as writer:
            try:
                stats = ingest(
                    book,
                    writer,
                    home.staging(),
                    source,
                    context.partition_keys,
                    limits,
                    run_id=f"{context.run_id}:{source}",
                    growth_runs=ingest_config.backlog_growth_runs,
                    backfill=bulk,
                )
            except EmbedderMismatch as exc:
                context.log.error(str(exc))
                return dg.MaterializeResult(
                    metadata={"ingested": 0, "error": str(exc)},
                    check_results=[
                        dg.AssetCheckResult(check_name="embedder_matches", passed=False, metadata={"error": str(exc)}),
                        dg.AssetCheckResult(check_name="ingest_failure_rate_below_bound", passed=True),
                        dg.AssetCheckResult(check_name="backlog_not_growing", passed=True),
                    ],
                )
        if stats.stopped_by:
            context.log.warning(
                "stopped by %s: %d episodes stay pending for the next run", stats.stopped_by, stats.backlog
            )
        bound = ingest_config.max_failure_rate
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": stats.ingested,
                "ingested": stats.ingested,
                "duplicates": stats.duplicates,
                "failed": stats.failed,
                "quarantined": stats.quarantined,
                "tombstoned": stats.tombstoned,
                "backlog": stats.backlog,
                "batches": stats.batches,
                "entities_written": stats.entities_written,
                "facts_written": stats.facts_written,
                "facts_invalidated": stats.facts_invalidated,
                "facts_by_kind": dg.MetadataValue.json(dict(sorted(stats.facts_by_kind.items()))),
                "facts_by_relation": dg.MetadataValue.json(dict(sorted(stats.facts_by_relation.items()))),
                "llm_tokens_in": stats.tokens_in,
                "llm_tokens_out": stats.tokens_out,
                "llm_cost_usd": dg.MetadataValue.float(stats.cost_usd),
                "llm_cost_per_episode_usd": dg.MetadataValue.float(
                    round(stats.cost_usd / stats.attempted, 6) if stats.attempted else 0.0
                ),
                **{
                    name: getattr(stats, name)
                    for name in (
                        "llm_calls",
                        "embedding_tokens",
                        "llm_retries",
                        "llm_rate_limited",
                        "llm_timeouts",
                        "llm_invalid_output",
                        "llm_unparseable_dates",
                        "llm_truncated",
                        "llm_entities",
                        "llm_facts",
                        "held_for_review",
                        "llm_skipped",
                    )
                },
                "llm_guard_dropped": dg.MetadataValue.json(dict(sorted(stats.llm_guard.items()))),
                "llm_tokens_by_prompt": dg.MetadataValue.json(stats.llm_tokens_by_prompt),
                "llm_batch_costs_usd": dg.MetadataValue.json(stats.batch_costs_usd),
                "seconds_per_episode_p50": dg.MetadataValue.float(round(stats.percentile(50), 4)),
                "seconds_per_episode_p95": dg.MetadataValue.float(round(stats.percentile(95), 4)),
                "stopped_by": stats.stopped_by or "",
                "backfill": bulk,
                "index_build_seconds": dg.MetadataValue.float(stats.index_build_seconds),
            },
            check_results=[
                dg.AssetCheckResult(check_name="embedder_matches", passed=True),
                dg.AssetCheckResult(
                    check_name="ingest_failure_rate_below_bound",
                    passed=stats.failure_rate <= bound,
                    metadata={
                        "failure_rate": dg.MetadataValue.float(round(stats.failure_rate, 4)),
                        "bound": dg.MetadataValue.float(bound),
                    },
                ),
                dg.AssetCheckResult(
                    check_name="backlog_not_growing",
                    passed=not stats.backlog_growing,
                    metadata={"backlog": stats.backlog},
                ),
            ],
        )

    return graph_ingest


@contextlib.contextmanager
def _intent_cascade(home: Path, classifier, settings, intent_model: IntentModelResource) -> Iterator[Any]:
    """The opt-in LLM intent cascade (GRAPHFEED_LLM_INTENT=cascade), None when off."""
    from graph.llm.settings import intent_cascade_settings

    llm = intent_cascade_settings()
    if llm is None:
        yield None
        return
    from flow.intent_cascade import open_intent_cascade

    taxonomy = Path(intent_model.taxonomy_path) if intent_model.taxonomy_path else None
    cascade = open_intent_cascade(llm, home, classifier, settings, taxonomy)
    try:
        yield cascade
    finally:
        cascade.close()
