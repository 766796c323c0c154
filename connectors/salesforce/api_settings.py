"""What the Salesforce API reader is told (settings), what it remembers between pages (checkpoint) and how it stops
(errors). Credentials are SecretStr: they never reach a log line, an exception text or a checkpoint.
"""

import datetime as dt
import os
from collections.abc import Mapping

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator

from connectors.salesforce.values import org_currency
from ground.contract import Checkpoint
from ground.errors import SourceAuthError, SourceConfigError, SourceUnavailable

ENV_PREFIX = "GRAPHFEED_SALESFORCE_"

# Read in this order: people and accounts first, so the Directory can name owners/contacts of what follows.
DEFAULT_OBJECTS = [
    "User",
    "Account",
    "Contact",
    "Opportunity",
    "OpportunityContactRole",
    "Case",
    "Task",
    "Event",
    "EmailMessage",
]


class SalesforceConfigError(SourceConfigError):
    """The run cannot go on until a setting is fixed; the message names the setting."""


class SalesforceAuthError(SalesforceConfigError, SourceAuthError):
    """Salesforce refused the credentials (login failed, or the session stayed invalid after one re-login)."""


class SalesforceLimitError(SourceUnavailable):
    """The org's daily API allowance is (nearly) used up: stop now, resume from the checkpoint after it resets."""


class SalesforceUnavailableError(SourceUnavailable):
    """Salesforce kept answering 429/5xx or timing out after every retry; rerun later (the checkpoint resumes)."""


class SalesforceApiSettings(BaseModel):
    instance_url: str | None = None  # https://northwind.my.salesforce.com (with a session from login_url)
    login_url: str | None = None  # https://login.salesforce.com / https://test.salesforce.com / My Domain
    username: str | None = None
    password: SecretStr | None = None
    security_token: SecretStr = SecretStr("")
    client_id: str | None = None  # connected app: OAuth username-password (or client credentials) flow
    client_secret: SecretStr | None = None
    domain: str = "login"  # SOAP login without a connected app: login / test / <mydomain>.my
    api_version: str = "62.0"
    objects: list[str] = Field(default_factory=lambda: list(DEFAULT_OBJECTS))
    extra_fields: dict[str, list[str]] = Field(default_factory=dict)  # Object -> more SOQL columns (Account.Industry)
    bulk_threshold: int = Field(default=10_000, ge=1)  # rows in the window from which Bulk 2.0 is used
    api_reserve: int = Field(default=1_000, ge=0)  # daily API calls left untouched for the org's other users
    page_size: int = Field(default=2_000, ge=200, le=50_000)  # REST batchSize (200..2000) / Bulk maxRecords
    child_chunk: int = Field(default=200, ge=1, le=1000)  # parent ids per history/comment query
    timeout_seconds: float = 60.0
    max_retries: int = Field(default=5, ge=0)
    backoff_seconds: float = 1.0
    max_backoff_seconds: float = 120.0
    bulk_poll_seconds: float = 2.0
    bulk_timeout_seconds: float = 3_600.0
    currency: str | None = None  # the org's currency for rows without CurrencyIsoCode (ISO code)
    ca_bundle: str | None = None  # a CA file for a TLS-inspecting proxy (or the tests' own certificate)

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str | None) -> str | None:
        return org_currency(value)

    @model_validator(mode="after")
    def _complete(self) -> "SalesforceApiSettings":
        if not (self.instance_url or self.login_url or self.domain):
            raise ValueError(f"set {ENV_PREFIX}INSTANCE_URL or {ENV_PREFIX}LOGIN_URL")
        if self.client_id is None and (self.username is None or self.password is None):
            raise ValueError(
                f"set {ENV_PREFIX}USERNAME and {ENV_PREFIX}PASSWORD (and {ENV_PREFIX}SECURITY_TOKEN), "
                f"or {ENV_PREFIX}CLIENT_ID and {ENV_PREFIX}CLIENT_SECRET"
            )
        return self

    @property
    def token_url(self) -> str:
        base = self.login_url or self.instance_url or f"https://{self.domain}.salesforce.com"
        return base.rstrip("/") + "/services/oauth2/token"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX) -> "SalesforceApiSettings":
        """GRAPHFEED_SALESFORCE_<FIELD>; lists comma-separated; EXTRA_FIELDS as ``Object.Column,Object.Rel.Column``."""
        env = os.environ if environ is None else environ
        values: dict = {}
        for name in cls.model_fields:
            raw = env.get(prefix + name.upper())
            if raw is None or raw == "":
                continue
            if name == "objects":
                values[name] = [p.strip() for p in raw.split(",") if p.strip()]
            elif name == "extra_fields":
                extra: dict[str, list[str]] = {}
                for part in (p.strip() for p in raw.split(",") if p.strip()):
                    obj, _, column = part.partition(".")
                    if not column:
                        raise SalesforceConfigError(f"{prefix}EXTRA_FIELDS: {part!r} is not Object.Column")
                    extra.setdefault(obj, []).append(column)
                values[name] = extra
            else:
                values[name] = raw
        return cls(**values)


class SalesforceApiCheckpoint(Checkpoint):
    """Where a read stands after a page: which object, and the REST cursor or the Bulk job + locator inside it."""

    window_start: dt.datetime | None = None
    window_end: dt.datetime | None = None
    object_index: int = 0
    object_name: str | None = None
    next_records_url: str | None = None  # REST: the next page of the object's queryAll
    bulk_job_id: str | None = None  # Bulk 2.0: the object's queryAll job ...
    bulk_locator: str | None = None  # ... and the locator of its next result page
    pages_done: int = 0
    skipped: list[str] = Field(default_factory=list)  # child objects the org does not offer (history off, ...)
    api_used: int | None = None  # Sforce-Limit-Info as last seen
    api_total: int | None = None
