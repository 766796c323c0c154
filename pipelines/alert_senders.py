"""Alert channels: the Alert an operator should see and the notifiers that deliver it (SMTP mail, a JSON webhook, or
Slack through dagster-slack), plus the `alerts` resource that picks the channel and holds the quality bounds.

The notifiers are plain classes tested against real local servers. A notifier that cannot deliver raises
NotificationError: the sensor tick fails visibly in the UI and, because its cursor did not move, the alert is sent again
on the next tick.
"""

import json
import os
import smtplib
import urllib.error
import urllib.request
from email.message import EmailMessage
from typing import Literal, Protocol

import dagster as dg
from pydantic import BaseModel, Field

from assets.resources import plain_value
from flow import settings

Severity = Literal["warning", "error"]


class Alert(BaseModel):
    """One thing an operator should look at. `key` identifies it so the same alert is not sent twice."""

    kind: Literal["run_failure", "check_failure", "dedup_rate", "llm_cost"]
    key: str
    title: str
    body: str
    severity: Severity = "error"
    run_id: str | None = None
    asset: str | None = None
    partition: str | None = None
    figures: dict[str, float | int | str] = Field(default_factory=dict)

    def text(self) -> str:
        lines = [f"[graphfeed {self.severity}] {self.title}", "", self.body]
        context = {"asset": self.asset, "partition": self.partition, "run": self.run_id}
        lines += [f"{name}: {value}" for name, value in context.items() if value]
        lines += [f"{name}: {value}" for name, value in sorted(self.figures.items())]
        return "\n".join(lines)


class NotificationError(RuntimeError):
    """The channel did not take the alert (server down, refused, HTTP error)."""


class Notifier(Protocol):
    def send(self, alert: Alert) -> None: ...


class NullNotifier:
    """Channel `none`: alerts are only logged by the sensor (the default on a laptop)."""

    def send(self, alert: Alert) -> None:
        return None


class SmtpNotifier(BaseModel):
    host: str
    port: int = 25
    sender: str
    recipients: list[str]
    username: str | None = None
    password: str | None = Field(default=None, repr=False)
    starttls: bool = False
    timeout_s: float = 20.0

    def message(self, alert: Alert) -> EmailMessage:
        msg = EmailMessage()
        msg["Subject"] = f"[graphfeed] {alert.title}"
        msg["From"] = self.sender
        msg["To"] = ", ".join(self.recipients)
        msg["X-Graphfeed-Alert"] = alert.kind
        msg.set_content(alert.text())
        return msg

    def send(self, alert: Alert) -> None:
        if not self.recipients:
            raise NotificationError("SMTP channel has no recipients (GRAPHFEED_ALERT_SMTP_TO)")
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout_s) as smtp:
                if self.starttls:
                    smtp.starttls()
                if self.username:
                    smtp.login(self.username, self.password or "")
                smtp.send_message(self.message(alert))
        except (OSError, smtplib.SMTPException) as exc:
            raise NotificationError(f"SMTP {self.host}:{self.port}: {type(exc).__name__}: {exc}") from exc


class WebhookNotifier(BaseModel):
    """POSTs JSON {"text": ..., "alert": {...}}: a Slack/Mattermost incoming webhook reads `text`, anything else the
    structured `alert`."""

    url: str
    timeout_s: float = 20.0

    def payload(self, alert: Alert) -> dict:
        return {"text": alert.text(), "alert": alert.model_dump(mode="json")}

    def send(self, alert: Alert) -> None:
        request = urllib.request.Request(
            self.url,
            data=json.dumps(self.payload(alert)).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                response.read()
        except urllib.error.HTTPError as exc:
            raise NotificationError(f"webhook answered HTTP {exc.code}: {exc.read()[:200]!r}") from exc
        except OSError as exc:
            raise NotificationError(f"webhook {self.url}: {type(exc).__name__}: {exc}") from exc


class SlackNotifier(BaseModel):
    """chat.postMessage through dagster-slack's client. `base_url` is Slack's API unless pointed elsewhere (tests)."""

    token: str = Field(repr=False)
    channel: str
    base_url: str | None = None

    def send(self, alert: Alert) -> None:
        from dagster_slack import SlackResource
        from slack_sdk.errors import SlackApiError

        client = SlackResource(token=self.token).get_client()
        if self.base_url:
            client.base_url = self.base_url
        try:
            client.chat_postMessage(channel=self.channel, text=alert.text())
        except (SlackApiError, OSError) as exc:
            raise NotificationError(f"Slack chat.postMessage to {self.channel}: {exc}") from exc


# ---------------------------------------------------------------------------------------------------------------------
# Configuration: the channel and the bounds, as a resource (every secret through EnvVar)

CHANNELS = ("none", "smtp", "webhook", "slack")


class AlertsResource(dg.ConfigurableResource):
    """The alert channel and the bounds the quality sensor enforces."""

    channel: str = "none"  # none | smtp | webhook | slack
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_sender: str = "graphfeed@localhost"
    smtp_recipients: list[str] = []
    smtp_username: str | None = None
    smtp_password: str | None = None  # EnvVar("GRAPHFEED_ALERT_SMTP_PASSWORD")
    smtp_starttls: bool = False
    webhook_url: str | None = None  # EnvVar("GRAPHFEED_ALERT_WEBHOOK_URL"): the URL is the secret
    slack_token: str | None = None  # EnvVar("GRAPHFEED_ALERT_SLACK_TOKEN")
    slack_channel: str = "#graphfeed"
    slack_base_url: str | None = None
    min_dedup_rate: float | None = None  # alert when a source's dedup rate drops below this (None: off)
    max_nightly_cost_usd: float | None = None  # alert when a night's LLM spend over all sources exceeds this

    def notifier(self) -> "Notifier":
        plain = plain_value
        if self.channel == "none":
            return NullNotifier()
        if self.channel == "smtp":
            return SmtpNotifier(
                host=self.smtp_host,
                port=self.smtp_port,
                sender=self.smtp_sender,
                recipients=self.smtp_recipients,
                username=self.smtp_username,
                password=plain(self.smtp_password),
                starttls=self.smtp_starttls,
            )
        if self.channel == "webhook":
            if not self.webhook_url:
                raise NotificationError("webhook channel without GRAPHFEED_ALERT_WEBHOOK_URL")
            return WebhookNotifier(url=plain(self.webhook_url))
        if self.channel == "slack":
            if not self.slack_token:
                raise NotificationError("slack channel without GRAPHFEED_ALERT_SLACK_TOKEN")
            return SlackNotifier(
                token=plain(self.slack_token), channel=self.slack_channel, base_url=self.slack_base_url
            )
        raise NotificationError(f"unknown alert channel {self.channel!r}; known: {', '.join(CHANNELS)}")


def _secret(name: str):
    return dg.EnvVar(name) if os.environ.get(name) else None


def _optional_float(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else None


def alerts_resource_from_env() -> AlertsResource:
    return AlertsResource(
        channel=os.environ.get("GRAPHFEED_ALERT_CHANNEL", "none").strip() or "none",
        smtp_host=os.environ.get("GRAPHFEED_ALERT_SMTP_HOST", "localhost"),
        smtp_port=settings.env_int("GRAPHFEED_ALERT_SMTP_PORT", 25),
        smtp_sender=os.environ.get("GRAPHFEED_ALERT_SMTP_FROM", "graphfeed@localhost"),
        smtp_recipients=settings.env_list("GRAPHFEED_ALERT_SMTP_TO"),
        smtp_username=os.environ.get("GRAPHFEED_ALERT_SMTP_USER") or None,
        smtp_password=_secret("GRAPHFEED_ALERT_SMTP_PASSWORD"),
        smtp_starttls=os.environ.get("GRAPHFEED_ALERT_SMTP_STARTTLS", "").lower() in ("1", "true", "yes"),
        webhook_url=_secret("GRAPHFEED_ALERT_WEBHOOK_URL"),
        slack_token=_secret("GRAPHFEED_ALERT_SLACK_TOKEN"),
        slack_channel=os.environ.get("GRAPHFEED_ALERT_SLACK_CHANNEL", "#graphfeed"),
        min_dedup_rate=_optional_float("GRAPHFEED_ALERT_MIN_DEDUP_RATE"),
        max_nightly_cost_usd=_optional_float("GRAPHFEED_ALERT_MAX_NIGHTLY_COST_USD"),
    )
