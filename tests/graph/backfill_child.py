"""The child of the backfill kill test: a backfill's graph write (vector indexes deferred) that dies with SIGKILL after
its n-th batch is written, before the ledger marks it.

usage: python -m tests.graph.backfill_child <spec json> <kill after this many batches>
"""

import json
import os
import sys

from tests.graph.group_writers import BATCH, KillAfter, spec_config


class BulkKillAfter(KillAfter):
    """KillAfter for a backfill: passes the loop's look-ahead and the final index build through to the writer."""

    def coming(self, batch):
        self.writer.coming(batch)

    def build_vector_indexes(self):
        return self.writer.build_vector_indexes()


def backfill(spec: dict, source: str, kill_after: int | None = None):
    """The backfill's graph step for one source: backlog with deferred vector indexes, then the build. Its stats."""
    from connectors.registry import fact_extractor
    from flow.ingest import IngestLimits, IngestStats, backfill_backlog
    from graph.ledger.ledger import Ledger
    from graph.sync_facade import SyncGraphWriter

    config = spec_config(spec).model_copy(update={"defer_vector_indexes": True})
    stats = IngestStats()
    with (
        Ledger(os.environ["GRAPHFEED_LEDGER_URL"]) as book,
        SyncGraphWriter(config, extractor=fact_extractor()) as writer,
    ):
        sink = BulkKillAfter(writer, kill_after) if kill_after else writer
        # max_episodes below the backlog: a backfill lifts the per-run bound, so the whole backlog is written
        backfill_backlog(book, sink, source, IngestLimits(batch_size=BATCH, max_episodes=BATCH), stats)
    return stats


if __name__ == "__main__":
    backfill(json.loads(sys.argv[1]), "email", int(sys.argv[2]))
    sys.exit(3)  # not reached: the kill comes first
