"""Alerts: a run-failure sensor, an asset-check-failure sensor and a quality sensor (dedup rate too low, a night's
LLM spend too high), all sending through one configurable channel: SMTP mail, a JSON webhook, or Slack (dagster-slack).

The notifiers are plain classes tested against real local servers. A notifier that cannot deliver raises
NotificationError: the sensor tick fails visibly in the UI and, because its cursor did not move, the alert is sent again
on the next tick. Hook into the code location with `defs = dg.Definitions.merge(defs, alert_definitions())`.
"""

import json
import os
import smtplib
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from email.message import EmailMessage
from typing import Literal, Protocol

import dagster as dg
from dagster._core.events import DagsterEventType
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus
from pydantic import BaseModel, Field

from flow import settings
from flow.settings import SOURCES

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
        request = urllib.request.Request(self.url, data=json.dumps(self.payload(alert)).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
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

    channel: str = "none"                        # none | smtp | webhook | slack
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_sender: str = "graphfeed@localhost"
    smtp_recipients: list[str] = []
    smtp_username: str | None = None
    smtp_password: str | None = None             # EnvVar("GRAPHFEED_ALERT_SMTP_PASSWORD")
    smtp_starttls: bool = False
    webhook_url: str | None = None               # EnvVar("GRAPHFEED_ALERT_WEBHOOK_URL"): the URL is the secret
    slack_token: str | None = None               # EnvVar("GRAPHFEED_ALERT_SLACK_TOKEN")
    slack_channel: str = "#graphfeed"
    slack_base_url: str | None = None
    min_dedup_rate: float | None = None          # alert when a source's dedup rate drops below this (None: off)
    max_nightly_cost_usd: float | None = None    # alert when a night's LLM spend over all sources exceeds this

    def notifier(self) -> "Notifier":
        plain = _plain
        if self.channel == "none":
            return NullNotifier()
        if self.channel == "smtp":
            return SmtpNotifier(host=self.smtp_host, port=self.smtp_port, sender=self.smtp_sender,
                                recipients=self.smtp_recipients, username=self.smtp_username,
                                password=plain(self.smtp_password), starttls=self.smtp_starttls)
        if self.channel == "webhook":
            if not self.webhook_url:
                raise NotificationError("webhook channel without GRAPHFEED_ALERT_WEBHOOK_URL")
            return WebhookNotifier(url=plain(self.webhook_url))
        if self.channel == "slack":
            if not self.slack_token:
                raise NotificationError("slack channel without GRAPHFEED_ALERT_SLACK_TOKEN")
            return SlackNotifier(token=plain(self.slack_token), channel=self.slack_channel,
                                 base_url=self.slack_base_url)
        raise NotificationError(f"unknown alert channel {self.channel!r}; known: {', '.join(CHANNELS)}")


def _plain(value):
    return value.get_value() if isinstance(value, dg.EnvVar) else value


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


# ---------------------------------------------------------------------------------------------------------------------
# What to alert on, as functions over what the instance stores


def run_partition(run: dg.DagsterRun | None) -> str | None:
    """The run's partition, or `start...end` for a single-run range backfill."""
    if run is None:
        return None
    tags = run.tags
    if "dagster/partition" in tags:
        return tags["dagster/partition"]
    start, end = tags.get("dagster/asset_partition_range_start"), tags.get("dagster/asset_partition_range_end")
    return f"{start}...{end}" if start and end else None


def failed_checks_of_run(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    failed = []
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION):
        evaluation = entry.dagster_event.asset_check_evaluation_data
        if not evaluation.passed:
            failed.append(f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}")
    return failed


def run_failure_alert_for(run: dg.DagsterRun, message: str, step_errors: Sequence[str],
                          failed_checks: Sequence[str]) -> Alert:
    partition = run_partition(run)
    body = [message]
    body += [f"step failed: {error}" for error in step_errors]
    if failed_checks:
        body.append("failed checks: " + ", ".join(failed_checks))
    return Alert(kind="run_failure", key=f"run:{run.run_id}", severity="error",
                 title=f"run of {run.job_name}{' for ' + partition if partition else ''} failed",
                 body="\n".join(body), run_id=run.run_id, partition=partition)


def check_failure_alert_for(check_key: dg.AssetCheckKey, execution_id: int, run: dg.DagsterRun | None,
                            severity: str, metadata: dict) -> Alert:
    asset = check_key.asset_key.to_user_string()
    partition = run_partition(run)
    figures = {k: v for k, v in metadata.items() if isinstance(v, (int, float, str))}
    return Alert(kind="check_failure", key=f"check:{execution_id}",
                 severity="warning" if severity == "WARN" else "error",
                 title=f"check {check_key.name} on {asset} failed{' for ' + partition if partition else ''}",
                 body=f"Asset check {asset}:{check_key.name} did not pass.",
                 run_id=run.run_id if run else None, asset=asset, partition=partition, figures=figures)


FIRST_TICK_LOOKBACK_S = 36 * 3600     # a sensor turned on over a long history alerts on the last night, not on a year
MAX_AGE_S = 7 * 24 * 3600              # and a sensor paging through a long backlog skips what is older than a week


def _first_tick_floor(first_tick: bool, now: float | None = None) -> float:
    """Events older than this are not alerted on (only read past)."""
    import time

    return (now or time.time()) - (FIRST_TICK_LOOKBACK_S if first_tick else MAX_AGE_S)


class CheckCursor(BaseModel):
    """Check executions are inserted when planned and updated when evaluated (same id): keep a watermark below the
    oldest still-running one and remember what was handled above it."""

    after: int = 0
    handled: list[int] = Field(default_factory=list)


def check_failure_alerts(instance: dg.DagsterInstance, check_keys: Iterable[dg.AssetCheckKey],
                         cursor: CheckCursor, per_key: int = 100,
                         now: float | None = None) -> tuple[list[Alert], CheckCursor]:
    alerts: list[Alert] = []
    floor = _first_tick_floor(cursor.after == 0 and not cursor.handled, now)
    handled = set(cursor.handled)
    pending: list[int] = []
    newest = cursor.after
    runs: dict[str, dg.DagsterRun | None] = {}
    for key in check_keys:
        for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=per_key):
            if record.id <= cursor.after or record.id in handled:
                continue
            newest = max(newest, record.id)
            if record.run_id not in runs:
                runs[record.run_id] = instance.get_run_by_id(record.run_id)
            run = runs[record.run_id]
            if record.status == AssetCheckExecutionRecordStatus.PLANNED:
                if run is not None and not run.is_finished:
                    pending.append(record.id)          # look again next tick
                else:
                    handled.add(record.id)             # never evaluated: the run failure alert covers it
                continue
            handled.add(record.id)
            if record.create_timestamp < floor:
                continue
            if record.status == AssetCheckExecutionRecordStatus.FAILED and record.event is not None:
                evaluation = record.event.dagster_event.asset_check_evaluation_data
                metadata = {k: v.value for k, v in evaluation.metadata.items()}
                alerts.append(check_failure_alert_for(key, record.id, run, evaluation.severity.value, metadata))
    after = (min(pending) - 1) if pending else newest
    return alerts, CheckCursor(after=after, handled=sorted(i for i in handled if i > after))


def _figure(metadata, name: str):
    value = metadata.get(name)
    return getattr(value, "value", value)


class QualityCursor(BaseModel):
    after: dict[str, int] = Field(default_factory=dict)       # asset key -> last storage id read
    cost_alerted: list[str] = Field(default_factory=list)     # partitions already alerted for cost (newest last)


def night_cost(instance: dg.DagsterInstance, partition: str, sources: Sequence[str] = SOURCES) -> dict[str, float]:
    """LLM spend per source for a night: the latest <source>/graph materialisation of that partition."""
    costs = {}
    for source in sources:
        result = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey([source, "graph"]), asset_partitions=[partition]), limit=1)
        if result.records:
            costs[source] = float(_figure(result.records[0].asset_materialization.metadata, "llm_cost_usd") or 0.0)
    return costs


def _new_materializations(instance: dg.DagsterInstance, key: dg.AssetKey, after: dict[str, int], limit: int,
                          now: float | None):
    """Materialisations of `key` since the cursor (advanced in `after`), skipping history older than the first tick's
    floor, so turning a sensor on does not replay months of alerts."""
    name = key.to_user_string()
    floor = _first_tick_floor(name not in after, now)
    result = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key, after_storage_id=after.get(name)),
                                             limit=limit, ascending=True)
    for record in result.records:
        after[name] = record.storage_id
        if record.timestamp >= floor:
            yield record


def quality_alerts(instance: dg.DagsterInstance, cursor: QualityCursor, min_dedup_rate: float | None,
                   max_nightly_cost_usd: float | None, sources: Sequence[str] = SOURCES,
                   limit: int = 500, now: float | None = None) -> tuple[list[Alert], QualityCursor]:
    alerts: list[Alert] = []
    after = dict(cursor.after)
    seen_runs: set[str] = set()
    for source in sources:
        key = dg.AssetKey([source, "episodes"])
        for record in _new_materializations(instance, key, after, limit, now):
            metadata = record.asset_materialization.metadata
            rate = _figure(metadata, "dedup_rate")
            if min_dedup_rate is None or rate is None or record.run_id in seen_runs or rate >= min_dedup_rate:
                continue
            seen_runs.add(record.run_id)              # a range run has one materialisation per partition, one alert
            run = instance.get_run_by_id(record.run_id)
            alerts.append(Alert(
                kind="dedup_rate", key=f"dedup:{record.run_id}:{source}", severity="warning",
                title=f"{source} dedup rate {rate:.1%} below {min_dedup_rate:.1%}",
                body="Fewer duplicates were merged than the bound expects: a changed export format or fingerprint "
                     "can let the same message in twice.",
                run_id=record.run_id, asset=key.to_user_string(), partition=run_partition(run) or record.partition_key,
                figures={"dedup_rate": rate, "min_dedup_rate": min_dedup_rate,
                         "records": _figure(metadata, "records") or 0,
                         "duplicates": _figure(metadata, "duplicates") or 0}))

    partitions: list[str] = []
    for source in sources:
        key = dg.AssetKey([source, "graph"])
        for record in _new_materializations(instance, key, after, limit, now):
            if record.partition_key and record.partition_key not in partitions:
                partitions.append(record.partition_key)
    alerted = list(cursor.cost_alerted)
    if max_nightly_cost_usd is not None:
        for partition in partitions:
            if partition in alerted:
                continue
            costs = night_cost(instance, partition, sources)
            total = sum(costs.values())
            if total > max_nightly_cost_usd:
                alerted.append(partition)
                alerts.append(Alert(
                    kind="llm_cost", key=f"cost:{partition}", severity="warning", partition=partition,
                    title=f"LLM spend for {partition} is ${total:.2f}, above ${max_nightly_cost_usd:.2f}",
                    body="The night's graph ingestion spent more on LLM calls than the bound. Each run also stops at "
                         "GRAPHFEED_MAX_COST_PER_RUN_USD and leaves the rest pending.",
                    figures={"llm_cost_usd": round(total, 6), "bound_usd": max_nightly_cost_usd,
                             **{f"llm_cost_usd/{s}": round(c, 6) for s, c in costs.items()}}))
    return alerts, QualityCursor(after=after, cost_alerted=alerted[-100:])


def deliver(context, notifier: "Notifier", alerts: Sequence[Alert]) -> None:
    for alert in alerts:
        context.log.warning("alert %s: %s", alert.key, alert.title)
        notifier.send(alert)


# ---------------------------------------------------------------------------------------------------------------------
# The sensors


def _default_status() -> dg.DefaultSensorStatus:
    """Running as soon as a channel is configured; a laptop without one starts them from the UI if it wants."""
    channel = os.environ.get("GRAPHFEED_ALERT_CHANNEL", "none").strip()
    return dg.DefaultSensorStatus.RUNNING if channel and channel != "none" else dg.DefaultSensorStatus.STOPPED


@dg.run_failure_sensor(name="run_failure_alert", default_status=_default_status(), minimum_interval_seconds=30,
                       description="Sends the failed run's error, failed steps and failed checks to the alert channel.")
def run_failure_alert(context: dg.RunFailureSensorContext, alerts: AlertsResource) -> None:
    steps = []
    for event in context.get_step_failure_events():
        error = getattr(event.event_specific_data, "error", None)
        steps.append(f"{event.step_key}: {error.message.strip() if error else event.message}")
    alert = run_failure_alert_for(context.dagster_run, context.failure_event.message or "run failed", steps,
                                  failed_checks_of_run(context.instance, context.dagster_run.run_id))
    deliver(context, alerts.notifier(), [alert])


@dg.sensor(name="asset_check_failure_alert", default_status=_default_status(), minimum_interval_seconds=60,
           description="Sends every failed asset check (blocking or warning) to the alert channel, once.")
def asset_check_failure_alert(context: dg.SensorEvaluationContext, alerts: AlertsResource) -> dg.SkipReason:
    cursor = CheckCursor.model_validate_json(context.cursor) if context.cursor else CheckCursor()
    check_keys = context.repository_def.asset_graph.asset_check_keys
    found, new_cursor = check_failure_alerts(context.instance, check_keys, cursor)
    deliver(context, alerts.notifier(), found)
    context.update_cursor(new_cursor.model_dump_json())
    return dg.SkipReason(f"{len(found)} check failure alert(s) sent")


@dg.sensor(name="quality_alert", default_status=_default_status(), minimum_interval_seconds=120,
           description="Dedup rate below GRAPHFEED_ALERT_MIN_DEDUP_RATE, or a night's LLM spend above "
                       "GRAPHFEED_ALERT_MAX_NIGHTLY_COST_USD.")
def quality_alert(context: dg.SensorEvaluationContext, alerts: AlertsResource) -> dg.SkipReason:
    cursor = QualityCursor.model_validate_json(context.cursor) if context.cursor else QualityCursor()
    found, new_cursor = quality_alerts(context.instance, cursor, alerts.min_dedup_rate, alerts.max_nightly_cost_usd)
    deliver(context, alerts.notifier(), found)
    context.update_cursor(new_cursor.model_dump_json())
    return dg.SkipReason(f"{len(found)} quality alert(s) sent")


ALERT_SENSORS = [run_failure_alert, asset_check_failure_alert, quality_alert]


def alert_definitions() -> dg.Definitions:
    """The sensors and their `alerts` resource, to merge into the code location's Definitions."""
    return dg.Definitions(sensors=ALERT_SENSORS, resources={"alerts": alerts_resource_from_env()})
