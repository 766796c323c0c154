"""Child process for the kill -9 test: ingest with a writer that SIGKILLs its own process right after the graph write
of batch N, before the ledger marks that batch (the worst moment: the graph has it, the ledger does not)."""

import os
import signal
import sys
from pathlib import Path

from assets.resources import GraphResource, LedgerResource
from flow.ingest import IngestLimits, ingest
from flow.staging import Staging


class KillAfterWrite:
    def __init__(self, writer, kill_at_batch: int):
        self.writer, self.kill_at_batch, self.batches = writer, kill_at_batch, 0

    def write(self, batch, budget):
        result = self.writer.write(batch, budget)
        self.batches += 1
        if self.batches == self.kill_at_batch:
            os.kill(os.getpid(), signal.SIGKILL)
        return result


def main(home: str, partitions: str, kill_at_batch: int) -> None:
    root = Path(home)
    with LedgerResource().open(root) as book, GraphResource().writer(root) as writer:
        ingest(
            book,
            KillAfterWrite(writer, kill_at_batch),
            Staging(str(root / "staging")),
            "email",
            partitions.split(","),
            IngestLimits(batch_size=5),
            run_id="crashing-run",
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
