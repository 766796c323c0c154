"""What to alert on, as functions over what the Dagster instance stores: failed runs, failed asset checks, a dedup rate
below its bound, a night's LLM spend above its bound. The sensors (pipelines/sensors.py) call these and deliver."""

from collections.abc import Iterable, Sequence

import dagster as dg
from pydantic import BaseModel, Field

from flow.settings import SOURCES
from pipelines.alert_senders import Alert, Notifier
from pipelines.dagster_private import AssetCheckExecutionRecordStatus, DagsterEventType


def run_partition(run: dg.DagsterRun | None) -> str | None:
    """The run's partition, or `start...end` for a single-run range backfill."""
    if run is None:
        return None
    tags = run.tags
    if "dagster/partition" in tags:
        return tags["dagster/partition"]
    start, end = tags.get("dagster/asset_partition_range_start"), tags.get("dagster/asset_partition_range_end")
    return f"{start}...{end}" if start and end else None


def failed_checks_of_run(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    failed = []
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION):
        evaluation = entry.dagster_event.asset_check_evaluation_data
        if not evaluation.passed:
            failed.append(f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}")
    return failed


def run_failure_alert_for(
    run: dg.DagsterRun, message: str, step_errors: Sequence[str], failed_checks: Sequence[str]
) -> Alert:
    partition = run_partition(run)
    body = [message]
    body += [f"step failed: {error}" for error in step_errors]
    if failed_checks:
        body.append("failed checks: " + ", ".join(failed_checks))
    return Alert(
        kind="run_failure",
        key=f"run:{run.run_id}",
        severity="error",
        title=f"run of {run.job_name}{' for ' + partition if partition else ''} failed",
        body="\n".join(body),
        run_id=run.run_id,
        partition=partition,
    )


def check_failure_alert_for(
    check_key: dg.AssetCheckKey, execution_id: int, run: dg.DagsterRun | None, severity: str, metadata: dict
) -> Alert:
    asset = check_key.asset_key.to_user_string()
    partition = run_partition(run)
    figures = {k: v for k, v in metadata.items() if isinstance(v, (int, float, str))}
    return Alert(
        kind="check_failure",
        key=f"check:{execution_id}",
        severity="warning" if severity == "WARN" else "error",
        title=f"check {check_key.name} on {asset} failed{' for ' + partition if partition else ''}",
        body=f"Asset check {asset}:{check_key.name} did not pass.",
        run_id=run.run_id if run else None,
        asset=asset,
        partition=partition,
        figures=figures,
    )


FIRST_TICK_LOOKBACK_S = 36 * 3600  # a sensor turned on over a long history alerts on the last night, not on a year
MAX_AGE_S = 7 * 24 * 3600  # and a sensor paging through a long backlog skips what is older than a week


def _first_tick_floor(first_tick: bool, now: float | None = None) -> float:
    """Events older than this are not alerted on (only read past)."""
    import time

    return (now or time.time()) - (FIRST_TICK_LOOKBACK_S if first_tick else MAX_AGE_S)


class CheckCursor(BaseModel):
    """Check executions are inserted when planned and updated when evaluated (same id): keep a watermark below the
    oldest still-running one and remember what was handled above it."""

    after: int = 0
    handled: list[int] = Field(default_factory=list)


def check_failure_alerts(
    instance: dg.DagsterInstance,
    check_keys: Iterable[dg.AssetCheckKey],
    cursor: CheckCursor,
    per_key: int = 100,
    now: float | None = None,
) -> tuple[list[Alert], CheckCursor]:
    alerts: list[Alert] = []
    floor = _first_tick_floor(cursor.after == 0 and not cursor.handled, now)
    handled = set(cursor.handled)
    pending: list[int] = []
    newest = cursor.after
    runs: dict[str, dg.DagsterRun | None] = {}
    for key in check_keys:
        for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=per_key):
            if record.id <= cursor.after or record.id in handled:
                continue
            newest = max(newest, record.id)
            if record.run_id not in runs:
                runs[record.run_id] = instance.get_run_by_id(record.run_id)
            run = runs[record.run_id]
            if record.status == AssetCheckExecutionRecordStatus.PLANNED:
                if run is not None and not run.is_finished:
                    pending.append(record.id)  # look again next tick
                else:
                    handled.add(record.id)  # never evaluated: the run failure alert covers it
                continue
            handled.add(record.id)
            if record.create_timestamp < floor:
                continue
            if record.status == AssetCheckExecutionRecordStatus.FAILED and record.event is not None:
                evaluation = record.event.dagster_event.asset_check_evaluation_data
                metadata = {k: v.value for k, v in evaluation.metadata.items()}
                alerts.append(check_failure_alert_for(key, record.id, run, evaluation.severity.value, metadata))
    after = (min(pending) - 1) if pending else newest
    return alerts, CheckCursor(after=after, handled=sorted(i for i in handled if i > after))


def _figure(metadata, name: str):
    value = metadata.get(name)
    return getattr(value, "value", value)


class QualityCursor(BaseModel):
    after: dict[str, int] = Field(default_factory=dict)  # asset key -> last storage id read
    cost_alerted: list[str] = Field(default_factory=list)  # partitions already alerted for cost (newest last)


def night_cost(instance: dg.DagsterInstance, partition: str, sources: Sequence[str] = SOURCES) -> dict[str, float]:
    """LLM spend per source for a night: the latest <source>/graph materialisation of that partition."""
    costs = {}
    for source in sources:
        result = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey([source, "graph"]), asset_partitions=[partition]), limit=1
        )
        if result.records:
            costs[source] = float(_figure(result.records[0].asset_materialization.metadata, "llm_cost_usd") or 0.0)
    return costs


def _new_materializations(
    instance: dg.DagsterInstance, key: dg.AssetKey, after: dict[str, int], limit: int, now: float | None
):
    """Materialisations of `key` since the cursor (advanced in `after`), skipping history older than the first tick's
    floor, so turning a sensor on does not replay months of alerts."""
    name = key.to_user_string()
    floor = _first_tick_floor(name not in after, now)
    result = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, after_storage_id=after.get(name)), limit=limit, ascending=True
    )
    for record in result.records:
        after[name] = record.storage_id
        if record.timestamp >= floor:
            yield record


def quality_alerts(
    instance: dg.DagsterInstance,
    cursor: QualityCursor,
    min_dedup_rate: float | None,
    max_nightly_cost_usd: float | None,
    sources: Sequence[str] = SOURCES,
    limit: int = 500,
    now: float | None = None,
) -> tuple[list[Alert], QualityCursor]:
    alerts: list[Alert] = []
    after = dict(cursor.after)
    seen_runs: set[str] = set()
    for source in sources:
        key = dg.AssetKey([source, "episodes"])
        for record in _new_materializations(instance, key, after, limit, now):
            metadata = record.asset_materialization.metadata
            rate = _figure(metadata, "dedup_rate")
            if min_dedup_rate is None or rate is None or record.run_id in seen_runs or rate >= min_dedup_rate:
                continue
            seen_runs.add(record.run_id)  # a range run has one materialisation per partition, one alert
            run = instance.get_run_by_id(record.run_id)
            alerts.append(
                Alert(
                    kind="dedup_rate",
                    key=f"dedup:{record.run_id}:{source}",
                    severity="warning",
                    title=f"{source} dedup rate {rate:.1%} below {min_dedup_rate:.1%}",
                    body="Fewer duplicates were merged than the bound expects: a changed export format or fingerprint "
                    "can let the same message in twice.",
                    run_id=record.run_id,
                    asset=key.to_user_string(),
                    partition=run_partition(run) or record.partition_key,
                    figures={
                        "dedup_rate": rate,
                        "min_dedup_rate": min_dedup_rate,
                        "records": _figure(metadata, "records") or 0,
                        "duplicates": _figure(metadata, "duplicates") or 0,
                    },
                )
            )

    partitions: list[str] = []
    for source in sources:
        key = dg.AssetKey([source, "graph"])
        for record in _new_materializations(instance, key, after, limit, now):
            if record.partition_key and record.partition_key not in partitions:
                partitions.append(record.partition_key)
    alerted = list(cursor.cost_alerted)
    if max_nightly_cost_usd is not None:
        for partition in partitions:
            if partition in alerted:
                continue
            costs = night_cost(instance, partition, sources)
            total = sum(costs.values())
            if total > max_nightly_cost_usd:
                alerted.append(partition)
                alerts.append(
                    Alert(
                        kind="llm_cost",
                        key=f"cost:{partition}",
                        severity="warning",
                        partition=partition,
                        title=f"LLM spend for {partition} is ${total:.2f}, above ${max_nightly_cost_usd:.2f}",
                        body="The night's graph ingestion spent more on LLM calls than the bound. Each run also stops at "
                        "GRAPHFEED_MAX_COST_PER_RUN_USD and leaves the rest pending.",
                        figures={
                            "llm_cost_usd": round(total, 6),
                            "bound_usd": max_nightly_cost_usd,
                            **{f"llm_cost_usd/{s}": round(c, 6) for s, c in costs.items()},
                        },
                    )
                )
    return alerts, QualityCursor(after=after, cost_alerted=alerted[-100:])


def deliver(context, notifier: "Notifier", alerts: Sequence[Alert]) -> None:
    for alert in alerts:
        context.log.warning("alert %s: %s", alert.key, alert.title)
        notifier.send(alert)
