"""Given staged mail episodes, when the email graph step runs with the backfill tag (what `graphfeed run --backfill`
sets, and a UI backfill launched with the tag), then it writes the whole backlog past the per-run episode bound,
reports building the vector indexes once at the end, and the group has its vector indexes afterwards; without the tag
the same step stops at the bound as before."""

import asyncio

import dagster as dg
import pytest

from assets.partitions import daily_partitions
from assets.resources import IngestConfig
from assets.source_chain import BACKFILL_BULK, BACKFILL_TAG, graph_asset
from flow.staging import EPISODES
from graph.read.reader import GraphReader
from graph.search_indexes import vector_indexes
from tests.graph.group_writers import mails

DAY = "2026-03-02"


async def indexes(config) -> dict[str, int]:
    async with GraphReader(config) as reader:  # the read side: it creates no index
        return await vector_indexes(await reader.backend.driver("graphfeed"), "graphfeed")


@pytest.mark.parametrize("backfill", [True, False])
def test_given_the_backfill_tag_when_the_graph_step_runs_then_it_writes_all_and_builds_the_indexes(resources, backfill):
    n = 7
    resources = {**resources, "ingest_config": IngestConfig(batch_size=2, max_episodes_per_run=2)}
    resources["home"].staging().write_all("email", EPISODES, DAY, mails("graphfeed", "email", n))
    result = dg.materialize(
        [graph_asset("email", daily_partitions())],
        resources=resources,
        partition_key=DAY,
        tags={BACKFILL_TAG: BACKFILL_BULK} if backfill else {},
    )
    assert result.success
    (event,) = result.get_asset_materialization_events()
    graph = {k: v.value for k, v in event.materialization.metadata.items()}
    assert graph["backfill"] is backfill
    if backfill:
        assert graph["ingested"] == n and graph["backlog"] == 0 and graph["stopped_by"] == ""
        assert graph["index_build_seconds"] > 0
    else:
        assert graph["ingested"] == 2 and graph["backlog"] == n - 2 and graph["stopped_by"] == "max_episodes"
        assert graph["index_build_seconds"] == 0
    found = asyncio.run(indexes(resources["graph"].graph_config(resources["home"].root)))
    assert found == {"fact_embedding": 384, "name_embedding": 384}  # built at the end / kept in place
