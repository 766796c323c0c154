"""The values every connector yields: a SourceRecord per good record, a RecordFailure per bad one.

Failures are data: a reader never raises for one bad record, it yields a RecordFailure naming where and why.
"""

import datetime as dt
import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


def as_utc(value: dt.datetime) -> dt.datetime:
    """Naive datetimes are taken as UTC; aware ones are converted. Everything downstream compares UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def shown_name(name: str) -> str:
    """An archive member name as a failure line shows it: verbatim when plain, repr-escaped when it holds control
    characters, backslashes, an absolute path or '..' (a name from a hostile zip must not pass for a real path
    or drive the terminal)."""
    parts = name.replace("\\", "/").split("/")
    if (
        name.isprintable()
        and "\\" not in name
        and not name.startswith("/")
        and ".." not in parts
        and not (len(name) > 1 and name[1] == ":")
    ):
        return name
    return repr(name)


def printable(text: str) -> str:
    """Control characters escaped (a reason may quote bytes from the input)."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Origin(BaseModel):
    """Where a record came from: enough to find it again (file + message index, byte offset, page, API URL)."""

    model_config = ConfigDict(frozen=True)

    file: str | None = None
    index: int | None = None  # n-th message/row/item inside the file (0-based)
    offset: int | None = None  # byte offset inside the file, where known
    member: str | None = None  # path inside a zip archive
    url: str | None = None  # API request that produced it

    def describe(self) -> str:
        parts = [self.file or self.url or "<unknown>"]
        if self.member:
            parts.append(f"member {shown_name(self.member)}")
        if self.index is not None:
            parts.append(f"item {self.index}")
        if self.offset is not None:
            parts.append(f"byte {self.offset}")
        return ", ".join(parts)


class Actor(BaseModel):
    """Who did it. id is stable across sources where possible: a normalised email address for people."""

    model_config = ConfigDict(frozen=True)

    type: Literal["human", "system"] = "human"
    id: str
    name: str | None = None
    email: str | None = None


class Participant(BaseModel):
    """Someone a record names in a role (to, cc, assignee, reporter, owner, contact...)."""

    model_config = ConfigDict(frozen=True)

    role: str
    actor: Actor


class Attachment(BaseModel):
    """An attachment is a reference, never a body: name, size and a content hash."""

    model_config = ConfigDict(frozen=True)

    name: str
    size: int | None = None
    sha256: str | None = None
    media_type: str | None = None


class SourceRecord(BaseModel):
    source: str  # email, jira, confluence, salesforce
    kind: str  # email, issue, comment, page, opportunity, ...
    source_key: str  # stable and unique within the source (Message-ID for mail)
    version: str = "1"
    url: str | None = None
    title: str = ""
    body: str = ""
    actor: Actor
    occurred_at: dt.datetime  # when it happened in the world (UTC)
    updated_at: dt.datetime  # last change in the source system (UTC); partitions use this
    participants: list[Participant] = Field(default_factory=list)
    attachments: list[Attachment] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)  # URLs seen in metadata (not in the body)
    parent_key: str | None = None  # the record this one answers or belongs to
    thread_key: str | None = None  # the conversation/issue/page it is part of
    related_keys: list[str] = Field(default_factory=list)  # other source keys named in metadata (References:)
    language: str | None = None  # if the source says so; otherwise detected later
    fields: dict[str, Any] = Field(default_factory=dict)  # structured source fields, kept as they are
    origin: Origin = Field(default_factory=Origin)

    @field_validator("occurred_at", "updated_at")
    @classmethod
    def _utc(cls, value: dt.datetime) -> dt.datetime:
        return as_utc(value)


class ErrorClass(str, enum.Enum):
    """Explicit failure taxonomy: what went wrong decides what a user can do about it."""

    parse_error = "parse_error"  # bytes that do not parse as the format they claim to be
    missing_field = "missing_field"  # parses, but lacks what a record needs (id, date, ...)
    bad_value = "bad_value"  # a field has a value we cannot interpret
    unsupported = "unsupported"  # a format or feature we do not read
    io_error = "io_error"  # the file could not be read at all
    too_large = "too_large"  # over a configured size limit
    api_error = "api_error"  # the source API refused this one record


class Deletion(BaseModel):
    """A record deleted upstream, reported in the reader's stream like a record or a failure: the flow tombstones its
    episodes in the ledger and closes their facts; nothing is deleted from the graph."""

    source: str
    source_key: str
    kind: str = "record"  # page / blog post / comment / issue ...
    reason: str  # how it was seen: trashed, deleted, not_found, absent_from_listing, ...
    detected_at: dt.datetime | None = None  # None: when the read saw it


MAX_REASON_CHARS = 500  # a reason names what is wrong; a longer one is an echo of the input


class RecordFailure(BaseModel):
    source: str
    source_key: str | None = None
    location: Origin
    error_class: ErrorClass
    reason: str

    @classmethod
    def at(
        cls, source: str, origin: Origin, error_class: ErrorClass, reason: str, key: str | None = None
    ) -> "RecordFailure":
        """The one way readers build a failure: every source clips its reason the same way."""
        return cls(
            source=source, source_key=key, location=origin, error_class=error_class, reason=reason[:MAX_REASON_CHARS]
        )

    def describe(self) -> str:
        key = f" [{self.source_key}]" if self.source_key else ""
        return f"{self.location.describe()}{printable(key)}: {self.error_class.value}: {printable(self.reason)}"
