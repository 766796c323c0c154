"""Ledger writes of the ingest loop: register episodes (fingerprint dedup), claim a batch, mark it ingested or
failed. Each public method is one transaction (register: one per chunk, each idempotent)."""

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from pydantic import ValidationError

from graph.ledger.engine import (
    BAD_PAYLOAD,
    CLAIMABLE,
    LedgerEngine,
    _chunks,
    _class_name,
    _merge_keys,
    _no_nul,
    _now,
    clean_error,
)
from graph.ledger.models import MAX_ERROR_HISTORY, RegisterResult, Status, episodes, fingerprints
from ground.episode import Episode


class LedgerRegister(LedgerEngine):
    """register / claim / mark_ingested / mark_failed."""

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
            part = self._write(
                lambda conn, fresh=fresh, stamp=stamp: self._register_chunk(conn, fresh, partition, stamp),
                retry_integrity=True,
            )
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
            .values(
                [
                    {"group_id": g, "fingerprint": f, "episode_id": eid, "created_at": now}
                    for (g, f), eid in sorted(wanted.items())
                ]
            )
            .on_conflict_do_nothing(index_elements=["group_id", "fingerprint"])
        )
        owner: dict[tuple[str, str], str] = {}
        fps = sorted({f for _, f in wanted})
        for g, f, eid in conn.execute(
            sa.select(fingerprints.c.group_id, fingerprints.c.fingerprint, fingerprints.c.episode_id).where(
                fingerprints.c.fingerprint.in_(fps)
            )
        ):
            if (g, f) in wanted:
                owner[(g, f)] = eid

        rows: dict[str, dict[str, Any]] = {}
        extra_keys: dict[str, list[str]] = {}  # canonical id -> keys its new duplicates bring
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

    def claim(self, limit: int, now: dt.datetime | None = None, sources: Sequence[str] | None = None) -> list[Episode]:
        """Pending episodes plus failed ones whose backoff has passed, oldest event first. Locks nothing (see top)."""
        stamp = _now(now)
        c = episodes.c
        out: list[Episode] = []
        while len(out) < limit:
            cond = sa.or_(
                c.status == Status.pending.value, sa.and_(c.status == Status.failed.value, c.next_attempt_at <= stamp)
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
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        stamp = _now(now)
        klass = _class_name(error_class)
        text = clean_error(message)
        c = episodes.c

        def run(conn: sa.Connection) -> str:
            found = conn.execute(
                sa.select(c.status, c.attempts, c.error_history).where(c.episode_id == episode_id).with_for_update()
            ).first()
            if found is None:
                raise KeyError(episode_id)
            status, attempts, history = found
            if status not in CLAIMABLE:
                return str(status)
            attempts += 1
            quarantine = attempts >= max_attempts
            new_status = Status.quarantined.value if quarantine else Status.failed.value
            retry_at = None if quarantine else stamp + dt.timedelta(seconds=backoff_base_s * 2 ** (attempts - 1))
            entry = {"at": stamp.isoformat(), "attempt": attempts, "class": klass, "message": text[:500]}
            conn.execute(
                episodes.update()
                .where(c.episode_id == episode_id)
                .values(
                    status=new_status,
                    attempts=attempts,
                    last_error_class=klass,
                    last_error=text,
                    error_history=((history or []) + [entry])[-MAX_ERROR_HISTORY:],
                    next_attempt_at=retry_at,
                    updated_at=stamp,
                    tokens_in=c.tokens_in + int(tokens_in),
                    tokens_out=c.tokens_out + int(tokens_out),
                    cost_usd=c.cost_usd + float(cost_usd),
                )
            )
            return new_status

        return self._write(run)
