"""Given a graph ingestion killed with SIGKILL between a batch's graph write and its ledger mark, when the run is
repeated, then every episode is in the graph exactly once and the ledger marks every one ingested."""

import os
import signal
import subprocess
import sys

import dagster as dg
import pytest

from assets.resources import GraphResource, LedgerResource
from assets.source_chain import build_source_chain
from flow.ingest import IngestLimits, ingest
from flow.settings import REPO_ROOT
from flow.staging import Staging
from graph.embedded_falkor import EmbeddedFalkor

DAYS = [
    "2026-03-02",
    "2026-03-04",
    "2026-03-05",
    "2026-03-09",
    "2026-03-10",
    "2026-03-11",
    "2026-03-12",
    "2026-03-16",
    "2026-03-17",
    "2026-03-18",
    "2026-03-19",
    "2026-03-20",
    "2026-03-23",
]


@pytest.mark.slow
def test_kill_minus_9_mid_run_then_rerun_leaves_every_episode_exactly_once(resources, home):
    chain = build_source_chain("email")
    for day in DAYS:
        staged = dg.materialize(
            chain,
            resources=resources,
            partition_key=day,
            selection=dg.AssetSelection.keys(dg.AssetKey(["email", "raw_records"]), dg.AssetKey(["email", "episodes"])),
        )
        assert staged.success
    staging = Staging(str(home / "staging"))
    episode_ids = {row["id"] for day in DAYS for row in staging.rows("email", "episodes", day)}
    assert len(episode_ids) > 10  # more than two batches of 5

    child = subprocess.run(
        [sys.executable, "-m", "tests.pipeline.crash_ingest", str(home), ",".join(DAYS), "2"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
        with LedgerResource().open(home) as book:
            after_crash = book.counts("email")
        assert after_crash["ingested"] == 5  # batch 1 marked; batch 2 written but not marked
        assert after_crash["pending"] == len(episode_ids) - 5

        with LedgerResource().open(home) as book, GraphResource().writer(home) as writer:
            stats = ingest(book, writer, staging, "email", DAYS, IngestLimits(batch_size=5), run_id="rerun")
            counts = book.counts("email")
            rows = writer._run(
                writer.writer.backend.query(
                    "graphfeed",
                    "MATCH (e:Episodic) WHERE e.uuid IN $ids RETURN e.uuid AS uuid, count(*) AS n",
                    ids=sorted(episode_ids),
                )
            )
        assert stats.ingested == len(episode_ids) - 5
        assert counts["ingested"] == len(episode_ids) and counts["pending"] == 0
        assert {r["uuid"] for r in rows} == episode_ids
        assert all(r["n"] == 1 for r in rows)
    finally:
        pid = EmbeddedFalkor(home / "falkordb").running_pid()  # the killed child's server outlived it
        if pid:
            os.kill(pid, signal.SIGTERM)
