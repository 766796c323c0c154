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

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa

from graph.ledger.engine import REPLAYABLE, _chunks, _class_name, _merge_keys, _no_nul, _now
from graph.ledger.models import LedgerRow, RegisterResult, RunRow, Status, episodes, fingerprints
from graph.ledger.register import LedgerRegister
from graph.ledger.reports import LedgerReports

__all__ = ["Ledger", "LedgerRow", "RegisterResult", "RunRow", "Status", "backlog_growing", "ledger_url_for_home"]


def ledger_url_for_home(home: Path | str) -> str:
    """The default ledger: a SQLite file in the graphfeed home."""
    return f"sqlite:///{Path(home).expanduser().resolve() / 'ledger.sqlite'}"


def backlog_growing(recent: Sequence[RunRow], n: int = 3) -> bool:
    """True when the backlog rose at each of the last n runs: ingestion is not keeping up."""
    ordered = sorted(recent, key=lambda r: r.started_at)[-(n + 1) :]
    if len(ordered) < n + 1:
        return False
    return all(b.backlog > a.backlog for a, b in zip(ordered, ordered[1:]))


class Ledger(LedgerRegister, LedgerReports):
    """Episode bookkeeping. `Ledger("sqlite:///home/ledger.sqlite")` or `Ledger("postgresql+psycopg2://...")`.

    The engine and transactions live in ledger_engine.py, register/claim/mark in ledger_register.py, the reports in
    ledger_reports.py; the operator actions (replay, tombstone) are here.
    """

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
