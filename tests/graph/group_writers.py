"""Helpers of the per-group writer tests: episodes for a group and source, a writer config from a JSON spec that a
child process can rebuild (secrets through the environment), and the child that dies in the middle of a two-group run.

usage (child): python -m tests.graph.group_writers <spec json> <kill after this many batches of group B>
"""

import datetime as dt
import json
import os
import signal
import sys
import threading
from pathlib import Path

from graph.config import GraphConfig
from ground.episode import Episode, episode_id
from tests.graph.scenario import DANA, LEE, MARCH, PRIYA, TOM, email_episode

PEOPLE = (DANA, TOM, PRIYA, LEE)
BATCH = 5


def mails(group_id: str, source: str, n: int, offset: int = 0) -> list[Episode]:
    """n e-mail shaped episodes of `source` in the group, one thread per three mails (replies merge slots)."""
    out = []
    for i in range(offset, offset + n):
        key = f"<{group_id}-{i}@acme.example>"
        parent = f"<{group_id}-{i - 1}@acme.example>" if i % 3 else None
        episode = email_episode(
            group_id,
            key,
            MARCH + dt.timedelta(hours=i),
            actor=PEOPLE[i % 4],
            to=(PEOPLE[(i + 1) % 4],),
            title=f"topic {i // 3}",
            parent=parent,
        )
        out.append(episode.model_copy(update={"source": source, "id": episode_id(source, key, "1")}))
    return out


def spec_config(spec: dict) -> GraphConfig:
    """{"backend", "home", "neo4j_uri", "neo4j_user"} + NEO4J_PASSWORD / GRAPHFEED_LEDGER_URL from the environment."""
    extra = {}
    if spec["backend"] == "neo4j":
        extra = {
            "neo4j_uri": spec["neo4j_uri"],
            "neo4j_user": spec["neo4j_user"],
            "neo4j_password": os.environ["NEO4J_PASSWORD"],
        }
    ledger_url = os.environ["GRAPHFEED_LEDGER_URL"]
    lock_url = ledger_url if ledger_url.startswith("postgresql") else None
    return GraphConfig(
        backend=spec["backend"],
        home=Path(spec["home"]),
        domain_orgs={"acme.example": "Acme Corp"},
        write_lock_url=lock_url,
        **extra,
    )


class _Wrapped:
    """A GraphSink around a writer for the child's failure points: invalidations pass straight through."""

    def __init__(self, writer, n: int):
        self.writer, self.n, self.batches = writer, n, 0

    def invalidate_episodes(self, episode_ids, at, group_id=None):
        return self.writer.invalidate_episodes(episode_ids, at, group_id)


class KillAfter(_Wrapped):
    """SIGKILLs the whole process after its n-th batch is written, before the ledger marks it."""

    def write(self, batch, budget):
        result = self.writer.write(batch, budget)
        self.batches += 1
        if self.batches == self.n:
            os.kill(os.getpid(), signal.SIGKILL)
        return result


class HoldFrom(_Wrapped):
    """Writes n-1 batches, then waits for the process to die: the other group's kill then always finds this group cut
    short, whichever thread the scheduler favoured (under load group A once finished first)."""

    def write(self, batch, budget):
        self.batches += 1
        if self.batches >= self.n:
            threading.Event().wait()
        return self.writer.write(batch, budget)


def write_source(spec: dict, source: str, kill_after: int | None = None, hold_from: int | None = None) -> None:
    """Write the source's backlog through its own writer and ledger, as one graph step does."""
    from connectors.registry import fact_extractor
    from flow.ingest import IngestLimits, IngestStats, write_backlog
    from graph.ledger.ledger import Ledger
    from graph.sync_facade import SyncGraphWriter

    with (
        Ledger(os.environ["GRAPHFEED_LEDGER_URL"]) as book,
        SyncGraphWriter(spec_config(spec), extractor=fact_extractor()) as writer,
    ):
        sink = KillAfter(writer, kill_after) if kill_after else HoldFrom(writer, hold_from) if hold_from else writer
        write_backlog(book, sink, source, IngestLimits(batch_size=BATCH, max_episodes=10_000), IngestStats())


def main(spec: dict, kill_after: int) -> None:
    """Two groups' graph steps at once (threads, like two runs' steps); the process dies inside group B's."""
    a = threading.Thread(target=write_source, args=(spec, spec["sources"][0], None, kill_after + 1), daemon=True)
    a.start()
    write_source(spec, spec["sources"][1], kill_after)
    a.join()
    sys.exit(3)  # not reached: the kill comes first


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), int(sys.argv[2]))
