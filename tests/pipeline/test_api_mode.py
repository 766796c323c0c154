"""Given Jira API settings, when the jira chain runs for a day, then it pulls that day's window from the API (through
the real client against a local server that answers like Jira Cloud) instead of reading export files, and the token
appears nowhere in the run's metadata."""

import dagster as dg
import pytest

from assets.resources import SourceApisResource
from assets.source_chain import build_source_chain
from tests.jira.fake_jira import FakeJira

TOKEN = "s3cr3t-token-value"


@pytest.mark.slow
def test_jira_chain_pulls_the_partition_window_from_the_api(httpserver, resources):
    FakeJira(httpserver, cloud=True, issues=5, page_size=2)
    apis = SourceApisResource(
        settings={
            "jira": {
                "url": httpserver.url_for("/").rstrip("/"),
                "username": "bot@northwind.example",
                "api_token": TOKEN,
                "project_keys": ["ACME"],
            }
        }
    )
    chain = build_source_chain("jira")
    result = dg.materialize(
        chain,
        resources={**resources, "apis": apis},
        partition_key="2026-04-12",
        selection=dg.AssetSelection.keys(dg.AssetKey(["jira", "raw_records"]), dg.AssetKey(["jira", "episodes"])),
    )
    assert result.success
    metadata = {
        e.asset_key.to_user_string(): {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }
    raw = metadata["jira/raw_records"]
    assert raw["mode"] == "api" and raw["records"] >= 1
    assert metadata["jira/episodes"]["episodes"] >= 1
    assert TOKEN not in repr(metadata)
    assert all(TOKEN not in str(e.message) for e in result.all_events)


@pytest.mark.slow
def test_an_issue_gone_from_the_next_full_listing_becomes_a_tombstone(httpserver, resources, home):
    # given a first night that listed every key, when an issue is deleted before a later night's listing,
    # then that night stages a tombstone for it and the graph step retires its episodes in the ledger
    fake = FakeJira(httpserver, cloud=True, issues=3, page_size=2)
    apis = SourceApisResource(
        settings={
            "jira": {
                "url": httpserver.url_for("/").rstrip("/"),
                "username": "bot@northwind.example",
                "api_token": TOKEN,
                "project_keys": ["ACME"],
                "full_listing_days": 0,
            }
        }
    )
    chain = build_source_chain("jira")
    nights = ["2026-04-11", "2026-04-12", "2026-04-13"]
    first = dg.materialize(chain, resources={**resources, "apis": apis}, partition_key=nights[0])
    assert first.success
    fake.deleted.add("ACME-1")
    later = dg.materialize(chain, resources={**resources, "apis": apis}, partition_key=nights[2])
    assert later.success
    from flow.staging import Staging

    staged = list(Staging(str(home / "staging")).rows("jira", "tombstones", nights[2]))
    assert [(t["source_key"], t["reason"]) for t in staged] == [("ACME-1", "absent_from_listing")]
    graph = [e for e in later.get_asset_materialization_events() if e.asset_key.to_user_string() == "jira/graph"]
    assert graph[0].materialization.metadata["tombstoned"].value >= 1
