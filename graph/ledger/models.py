"""The episode ledger's tables and the values it hands out.

Plain SQLAlchemy Core so the same statements run on SQLite (local default) and PostgreSQL (production).
Timestamps are stored as UTC; SQLite has no time zones, so `UTCDateTime` strips on the way in and restores on the way out.
"""

import datetime as dt
import enum
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field

from ground.records import as_utc

SCHEMA_VERSION = "1"

# Kept short on purpose: a message is for a human reading `graphfeed ledger`, not a full traceback.
MAX_ERROR_CHARS = 4000
MAX_ERROR_HISTORY = 20


class Status(str, enum.Enum):
    pending = "pending"  # registered, not yet in the graph (also: left over by a budget or a killed run)
    ingested = "ingested"  # written to the graph and marked in the same batch transaction
    duplicate = "duplicate"  # same (group_id, fingerprint) as an earlier episode: see duplicate_of
    failed = "failed"  # last attempt failed; claimable again once next_attempt_at has passed
    quarantined = "quarantined"  # failed max_attempts times; only `replay` brings it back
    tombstoned = "tombstoned"  # deleted upstream; its facts are to be invalidated in the graph


ALL_STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
# What a future run still has to do something about.
BACKLOG_STATUSES: tuple[str, ...] = (Status.pending.value, Status.failed.value)
FAILURE_STATUSES: tuple[str, ...] = (Status.failed.value, Status.quarantined.value)


class UTCDateTime(sa.types.TypeDecorator):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: sa.Dialect) -> dt.datetime | None:
        if value is None:
            return None
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: dt.datetime | None, dialect: sa.Dialect) -> dt.datetime | None:
        return None if value is None else as_utc(value)


# Key columns are unbounded strings (VARCHAR on PostgreSQL, TEXT on SQLite): an unusually long id must not fail a
# whole register chunk on one backend only.
metadata = sa.MetaData()

episodes = sa.Table(
    "episodes",
    metadata,
    sa.Column("episode_id", sa.String(), primary_key=True),
    sa.Column("group_id", sa.String(), nullable=False),
    sa.Column("fingerprint", sa.String(), nullable=False, index=True),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("source_key", sa.Text, nullable=False),
    sa.Column("source_keys", sa.JSON, nullable=False),  # canonical key first, then every duplicate's key
    sa.Column("partition", sa.String(), nullable=False),  # UTC day the episode was staged for
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("duplicate_of", sa.String(), nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("replays", sa.Integer, nullable=False, default=0),
    sa.Column("last_error_class", sa.String(64), nullable=True),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.Column("error_history", sa.JSON, nullable=False),  # survives replay: [{at, attempt, class, message}]
    sa.Column("tokens_in", sa.Integer, nullable=False, default=0),
    sa.Column("tokens_out", sa.Integer, nullable=False, default=0),
    sa.Column("cost_usd", sa.Float, nullable=False, default=0.0),
    sa.Column("facts_written", sa.Integer, nullable=False, default=0),
    sa.Column("occurred_at", UTCDateTime, nullable=False),  # Episode.timestamp: claim order (older facts first)
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("ingested_at", UTCDateTime, nullable=True),
    sa.Column("next_attempt_at", UTCDateTime, nullable=True),
    sa.Column("tombstoned_at", UTCDateTime, nullable=True),
    sa.Column("payload", sa.JSON, nullable=False),  # the Episode, so a backlog needs no staging files
    sa.Index("ix_episodes_claim", "status", "occurred_at"),
    sa.Index("ix_episodes_source_key", "source", "source_key"),
    sa.Index("ix_episodes_duplicate_of", "duplicate_of"),
)

# One row per (group, fingerprint): the primary key is the lock that lets exactly one writer own an event.
fingerprints = sa.Table(
    "fingerprints",
    metadata,
    sa.Column("group_id", sa.String(), primary_key=True),
    sa.Column("fingerprint", sa.String(), primary_key=True),
    sa.Column("episode_id", sa.String(), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("run_id", sa.String(), primary_key=True),
    sa.Column("source", sa.String(), nullable=True, index=True),
    sa.Column("partition", sa.String(), nullable=True),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    sa.Column("counts", sa.JSON, nullable=False),
    sa.Column("backlog", sa.Integer, nullable=False),  # measured when the run was recorded
)

meta = sa.Table(
    "meta", metadata, sa.Column("key", sa.String(64), primary_key=True), sa.Column("value", sa.Text, nullable=False)
)


class RegisterResult(BaseModel):
    new: int = 0
    already_known: int = 0
    duplicates: int = 0


class LedgerRow(BaseModel):
    """One episode's bookkeeping, without its payload (what `graphfeed ledger` shows)."""

    episode_id: str
    group_id: str
    fingerprint: str
    source: str
    source_key: str
    source_keys: list[str] = Field(default_factory=list)
    partition: str
    status: Status
    duplicate_of: str | None = None
    attempts: int = 0
    replays: int = 0
    last_error_class: str | None = None
    last_error: str | None = None
    error_history: list[dict[str, Any]] = Field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    facts_written: int = 0
    occurred_at: dt.datetime
    created_at: dt.datetime
    updated_at: dt.datetime
    ingested_at: dt.datetime | None = None
    next_attempt_at: dt.datetime | None = None
    tombstoned_at: dt.datetime | None = None


class RunRow(BaseModel):
    run_id: str
    source: str | None = None
    partition: str | None = None
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    counts: dict[str, Any] = Field(default_factory=dict)
    backlog: int


ROW_COLUMNS = [episodes.c[name] for name in LedgerRow.model_fields]
