"""Jira connector: REST API (Cloud v3 / Server v2) and exports (JSON, CSV, XML/RSS) -> SourceRecord | RecordFailure."""

from connectors.jira.api_reader import JiraApiReader
from connectors.jira.api_settings import (
    DeletedIssue,
    JiraApiCheckpoint,
    JiraApiSettings,
    JiraAuthError,
    JiraConfigError,
    JiraUnavailableError,
)
from connectors.jira.export_reader import JiraExportReader

__all__ = [
    "DeletedIssue",
    "JiraApiCheckpoint",
    "JiraApiReader",
    "JiraApiSettings",
    "JiraAuthError",
    "JiraConfigError",
    "JiraExportReader",
    "JiraUnavailableError",
]
