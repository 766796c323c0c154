"""The code location carries the alert sensors and the Prometheus sensor, and they find their resource."""

import dagster as dg

from pipelines.alert_senders import AlertsResource
from pipelines.metrics import prometheus_textfile_sensor
from pipelines.sensors import alert_definitions, alert_sensors


def test_the_code_location_carries_the_alert_and_prometheus_sensors():
    from pipelines.definitions import defs

    dg.Definitions.validate_loadable(defs)
    names = {s.name for s in defs.get_repository_def().sensor_defs}
    assert {"run_failure_alert", "asset_check_failure_alert", "quality_alert", "prometheus_textfile"} <= names
    assert isinstance(defs.resources["alerts"], AlertsResource)


def test_the_alert_channel_comes_from_the_environment_and_its_url_stays_a_secret(monkeypatch):
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "webhook")
    monkeypatch.setenv("GRAPHFEED_ALERT_WEBHOOK_URL", "http://127.0.0.1:9/alerts")
    alerts = alert_definitions().resources["alerts"]
    assert isinstance(alerts, AlertsResource) and alerts.channel == "webhook"
    assert isinstance(alerts.webhook_url, dg.EnvVar)  # the URL is a secret: resolved at run/tick time


def test_sensors_run_by_themselves_only_when_a_channel_is_configured(monkeypatch):
    from pipelines.sensors import _default_status

    monkeypatch.delenv("GRAPHFEED_ALERT_CHANNEL", raising=False)
    assert _default_status() == dg.DefaultSensorStatus.STOPPED
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "none")
    assert _default_status() == dg.DefaultSensorStatus.STOPPED
    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "smtp")
    assert _default_status() == dg.DefaultSensorStatus.RUNNING
    sensors = alert_sensors()  # the environment is read when the definitions are built, not at import
    assert all(s.default_status == dg.DefaultSensorStatus.RUNNING for s in sensors)
    assert all(s.required_resource_keys == {"alerts"} for s in sensors)
    assert prometheus_textfile_sensor().required_resource_keys == set()
