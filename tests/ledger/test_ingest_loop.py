"""The ingest loop (flow/ingest.py) over the real embedded FalkorDB graph and a real ledger: each episode's outcome
is settled in the ledger. A fault is injected around the real sink where the test needs a batch to fail (as
tests/pipeline/crash_ingest.py does); LLM outcomes (typed failures, deferred episodes) are covered against the same
loop in tests/llm/test_llm_ingest.py."""

import pytest

from connectors.registry import fact_extractor
from flow.ingest import IngestLimits, IngestStats, backfill_backlog, write_backlog
from graph.config import GraphConfig
from graph.sync_facade import SyncGraphWriter
from ground.errors import ConfigError
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


class Announced:
    """The real sink, recording which batch the loop announced (`coming`) before each write and what it wrote."""

    def __init__(self, sink):
        self.sink, self.announced, self.written = sink, [], []

    def coming(self, batch):
        self.announced.append([e.id for e in batch])
        self.sink.coming(batch)

    def write(self, batch, budget):
        self.written.append([e.id for e in batch])
        return self.sink.write(batch, budget)

    def invalidate_episodes(self, episode_ids, at, group_id=None):
        return self.sink.invalidate_episodes(episode_ids, at, group_id)


def test_given_a_pipelining_sink_when_the_backlog_is_written_then_each_write_announces_the_next_batch(ledger, graph):
    eps = many("email", 7)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    sink = Announced(graph)
    write_backlog(ledger, sink, "email", IngestLimits(batch_size=3), stats)
    assert [len(b) for b in sink.written] == [3, 3, 1]
    assert sink.announced == [*sink.written[1:], []]  # batch i+1 announced while batch i was written
    assert (stats.ingested, stats.batches, stats.attempted, stats.failed) == (7, 3, 7, 0)
    assert {ledger.get(e.id).status.value for e in eps} == {"ingested"}


def test_given_an_episode_bound_when_pipelined_then_the_look_ahead_never_passes_it(ledger, graph):
    eps = many("email", 7)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    sink = Announced(graph)
    write_backlog(ledger, sink, "email", IngestLimits(batch_size=3, max_episodes=4), stats)
    assert [len(b) for b in sink.written] == [3, 1] and [len(b) for b in sink.announced] == [1, 0]
    assert stats.ingested == 4 and stats.stopped_by == "max_episodes"
    assert sum(ledger.get(e.id).status.value == "pending" for e in eps) == 3


class FailsFatallyAt(Announced):
    """The real sink until its n-th write, which raises a configuration error (the run stops); counts index builds."""

    def __init__(self, sink, n):
        super().__init__(sink)
        self.n, self.builds = n, 0

    def write(self, batch, budget):
        if len(self.written) + 1 == self.n:
            raise ConfigError("the graph's embedder changed")
        return super().write(batch, budget)

    def build_vector_indexes(self):
        self.builds += 1
        return self.sink.build_vector_indexes()


def test_given_a_backfill_stopped_by_an_error_then_the_indexes_are_built_before_it_is_raised(ledger, graph):
    eps = many("email", 5)
    ledger.register(eps, "2025-06-01")
    sink = FailsFatallyAt(graph, 2)
    with pytest.raises(ConfigError):
        backfill_backlog(ledger, sink, "email", IngestLimits(batch_size=2, max_episodes=1), IngestStats())
    assert sink.builds == 1 and len(sink.written) == 1  # past max_episodes=1: a backfill has no per-run bound
    assert sum(ledger.get(e.id).status.value == "ingested" for e in eps) == 2
