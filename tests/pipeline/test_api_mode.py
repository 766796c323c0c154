"""Given Jira API settings, when the jira chain runs for a day, then it pulls that day's window from the API (through
the real client against a local server that answers like Jira Cloud) instead of reading export files, and the token
appears nowhere in the run's metadata."""

import dagster as dg
import pytest

from assets.source_chain import build_source_chain
from pipelines.resources import SourceApisResource
from tests.jira.fake_jira import FakeJira

TOKEN = "s3cr3t-token-value"


@pytest.mark.slow
def test_jira_chain_pulls_the_partition_window_from_the_api(httpserver, resources):
    FakeJira(httpserver, cloud=True, issues=5, page_size=2)
    apis = SourceApisResource(jira_url=httpserver.url_for("/").rstrip("/"), jira_username="bot@northwind.example",
                              jira_api_token=TOKEN, jira_project_keys=["ACME"])
    chain = build_source_chain("jira")
    result = dg.materialize(chain, resources={**resources, "apis": apis}, partition_key="2026-04-12",
                            selection=dg.AssetSelection.keys(dg.AssetKey(["jira", "raw_records"]),
                                                             dg.AssetKey(["jira", "episodes"])))
    assert result.success
    metadata = {e.asset_key.to_user_string(): {k: v.value for k, v in e.materialization.metadata.items()}
                for e in result.get_asset_materialization_events()}
    raw = metadata["jira/raw_records"]
    assert raw["mode"] == "api" and raw["records"] >= 1
    assert metadata["jira/episodes"]["episodes"] >= 1
    assert TOKEN not in repr(metadata)
    assert all(TOKEN not in str(e.message) for e in result.all_events)
