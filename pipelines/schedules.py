"""The nightly schedule: at 02:15 UTC (GRAPHFEED_NIGHTLY_CRON) it materialises yesterday's partition of every source."""

import datetime as dt
import os

import dagster as dg

from pipelines.jobs import nightly_job

NIGHTLY_CRON = os.environ.get("GRAPHFEED_NIGHTLY_CRON", "15 2 * * *")


@dg.schedule(job=nightly_job, cron_schedule=NIGHTLY_CRON, execution_timezone="UTC",
             name="nightly_ingest_schedule", default_status=dg.DefaultScheduleStatus.STOPPED)
def nightly_ingest_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    """Yesterday relative to the tick, not to 'now', so a late or replayed tick still targets its own night."""
    tick = context.scheduled_execution_time.astimezone(dt.timezone.utc)
    key = (tick.date() - dt.timedelta(days=1)).isoformat()
    return dg.RunRequest(run_key=f"nightly-{key}", partition_key=key)
