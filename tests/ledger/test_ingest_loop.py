"""The ingest loop (flow/ingest.py) over a fake GraphSink: each episode's outcome is settled in the ledger."""

from connectors.graph.llm.meter import Usage
from connectors.graph.sink import BatchResult, Budget, Failure
from flow.ingest import IngestLimits, IngestStats, write_backlog
from tests.ledger.factory import many


class FakeSink:
    """Fails the episodes in `fail`, defers everything from the `defer_from`-th episode of a call on, raises for a
    batch holding `explode` (the loop then retries it episode by episode)."""

    def __init__(self, *, fail=(), defer_from=None, explode=None, metered=False):
        self.fail, self.defer_from, self.explode, self.metered = set(fail), defer_from, explode, metered
        self.budgets: list[Budget] = []

    def write(self, batch, budget):
        self.budgets.append(budget)
        if self.explode in {e.id for e in batch} and len(batch) > 1:
            raise RuntimeError("batch rejected")
        if self.explode in {e.id for e in batch}:
            raise ValueError("bad episode")
        result = BatchResult(facts_written=2 * len(batch), llm_metered=self.metered)
        for i, episode in enumerate(batch):
            if self.defer_from is not None and i >= self.defer_from:
                result.deferred.append(episode.id)
                result.stopped_by = "max_cost_source_night"
            elif episode.id in self.fail:
                result.llm_failed[episode.id] = Failure(error_class="LLMCallFailed", message="no JSON")
                result.episode_llm[episode.id] = Usage(tokens_in=7, cost_usd=0.01)
        result.settle(batch)
        return result

    def invalidate_episodes(self, episode_ids, at, group_id=None):
        return 0


def test_structured_batches_are_ingested_with_their_fact_share_and_no_batch_costs(ledger):
    eps = many("email", 5)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    write_backlog(ledger, FakeSink(), "email", IngestLimits(batch_size=2), stats)
    assert (stats.ingested, stats.batches, stats.attempted, stats.failed) == (5, 3, 5, 0)
    assert stats.batch_costs_usd == [] and stats.facts_written == 10
    assert all(ledger.get(e.id).facts_written == 2 for e in eps)


def test_failed_outcomes_carry_their_class_and_message_and_deferred_ones_stay_pending(ledger):
    eps = many("email", 4)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    sink = FakeSink(fail={eps[0].id}, defer_from=2, metered=True)
    write_backlog(ledger, sink, "email", IngestLimits(batch_size=4, max_attempts=1, backoff_seconds=0), stats)
    bad = ledger.get(eps[0].id)
    assert bad.status.value == "quarantined" and bad.last_error_class == "LLMCallFailed"
    assert bad.last_error == "no JSON" and bad.tokens_in == 7
    assert stats.ingested == 1 and stats.quarantined == 1 and stats.attempted == 2
    assert stats.stopped_by == "max_cost_source_night" and ledger.counts("email")["pending"] == 2
    assert stats.batch_costs_usd == [0.0] and sink.budgets[0].max_cost_usd == 5.0


def test_a_batch_that_raises_is_retried_episode_by_episode(ledger):
    eps = many("email", 3)
    ledger.register(eps, "2025-06-01")
    stats = IngestStats()
    write_backlog(ledger, FakeSink(explode=eps[1].id), "email", IngestLimits(batch_size=3, max_attempts=3), stats)
    row = ledger.get(eps[1].id)
    assert stats.ingested == 2 and stats.failed == 1
    assert row.status.value == "failed" and row.last_error_class == "ValueError" and row.last_error == "bad episode"
