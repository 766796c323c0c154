"""The episode ledger: one row per episode, so nightly ingestion can resume, retry, dedup and account for cost.

SQLite under the graphfeed home by default, PostgreSQL in production: the same SQLAlchemy Core statements run on both.

Why a crash (or kill -9) loses nothing and doubles nothing:
- Every public method is exactly one database transaction (register: one per chunk, each chunk idempotent), so the
  ledger is always in a state some sequence of whole calls produced.
- `claim` only reads. It marks nothing "in progress", so there is no lease to expire and nothing to clean up: rows a
  killed run had claimed are still pending (or failed) and the next run claims them again.
- A batch is written to the graph, then marked with one `mark_ingested` transaction. If the process dies between the
  two, the batch is claimed again and rewritten; graph writes are idempotent (deterministic episode uuids), so the
  second write changes nothing. If it dies before the graph write, nothing was written. Either way no episode is lost
  and none is counted twice.
- Budgets (max episodes, max cost per run) just stop claiming; the rest stays pending for the next night.

Fingerprint dedup is enforced here, across sources and runs: the `fingerprints` table has one row per
(group_id, fingerprint) and its primary key decides which episode id owns an event. Writers insert with
ON CONFLICT DO NOTHING and then read the owner back, so two concurrent writers cannot both win.
"""

import contextlib
import datetime as dt
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.pool import StaticPool

from connectors.graph.ledger_models import (
    ALL_STATUSES,
    BACKLOG_STATUSES,
    FAILURE_STATUSES,
    MAX_ERROR_CHARS,
    MAX_ERROR_HISTORY,
    ROW_COLUMNS,
    SCHEMA_VERSION,
    LedgerRow,
    RegisterResult,
    RunRow,
    Status,
    episodes,
    fingerprints,
    meta,
    metadata,
    runs,
)
from ground.records import as_utc
from transforms.episode import Episode

__all__ = [
    "Ledger",
    "LedgerRow",
    "RegisterResult",
    "RunRow",
    "Status",
    "backlog_growing",
    "ledger_url_for_home",
]

T = TypeVar("T")

CHUNK = 500                       # rows per IN-list / per register transaction
CLAIMABLE = (Status.pending.value, Status.failed.value)
# replay may re-queue these; duplicates and tombstones would ingest an event twice or resurrect a deletion.
REPLAYABLE = (Status.failed.value, Status.quarantined.value, Status.ingested.value, Status.pending.value)
BAD_PAYLOAD = "bad_payload"
_RETRIES = 5
_PG_RETRYABLE = {"40P01", "40001"}    # deadlock detected, serialization failure


def ledger_url_for_home(home: Path | str) -> str:
    """The default ledger: a SQLite file in the graphfeed home."""
    return f"sqlite:///{Path(home).expanduser().resolve() / 'ledger.sqlite'}"


def backlog_growing(recent: Sequence[RunRow], n: int = 3) -> bool:
    """True when the backlog rose at each of the last n runs: ingestion is not keeping up."""
    ordered = sorted(recent, key=lambda r: r.started_at)[-(n + 1):]
    if len(ordered) < n + 1:
        return False
    return all(b.backlog > a.backlog for a, b in zip(ordered, ordered[1:]))


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


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


class Ledger:
    """Episode bookkeeping. `Ledger("sqlite:///home/ledger.sqlite")` or `Ledger("postgresql+psycopg2://...")`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        parsed = sa.engine.make_url(url)
        self.url = parsed.render_as_string(hide_password=True)   # safe to print
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
            dbapi_conn.isolation_level = None       # we issue BEGIN ourselves (below)
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
            conn.execute(
                self._insert(meta).values(key="schema_version", value=SCHEMA_VERSION).on_conflict_do_nothing()
            )

        try:
            self._write(create)
        except sa.exc.IntegrityError:
            # Another process created the same tables between our check and our CREATE (PostgreSQL catalogs race).
            self._write(lambda conn: metadata.create_all(conn, checkfirst=True))

    def dispose(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.dispose()

    # ---- register ----------------------------------------------------------------------------------------------

    def register(
        self, episodes_in: Iterable[Episode], partition: str, *, now: dt.datetime | None = None
    ) -> RegisterResult:
        """Add episodes not seen before; an id seen before keeps its row and status untouched.

        A new episode whose (group_id, fingerprint) is owned by another episode id is stored as a duplicate of it,
        and its source key (plus its own duplicate_keys) is added to the owner's source_keys.
        One transaction per chunk: a crash mid-way leaves whole chunks, and registering again completes the rest.
        """
        total = RegisterResult()
        seen: set[str] = set()
        for chunk in _chunks(episodes_in):
            fresh = []
            for ep in chunk:
                if ep.id in seen:
                    total.already_known += 1
                else:
                    seen.add(ep.id)
                    fresh.append(ep)
            if not fresh:
                continue
            stamp = _now(now)
            part = self._write(lambda conn: self._register_chunk(conn, fresh, partition, stamp), retry_integrity=True)
            total.new += part.new
            total.already_known += part.already_known
            total.duplicates += part.duplicates
        return total

    def _register_chunk(
        self, conn: sa.Connection, chunk: list[Episode], partition: str, now: dt.datetime
    ) -> RegisterResult:
        c = episodes.c
        known = set(conn.scalars(sa.select(c.episode_id).where(c.episode_id.in_([ep.id for ep in chunk]))))
        fresh = [ep for ep in chunk if ep.id not in known]
        result = RegisterResult(already_known=len(known))
        if not fresh:
            return result

        # Claim each event for the first episode that carries it; sorted so concurrent writers lock in one order.
        wanted: dict[tuple[str, str], str] = {}
        for ep in fresh:
            wanted.setdefault((ep.group_id, ep.fingerprint), ep.id)
        # One multi-row statement: psycopg2 would otherwise send an ON CONFLICT executemany row by row.
        conn.execute(
            self._insert(fingerprints)
            .values([
                {"group_id": g, "fingerprint": f, "episode_id": eid, "created_at": now}
                for (g, f), eid in sorted(wanted.items())
            ])
            .on_conflict_do_nothing(index_elements=["group_id", "fingerprint"])
        )
        owner: dict[tuple[str, str], str] = {}
        fps = sorted({f for _, f in wanted})
        for (g, f, eid) in conn.execute(
            sa.select(fingerprints.c.group_id, fingerprints.c.fingerprint, fingerprints.c.episode_id).where(
                fingerprints.c.fingerprint.in_(fps)
            )
        ):
            if (g, f) in wanted:
                owner[(g, f)] = eid

        rows: dict[str, dict[str, Any]] = {}
        extra_keys: dict[str, list[str]] = {}      # canonical id -> keys its new duplicates bring
        for ep in fresh:
            canonical = owner[(ep.group_id, ep.fingerprint)]
            own_keys = [_no_nul(k) for k in _merge_keys([ep.metadata.source_key], ep.metadata.duplicate_keys)]
            is_dup = canonical != ep.id
            rows[ep.id] = {
                "episode_id": ep.id,
                "group_id": ep.group_id,
                "fingerprint": ep.fingerprint,
                "source": ep.source,
                "source_key": _no_nul(ep.metadata.source_key),
                "source_keys": own_keys,
                "partition": partition,
                "status": Status.duplicate.value if is_dup else Status.pending.value,
                "duplicate_of": canonical if is_dup else None,
                "attempts": 0,
                "replays": 0,
                "last_error_class": None,
                "last_error": None,
                "error_history": [],
                "tokens_in": 0,
                "tokens_out": 0,
                "cost_usd": 0.0,
                "facts_written": 0,
                "occurred_at": ep.timestamp,
                "created_at": now,
                "updated_at": now,
                "ingested_at": None,
                "next_attempt_at": None,
                "tombstoned_at": None,
                "payload": ep.model_dump(mode="json"),
            }
            if is_dup:
                result.duplicates += 1
                extra_keys.setdefault(canonical, []).extend(own_keys)
            else:
                result.new += 1

        # Canonicals registered in this same chunk take their duplicates' keys before insertion ...
        for canonical in [cid for cid in extra_keys if cid in rows]:
            rows[canonical]["source_keys"] = _merge_keys(rows[canonical]["source_keys"], extra_keys.pop(canonical))
        conn.execute(episodes.insert(), list(rows.values()))
        # ... older canonicals are locked and extended in place.
        if extra_keys:
            self._extend_source_keys(conn, extra_keys, now)
        return result

    @staticmethod
    def _extend_source_keys(conn: sa.Connection, extra: dict[str, list[str]], now: dt.datetime) -> None:
        c = episodes.c
        current = dict(
            conn.execute(
                sa.select(c.episode_id, c.source_keys)
                .where(c.episode_id.in_(sorted(extra)))
                .order_by(c.episode_id)
                .with_for_update()
            ).all()
        )
        updates = []
        for eid, keys in current.items():
            merged = _merge_keys(keys or [], extra[eid])
            if merged != (keys or []):
                updates.append({"b_id": eid, "b_keys": merged, "b_now": now})
        if updates:
            conn.execute(
                episodes.update()
                .where(c.episode_id == sa.bindparam("b_id"))
                .values(source_keys=sa.bindparam("b_keys", type_=sa.JSON), updated_at=sa.bindparam("b_now")),
                updates,
            )

    # ---- claim / mark --------------------------------------------------------------------------------------------

    def claim(
        self, limit: int, now: dt.datetime | None = None, sources: Sequence[str] | None = None
    ) -> list[Episode]:
        """Pending episodes plus failed ones whose backoff has passed, oldest event first. Locks nothing (see top)."""
        stamp = _now(now)
        c = episodes.c
        out: list[Episode] = []
        while len(out) < limit:
            cond = sa.or_(
                c.status == Status.pending.value,
                sa.and_(c.status == Status.failed.value, c.next_attempt_at <= stamp),
            )
            if sources is not None:
                cond = sa.and_(cond, c.source.in_(list(sources)))
            query = (
                sa.select(c.episode_id, c.payload)
                .where(cond)
                .order_by(c.occurred_at, c.episode_id)
                .limit(limit - len(out))
            )
            with self._read() as conn:
                found = conn.execute(query).all()
            bad: list[tuple[str, str]] = []
            for eid, payload in found:
                try:
                    out.append(Episode.model_validate(payload))
                except ValidationError as exc:
                    bad.append((eid, f"stored payload no longer parses as an Episode: {exc}"))
            if not bad:
                break
            # An unreadable payload must not block the queue forever: quarantine it, then fill the batch up.
            for eid, message in bad:
                self.mark_failed(eid, BAD_PAYLOAD, message, max_attempts=1, now=stamp)
        return out

    def mark_ingested(
        self,
        episode_ids: Iterable[str],
        *,
        facts_written: dict[str, int] | None = None,
        tokens_in: dict[str, int] | None = None,
        tokens_out: dict[str, int] | None = None,
        cost_usd: dict[str, float] | None = None,
        now: dt.datetime | None = None,
    ) -> int:
        """Mark a whole batch ingested in one transaction. Tokens and cost add up over attempts (all were spent).

        Only pending/failed rows change: a row tombstoned meanwhile stays tombstoned. Returns how many changed.
        """
        ids = list(dict.fromkeys(episode_ids))
        stamp = _now(now)
        c = episodes.c

        def run(conn: sa.Connection) -> int:
            changed = 0
            for chunk in _chunks(ids):
                live = conn.scalars(
                    sa.select(c.episode_id)
                    .where(c.episode_id.in_(chunk), c.status.in_(CLAIMABLE))
                    .order_by(c.episode_id)
                    .with_for_update()
                ).all()
                if not live:
                    continue
                params = [
                    {
                        "b_id": eid,
                        "b_facts": None if facts_written is None else int(facts_written.get(eid, 0)),
                        "b_tin": int((tokens_in or {}).get(eid, 0)),
                        "b_tout": int((tokens_out or {}).get(eid, 0)),
                        "b_cost": float((cost_usd or {}).get(eid, 0.0)),
                    }
                    for eid in live
                ]
                conn.execute(
                    episodes.update()
                    .where(c.episode_id == sa.bindparam("b_id"))
                    .values(
                        status=Status.ingested.value,
                        facts_written=sa.func.coalesce(sa.bindparam("b_facts", type_=sa.Integer), c.facts_written),
                        tokens_in=c.tokens_in + sa.bindparam("b_tin", type_=sa.Integer),
                        tokens_out=c.tokens_out + sa.bindparam("b_tout", type_=sa.Integer),
                        cost_usd=c.cost_usd + sa.bindparam("b_cost", type_=sa.Float),
                        ingested_at=stamp,
                        updated_at=stamp,
                        next_attempt_at=None,
                    ),
                    params,
                )
                changed += len(live)
            return changed

        return self._write(run)

    def mark_failed(
        self,
        episode_id: str,
        error_class: str,
        message: str,
        *,
        max_attempts: int,
        backoff_base_s: float = 60,
        now: dt.datetime | None = None,
        tokens_in: int = 0,
        tokens_out: int = 0,
        cost_usd: float = 0.0,
    ) -> str:
        """One more failed attempt: failed with exponential backoff, or quarantined at max_attempts.

        Returns the new status (unchanged for a row that is not pending/failed). KeyError for an unknown id.
        """
        statuses = self.mark_failed_many(
            [episode_id], error_class, message, max_attempts=max_attempts, backoff_base_s=backoff_base_s,
            now=now, tokens_in={episode_id: tokens_in}, tokens_out={episode_id: tokens_out},
            cost_usd={episode_id: cost_usd},
        )
        if episode_id not in statuses:
            raise KeyError(episode_id)
        return statuses[episode_id]

    def mark_failed_many(
        self,
        episode_ids: Iterable[str],
        error_class: str,
        message: str,
        *,
        max_attempts: int,
        backoff_base_s: float = 60,
        now: dt.datetime | None = None,
        tokens_in: dict[str, int] | None = None,
        tokens_out: dict[str, int] | None = None,
        cost_usd: dict[str, float] | None = None,
    ) -> dict[str, str]:
        """mark_failed for a whole batch that failed together, in one transaction. Unknown ids are left out."""
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        ids = list(dict.fromkeys(episode_ids))
        stamp = _now(now)
        klass = _class_name(error_class)
        text = clean_error(message)
        c = episodes.c

        def run(conn: sa.Connection) -> dict[str, str]:
            statuses: dict[str, str] = {}
            for chunk in _chunks(ids):
                found = conn.execute(
                    sa.select(c.episode_id, c.status, c.attempts, c.error_history)
                    .where(c.episode_id.in_(chunk))
                    .order_by(c.episode_id)
                    .with_for_update()
                ).all()
                for eid, status, attempts, history in found:
                    if status not in CLAIMABLE:
                        statuses[eid] = status
                        continue
                    attempts += 1
                    quarantine = attempts >= max_attempts
                    new_status = Status.quarantined.value if quarantine else Status.failed.value
                    retry_at = None if quarantine else stamp + dt.timedelta(seconds=backoff_base_s * 2 ** (attempts - 1))
                    entry = {"at": stamp.isoformat(), "attempt": attempts, "class": klass, "message": text[:500]}
                    conn.execute(
                        episodes.update()
                        .where(c.episode_id == eid)
                        .values(
                            status=new_status,
                            attempts=attempts,
                            last_error_class=klass,
                            last_error=text,
                            error_history=((history or []) + [entry])[-MAX_ERROR_HISTORY:],
                            next_attempt_at=retry_at,
                            updated_at=stamp,
                            tokens_in=c.tokens_in + int((tokens_in or {}).get(eid, 0)),
                            tokens_out=c.tokens_out + int((tokens_out or {}).get(eid, 0)),
                            cost_usd=c.cost_usd + float((cost_usd or {}).get(eid, 0.0)),
                        )
                    )
                    statuses[eid] = new_status
            return statuses

        return self._write(run)

    # ---- operator actions ----------------------------------------------------------------------------------------

    def replay(
        self,
        *,
        source: str | None = None,
        status: Sequence[str] = ("quarantined", "failed"),
        episode_ids: Sequence[str] | None = None,
        now: dt.datetime | None = None,
    ) -> int:
        """Back to pending with attempts reset. last_error is cleared; error_history keeps what happened."""
        wanted = [_class_name(s) for s in status]
        refused = [s for s in wanted if s not in REPLAYABLE]
        if refused:
            raise ValueError(f"cannot replay status {refused}: only {list(REPLAYABLE)}")
        stamp = _now(now)
        c = episodes.c

        def run(conn: sa.Connection) -> int:
            base = [c.status.in_(wanted)]
            if source is not None:
                base.append(c.source == source)
            batches = [None] if episode_ids is None else list(_chunks(episode_ids))
            changed = 0
            for chunk in batches:
                cond = base + ([] if chunk is None else [c.episode_id.in_(chunk)])
                changed += conn.execute(
                    episodes.update()
                    .where(*cond)
                    .values(
                        status=Status.pending.value,
                        attempts=0,
                        last_error_class=None,
                        last_error=None,
                        next_attempt_at=None,
                        replays=c.replays + 1,
                        updated_at=stamp,
                    )
                ).rowcount
            return changed

        return self._write(run)

    def tombstone(self, source: str, source_keys: Sequence[str], *, now: dt.datetime | None = None) -> list[str]:
        """Records deleted upstream: mark every version tombstoned and return their episode ids (oldest first).

        A record's comments go with it (kind "comment" in its thread: a Jira issue's, a Confluence page's).
        Ids already tombstoned are returned again, so a writer that died before invalidating can simply redo it.
        A tombstoned duplicate leaves its canonical's source_keys; a tombstoned canonical hands the event to its
        oldest surviving duplicate (which becomes pending: the other source still says it happened), or frees the
        fingerprint when it had none.
        """
        stamp = _now(now)
        c = episodes.c

        def run(conn: sa.Connection) -> list[str]:
            hits: list[tuple[str, str]] = []
            kind, thread = (c.payload[("metadata", k)].as_string() for k in ("kind", "thread_key"))
            for chunk in _chunks(dict.fromkeys(_no_nul(k) for k in source_keys)):
                comments = sa.and_(kind == "comment", thread.in_(chunk))
                hits += conn.execute(
                    sa.select(c.episode_id, c.occurred_at)
                    .where(c.source == source, sa.or_(c.source_key.in_(chunk), comments))
                    .order_by(c.episode_id)
                    .with_for_update()
                ).all()
            hits.sort(key=lambda h: (h[1], h[0]))
            for eid, _ in hits:
                self._tombstone_one(conn, eid, stamp)
            return [eid for eid, _ in hits]

        return self._write(run)

    @staticmethod
    def _tombstone_one(conn: sa.Connection, eid: str, now: dt.datetime) -> None:
        c = episodes.c
        row = conn.execute(
            sa.select(c.status, c.duplicate_of, c.source_key, c.source_keys, c.group_id, c.fingerprint)
            .where(c.episode_id == eid)
            .with_for_update()
        ).one()
        if row.status == Status.tombstoned.value:
            return
        if row.status == Status.duplicate.value and row.duplicate_of:
            keys = conn.scalar(sa.select(c.source_keys).where(c.episode_id == row.duplicate_of).with_for_update())
            if keys is not None:
                conn.execute(
                    episodes.update()
                    .where(c.episode_id == row.duplicate_of)
                    .values(source_keys=[k for k in keys if k != row.source_key], updated_at=now)
                )
        elif row.status != Status.duplicate.value:
            heirs = conn.execute(
                sa.select(c.episode_id, c.source_key)
                .where(c.duplicate_of == eid, c.status == Status.duplicate.value)
                .order_by(c.occurred_at, c.created_at, c.episode_id)
                .with_for_update()
            ).all()
            owner = sa.and_(
                fingerprints.c.group_id == row.group_id,
                fingerprints.c.fingerprint == row.fingerprint,
                fingerprints.c.episode_id == eid,
            )
            if heirs:
                heir = heirs[0].episode_id
                keys = _merge_keys([heirs[0].source_key], [k for k in row.source_keys or [] if k != row.source_key])
                conn.execute(
                    episodes.update()
                    .where(c.episode_id == heir)
                    .values(status=Status.pending.value, duplicate_of=None, source_keys=keys, updated_at=now)
                )
                conn.execute(
                    episodes.update()
                    .where(c.duplicate_of == eid, c.episode_id != heir)
                    .values(duplicate_of=heir, updated_at=now)
                )
                conn.execute(fingerprints.update().where(owner).values(episode_id=heir))
            else:
                conn.execute(fingerprints.delete().where(owner))
        conn.execute(
            episodes.update()
            .where(c.episode_id == eid)
            .values(status=Status.tombstoned.value, tombstoned_at=now, next_attempt_at=None, updated_at=now)
        )

    # ---- reporting -----------------------------------------------------------------------------------------------

    def counts(self, source: str | None = None) -> dict[str, int]:
        """Episodes per status (every status present, zeros included)."""
        c = episodes.c
        query = sa.select(c.status, sa.func.count()).group_by(c.status)
        if source is not None:
            query = query.where(c.source == source)
        out = dict.fromkeys(ALL_STATUSES, 0)
        with self._read() as conn:
            for status, n in conn.execute(query):
                out[status] = int(n)
        return out

    def backlog(self, source: str | None = None) -> int:
        """What later runs still have to ingest: pending plus failed-awaiting-retry."""
        c = episodes.c
        query = sa.select(sa.func.count()).select_from(episodes).where(c.status.in_(BACKLOG_STATUSES))
        if source is not None:
            query = query.where(c.source == source)
        with self._read() as conn:
            return int(conn.scalar(query) or 0)

    def failures(self, limit: int = 50, source: str | None = None) -> list[LedgerRow]:
        """Failed and quarantined episodes, most recently touched first."""
        c = episodes.c
        query = sa.select(*ROW_COLUMNS).where(c.status.in_(FAILURE_STATUSES))
        if source is not None:
            query = query.where(c.source == source)
        query = query.order_by(c.updated_at.desc(), c.episode_id).limit(limit)
        with self._read() as conn:
            return [LedgerRow.model_validate(dict(r._mapping)) for r in conn.execute(query)]

    def get(self, episode_id: str) -> LedgerRow | None:
        with self._read() as conn:
            row = conn.execute(sa.select(*ROW_COLUMNS).where(episodes.c.episode_id == episode_id)).first()
        return None if row is None else LedgerRow.model_validate(dict(row._mapping))

    def payload(self, episode_id: str) -> Episode | None:
        with self._read() as conn:
            data = conn.scalar(sa.select(episodes.c.payload).where(episodes.c.episode_id == episode_id))
        return None if data is None else Episode.model_validate(data)

    def record_run(
        self,
        run_id: str,
        *,
        source: str | None = None,
        partition: str | None = None,
        started_at: dt.datetime,
        finished_at: dt.datetime | None = None,
        counts: dict[str, Any] | None = None,
    ) -> RunRow:
        """Remember a run and the backlog it left behind (rerunning the same run_id replaces it)."""
        c = episodes.c

        def run(conn: sa.Connection) -> RunRow:
            query = sa.select(sa.func.count()).select_from(episodes).where(c.status.in_(BACKLOG_STATUSES))
            if source is not None:
                query = query.where(c.source == source)
            row = RunRow(
                run_id=run_id, source=source, partition=partition, started_at=as_utc(started_at),
                finished_at=None if finished_at is None else as_utc(finished_at), counts=dict(counts or {}),
                backlog=int(conn.scalar(query) or 0),
            )
            conn.execute(runs.delete().where(runs.c.run_id == run_id))
            conn.execute(runs.insert().values(**row.model_dump()))
            return row

        return self._write(run)

    def recent_runs(self, source: str | None = None, n: int = 10) -> list[RunRow]:
        """Newest first. source=None means runs recorded without a source (all sources at once)."""
        query = sa.select(runs).where(
            runs.c.source.is_(None) if source is None else runs.c.source == source
        ).order_by(runs.c.started_at.desc(), runs.c.run_id).limit(n)
        with self._read() as conn:
            return [RunRow.model_validate(dict(r._mapping)) for r in conn.execute(query)]
