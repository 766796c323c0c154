"""Transaction time: what the graph held at a moment of its own history, answered from the graph as it is now. Pure.

Every fact edge has created_at (when the graph first recorded it) and expired_at (when the graph recorded that a later
fact ended it; null while nothing has). The graph *held* a fact at t when

    created_at <= t and (expired_at is null or expired_at > t)

— it was recorded and not yet superseded in the graph's own view. That is `--known-at t` on its own.

The interval as known at t. The writer re-times a fact when its computed end changes (timeline.py: a later value
arrives, a backfill slots an older value in between, a source record is deleted). A fact with expired_at > t was held
at t, but its end as known at t was not the end stored now. Since schema 1.1 the writer keeps every state an edge had
as a revision ("at|invalid_at|expired_at": from transaction time `at` on, the edge had that end and expiry), so the
interval as known at t is read back exactly (`exact=True`). Edges written before that carry no revisions: then the
graph tells only the state it holds now and since when (expired_at); before that moment the fact is shown with the end
its source gave it (usually none: open), `exact=False` — the graph does not record whether an earlier end, replaced
since, existed.

`--known-at t --as-of d` asks what the graph at t said held at d: every fact recorded by t whose interval as known at t
covers d — including facts already closed at t (the graph at t knew "Dana was the contact in March" even after it
learned of her successor). So `--known-at now --as-of d` is exactly `--as-of d`.
"""

import datetime as dt
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from graph.connection import as_datetime


class Revision(BaseModel):
    """From transaction time `at` on, the edge had this end (world time) and expiry (transaction time)."""

    at: dt.datetime
    invalid_at: dt.datetime | None = None
    expired_at: dt.datetime | None = None


def _iso(value: dt.datetime | None) -> str:
    return value.astimezone(dt.UTC).isoformat() if value is not None else ""


def format_revision(at: dt.datetime, invalid_at: dt.datetime | None, expired_at: dt.datetime | None) -> str:
    """The stored form: a string, so that both stores keep a plain list property."""
    return f"{_iso(at)}|{_iso(invalid_at)}|{_iso(expired_at)}"


def parse_revisions(values: Iterable[str] | None) -> list[Revision]:
    """Stored revisions in transaction order; malformed entries are ignored (the edge then reads as unrevised)."""
    out = []
    for text in values or []:
        parts = str(text).split("|")
        if len(parts) != 3 or not parts[0]:
            continue
        at = as_datetime(parts[0])
        if at is None:
            continue
        out.append(Revision(at=at, invalid_at=as_datetime(parts[1] or None), expired_at=as_datetime(parts[2] or None)))
    return sorted(out, key=lambda r: r.at)


def next_revisions(
    stored: Iterable[str] | None,
    *,
    now: dt.datetime,
    invalid_at: dt.datetime | None,
    expired_at: dt.datetime | None,
    created: bool,
) -> list[str]:
    """The revision list after a write: one entry more when the edge is new or its end/expiry changed."""
    kept = list(stored or [])
    last = parse_revisions(kept)[-1:] if kept else []
    if created or not last or (last[0].invalid_at, last[0].expired_at) != (invalid_at, expired_at):
        kept.append(format_revision(now, invalid_at, expired_at))
    return kept


class EdgeClock(BaseModel):
    """The times of one fact edge as stored now."""

    created_at: dt.datetime | None
    valid_at: dt.datetime | None = None
    invalid_at: dt.datetime | None = None
    expired_at: dt.datetime | None = None
    source_invalid_at: dt.datetime | None = None
    revisions: list[Revision] = []

    @classmethod
    def of(cls, edge: Any) -> "EdgeClock":
        """From a graphiti EntityEdge (our extra properties are in its attributes)."""
        attrs = getattr(edge, "attributes", None) or {}
        return cls(
            created_at=as_datetime(edge.created_at),
            valid_at=as_datetime(edge.valid_at),
            invalid_at=as_datetime(edge.invalid_at),
            expired_at=as_datetime(edge.expired_at),
            source_invalid_at=as_datetime(attrs.get("source_invalid_at")),
            revisions=parse_revisions(attrs.get("revisions")),
        )


class KnownVersion(BaseModel):
    """A fact as the graph held it at one transaction time."""

    valid_at: dt.datetime | None
    invalid_at: dt.datetime | None
    expired_at: dt.datetime | None
    exact: bool  # False: recorded before revisions were kept, the end shown is what the source gave

    @property
    def held(self) -> bool:
        return self.expired_at is None

    def holds_at(self, moment: dt.datetime) -> bool:
        return (self.valid_at is None or self.valid_at <= moment) and (
            self.invalid_at is None or self.invalid_at > moment
        )


def version_at(edge: EdgeClock, t: dt.datetime) -> KnownVersion | None:
    """The edge as the graph held it at t; None when the graph had not recorded it yet."""
    if edge.created_at is None or edge.created_at > t:
        return None
    earlier = [r for r in edge.revisions if r.at <= t]
    if earlier:
        r = earlier[-1]
        return KnownVersion(valid_at=edge.valid_at, invalid_at=r.invalid_at, expired_at=r.expired_at, exact=True)
    if edge.revisions:  # revisions began after t (an edge from before schema 1.1, re-timed since)
        return KnownVersion(valid_at=edge.valid_at, invalid_at=edge.source_invalid_at, expired_at=None, exact=False)
    if edge.expired_at is None or edge.expired_at <= t:
        return KnownVersion(valid_at=edge.valid_at, invalid_at=edge.invalid_at, expired_at=edge.expired_at, exact=True)
    return KnownVersion(valid_at=edge.valid_at, invalid_at=edge.source_invalid_at, expired_at=None, exact=False)


def held_at(edge: EdgeClock, t: dt.datetime) -> bool:
    """created_at <= t and (expired_at is null or expired_at > t), over the edge's revisions when it has them."""
    version = version_at(edge, t)
    return version is not None and version.held


def known_match(edge: EdgeClock, known_at: dt.datetime, as_of: dt.datetime | None = None) -> KnownVersion | None:
    """The version to answer with, or None: held at known_at; with as_of, recorded by known_at and valid at as_of."""
    version = version_at(edge, known_at)
    if version is None:
        return None
    if as_of is None:
        return version if version.held else None
    return version if version.holds_at(as_of) else None


# Facts not yet recorded at t (or already superseded) compete for the same hybrid-search slots: fetch wider.
KNOWN_AT_WIDEN = 4


def known_edges(edges: list[Any], known_at: dt.datetime, as_of: dt.datetime | None) -> list[tuple[Any, KnownVersion]]:
    """Ranked graphiti edges -> those to answer with at known_at (and as_of), each with its version, order kept."""
    out = []
    for edge in edges:
        version = known_match(EdgeClock.of(edge), known_at, as_of)
        if version is not None:
            out.append((edge, version))
    return out


def as_known(hit: Any, version: KnownVersion, known_at: dt.datetime) -> Any:
    """A FactHit showing the interval as known at known_at (created_at stays: when the graph first recorded it)."""
    return hit.model_copy(
        update={
            "invalid_at": version.invalid_at,
            "expired_at": version.expired_at,
            "known_at": known_at,
            "interval_exact": version.exact,
        }
    )
