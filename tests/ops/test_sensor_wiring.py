"""Given the code location, when the alert sensors and the Prometheus sensor are merged in (the lines proposed for
pipelines/definitions.py), then the definitions still load and the sensors find their resource."""

import dagster as dg

from pipelines.metrics import prometheus_textfile
from pipelines.sensors import ALERT_SENSORS, AlertsResource, alert_definitions


def test_merging_the_ops_sensors_into_the_code_location_loads(monkeypatch):
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "webhook")
    monkeypatch.setenv("GRAPHFEED_ALERT_WEBHOOK_URL", "http://127.0.0.1:9/alerts")
    from pipelines.definitions import defs

    merged = dg.Definitions.merge(defs, alert_definitions(), dg.Definitions(sensors=[prometheus_textfile]))
    dg.Definitions.validate_loadable(merged)
    repo = merged.get_repository_def()
    names = {s.name for s in repo.sensor_defs}
    assert {"run_failure_alert", "asset_check_failure_alert", "quality_alert", "prometheus_textfile"} <= names
    alerts = merged.resources["alerts"]
    assert isinstance(alerts, AlertsResource) and alerts.channel == "webhook"
    assert isinstance(alerts.webhook_url, dg.EnvVar)          # the URL is a secret: resolved at run/tick time


def test_sensors_run_by_themselves_only_when_a_channel_is_configured(monkeypatch):
    from pipelines.sensors import _default_status

    monkeypatch.delenv("GRAPHFEED_ALERT_CHANNEL", raising=False)
    assert _default_status() == dg.DefaultSensorStatus.STOPPED
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "none")
    assert _default_status() == dg.DefaultSensorStatus.STOPPED
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "smtp")
    assert _default_status() == dg.DefaultSensorStatus.RUNNING
    assert all(s.required_resource_keys == {"alerts"} for s in ALERT_SENSORS)
    assert prometheus_textfile.required_resource_keys == set()
