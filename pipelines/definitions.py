"""Code location entry point ([tool.dagster] module_name): `dagster dev` from the repo root loads this."""

import warnings

import dagster as dg

from assets.intent_model import build_intent_classifier
from assets.nightly_report import build_nightly_report
from assets.partitions import daily_partitions
from assets.source_chain import build_source_chain
from connectors import registry
from pipelines import pool_claims
from pipelines.dead_runs import dead_run_reaper
from pipelines.jobs import nightly_job, source_jobs
from pipelines.metrics import prometheus_textfile_sensor
from pipelines.resources import default_resources
from pipelines.schedules import build_nightly_schedule
from pipelines.sensors import alert_definitions

pool_claims.install()  # one slot, one step, also on PostgreSQL (pipelines/pool_claims.py)


def build_definitions() -> dg.Definitions:
    """The whole code location: every source's asset chain, jobs, the schedule, sensors, and resources. Everything the
    environment decides (start date, cron, model data, alert channel, resources) is read here, not at import."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*backfill_policy.*", category=dg.BetaWarning)  # stable in practice
        partitions = daily_partitions()
        # the registry's sources as they are when the definitions are built (a test may register one)
        source_assets = [asset for source in registry.SOURCES for asset in build_source_chain(source, partitions)]
        assets = [build_intent_classifier(), *source_assets, build_nightly_report(partitions)]
    defs = dg.Definitions(
        assets=assets,
        jobs=[nightly_job, *source_jobs.values()],
        schedules=[build_nightly_schedule()],
        resources=default_resources(),
    )
    return dg.Definitions.merge(
        defs, alert_definitions(), dg.Definitions(sensors=[prometheus_textfile_sensor(), dead_run_reaper])
    )


defs = build_definitions()
