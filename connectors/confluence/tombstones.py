"""Deletions: pages that went to the trash or disappeared become Tombstones (a value the lead wires to the ledger).

Wiring: `ids = ledger.tombstone("confluence", [t.source_key for t in tombstones])` then
`writer.invalidate_episodes(ids, at=t.detected_at or now)`: the page's facts end, the ledger marks it tombstoned.
"""

import datetime as dt
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel


class Tombstone(BaseModel):
    source: str = "confluence"
    source_key: str                                   # page / blog post / comment id
    kind: str = "page"
    reason: Literal["trashed", "deleted", "missing", "purged"] = "deleted"
    detected_at: dt.datetime | None = None


def missing_pages(known_keys: Iterable[str], present_keys: Iterable[str], at: dt.datetime) -> list[Tombstone]:
    """Pages the graph knows (ledger source keys of one space) that a full listing no longer has."""
    present = set(present_keys)
    return [Tombstone(source_key=k, reason="missing", detected_at=at) for k in sorted(set(known_keys) - present)]
