"""The Jira source as the pipeline and the transforms see it: its settings (GRAPHFEED_JIRA_*), readers, facts,
carried checkpoint and traits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from connectors.source_spec import SourceSettings, SourceSpec, secret
from ground.source_traits import MentionKind, SourceTraits

if TYPE_CHECKING:
    from ground.contract import Checkpoint, Reader
    from transforms.fact_extractors import SourceFacts

TRAITS = SourceTraits(
    name="jira",
    intent_family="jira_description",
    intent_family_by_kind={"comment": "jira_comment"},
    thread_scoped_attachments=True,  # a file known by name belongs to its issue (the comments share it)
    issue_context=True,  # issue type and resolution are intent context (transforms/intent/context.py)
    names_project_keys=True,  # its records teach the run its project keys (flow/project_keys.py)
    mention=MentionKind(label="Issue", relation="MENTIONS_ISSUE"),
)
MENTIONS = {TRAITS.name: TRAITS.mention}  # its own namespace, for the entities its facts key by issue


class JiraSettings(SourceSettings):
    """GRAPHFEED_JIRA_*: a URL reads the REST API for each partition's window, else the export files are read."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFEED_JIRA_")

    url: str = ""  # Jira base URL
    username: str | None = None  # user (Cloud: the account e-mail)
    api_token: SecretStr | None = None  # secret
    cloud: bool = True  # false for Jira Server/Data Center
    project_keys: list[str] = []  # projects to read (also recognised as references in text)
    extra_jql: str | None = None  # extra JQL ANDed to the window query
    full_listing_days: float | None = 7.0  # list every key this often: a key gone from the list is deleted
    content_fields: list[str] = []  # custom field names copied into the episode content (API and export)
    csv_timezone: str = "UTC"  # Jira's CSV export writes dates in the exporting user's time zone


def export_reader(paths: Sequence[str | Path], s: JiraSettings) -> Reader:
    """The export reader with the CSV export's time zone, the site URL and the content fields."""
    from connectors.jira.export_reader import JiraExportReader

    try:
        zone = ZoneInfo(s.csv_timezone)
    except (ValueError, KeyError):
        raise ValueError(
            f"jira_csv_timezone (GRAPHFEED_JIRA_CSV_TIMEZONE) {s.csv_timezone!r} is not "
            "an IANA time zone such as Europe/Berlin"
        ) from None
    return JiraExportReader(paths, base_url=s.url or None, content_fields=s.content_fields, csv_timezone=zone)


def api_reader(s: JiraSettings) -> Reader | None:
    """The REST reader when a Jira URL is set, else None (the export files are read)."""
    if not s.url:
        return None
    from connectors.jira.api_reader import JiraApiReader
    from connectors.jira.api_settings import JiraApiSettings

    days = s.full_listing_days
    return JiraApiReader(
        JiraApiSettings(
            base_url=s.url,
            username=s.username,
            token=secret(s.api_token),
            cloud=s.cloud,
            project_keys=s.project_keys,
            extra_jql=s.extra_jql,
            content_fields=s.content_fields,
            full_listing_every=None if days is None else dt.timedelta(days=days),
        )
    )


def facts() -> SourceFacts:
    from connectors.jira.facts import issue_subject, jira_facts
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(jira_facts, issue_subject, TRAITS)


def checkpoint() -> type[Checkpoint]:
    from connectors.jira.api_settings import JiraApiCheckpoint

    return JiraApiCheckpoint


SPEC = SourceSpec(
    name="jira",
    traits=TRAITS,
    settings=JiraSettings,
    export_reader=export_reader,
    api_reader=api_reader,
    facts=facts,
    carried_checkpoint=checkpoint,
)
