"""Deletions: pages that went to the trash or disappeared become Tombstones (a value the lead wires to the ledger).

Wiring: `ids = ledger.tombstone("confluence", [t.source_key for t in tombstones])` then
`writer.invalidate_episodes(ids, at=t.detected_at or now)`: the page's facts end, the ledger marks it tombstoned.
"""

import datetime as dt
from typing import Literal

from pydantic import BaseModel


class Tombstone(BaseModel):
    source: str = "confluence"
    source_key: str  # page / blog post / comment id
    kind: str = "page"
    reason: Literal["trashed", "deleted", "missing", "purged"] = "deleted"
    detected_at: dt.datetime | None = None
