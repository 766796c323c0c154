"""What the Confluence API reader is told (settings) and what it remembers between search pages (checkpoint).
The token is a SecretStr: it never reaches a log line, an exception text or a checkpoint.
"""

from pydantic import BaseModel, Field, SecretStr

from connectors.confluence.groups import GroupPolicy
from ground.contract import Checkpoint


class ConfluenceApiSettings(BaseModel):
    base_url: str  # https://northwind.atlassian.net/wiki or https://confluence.corp
    username: str | None = None  # Cloud: account email; Server: user (None = PAT as bearer)
    token: SecretStr  # Cloud API token / Server password or personal access token
    cloud: bool = True
    spaces: list[str] = Field(default_factory=list)
    include_labels: list[str] = Field(default_factory=list)
    exclude_labels: list[str] = Field(default_factory=list)
    user_timezone: str = "UTC"  # the API user's profile time zone (CQL dates are in it)
    overlap_minutes: int = 10
    page_size: int = 25
    timeout_seconds: float = 30.0
    max_retries: int = 5
    backoff_seconds: float = 1.0  # first backoff; doubles per retry
    max_backoff_seconds: float = 120.0
    comments: bool = True
    # Earlier versions saved inside the window are read too, newest first, at most this many per page (0 = only the
    # current version). Older ones were read on earlier nights; a read without a window takes the current only.
    history_versions: int = 20
    groups: GroupPolicy = GroupPolicy()
    ignore_property_keys: frozenset[str] = frozenset()  # page-properties keys that make no facts (normalised)


class ConfluenceCheckpoint(Checkpoint):
    cql: str | None = None
    next_url: str | None = None  # Cloud cursor (relative _links.next)
    start: int = 0  # Server offset
    pages_read: int = 0
