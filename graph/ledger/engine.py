"""The ledger's engine: SQLite (WAL, BEGIN IMMEDIATE for writers) or PostgreSQL, one transaction per call, rerun
whole on deadlocks and lock timeouts; plus the small helpers every ledger module shares."""

import contextlib
import datetime as dt
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.pool import StaticPool

from graph.ledger.models import MAX_ERROR_CHARS, SCHEMA_VERSION, Status, meta, metadata
from ground.records import as_utc

T = TypeVar("T")

CHUNK = 500  # rows per IN-list / per register transaction
CLAIMABLE = (Status.pending.value, Status.failed.value)
# replay may re-queue these; duplicates and tombstones would ingest an event twice or resurrect a deletion.
REPLAYABLE = (Status.failed.value, Status.quarantined.value, Status.ingested.value, Status.pending.value)
BAD_PAYLOAD = "bad_payload"
_RETRIES = 5
_PG_RETRYABLE = {"40P01", "40001"}  # deadlock detected, serialization failure


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _now(now: dt.datetime | None) -> dt.datetime:
    return _utcnow() if now is None else as_utc(now)


def _chunks(items: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _merge_keys(*groups: Iterable[str]) -> list[str]:
    """Order-preserving union: the canonical key stays first."""
    out: list[str] = []
    seen: set[str] = set()
    for group in groups:
        for key in group:
            if key and key not in seen:
                seen.add(key)
                out.append(key)
    return out


def _no_nul(text: str) -> str:
    """PostgreSQL text cannot hold NUL; SQLite can. Drop it so both backends accept the same input."""
    return text.replace("\x00", "")


_SECRET_PATTERNS = [
    (re.compile(r"sk-[A-Za-z0-9_\-]{16,}"), "sk-***"),
    (re.compile(r"(?i)\b(bearer|token|api[_-]?key|password|secret)(\s*[=:]\s*|\s+)[^\s,;'\"]+"), r"\1\2***"),
    (re.compile(r"://([^:/@\s]+):[^@/\s]+@"), r"://\1:***@"),
]


def clean_error(message: str) -> str:
    """Messages come from our code, but a driver may echo a URL or header: scrub the obvious, then truncate."""
    message = _no_nul(message)
    for pattern, replacement in _SECRET_PATTERNS:
        message = pattern.sub(replacement, message)
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 15] + " ...[truncated]"
    return message


def _class_name(error_class: Any) -> str:
    return str(getattr(error_class, "value", error_class))[:64]


def _retryable(exc: sa.exc.DBAPIError, integrity: bool) -> bool:
    if integrity and isinstance(exc, sa.exc.IntegrityError):
        return True
    code = getattr(exc.orig, "pgcode", None)
    if code in _PG_RETRYABLE:
        return True
    return isinstance(exc, sa.exc.OperationalError) and "database is locked" in str(exc.orig)


class LedgerEngine:
    """The engine and transactions under every Ledger call."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        parsed = sa.engine.make_url(url)
        self.url = parsed.render_as_string(hide_password=True)  # safe to print
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite":
            self._engine = self._sqlite_engine(parsed, echo)
        else:
            self._engine = sa.create_engine(parsed, echo=echo, pool_pre_ping=True)
        self._reader = self._engine.execution_options(ledger_read=True)
        self._create_schema()

    # ---- engine / transactions -------------------------------------------------------------------------------

    @staticmethod
    def _sqlite_engine(parsed: sa.engine.URL, echo: bool) -> sa.Engine:
        memory = parsed.database in (None, "", ":memory:")
        if not memory:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        kwargs: dict[str, Any] = {"connect_args": {"timeout": 30, "check_same_thread": False}}
        if memory:
            kwargs["poolclass"] = StaticPool
        engine = sa.create_engine(parsed, echo=echo, **kwargs)

        @sa.event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (below)
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA synchronous=FULL")  # a committed batch survives a crash of the machine too
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            # Writers take the write lock up front: no deadlock on a read->write upgrade, busy_timeout queues them.
            read = conn.get_execution_options().get("ledger_read", False)
            conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")

        return engine

    def _write(self, fn: Callable[[sa.Connection], T], *, retry_integrity: bool = False) -> T:
        """Run fn in one transaction; rerun it whole on deadlock/lock timeouts (and key races when asked)."""
        for attempt in range(_RETRIES):
            try:
                with self._engine.begin() as conn:
                    return fn(conn)
            except sa.exc.DBAPIError as exc:
                if attempt == _RETRIES - 1 or not _retryable(exc, retry_integrity):
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with self._reader.begin() as conn:
            yield conn

    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(table)

    def _create_schema(self) -> None:
        def create(conn: sa.Connection) -> None:
            metadata.create_all(conn, checkfirst=True)
            conn.execute(self._insert(meta).values(key="schema_version", value=SCHEMA_VERSION).on_conflict_do_nothing())

        try:
            self._write(create)
        except sa.exc.IntegrityError:
            # Another process created the same tables between our check and our CREATE (PostgreSQL catalogs race).
            self._write(lambda conn: metadata.create_all(conn, checkfirst=True))

    def dispose(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.dispose()
