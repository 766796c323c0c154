"""One writer per group (graph/write/group_locks.py), on embedded FalkorDB with flock locks and a SQLite ledger,
and on Neo4j with PostgreSQL advisory locks and a PostgreSQL ledger:

- given two writers of two groups started together, then their batches' lock-held windows overlap in time;
- given two writers of one group started together, then their windows never overlap;
- given a process holding a group's lock killed with SIGKILL, then the lock is free at once (no stale lock);
- given a two-group run killed with SIGKILL mid-way, when it is run again, then the ledger counts every episode
  ingested once and the graph holds exactly what a clean run of the same episodes writes (no duplicate episode/fact).
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from connectors.registry import fact_extractor
from flow.settings import REPO_ROOT
from graph.embedded_falkor import EmbeddedFalkor
from graph.ledger.ledger import Ledger, ledger_url_for_home
from graph.sync_facade import SyncGraphWriter
from graph.write.group_locks import FileGroupLocks, PostgresGroupLocks
from tests.graph.group_writers import BATCH, mails, spec_config, write_source

pytestmark = pytest.mark.slow


class Setup:
    def __init__(self, spec: dict, env: dict[str, str]):
        self.spec, self.env = spec, env

    def config(self):
        old = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        try:
            return spec_config(self.spec)
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


@pytest.fixture(params=["falkordb-embedded", "neo4j"])
def setup(request, graph_home):
    spec = {"backend": request.param, "home": str(graph_home), "sources": ["email", "jira"]}
    env = {"GRAPHFEED_LEDGER_URL": ledger_url_for_home(graph_home)}
    if request.param == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        spec.update(neo4j_uri=server.uri, neo4j_user=server.user)
        env = {"GRAPHFEED_LEDGER_URL": request.getfixturevalue("postgres_fresh_url"), "NEO4J_PASSWORD": server.password}
    yield Setup(spec, env)
    pid = EmbeddedFalkor(graph_home / "falkordb").running_pid()  # a killed child's server outlives it
    if pid:
        os.kill(pid, signal.SIGTERM)


def write_together(setup: Setup, jobs: list[tuple[str, int]]) -> list[list[tuple[float, float, float]]]:
    """Each job (group, offset) in its own writer and thread, started together: 4 batches each. Per job, per batch
    (held_from, held_until, lock_wait_seconds)."""
    config = setup.config()
    start = threading.Barrier(len(jobs), timeout=300)
    windows: list[list[tuple[float, float, float]]] = [[] for _ in jobs]

    def job(i: int, group_id: str, offset: int) -> None:
        with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
            writer.write_batch(mails(group_id, "email", 1, offset=900 + offset))  # stamp + warm up before the race
            start.wait()
            for b in range(4):
                r = writer.write_batch(mails(group_id, "email", BATCH, offset=offset + b * BATCH))
                windows[i].append((r.held_from, r.held_until, r.lock_wait_seconds))

    threads = [threading.Thread(target=job, args=(i, g, o)) for i, (g, o) in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(w) == 4 for w in windows), "a writer thread failed (see its traceback above)"
    return windows


def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_given_two_groups_when_written_together_then_their_writes_overlap(setup, group_id):
    first, second = write_together(setup, [(group_id + "_a", 0), (group_id + "_b", 0)])
    assert any(overlaps(a, b) for a in first for b in second)
    assert sum(w for *_, w in first + second) < 1.0  # nobody queued behind the other group


def test_given_one_group_when_two_writers_write_together_then_their_writes_never_overlap(setup, group_id):
    first, second = write_together(setup, [(group_id, 0), (group_id, 100)])
    # from asking for its first batch's lock to releasing its last: a writer may take all its batches in a row
    # (locks are not fair), so the held windows alone need not interleave, but the asking must
    spans = [(w[0][0] - w[0][2], w[-1][1]) for w in (first, second)]
    assert overlaps(*spans), "the two writers did not run at the same time, so the test proves nothing"
    assert not any(overlaps(a, b) for a in first for b in second)
    assert max(w for *_, w in first + second) > 0  # one of them waited for the other


HOLDER = """
import asyncio, sys, time
from pathlib import Path
from graph.write.group_locks import group_locks
async def main():
    async with group_locks(Path(sys.argv[1]), sys.argv[2] or None).hold(["g_held"]):
        print("held", flush=True)
        time.sleep(600)
asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["flock", "postgres"])
def test_given_a_lock_holder_killed_with_sigkill_then_the_lock_is_free_at_once(kind, request, graph_home):
    url = request.getfixturevalue("postgres_fresh_url") if kind == "postgres" else ""
    locks = PostgresGroupLocks(url) if url else FileGroupLocks(graph_home / "locks")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(graph_home), url], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"

        async def take(timeout: float) -> float:
            t = time.perf_counter()
            async with asyncio.timeout(timeout):
                async with locks.hold(["g_held"]):
                    return time.perf_counter() - t

        with pytest.raises(TimeoutError):
            asyncio.run(take(0.5))  # held by the child
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        assert asyncio.run(take(10.0)) < 5.0
    finally:
        if holder.poll() is None:
            holder.kill()


def graph_counts(writer: SyncGraphWriter, group_id: str) -> dict[str, int]:
    q = writer.writer.backend.query
    rows = {
        "episodes": "MATCH (e:Episodic) WHERE e.group_id = $g RETURN count(e) AS n, count(DISTINCT e.uuid) AS d",
        "entities": "MATCH (e:Entity) WHERE e.group_id = $g RETURN count(e) AS n, count(DISTINCT e.uuid) AS d",
        "facts": "MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g RETURN count(e) AS n, count(DISTINCT e.uuid) AS d",
        "mentions": "MATCH ()-[e:MENTIONS]->() WHERE e.group_id = $g RETURN count(e) AS n, count(DISTINCT e.uuid) AS d",
    }
    out = {}
    for name, cypher in rows.items():
        (row,) = writer.run(q(group_id, cypher, g=group_id))
        assert row["n"] == row["d"], f"{name}: {row['n']} rows for {row['d']} uuids in {group_id}"
        out[name] = row["n"]
    return out


def test_given_a_two_group_run_killed_mid_way_when_rerun_then_every_episode_is_written_once(
    setup, group_id, monkeypatch
):
    n = 4 * BATCH
    groups = {"email": group_id + "_a", "jira": group_id + "_b"}
    for name, value in setup.env.items():  # the helpers read the ledger URL and password from the environment;
        monkeypatch.setenv(name, value)  # restored afterwards (leaked, it pointed a later test's `ledger` elsewhere)
    url = setup.env["GRAPHFEED_LEDGER_URL"]
    with Ledger(url) as book:
        for source, g in groups.items():
            book.register(mails(g, source, n), partition="2026-03-02")

    child = subprocess.run(
        [sys.executable, "-m", "tests.graph.group_writers", json.dumps(setup.spec), "2"],
        cwd=REPO_ROOT,
        env={**os.environ, **setup.env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    with Ledger(url) as book:
        assert book.counts("jira")["ingested"] == BATCH  # batch 2 written, never marked
        assert book.counts("email")["pending"] > 0  # group A was cut short too

    rerun = [threading.Thread(target=write_source, args=(setup.spec, s)) for s in groups]
    for t in rerun:
        t.start()
    for t in rerun:
        t.join()

    with Ledger(url) as book:
        for source in groups:
            counts = book.counts(source)
            assert (counts["ingested"], counts["pending"], counts["failed"]) == (n, 0, 0)
    with SyncGraphWriter(setup.config(), extractor=fact_extractor()) as writer:
        for source, g in groups.items():
            clean = g + "_clean"
            writer.write_batch(mails(clean, source, n))
            assert graph_counts(writer, g) == graph_counts(writer, clean)
            assert graph_counts(writer, g)["episodes"] == n
