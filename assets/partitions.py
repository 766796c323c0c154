"""One daily partitioning for every source, so one job targets all of them and a backfill picks a date range."""

import dagster as dg

from flow.settings import start_date

DAILY = dg.DailyPartitionsDefinition(start_date=start_date(), timezone="UTC")
