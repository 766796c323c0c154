import datetime as dt

from graph.ledger.ledger import Ledger, Status
from tests.ledger.factory import DAY, make_episode, many


def test_claim_returns_oldest_events_first_and_respects_limit_and_sources(ledger):
    newer = make_episode("email", "newer", at=DAY + dt.timedelta(days=2))
    older = make_episode("jira", "older", at=DAY - dt.timedelta(days=30))
    middle = make_episode("email", "middle", at=DAY)
    ledger.register([newer, older, middle], "2025-06-01")

    assert [e.id for e in ledger.claim(10)] == [older.id, middle.id, newer.id]
    assert [e.id for e in ledger.claim(2)] == [older.id, middle.id]
    assert [e.id for e in ledger.claim(10, sources=["email"])] == [middle.id, newer.id]
    assert ledger.claim(0) == []


def test_claimed_episode_equals_registered_episode(ledger):
    ep = make_episode("email", "<x@y>", duplicate_keys=["<x-copy@y>"])
    ledger.register([ep], "2025-06-01")

    assert ledger.claim(1) == [ep]


def test_mark_ingested_marks_the_whole_batch_and_adds_up_cost(ledger):
    eps = many("jira", 4)
    ledger.register(eps, "2025-06-01")
    batch = [e.id for e in ledger.claim(3)]

    changed = ledger.mark_ingested(
        batch,
        facts_written={batch[0]: 2},
        tokens_in={i: 100 for i in batch},
        tokens_out={i: 10 for i in batch},
        cost_usd={i: 0.01 for i in batch},
    )

    assert changed == 3
    assert ledger.counts()["ingested"] == 3 and ledger.backlog() == 1
    row = ledger.get(batch[0])
    assert (row.facts_written, row.tokens_in, row.tokens_out) == (2, 100, 10)
    assert abs(row.cost_usd - 0.01) < 1e-9 and row.ingested_at is not None
    assert ledger.get(batch[1]).facts_written == 0
    assert [e.id for e in ledger.claim(10)] == [eps[3].id]
    assert ledger.mark_ingested(batch) == 0  # already ingested: nothing to change


def test_a_failed_attempt_then_success_keeps_the_tokens_of_both(ledger):
    ep = make_episode("email", "m")
    ledger.register([ep], "2025-06-01")
    ledger.mark_failed(ep.id, "api_error", "rate limited", max_attempts=3, tokens_in=50, cost_usd=0.5, now=DAY)

    ledger.mark_ingested([ep.id], tokens_in={ep.id: 70}, cost_usd={ep.id: 0.25})

    row = ledger.get(ep.id)
    assert row.tokens_in == 120 and abs(row.cost_usd - 0.75) < 1e-9


def test_a_run_loop_in_bounded_batches_drains_the_backlog_once(ledger):
    eps = many("email", 23)
    ledger.register(eps, "2025-06-01")
    written: list[str] = []

    while batch := ledger.claim(5):
        written += [e.id for e in batch]
        ledger.mark_ingested([e.id for e in batch])

    assert sorted(written) == sorted(e.id for e in eps)
    assert ledger.counts()["ingested"] == 23 and ledger.backlog() == 0


def test_a_budget_stop_leaves_the_rest_pending_for_the_next_night(ledger, ledger_url):
    eps = many("email", 12)
    ledger.register(eps[:8], "2025-06-01")
    max_per_run = 5
    done = 0
    while done < max_per_run and (batch := ledger.claim(min(2, max_per_run - done))):
        ledger.mark_ingested([e.id for e in batch])
        done += len(batch)

    with Ledger(ledger_url) as next_night:
        next_night.register(eps[8:], "2025-06-02")
        backlog = next_night.claim(100)

    assert done == 5
    assert [e.id for e in backlog] == [e.id for e in eps[5:]]


def test_mark_ingested_does_not_resurrect_a_row_tombstoned_meanwhile(ledger):
    ep = make_episode("jira", "J-9")
    ledger.register([ep], "2025-06-01")
    claimed = ledger.claim(1)
    ledger.tombstone("jira", ["J-9"])

    assert ledger.mark_ingested([e.id for e in claimed]) == 0
    assert ledger.get(ep.id).status == Status.tombstoned
