"""Given the bundled sample company's mail, when the email chain is materialised, then the staged episodes, the
metadata and the checks tell the same story as sample/expected.json."""

import json

import dagster as dg

from assets.intent_model import build_intent_classifier
from assets.source_chain import build_source_chain
from flow.staging import Staging
from pipelines.dagster_private import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

CHAIN = build_source_chain("email")
intent_classifier = build_intent_classifier()


def _metadata(result, key: str) -> dict:
    """A range run records one materialisation per partition, all with the run's metadata."""
    events = [e for e in result.get_asset_materialization_events() if e.asset_key.to_user_string() == key]
    assert events, f"{key} was not materialised"
    return {k: v.value for k, v in events[0].materialization.metadata.items()}


def test_one_day_with_a_duplicate_across_archives(resources, expected):
    day = "2026-03-02"
    result = dg.materialize(
        [intent_classifier, *CHAIN], resources=resources, partition_key=day, selection=dg.AssetSelection.groups("email")
    )
    assert result.success
    want = expected["per_day"][day]
    raw = _metadata(result, "email/raw_records")
    eps = _metadata(result, "email/episodes")
    assert raw["records"] == want["messages"] + want["duplicates"]
    assert eps["episodes"] == want["messages"]
    assert eps["duplicates"] == want["duplicates"]
    assert eps["dedup_rate"] > 0
    assert sum(v for k, v in eps.items() if k.startswith("intent/")) == eps["episodes"]
    assert "| when (UTC) |" in eps["preview"]
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {
        "no_empty_content": True,
        "intent_and_fingerprint": True,
        "failure_rate_below_bound": True,
        "embedder_matches": True,
        "ingest_failure_rate_below_bound": True,
        "backlog_not_growing": True,
    }

    graph = _metadata(result, "email/graph")
    assert graph["ingested"] == want["messages"] and graph["failed"] == 0 and graph["backlog"] == 0
    assert graph["facts_written"] > 0 and graph["llm_cost_usd"] == 0.0

    staging = Staging(str(resources["home"].root / "staging"))
    rows = list(staging.rows("email", "episodes", day))
    assert len(rows) == want["messages"]
    assert all(r["metadata"]["source_key"].startswith("<") for r in rows)
    assert any(r["metadata"]["duplicate_keys"] for r in rows)


def test_the_whole_sample_as_one_range_run(resources, expected):
    start, end = expected["date_range"]["start"], expected["date_range"]["end"]
    result = dg.materialize(
        CHAIN,
        resources=resources,
        selection=dg.AssetSelection.groups("email"),
        tags={ASSET_PARTITION_RANGE_START_TAG: start, ASSET_PARTITION_RANGE_END_TAG: end},
    )
    assert result.success
    raw = _metadata(result, "email/raw_records")
    totals = expected["totals"]
    assert raw["failures"] >= totals["broken"] - 2  # two broken entries may be read as degraded records
    assert raw["records"] >= totals["unique_messages"] + totals["duplicates"]

    staging = Staging(str(resources["home"].root / "staging"))
    days = dg.DailyPartitionsDefinition(start_date=start).get_partition_keys_in_range(dg.PartitionKeyRange(start, end))
    ids = {row["id"] for day in days for row in staging.rows("email", "episodes", day)}
    assert totals["unique_messages"] <= len(ids) <= totals["unique_messages"] + 2
    failures = [json.loads(line) for line in staging.path("email", "failures", end).read_text().splitlines()]
    assert all(f["reason"] and f["location"]["file"] for f in failures)

    # every distinct episode is in the ledger exactly once and ingested; a rerun of the range adds nothing
    with resources["ledger"].open(resources["home"].root) as book:
        counts = book.counts("email")
    assert counts["ingested"] == len(ids) and counts["pending"] == counts["failed"] == counts["quarantined"] == 0
    again = dg.materialize(
        CHAIN,
        resources=resources,
        selection=dg.AssetSelection.groups("email"),
        tags={ASSET_PARTITION_RANGE_START_TAG: start, ASSET_PARTITION_RANGE_END_TAG: end},
    )
    assert _metadata(again, "email/graph")["ingested"] == 0
    with resources["ledger"].open(resources["home"].root) as book:
        assert book.counts("email") == counts
