"""One daily partitioning for every source, so one job targets all of them and a backfill picks a date range."""

import datetime as dt

import dagster as dg

from pipelines.settings import start_date

DAILY = dg.DailyPartitionsDefinition(start_date=start_date(), timezone="UTC")


def day_window(partition_key: str) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.fromisoformat(partition_key).replace(tzinfo=dt.timezone.utc)
    return start, start + dt.timedelta(days=1)
