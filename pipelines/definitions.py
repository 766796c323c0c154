"""Code location entry point ([tool.dagster] module_name): `dagster dev` from the repo root loads this."""

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

import dagster as dg  # noqa: E402

from assets.intent_model import intent_classifier  # noqa: E402
from assets.nightly_report import nightly_report  # noqa: E402
from assets.source_chain import build_source_chain  # noqa: E402
from pipelines.dead_runs import dead_run_reaper  # noqa: E402
from pipelines.jobs import nightly_job, source_jobs  # noqa: E402
from pipelines.metrics import prometheus_textfile  # noqa: E402
from pipelines.resources import default_resources  # noqa: E402
from pipelines.schedules import nightly_ingest_schedule  # noqa: E402
from pipelines.sensors import alert_definitions  # noqa: E402
from flow.settings import SOURCES  # noqa: E402

source_assets = [asset for source in SOURCES for asset in build_source_chain(source)]

defs = dg.Definitions(
    assets=[intent_classifier, *source_assets, nightly_report],
    jobs=[nightly_job, *source_jobs.values()],
    schedules=[nightly_ingest_schedule],
    resources=default_resources(),
)
defs = dg.Definitions.merge(defs, alert_definitions(), dg.Definitions(sensors=[prometheus_textfile, dead_run_reaper]))
