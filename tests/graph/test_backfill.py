"""The backfill mode (`graphfeed run --backfill`) on embedded FalkorDB with a SQLite ledger:

- given a backfill killed with SIGKILL mid-way, then its group has no vector index (dropped for the load) and a search
  still answers (from full-text and the graph step; the vector steps are reported degraded);
- when it is run again, then every episode is ingested once in the ledger, the graph holds exactly what a clean write of
  the same episodes holds, and the vector indexes exist at the end.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest

from connectors.registry import fact_extractor
from flow.settings import REPO_ROOT
from graph.config import GraphConfig
from graph.embedded_falkor import EmbeddedFalkor
from graph.ledger.ledger import Ledger, ledger_url_for_home
from graph.read.reader import GraphReader
from graph.search_indexes import vector_indexes
from graph.sync_facade import SyncGraphWriter
from tests.graph.backfill_child import backfill
from tests.graph.group_writers import BATCH, mails, spec_config
from tests.graph.test_group_writers import graph_counts

pytestmark = pytest.mark.slow


@pytest.fixture
def spec(graph_home, monkeypatch):
    monkeypatch.setenv("GRAPHFEED_LEDGER_URL", ledger_url_for_home(graph_home))
    yield {"backend": "falkordb-embedded", "home": str(graph_home)}
    pid = EmbeddedFalkor(graph_home / "falkordb").running_pid()  # a killed child's server outlives it
    if pid:
        os.kill(pid, signal.SIGTERM)


async def _read(config: GraphConfig, group_id: str, question: str):
    async with GraphReader(config) as reader:  # the read side: it creates no index
        found = await vector_indexes(await reader.backend.driver(group_id), group_id)
        return found, await reader.search_facts(question, group_id=group_id)


def read(config: GraphConfig, group_id: str, question: str):
    """(vector indexes of the group, the search's hits), as `graphfeed search` sees them."""
    return asyncio.run(_read(config, group_id, question))


def test_given_a_backfill_killed_mid_way_when_rerun_then_counts_equal_a_clean_run_and_the_indexes_exist(spec, group_id):
    n = 5 * BATCH
    url = os.environ["GRAPHFEED_LEDGER_URL"]
    with Ledger(url) as book:
        book.register(mails(group_id, "email", n), partition="2026-03-02")

    child = subprocess.run(
        [sys.executable, "-m", "tests.graph.backfill_child", json.dumps(spec), "3"],
        cwd=REPO_ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    with Ledger(url) as book:
        assert book.counts("email")["ingested"] == 2 * BATCH  # batch 3 written, never marked
    found, hits = read(spec_config(spec), group_id, "topic 1")
    assert found == {}  # dropped for the load, not built yet
    assert any("topic 1" in hit.fact for hit in hits)  # full-text and the graph step answer
    assert {d.split(":")[0] for d in hits.degraded} == {"vector", "entities"}

    stats = backfill(spec, "email")

    assert stats.ingested == n - 2 * BATCH and stats.index_build_seconds > 0
    with Ledger(url) as book:
        counts = book.counts("email")
        assert (counts["ingested"], counts["pending"], counts["failed"]) == (n, 0, 0)
    found, hits = read(spec_config(spec), group_id, "topic 1")
    assert found == {"fact_embedding": 384, "name_embedding": 384}
    assert hits.degraded == [] and any("topic 1" in hit.fact for hit in hits)
    with SyncGraphWriter(spec_config(spec), extractor=fact_extractor()) as writer:
        clean = group_id + "_clean"
        writer.write_batch(mails(clean, "email", n))
        assert graph_counts(writer, group_id) == graph_counts(writer, clean)
        assert graph_counts(writer, group_id)["episodes"] == n
