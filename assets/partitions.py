"""One daily partitioning for every source, so one job targets all of them and a backfill picks a date range."""

import dagster as dg

from flow.settings import start_date


def daily_partitions() -> dg.DailyPartitionsDefinition:
    """UTC days from GRAPHFEED_START_DATE (read when the definitions are built, not at import)."""
    return dg.DailyPartitionsDefinition(start_date=start_date(), timezone="UTC")
