"""The ingest loop (flow/ingest.py) over the real embedded FalkorDB graph and a real ledger: each episode's outcome
is settled in the ledger. A fault is injected around the real sink where the test needs a batch to fail (as
tests/pipeline/crash_ingest.py does); LLM outcomes (typed failures, deferred episodes) are covered against the same
loop in tests/llm/test_llm_ingest.py."""

import pytest

from connectors.graph.config import GraphConfig
from connectors.graph.sync_facade import SyncGraphWriter
from connectors.registry import fact_extractor
from flow.ingest import IngestLimits, IngestStats, write_backlog
from tests.ledger.factory import many


@pytest.fixture
def graph(tmp_path):
    with SyncGraphWriter(GraphConfig(home=tmp_path / "graph"), extractor=fact_extractor()) as writer:
        yield writer


class RejectsBatchesWith:
    """The real sink, except that a write holding `episode_id` raises (a batch of several: RuntimeError, that episode
    alone: ValueError), as a graph that rejects one bad episode would."""

    def __init__(self, sink, episode_id):
        self.sink, self.episode_id = sink, episode_id

    def write(self, batch, budget):
        if self.episode_id in {e.id for e in batch}:
            raise RuntimeError("batch rejected") if len(batch) > 1 else ValueError("bad episode")
        return self.sink.write(batch, budget)

    def invalidate_episodes(self, episode_ids, at, group_id=None):
        return self.sink.invalidate_episodes(episode_ids, at, group_id)


def test_structured_batches_are_ingested_with_their_fact_share_and_no_batch_costs(ledger, graph):
    eps = many("email", 5)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    write_backlog(ledger, graph, "email", IngestLimits(batch_size=2), stats)
    assert (stats.ingested, stats.batches, stats.attempted, stats.failed) == (5, 3, 5, 0)
    assert stats.batch_costs_usd == [] and stats.facts_written >= len(eps)
    shares = [ledger.get(e.id).facts_written for e in eps]
    assert all(share >= 1 for share in shares) and sum(shares) <= stats.facts_written


def test_a_batch_that_raises_is_retried_episode_by_episode(ledger, graph):
    eps = many("email", 3)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    sink = RejectsBatchesWith(graph, eps[1].id)
    write_backlog(ledger, sink, "email", IngestLimits(batch_size=3, max_attempts=3), stats)
    row = ledger.get(eps[1].id)
    assert stats.ingested == 2 and stats.failed == 1
    assert row.status.value == "failed" and row.last_error_class == "ValueError" and row.last_error == "bad episode"
    assert {ledger.get(e.id).status.value for e in (eps[0], eps[2])} == {"ingested"}
