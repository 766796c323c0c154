"""Given the bundled sample's mail and GRAPHFEED_LLM_INTENT=cascade pointed at the scripted OpenAI-compatible server,
when email/episodes is materialised twice, then the unsure episodes carry the LLM's label and where it came from, the
asset's metadata reports the calls and cost, and the second run is answered from the cache at $0."""

import dagster as dg

from assets.source_chain import build_source_chain
from flow.staging import Staging
from tests.llm.scripted_server import ScriptedOpenAI
from transforms.intent import llm_prompt as lp

CHAIN = build_source_chain("email")
DAY = "2026-03-02"
SELECTION = dg.AssetSelection.assets(dg.AssetKey(["email", "raw_records"]), dg.AssetKey(["email", "episodes"]))


def _episodes_metadata(result) -> dict:
    [event] = [e for e in result.get_asset_materialization_events() if e.asset_key.to_user_string() == "email/episodes"]
    return {k: v.value for k, v in event.materialization.metadata.items()}


def test_the_episodes_asset_with_the_cascade_on_relabels_meters_and_caches(resources, monkeypatch):
    with ScriptedOpenAI() as server:
        # given an LLM that calls everything a decision, and a cascade bar every unit is under
        server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
        monkeypatch.setenv("GRAPHFEED_LLM_INTENT", "cascade")
        monkeypatch.setenv("GRAPHFEED_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("GRAPHFEED_LLM_INTENT_BELOW", "1.01")
        # when the day's episodes are built
        first = dg.materialize(CHAIN, resources=resources, partition_key=DAY, selection=SELECTION)
        calls_after_first = len(server.requests)
        # and built again
        second = dg.materialize(CHAIN, resources=resources, partition_key=DAY, selection=SELECTION)
    assert first.success and second.success
    meta = _episodes_metadata(first)
    rows = list(Staging(str(resources["home"].root / "staging")).rows("email", "episodes", DAY))
    # then every episode with text went to the LLM once (metered), and says where its label came from
    asked = [r for r in rows if r["metadata"].get("intent_source") == "llm"]
    assert asked and all(r["intent"] == "decision" for r in asked)
    assert {r["metadata"]["intent_source"] for r in rows} <= {"llm", "local"}
    assert meta["intent_llm/calls"] == calls_after_first == len(asked) == meta["intent_llm/llm_labels"]
    assert meta["intent_llm/cost_usd"] > 0 and meta["intent/decision"] >= len(asked)
    # and the rerun made no call and cost nothing
    again = _episodes_metadata(second)
    assert len(server.requests) == calls_after_first
    assert again["intent_llm/calls"] == 0 and again["intent_llm/cost_usd"] == 0.0
    assert again["intent_llm/cached"] == len(asked)
