"""Definitions load, the chain per source is wired as the user expects, and the nightly schedule targets yesterday."""

import datetime as dt

import dagster as dg

from pipelines.definitions import defs


def test_definitions_load_with_every_source_chain_the_model_and_the_report():
    dg.Definitions.validate_loadable(defs)
    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    chains = {
        f"{source}/{stage}"
        for source in ("email", "jira", "confluence", "salesforce")
        for stage in ("raw_records", "episodes", "graph")
    }
    assert keys == chains | {"models/intent_classifier", "reporting/nightly_report"}


def test_episodes_depend_on_raw_records_and_the_intent_model():
    graph = defs.resolve_asset_graph()
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey(["email", "episodes"])).parent_keys}
    assert parents == {"email/raw_records", "models/intent_classifier"}


def test_episodes_carry_the_three_checks_and_the_failure_check_blocks():
    episodes = defs.resolve_assets_def(dg.AssetKey(["email", "episodes"]))
    specs = {spec.name: spec for spec in episodes.check_specs}
    assert set(specs) == {"no_empty_content", "intent_and_fingerprint", "failure_rate_below_bound"}
    assert specs["failure_rate_below_bound"].blocking


def test_partitioned_assets_backfill_in_a_single_run():
    for key in (["email", "raw_records"], ["email", "episodes"]):
        policy = defs.resolve_assets_def(dg.AssetKey(key)).backfill_policy
        assert policy is not None and policy.max_partitions_per_run is None


def test_nightly_schedule_targets_yesterday_at_0215_utc():
    schedule = defs.resolve_schedule_def("nightly_ingest_schedule")
    assert schedule.cron_schedule == "15 2 * * *"
    tick = dt.datetime(2026, 6, 4, 2, 15, tzinfo=dt.UTC)
    with dg.build_schedule_context(scheduled_execution_time=tick, repository_def=defs.get_repository_def()) as ctx:
        requests = schedule.evaluate_tick(ctx).run_requests
    assert [r.partition_key for r in requests] == ["2026-06-03"]
    assert schedule.job_name == "nightly_ingest"


def test_per_source_job_selects_only_that_source():
    job = defs.resolve_job_def("email_ingest")
    assert {k.to_user_string() for k in job.asset_layer.executable_asset_keys} == {
        "email/raw_records",
        "email/episodes",
        "email/graph",
    }
