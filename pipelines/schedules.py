"""The nightly schedule: at 02:15 UTC (GRAPHFEED_NIGHTLY_CRON) it materialises yesterday's partition of every source."""

import datetime as dt
import os

import dagster as dg

from pipelines.jobs import nightly_job

DEFAULT_NIGHTLY_CRON = "15 2 * * *"


def _yesterday_of_the_tick(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    """Yesterday relative to the tick, not to 'now', so a late or replayed tick still targets its own night."""
    tick = context.scheduled_execution_time.astimezone(dt.UTC)
    key = (tick.date() - dt.timedelta(days=1)).isoformat()
    return dg.RunRequest(run_key=f"nightly-{key}", partition_key=key)


def build_nightly_schedule(cron: str | None = None) -> dg.ScheduleDefinition:
    """`cron`: default GRAPHFEED_NIGHTLY_CRON, read when the definitions are built."""
    cron = cron or os.environ.get("GRAPHFEED_NIGHTLY_CRON", DEFAULT_NIGHTLY_CRON)
    return dg.schedule(
        job=nightly_job,
        cron_schedule=cron,
        execution_timezone="UTC",
        name="nightly_ingest_schedule",
        default_status=dg.DefaultScheduleStatus.STOPPED,
    )(_yesterday_of_the_tick)
