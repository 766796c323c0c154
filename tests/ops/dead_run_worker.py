"""Child for the dead-run test: `graphfeed run` whose graph writer SIGKILLs its own process right after the graph
write of batch N, while the graph step holds the `graph_write_email` pool slot (the worst moment for the next night).

usage: python -m tests.ops.dead_run_worker <kill-at-batch> <graphfeed run arguments...>
"""

import os
import signal
import sys

from graph.sync_facade import SyncGraphWriter
from pipelines import commands as cli


def main(kill_at_batch: int, argv: list[str]) -> int:
    write = SyncGraphWriter.write  # the ingest loop's call (GraphSink.write)
    written = 0

    def write_then_die(self, *args, **kwargs):
        nonlocal written
        result = write(self, *args, **kwargs)
        written += 1
        if written == kill_at_batch:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    SyncGraphWriter.write = write_then_die
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2:]))
