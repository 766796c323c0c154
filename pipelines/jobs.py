"""Jobs: everything nightly, and one per source for reruns (`graphfeed run --source jira`, the Launchpad)."""

import dagster as dg

from flow.settings import SOURCES

nightly_job = dg.define_asset_job(
    "nightly_ingest",
    selection=dg.AssetSelection.groups(*SOURCES, "reporting"),
    tags={"graphfeed/job": "nightly"},
    description="Every source's chain for one day (or a range, as one run).",
)

source_jobs = {
    source: dg.define_asset_job(f"{source}_ingest", selection=dg.AssetSelection.groups(source), tags={"source": source})
    for source in SOURCES
}
