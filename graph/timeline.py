"""Single-valued slots: which fact holds when. Pure, so in-order and out-of-order arrival give the same graph.

For every touched slot the writer re-reads all edges of that slot and recomputes the whole chain: sorted by
(valid_at, uuid), each fact ends (invalid_at) where the next fact with a DIFFERENT object starts. A fact's own
source-given end (source_invalid_at) still applies if earlier. expired_at (transaction time) is set to `now` only
when the computed end changes, so a rerun leaves every edge as it was.

A slot family (a page's properties: one slot per key) also ends a fact where a later statement of the family no
longer lists its slot (the row was removed). Every fact of a family carries the slots its version stated, so the
statements are read back from the stored edges and the result does not depend on arrival order either.
"""

import datetime as dt

from pydantic import BaseModel

_MIN = dt.datetime.min.replace(tzinfo=dt.UTC)


class SlotEdge(BaseModel):
    uuid: str
    object: str
    valid_at: dt.datetime | None
    source_invalid_at: dt.datetime | None = None  # end given by the source itself (e.g. an explicit end date)
    invalid_at: dt.datetime | None = None  # as stored now
    expired_at: dt.datetime | None = None  # as stored now
    tombstoned_at: dt.datetime | None = None  # its episodes were deleted upstream
    removed_at: dt.datetime | None = None  # a later statement of its slot family left it out (absence_end)


class EdgeTimes(BaseModel):
    invalid_at: dt.datetime | None
    expired_at: dt.datetime | None

    def differs(self, edge: SlotEdge) -> bool:
        return (self.invalid_at, self.expired_at) != (edge.invalid_at, edge.expired_at)


def _earliest(*values: dt.datetime | None) -> dt.datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def recompute_slot(edges: list[SlotEdge], now: dt.datetime) -> dict[str, EdgeTimes]:
    """New (invalid_at, expired_at) for every edge of one slot."""
    live = sorted((e for e in edges if e.tombstoned_at is None), key=lambda e: (e.valid_at or _MIN, e.uuid))
    out: dict[str, EdgeTimes] = {}
    for i, edge in enumerate(live):
        successor = next((later for later in live[i + 1 :] if later.object != edge.object), None)
        superseded_at = _earliest(successor.valid_at if successor is not None else None, edge.removed_at)
        invalid_at = _earliest(edge.source_invalid_at, superseded_at)
        if superseded_at is None:
            expired_at = None
        elif invalid_at == edge.invalid_at and edge.expired_at is not None:
            expired_at = edge.expired_at  # unchanged: keep the original transaction time
        else:
            expired_at = now
        out[edge.uuid] = EdgeTimes(invalid_at=invalid_at, expired_at=expired_at)
    for edge in edges:
        if edge.tombstoned_at is not None:
            out[edge.uuid] = EdgeTimes(
                invalid_at=_earliest(edge.invalid_at, edge.tombstoned_at), expired_at=edge.expired_at or now
            )
    return out


def absence_end(
    slot: str, valid_at: dt.datetime | None, statements: list[tuple[dt.datetime | None, frozenset[str]]]
) -> dt.datetime | None:
    """The first later statement of a slot family that leaves this slot out, if any."""
    if valid_at is None:
        return None
    later = [at for at, slots in statements if at is not None and at > valid_at and slot not in slots]
    return min(later) if later else None
