"""Alerts: a run-failure sensor, an asset-check-failure sensor and a quality sensor (dedup rate too low, a night's
LLM spend too high), all sending through one configurable channel (pipelines/alert_senders.py): SMTP mail, a JSON
webhook, or Slack. What they alert on is in pipelines/alert_rules.py. Hook into the code location with
`defs = dg.Definitions.merge(defs, alert_definitions())`.
"""

import os

import dagster as dg

from pipelines.alert_rules import (
    CheckCursor,
    QualityCursor,
    check_failure_alerts,
    deliver,
    failed_checks_of_run,
    quality_alerts,
    run_failure_alert_for,
)
from pipelines.alert_senders import AlertsResource, alerts_resource_from_env


def _default_status() -> dg.DefaultSensorStatus:
    """Running as soon as a channel is configured; a laptop without one starts them from the UI if it wants."""
    channel = os.environ.get("GRAPHFEED_ALERT_CHANNEL", "none").strip()
    return dg.DefaultSensorStatus.RUNNING if channel and channel != "none" else dg.DefaultSensorStatus.STOPPED


def run_failure_alert(context: dg.RunFailureSensorContext, alerts: AlertsResource) -> None:
    steps = []
    for event in context.get_step_failure_events():
        error = getattr(event.event_specific_data, "error", None)
        steps.append(f"{event.step_key}: {error.message.strip() if error else event.message}")
    alert = run_failure_alert_for(
        context.dagster_run,
        context.failure_event.message or "run failed",
        steps,
        failed_checks_of_run(context.instance, context.dagster_run.run_id),
    )
    deliver(context, alerts.notifier(), [alert])


def asset_check_failure_alert(context: dg.SensorEvaluationContext, alerts: AlertsResource) -> dg.SkipReason:
    cursor = CheckCursor.model_validate_json(context.cursor) if context.cursor else CheckCursor()
    check_keys = context.repository_def.asset_graph.asset_check_keys
    found, new_cursor = check_failure_alerts(context.instance, check_keys, cursor)
    deliver(context, alerts.notifier(), found)
    context.update_cursor(new_cursor.model_dump_json())
    return dg.SkipReason(f"{len(found)} check failure alert(s) sent")


def quality_alert(context: dg.SensorEvaluationContext, alerts: AlertsResource) -> dg.SkipReason:
    cursor = QualityCursor.model_validate_json(context.cursor) if context.cursor else QualityCursor()
    found, new_cursor = quality_alerts(context.instance, cursor, alerts.min_dedup_rate, alerts.max_nightly_cost_usd)
    deliver(context, alerts.notifier(), found)
    context.update_cursor(new_cursor.model_dump_json())
    return dg.SkipReason(f"{len(found)} quality alert(s) sent")


def alert_sensors() -> list[dg.SensorDefinition]:
    """run_failure_alert, asset_check_failure_alert, quality_alert; running by default when GRAPHFEED_ALERT_CHANNEL
    names a channel (read now, when the definitions are built)."""
    status = _default_status()
    return [
        dg.run_failure_sensor(
            name="run_failure_alert",
            default_status=status,
            minimum_interval_seconds=30,
            description="Sends the failed run's error, failed steps and failed checks to the alert channel.",
        )(run_failure_alert),
        dg.sensor(
            name="asset_check_failure_alert",
            default_status=status,
            minimum_interval_seconds=60,
            description="Sends every failed asset check (blocking or warning) to the alert channel, once.",
        )(asset_check_failure_alert),
        dg.sensor(
            name="quality_alert",
            default_status=status,
            minimum_interval_seconds=120,
            description="Dedup rate below GRAPHFEED_ALERT_MIN_DEDUP_RATE, or a night's LLM spend above "
            "GRAPHFEED_ALERT_MAX_NIGHTLY_COST_USD.",
        )(quality_alert),
    ]


def alert_definitions() -> dg.Definitions:
    """The sensors and their `alerts` resource, to merge into the code location's Definitions."""
    return dg.Definitions(sensors=alert_sensors(), resources={"alerts": alerts_resource_from_env()})
