"""A run killed part-way loses nothing and doubles nothing: the next run picks up exactly the unmarked work."""

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from graph.ledger.ledger import Ledger, Status
from tests.ledger.crash_worker import BATCH
from tests.ledger.factory import many

REPO = Path(__file__).resolve().parents[2]


def test_given_claimed_but_unmarked_batch_when_a_new_instance_opens_then_it_is_still_claimable(ledger_url):
    eps = many("email", 10)
    first_run = Ledger(ledger_url)
    first_run.register(eps, "2025-06-01")
    first_run.mark_ingested([e.id for e in first_run.claim(3)])
    lost_batch = first_run.claim(3)  # claimed, "written", never marked: the run dies here
    first_run.dispose()

    with Ledger(ledger_url) as next_run:
        again = next_run.claim(100)
        assert [e.id for e in again][:3] == [e.id for e in lost_batch]
        assert len(again) == 7
        assert next_run.counts()["ingested"] == 3 and next_run.counts()["pending"] == 7
        next_run.mark_ingested([e.id for e in again])
        assert next_run.counts()["ingested"] == 10 and next_run.backlog() == 0


@pytest.mark.parametrize("mode", ["between", "in_commit"])
def test_given_a_run_killed_by_sigkill_when_rerun_then_every_episode_is_ingested_once(ledger_url, tmp_path, mode):
    eps = many("jira", 17)
    with Ledger(ledger_url) as setup:
        setup.register(eps, "2025-06-01")
    graph_log = tmp_path / "graph.log"

    proc = subprocess.run(
        [sys.executable, "-m", "tests.ledger.crash_worker", ledger_url, str(graph_log), mode],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert proc.returncode == -signal.SIGKILL, proc.stderr
    with Ledger(ledger_url) as rerun:
        counts = rerun.counts()
        assert counts["ingested"] == 2 * BATCH  # batch 3 was never committed, not even partly
        assert counts["pending"] == len(eps) - 2 * BATCH
        while batch := rerun.claim(BATCH):
            with graph_log.open("a") as log:
                log.writelines(f"{e.id}\n" for e in batch)
            assert rerun.mark_ingested([e.id for e in batch]) == len(batch)
        assert rerun.counts()["ingested"] == len(eps)
        assert all(rerun.get(e.id).status == Status.ingested for e in eps)

    writes = Counter(graph_log.read_text().split())
    assert set(writes) == {e.id for e in eps}  # nothing lost
    rewritten = {i for i, n in writes.items() if n > 1}
    assert rewritten == {e.id for e in eps[2 * BATCH : 3 * BATCH]}  # only the unmarked batch, rewritten idempotently
