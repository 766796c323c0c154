"""Two small tables next to the ledger (same database): the LLM spend log and the review queue.

llm_spend: one row per episode attempt that spent tokens. Per-source-per-night budgets, per-run totals and the
calibration of `graphfeed estimate` (measured calls and tokens per content character) all read it; a row per
attempt means failed attempts count too, because they were paid for.
llm_guard: what the grounding guard (guard.py) dropped or cleared, one row per episode attempt and reason: the per-run
metadata says it for a run, `graphfeed ledger` for all of them.
llm_review: LLM-extracted nodes/edges of sources under review, serialised (graphiti models, without embeddings,
which are recomputed on approval) and written to the graph only by `graphfeed review approve`.
llm_intent: the LLM intent cascade's calls, one row per unit asked: its spend (counted in the per-source nightly
budget with llm_spend) and, when the answer was a label, the cache by episode fingerprint, model and prompt version.
"""

import datetime as dt
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, Field

from graph.ledger.models import UTCDateTime
from graph.llm.meter import Usage

ReviewStatus = Literal["pending", "approved", "rejected"]

metadata = sa.MetaData()

llm_spend = sa.Table(
    "llm_spend",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(), nullable=True, index=True),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("night", sa.String(10), nullable=False),  # UTC date the money was spent
    sa.Column("episode_id", sa.String(), nullable=False, index=True),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("chunks", sa.Integer, nullable=False, default=1),
    sa.Column("content_chars", sa.Integer, nullable=False, default=0),
    sa.Column("calls", sa.Integer, nullable=False, default=0),
    sa.Column("tokens_in", sa.Integer, nullable=False, default=0),
    sa.Column("tokens_out", sa.Integer, nullable=False, default=0),
    sa.Column("embedding_tokens", sa.Integer, nullable=False, default=0),
    sa.Column("cost_usd", sa.Float, nullable=False, default=0.0),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ix_llm_spend_source_night", "source", "night"),
)

llm_guard = sa.Table(
    "llm_guard",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.String(), nullable=True, index=True),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("episode_id", sa.String(), nullable=False, index=True),
    sa.Column("reason", sa.String(64), nullable=False),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ix_llm_guard_source_reason", "source", "reason"),
)

llm_review = sa.Table(
    "llm_review",
    metadata,
    sa.Column("chunk_uuid", sa.String(), primary_key=True),
    sa.Column("episode_id", sa.String(), nullable=False, index=True),
    sa.Column("group_id", sa.String(), nullable=False),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("title", sa.Text, nullable=False, default=""),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("nodes", sa.Integer, nullable=False, default=0),
    sa.Column("edges", sa.Integer, nullable=False, default=0),
    sa.Column("facts", sa.JSON, nullable=False),  # readable summary for `review list/show`
    sa.Column("payload", sa.JSON, nullable=False),  # serialised graphiti models
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("decided_at", UTCDateTime, nullable=True),
    sa.Column("note", sa.Text, nullable=True),
    sa.Index("ix_llm_review_status", "status", "source"),
)


llm_intent = sa.Table(
    "llm_intent",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("fingerprint", sa.String(), nullable=False),
    sa.Column("model", sa.String(), nullable=False),
    sa.Column("prompt_version", sa.String(32), nullable=False),
    sa.Column("label", sa.String(), nullable=True),  # None: no usable answer (the local label stood)
    sa.Column("reason", sa.String(), nullable=True),  # why not, as a category (transforms.intent.llm_prompt)
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("night", sa.String(10), nullable=False),
    sa.Column("episode_id", sa.String(), nullable=False),
    sa.Column("calls", sa.Integer, nullable=False, default=0),
    sa.Column("tokens_in", sa.Integer, nullable=False, default=0),
    sa.Column("tokens_out", sa.Integer, nullable=False, default=0),
    sa.Column("cost_usd", sa.Float, nullable=False, default=0.0),
    sa.Column("at", UTCDateTime, nullable=False),
    sa.Index("ix_llm_intent_key", "fingerprint", "model", "prompt_version"),
    sa.Index("ix_llm_intent_source_night", "source", "night"),
)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class ReviewItem(BaseModel):
    chunk_uuid: str
    episode_id: str
    group_id: str
    source: str
    title: str = ""
    status: ReviewStatus
    nodes: int = 0
    edges: int = 0
    facts: list[str] = Field(default_factory=list)
    created_at: dt.datetime
    decided_at: dt.datetime | None = None
    note: str | None = None
    payload: dict[str, Any] | None = None


class SpendProfile(BaseModel):
    """What past runs measured for a source (the estimate's calibration)."""

    episodes: int = 0
    chunks: int = 0
    content_chars: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class LLMStore:
    def __init__(self, url: str):
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() == "sqlite":
            if parsed.database not in (None, "", ":memory:"):
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            self.engine = sa.create_engine(parsed, connect_args={"timeout": 30, "check_same_thread": False})

            @sa.event.listens_for(self.engine, "connect")
            def _on_connect(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA busy_timeout=30000")
                cur.close()
        else:
            self.engine = sa.create_engine(parsed, pool_pre_ping=True)
        metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # ---- spend --------------------------------------------------------------------------------------------------

    def record_spend(
        self,
        *,
        source: str,
        episode_id: str,
        usage: Usage,
        ok: bool,
        run_id: str | None = None,
        chunks: int = 1,
        content_chars: int = 0,
        at: dt.datetime | None = None,
    ) -> None:
        at = at or _now()
        with self.engine.begin() as conn:
            conn.execute(
                llm_spend.insert().values(
                    run_id=run_id,
                    source=source,
                    night=at.astimezone(dt.UTC).date().isoformat(),
                    episode_id=episode_id,
                    ok=ok,
                    chunks=chunks,
                    content_chars=content_chars,
                    calls=usage.calls,
                    tokens_in=usage.tokens_in,
                    tokens_out=usage.tokens_out,
                    embedding_tokens=usage.embedding_tokens,
                    cost_usd=usage.cost_usd,
                    at=at,
                )
            )

    def record_guard(
        self,
        *,
        source: str,
        episode_id: str,
        counts: dict[str, int],
        run_id: str | None = None,
        at: dt.datetime | None = None,
    ) -> None:
        rows = [
            dict(run_id=run_id, source=source, episode_id=episode_id, reason=r, count=n, at=at or _now())
            for r, n in sorted(counts.items())
            if n
        ]
        if rows:
            with self.engine.begin() as conn:
                conn.execute(llm_guard.insert(), rows)

    def spent_on_night(self, source: str, night: dt.date) -> float:
        """Extraction and intent cascade spend of a source on a UTC night: one nightly budget covers both."""
        total = 0.0
        with self.engine.connect() as conn:
            for table in (llm_spend, llm_intent):
                c = table.c
                total += float(
                    conn.scalar(
                        sa.select(sa.func.coalesce(sa.func.sum(c.cost_usd), 0.0)).where(
                            c.source == source, c.night == night.isoformat()
                        )
                    )
                    or 0.0
                )
        return total

    def spent_by_run(self, run_id: str) -> float:
        c = llm_spend.c
        with self.engine.connect() as conn:
            return float(
                conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(c.cost_usd), 0.0)).where(c.run_id == run_id)) or 0.0
            )

    def profile(self, source: str | None = None) -> SpendProfile:
        """Successful attempts only: a failed attempt says little about what an episode costs."""
        c = llm_spend.c
        query = sa.select(
            sa.func.count(sa.distinct(c.episode_id)),
            sa.func.sum(c.chunks),
            sa.func.sum(c.content_chars),
            sa.func.sum(c.calls),
            sa.func.sum(c.tokens_in),
            sa.func.sum(c.tokens_out),
            sa.func.sum(c.cost_usd),
        ).where(c.ok.is_(True))
        if source is not None:
            query = query.where(c.source == source)
        with self.engine.connect() as conn:
            row = conn.execute(query).one()
        return SpendProfile(
            episodes=int(row[0] or 0),
            chunks=int(row[1] or 0),
            content_chars=int(row[2] or 0),
            calls=int(row[3] or 0),
            tokens_in=int(row[4] or 0),
            tokens_out=int(row[5] or 0),
            cost_usd=float(row[6] or 0.0),
        )

    # ---- review queue -------------------------------------------------------------------------------------------

    def hold(self, item: ReviewItem) -> None:
        """Hold (or re-hold after a replay) one chunk's extraction. A decided item is replaced by the new pending one."""
        values = item.model_dump()
        with self.engine.begin() as conn:
            conn.execute(llm_review.delete().where(llm_review.c.chunk_uuid == item.chunk_uuid))
            conn.execute(llm_review.insert().values(**values))

    def reviews(
        self, *, status: str | None = "pending", source: str | None = None, limit: int = 100
    ) -> list[ReviewItem]:
        c = llm_review.c
        cols = [col for col in llm_review.c if col.name != "payload"]
        query = sa.select(*cols).order_by(c.created_at, c.chunk_uuid).limit(limit)
        if status is not None:
            query = query.where(c.status == status)
        if source is not None:
            query = query.where(c.source == source)
        with self.engine.connect() as conn:
            return [ReviewItem.model_validate(dict(r._mapping)) for r in conn.execute(query)]

    def review(self, key: str) -> ReviewItem | None:
        """By chunk uuid, or by episode id when that episode was not split (the two are then equal)."""
        c = llm_review.c
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(llm_review).where(c.chunk_uuid == key)).first()
            if row is None:
                row = conn.execute(sa.select(llm_review).where(c.episode_id == key).order_by(c.chunk_uuid)).first()
        return None if row is None else ReviewItem.model_validate(dict(row._mapping))

    def reviews_of_episode(self, episode_id: str) -> list[ReviewItem]:
        c = llm_review.c
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(llm_review).where(c.episode_id == episode_id).order_by(c.chunk_uuid)).all()
        return [ReviewItem.model_validate(dict(r._mapping)) for r in rows]

    def decide(self, chunk_uuids: list[str], status: ReviewStatus, note: str | None = None) -> int:
        """pending -> approved/rejected. Returns how many changed (already-decided items are left alone)."""
        c = llm_review.c
        with self.engine.begin() as conn:
            return conn.execute(
                llm_review.update()
                .where(c.chunk_uuid.in_(chunk_uuids), c.status == "pending")
                .values(status=status, decided_at=_now(), note=note)
            ).rowcount

    def counts(self) -> dict[str, int]:
        c = llm_review.c
        out = {"pending": 0, "approved": 0, "rejected": 0}
        with self.engine.connect() as conn:
            for status, n in conn.execute(sa.select(c.status, sa.func.count()).group_by(c.status)):
                out[status] = int(n)
        return out

    # ---- intent cascade -------------------------------------------------------------------------------------------

    def cached_intents(self, fingerprints: list[str], model: str, prompt_version: str) -> dict[str, str]:
        """fingerprint -> the label an earlier call answered for it with this model and prompt."""
        c = llm_intent.c
        out: dict[str, str] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(fingerprints), 500):
                query = sa.select(c.fingerprint, c.label).where(
                    c.fingerprint.in_(fingerprints[start : start + 500]),
                    c.model == model,
                    c.prompt_version == prompt_version,
                    c.label.is_not(None),
                )
                out.update({fp: label for fp, label in conn.execute(query)})
        return out

    def record_intent(
        self,
        *,
        fingerprint: str,
        model: str,
        prompt_version: str,
        label: str | None,
        reason: str | None,
        source: str,
        episode_id: str,
        usage: Usage,
        at: dt.datetime | None = None,
    ) -> None:
        at = at or _now()
        with self.engine.begin() as conn:
            conn.execute(
                llm_intent.insert().values(
                    fingerprint=fingerprint,
                    model=model,
                    prompt_version=prompt_version,
                    label=label,
                    reason=reason,
                    source=source,
                    night=at.astimezone(dt.UTC).date().isoformat(),
                    episode_id=episode_id,
                    calls=usage.calls,
                    tokens_in=usage.tokens_in,
                    tokens_out=usage.tokens_out,
                    cost_usd=usage.cost_usd,
                    at=at,
                )
            )


def measured_rows(store: LLMStore, source: str, limit: int = 2000) -> list[tuple[int, int, int, int, int, float]]:
    """(chunks, content_chars, calls, tokens_in, tokens_out, cost_usd) of the latest successful episodes of a source."""
    c = llm_spend.c
    query = (
        sa.select(c.chunks, c.content_chars, c.calls, c.tokens_in, c.tokens_out, c.cost_usd)
        .where(c.source == source, c.ok.is_(True))
        .order_by(c.id.desc())
        .limit(limit)
    )
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(query)]


def guard_counts(url: str, source: str | None = None) -> dict[str, int]:
    """What the guard dropped, by reason, over every run (read-only: {} where no LLM run ever wrote the table)."""
    engine = sa.create_engine(url)
    try:
        if not sa.inspect(engine).has_table("llm_guard"):
            return {}
        c = llm_guard.c
        query = sa.select(c.reason, sa.func.sum(c.count)).group_by(c.reason).order_by(c.reason)
        if source is not None:
            query = query.where(c.source == source)
        with engine.connect() as conn:
            return {str(r): int(n or 0) for r, n in conn.execute(query)}
    finally:
        engine.dispose()
