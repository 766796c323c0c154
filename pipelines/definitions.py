"""Code location entry point ([tool.dagster] module_name): `dagster dev` from the repo root loads this."""

import dagster as dg

from assets.intent_model import intent_classifier
from assets.nightly_report import nightly_report
from assets.source_chain import build_source_chain
from flow.settings import SOURCES
from pipelines.dead_runs import dead_run_reaper
from pipelines.jobs import nightly_job, source_jobs
from pipelines.metrics import prometheus_textfile
from pipelines.resources import default_resources
from pipelines.schedules import nightly_ingest_schedule
from pipelines.sensors import alert_definitions


def build_definitions() -> dg.Definitions:
    """The whole code location: every source's asset chain, jobs, the schedule, sensors, and resources from the
    environment."""
    source_assets = [asset for source in SOURCES for asset in build_source_chain(source)]
    defs = dg.Definitions(
        assets=[intent_classifier, *source_assets, nightly_report],
        jobs=[nightly_job, *source_jobs.values()],
        schedules=[nightly_ingest_schedule],
        resources=default_resources(),
    )
    return dg.Definitions.merge(defs, alert_definitions(),
                                dg.Definitions(sensors=[prometheus_textfile, dead_run_reaper]))


defs = build_definitions()
