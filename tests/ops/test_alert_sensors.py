"""Given the email chain materialised into a real (SQLite) instance, when the alert sensors tick, then the failures, the
low dedup rate and the night's LLM spend reach the channel once each — through a real SMTP server or webhook."""

import json
from pathlib import Path

import dagster as dg
import pytest

from assets.intent_model import build_intent_classifier
from assets.source_chain import build_source_chain
from pipelines.alert_senders import AlertsResource
from pipelines.sensors import alert_sensors
from tests.ops.conftest import chain_resources

DAY = "2026-03-02"
CHAIN = build_source_chain("email")
intent_classifier = build_intent_classifier()
run_failure_alert, asset_check_failure_alert, quality_alert = alert_sensors()


def _materialize(instance, tmp_path, ops_model_cache, **episode_overrides):
    resources = chain_resources(tmp_path / "home", ops_model_cache, **episode_overrides)
    return dg.materialize(
        [intent_classifier, *CHAIN],
        resources=resources,
        partition_key=DAY,
        instance=instance,
        selection=dg.AssetSelection.groups("email"),
        raise_on_error=False,
    )


def _repository():
    """The code location the sensors run in (resources are only bound, never opened, to list the checks)."""
    unused = Path("/nonexistent")
    return dg.Definitions(
        assets=[intent_classifier, *CHAIN], resources=chain_resources(unused, unused)
    ).get_repository_def()


def _tick(sensor, instance, alerts: AlertsResource, cursor=None):
    context = dg.build_sensor_context(
        instance=instance, cursor=cursor, repository_def=_repository(), resources={"alerts": alerts}
    )
    result = sensor(context)
    return context.cursor, result


def _webhook(httpserver) -> AlertsResource:
    httpserver.expect_request("/alerts", method="POST").respond_with_data("ok")
    return AlertsResource(
        channel="webhook", webhook_url=httpserver.url_for("/alerts"), min_dedup_rate=0.99, max_nightly_cost_usd=5.0
    )


def _posted(httpserver) -> list[dict]:
    return [json.loads(request.data)["alert"] for request, _ in httpserver.log]


@pytest.fixture
def failed_run(instance, tmp_path, ops_model_cache):
    """A night whose read failures exceed a zero bound: the blocking check fails and with it the run."""
    result = _materialize(instance, tmp_path, ops_model_cache, max_failure_rate=0.0)
    assert not result.success
    return result


def test_a_failed_blocking_check_alerts_once_by_mail(instance, failed_run, smtp_server):
    host, port, sink = smtp_server
    alerts = AlertsResource(channel="smtp", smtp_host=host, smtp_port=port, smtp_recipients=["oncall@ops.example"])
    cursor, _ = _tick(asset_check_failure_alert, instance, alerts)
    [msg] = sink.wait_for(1)
    assert msg["Subject"] == f"[graphfeed] check failure_rate_below_bound on email/episodes failed for {DAY}"
    body = msg.get_content()
    assert "bound: 0.0" in body and "failure_rate: " in body

    _tick(asset_check_failure_alert, instance, alerts, cursor)  # next tick: nothing new
    assert len(sink.wait_for(2, timeout=1)) == 1


def test_the_failed_run_alerts_with_its_step_error_and_failed_check(instance, failed_run, smtp_server):
    host, port, sink = smtp_server
    alerts = AlertsResource(channel="smtp", smtp_host=host, smtp_port=port, smtp_recipients=["oncall@ops.example"])
    context = dg.build_run_status_sensor_context(
        sensor_name="run_failure_alert",
        dagster_event=failed_run.get_run_failure_event(),
        dagster_instance=instance,
        dagster_run=failed_run.dagster_run,
        resources={"alerts": alerts},
    ).for_run_failure()
    run_failure_alert(context)
    [msg] = sink.wait_for(1)
    assert msg["Subject"] == f"[graphfeed] run of {failed_run.dagster_run.job_name} for {DAY} failed"
    body = msg.get_content()
    assert "step failed: email__episodes" in body
    assert "failed checks: email/episodes:failure_rate_below_bound" in body


def test_a_successful_night_raises_no_check_alert_but_a_low_dedup_rate_does(
    instance, tmp_path, ops_model_cache, httpserver
):
    result = _materialize(instance, tmp_path, ops_model_cache)
    assert result.success
    alerts = _webhook(httpserver)
    _tick(asset_check_failure_alert, instance, alerts)
    assert _posted(httpserver) == []

    cursor, _ = _tick(quality_alert, instance, alerts)
    [dedup] = _posted(httpserver)
    assert dedup["kind"] == "dedup_rate" and dedup["asset"] == "email/episodes" and dedup["partition"] == DAY
    assert 0 < dedup["figures"]["dedup_rate"] < 0.99 and dedup["figures"]["duplicates"] > 0
    _tick(quality_alert, instance, alerts, cursor)
    assert len(_posted(httpserver)) == 1  # sent once

    relaxed = AlertsResource(channel="webhook", webhook_url=httpserver.url_for("/alerts"), min_dedup_rate=0.0)
    _tick(quality_alert, instance, relaxed)
    assert len(_posted(httpserver)) == 1  # rate 0 bound: never below


def test_a_night_above_the_cost_bound_alerts_once(instance, httpserver):
    # The sample needs no LLM (local embedder), so the spend is reported the way an external run records it.
    for source_cost in (3.5, 6.25):
        instance.report_runless_asset_event(
            dg.AssetMaterialization(
                asset_key=dg.AssetKey(["email", "graph"]), partition=DAY, metadata={"llm_cost_usd": source_cost}
            )
        )
    alerts = _webhook(httpserver)
    cursor, _ = _tick(quality_alert, instance, alerts)
    [cost] = _posted(httpserver)
    assert cost["kind"] == "llm_cost" and cost["partition"] == DAY
    assert cost["figures"]["llm_cost_usd"] == 6.25  # the latest materialisation of the night
    assert cost["title"] == f"LLM spend for {DAY} is $6.25, above $5.00"

    instance.report_runless_asset_event(
        dg.AssetMaterialization(
            asset_key=dg.AssetKey(["email", "graph"]), partition=DAY, metadata={"llm_cost_usd": 9.0}
        )
    )
    _tick(quality_alert, instance, alerts, cursor)
    assert len(_posted(httpserver)) == 1  # that night was already alerted


def test_a_night_below_the_cost_bound_stays_quiet(instance, httpserver):
    instance.report_runless_asset_event(
        dg.AssetMaterialization(
            asset_key=dg.AssetKey(["email", "graph"]), partition=DAY, metadata={"llm_cost_usd": 0.42}
        )
    )
    _tick(quality_alert, instance, _webhook(httpserver))
    assert _posted(httpserver) == []


def test_a_channel_that_is_down_fails_the_tick_and_keeps_the_cursor(instance, failed_run):
    from pipelines.alert_senders import NotificationError
    from tests.servers._process import free_port

    alerts = AlertsResource(channel="webhook", webhook_url=f"http://127.0.0.1:{free_port()}/alerts")
    context = dg.build_sensor_context(instance=instance, repository_def=_repository(), resources={"alerts": alerts})
    with pytest.raises(NotificationError, match="webhook http://127.0.0.1"):
        asset_check_failure_alert(context)
    assert context.cursor is None


def test_history_is_not_alerted_on_when_the_sensor_is_first_turned_on(instance):
    import time

    from pipelines.alert_rules import QualityCursor, quality_alerts

    instance.report_runless_asset_event(
        dg.AssetMaterialization(
            asset_key=dg.AssetKey(["email", "graph"]), partition=DAY, metadata={"llm_cost_usd": 50.0}
        )
    )
    three_days_later = time.time() + 3 * 24 * 3600
    found, cursor = quality_alerts(instance, QualityCursor(), None, 5.0, now=three_days_later)
    assert found == [] and cursor.after  # read past, not alerted: older than the first-tick window
    found, _ = quality_alerts(
        instance, QualityCursor(after={"email/episodes": 0, "email/graph": 0}), None, 5.0, now=three_days_later
    )
    assert [a.kind for a in found] == ["llm_cost"]  # a running sensor still alerts on a 3-day-old night
    found, _ = quality_alerts(
        instance,
        QualityCursor(after={"email/episodes": 0, "email/graph": 0}),
        None,
        5.0,
        now=time.time() + 8 * 24 * 3600,
    )
    assert found == []  # but not on what is older than a week
