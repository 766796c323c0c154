"""Ledger reads for operators and run checks: counts per status, backlog, failures, one row, recorded runs."""

import datetime as dt
from typing import Any

import sqlalchemy as sa

from graph.ledger.engine import LedgerEngine
from graph.ledger.models import (
    ALL_STATUSES,
    BACKLOG_STATUSES,
    FAILURE_STATUSES,
    ROW_COLUMNS,
    LedgerRow,
    RunRow,
    episodes,
    runs,
)
from ground.episode import Episode
from ground.records import as_utc


class LedgerReports(LedgerEngine):
    """counts / backlog / failures / get / payload / record_run / recent_runs."""

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
                run_id=run_id,
                source=source,
                partition=partition,
                started_at=as_utc(started_at),
                finished_at=None if finished_at is None else as_utc(finished_at),
                counts=dict(counts or {}),
                backlog=int(conn.scalar(query) or 0),
            )
            conn.execute(runs.delete().where(runs.c.run_id == run_id))
            conn.execute(runs.insert().values(**row.model_dump()))
            return row

        return self._write(run)

    def recent_runs(self, source: str | None = None, n: int = 10) -> list[RunRow]:
        """Newest first. source=None means runs recorded without a source (all sources at once)."""
        query = (
            sa.select(runs)
            .where(runs.c.source.is_(None) if source is None else runs.c.source == source)
            .order_by(runs.c.started_at.desc(), runs.c.run_id)
            .limit(n)
        )
        with self._read() as conn:
            return [RunRow.model_validate(dict(r._mapping)) for r in conn.execute(query)]
