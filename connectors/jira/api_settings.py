"""What the Jira API reader is told (settings), what it remembers between pages (checkpoint, deleted issues) and how it
stops (errors). The token is a SecretStr: it never reaches a log line, an exception text or a checkpoint.
"""

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

from ground.contract import Checkpoint
from ground.errors import SourceAuthError, SourceConfigError, SourceUnavailable


class JiraConfigError(SourceConfigError):
    """The run cannot go on until a setting is fixed (URL, deployment type, project keys, JQL)."""


class JiraAuthError(JiraConfigError, SourceAuthError):
    """Jira refused the credentials (401): wrong user/token, or the token expired."""


class JiraUnavailableError(SourceUnavailable):
    """Jira kept answering 429/5xx or timing out after every retry; rerun later (the checkpoint resumes)."""


class JiraApiSettings(BaseModel):
    base_url: str  # https://northwind.atlassian.net or https://jira.example.com
    username: str | None = None  # Cloud: the account email (basic auth with an API token)
    token: SecretStr  # Cloud API token, or a Server/DC personal access token (bearer)
    cloud: bool = True
    project_keys: list[str] = Field(default_factory=list)
    extra_jql: str | None = None  # ANDed to the query, e.g. 'issuetype != Sub-task'
    page_size: int = Field(default=50, ge=1, le=5000)
    comment_page_size: int = Field(default=100, ge=1, le=5000)
    changelog_page_size: int = Field(default=100, ge=1, le=5000)
    content_fields: list[str] = Field(default_factory=list)  # custom field names copied into the episode content
    timeout_seconds: float = 30.0
    max_retries: int = Field(default=5, ge=0)
    backoff_seconds: float = 1.0  # base of the exponential backoff (tests use ~0.01)
    max_backoff_seconds: float = 60.0
    full_listing_every: dt.timedelta | None = dt.timedelta(days=7)  # None: never list all keys for deletions
    verify_ssl: bool = True


class DeletedIssue(BaseModel):
    key: str
    detected_at: dt.datetime
    how: Literal["not_found", "absent_from_listing"]


class JiraApiCheckpoint(Checkpoint):
    window_start_ms: int | None = None
    window_end_ms: int | None = None
    next_page_token: str | None = None  # Cloud
    start_at: int = 0  # Server/DC
    pages_done: int = 0
    deleted: list[DeletedIssue] = Field(default_factory=list)
    last_full_listing: dt.datetime | None = None
    known_keys: list[str] = Field(default_factory=list)  # keys of the last full listing
