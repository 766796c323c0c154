"""Jira connector: REST API (Cloud v3 / Server v2) and exports (JSON, CSV, XML/RSS) -> SourceRecord | RecordFailure."""

from collections.abc import Sequence

from ground.contract import Reader
from connectors.jira.api import JiraApiReader
from connectors.jira.api_settings import (
    DeletedIssue,
    JiraApiCheckpoint,
    JiraApiSettings,
    JiraAuthError,
    JiraConfigError,
    JiraUnavailableError,
)
from connectors.jira.export_reader import JiraExportReader


def make_reader(paths: Sequence[str] | None = None, api: JiraApiSettings | None = None) -> Reader:
    """Export files when paths are given, else the API; both or neither is a configuration error."""
    if paths and api is not None:
        raise JiraConfigError("give either export paths or API settings for Jira, not both")
    if paths:
        return JiraExportReader(paths, base_url=None)
    if api is not None:
        return JiraApiReader(api)
    raise JiraConfigError("Jira needs export paths or API settings (GRAPHFEED_JIRA_URL + GRAPHFEED_JIRA_API_TOKEN)")


__all__ = ["DeletedIssue", "JiraApiCheckpoint", "JiraApiReader", "JiraApiSettings", "JiraAuthError", "JiraConfigError",
           "JiraExportReader", "JiraUnavailableError", "make_reader"]
