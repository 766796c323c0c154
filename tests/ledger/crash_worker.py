"""A nightly run that dies by SIGKILL part-way (run as a subprocess by test_crash.py).

usage: python -m tests.ledger.crash_worker <ledger-url> <graph-log> <between|in_commit>
Batches 1-2 are written and marked; batch 3 is written to the stand-in graph (an append-only id log) and then the
process is killed either before marking it ("between") or inside the marking transaction's COMMIT ("in_commit").
"""

import os
import signal
import sys

import sqlalchemy as sa

from graph.ledger.ledger import Ledger

BATCH = 4


def main(url: str, graph_log: str, mode: str) -> None:
    ledger = Ledger(url)
    for number in (1, 2, 3):
        batch = ledger.claim(BATCH)
        with open(graph_log, "a") as log:  # graph writes: idempotent by episode id
            log.writelines(f"{e.id}\n" for e in batch)
            log.flush()
            os.fsync(log.fileno())
        if number == 3:
            if mode == "between":
                os.kill(os.getpid(), signal.SIGKILL)
            sa.event.listen(ledger._engine, "commit", lambda _conn: os.kill(os.getpid(), signal.SIGKILL))
        ledger.mark_ingested([e.id for e in batch])
    raise SystemExit("should have been killed")


if __name__ == "__main__":
    main(*sys.argv[1:4])
