"""Given an alert, when a notifier sends it, then a real server on loopback receives it (or the failure is raised)."""

import json

import pytest
from werkzeug import Response

from pipelines.alert_senders import (
    Alert,
    AlertsResource,
    NotificationError,
    SlackNotifier,
    SmtpNotifier,
    WebhookNotifier,
)
from tests.servers._process import free_port

ALERT = Alert(
    kind="check_failure",
    key="check:7",
    title="check failure_rate_below_bound on email/episodes failed",
    body="Asset check email/episodes:failure_rate_below_bound did not pass.",
    severity="error",
    run_id="r-1",
    asset="email/episodes",
    partition="2026-03-02",
    figures={"failure_rate": 0.25},
)


def test_smtp_notifier_delivers_a_mail_with_the_alert(smtp_server):
    host, port, sink = smtp_server
    SmtpNotifier(
        host=host, port=port, sender="graphfeed@ops.example", recipients=["oncall@ops.example", "data@ops.example"]
    ).send(ALERT)
    [msg] = sink.wait_for(1)
    assert msg["Subject"] == "[graphfeed] check failure_rate_below_bound on email/episodes failed"
    assert msg["X-Graphfeed-Alert"] == "check_failure"
    text = msg.get_content()
    assert "partition: 2026-03-02" in text and "failure_rate: 0.25" in text
    assert sink.envelopes == [("graphfeed@ops.example", ["oncall@ops.example", "data@ops.example"])]


def test_smtp_notifier_without_a_server_raises_notification_error():
    notifier = SmtpNotifier(host="127.0.0.1", port=free_port(), sender="g@x", recipients=["a@x"], timeout_s=3)
    with pytest.raises(NotificationError, match="SMTP 127.0.0.1"):
        notifier.send(ALERT)


def test_smtp_notifier_without_recipients_raises():
    with pytest.raises(NotificationError, match="no recipients"):
        SmtpNotifier(host="127.0.0.1", port=25, sender="g@x", recipients=[]).send(ALERT)


def test_webhook_notifier_posts_text_and_the_structured_alert(httpserver):
    httpserver.expect_oneshot_request("/hooks/graphfeed", method="POST").respond_with_data("ok")
    WebhookNotifier(url=httpserver.url_for("/hooks/graphfeed")).send(ALERT)
    [(request, _)] = httpserver.log
    payload = json.loads(request.data)
    assert payload["text"].startswith("[graphfeed error] check failure_rate_below_bound")
    assert payload["alert"]["asset"] == "email/episodes"
    assert payload["alert"]["figures"] == {"failure_rate": 0.25}
    httpserver.check_assertions()


def test_webhook_notifier_turns_an_http_error_into_notification_error(httpserver):
    httpserver.expect_request("/hooks/down").respond_with_data("no", status=503)
    with pytest.raises(NotificationError, match="HTTP 503"):
        WebhookNotifier(url=httpserver.url_for("/hooks/down")).send(ALERT)


def test_slack_notifier_calls_chat_post_message_through_dagster_slack(httpserver):
    httpserver.expect_request("/api/chat.postMessage", method="POST").respond_with_json({"ok": True, "ts": "1.2"})
    SlackNotifier(token="xoxb-test", channel="#data-ops", base_url=httpserver.url_for("/api/")).send(ALERT)
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Bearer xoxb-test"
    sent = request.get_json() if request.is_json else dict(request.form)
    assert sent["channel"] == "#data-ops" and "failure_rate_below_bound" in sent["text"]


def test_slack_notifier_reports_slack_errors(httpserver):
    httpserver.expect_request("/api/chat.postMessage").respond_with_response(
        Response(json.dumps({"ok": False, "error": "channel_not_found"}), content_type="application/json")
    )
    with pytest.raises(NotificationError, match="channel_not_found"):
        SlackNotifier(token="xoxb-test", channel="#nope", base_url=httpserver.url_for("/api/")).send(ALERT)


def test_resource_picks_the_channel_and_rejects_an_unknown_one(httpserver):
    assert type(AlertsResource(channel="webhook", webhook_url="http://127.0.0.1:1/x").notifier()) is WebhookNotifier
    assert type(AlertsResource(channel="smtp", smtp_recipients=["a@x"]).notifier()) is SmtpNotifier
    with pytest.raises(NotificationError, match="unknown alert channel 'pager'"):
        AlertsResource(channel="pager").notifier()
    with pytest.raises(NotificationError, match="WEBHOOK_URL"):
        AlertsResource(channel="webhook").notifier()


def test_resource_from_env_reads_secrets_as_env_vars(monkeypatch):
    import dagster as dg

    from pipelines.alert_senders import alerts_resource_from_env

    monkeypatch.setenv("GRAPHFEED_ALERT_CHANNEL", "smtp")
    monkeypatch.setenv("GRAPHFEED_ALERT_SMTP_TO", "a@x, b@x")
    monkeypatch.setenv("GRAPHFEED_ALERT_SMTP_PASSWORD", "s3cret")
    monkeypatch.setenv("GRAPHFEED_ALERT_MIN_DEDUP_RATE", "0.05")
    res = alerts_resource_from_env()
    assert res.smtp_recipients == ["a@x", "b@x"] and res.min_dedup_rate == 0.05
    assert isinstance(res.smtp_password, dg.EnvVar)
    assert res.notifier().password == "s3cret"
