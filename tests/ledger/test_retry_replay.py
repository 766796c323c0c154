import datetime as dt

import pytest
import sqlalchemy as sa

from graph.ledger.engine import BAD_PAYLOAD
from graph.ledger.ledger import Status
from graph.ledger.models import MAX_ERROR_CHARS
from tests.ledger.factory import DAY, make_episode, many

T0 = DAY + dt.timedelta(days=1)


def test_failures_back_off_exponentially_then_quarantine_at_max_attempts(ledger):
    ep = make_episode("email", "m")
    ledger.register([ep], "2025-06-01")

    assert ledger.mark_failed(ep.id, "api_error", "500 from LLM", max_attempts=3, backoff_base_s=60, now=T0) == "failed"
    assert ledger.get(ep.id).next_attempt_at == T0 + dt.timedelta(seconds=60)
    assert ledger.claim(10, now=T0 + dt.timedelta(seconds=59)) == []
    assert ledger.claim(10, now=T0 + dt.timedelta(seconds=60)) == [ep]

    t1 = T0 + dt.timedelta(minutes=5)
    assert ledger.mark_failed(ep.id, "api_error", "500 again", max_attempts=3, backoff_base_s=60, now=t1) == "failed"
    assert ledger.get(ep.id).next_attempt_at == t1 + dt.timedelta(seconds=120)
    assert ledger.backlog() == 1

    t2 = t1 + dt.timedelta(hours=1)
    assert ledger.mark_failed(ep.id, "timeout", "gave up", max_attempts=3, now=t2) == "quarantined"
    row = ledger.get(ep.id)
    assert (row.status, row.attempts, row.last_error_class, row.last_error) == (
        Status.quarantined,
        3,
        "timeout",
        "gave up",
    )
    assert row.next_attempt_at is None
    assert [h["attempt"] for h in row.error_history] == [1, 2, 3]
    assert ledger.claim(10, now=t2 + dt.timedelta(days=365)) == []
    assert ledger.backlog() == 0
    assert [f.episode_id for f in ledger.failures()] == [ep.id]


def test_mark_failed_leaves_finished_rows_alone_and_rejects_unknown_ids(ledger):
    ep = make_episode("email", "m")
    ledger.register([ep], "2025-06-01")
    ledger.mark_ingested([ep.id])

    assert ledger.mark_failed(ep.id, "api_error", "late", max_attempts=3) == "ingested"
    assert ledger.get(ep.id).attempts == 0
    with pytest.raises(KeyError):
        ledger.mark_failed("no-such-id", "api_error", "x", max_attempts=3)
    with pytest.raises(ValueError):
        ledger.mark_failed(ep.id, "api_error", "x", max_attempts=0)


def test_a_batch_failing_together_is_marked_episode_by_episode(ledger):
    eps = many("jira", 3)
    ledger.register(eps, "2025-06-01")

    statuses = [ledger.mark_failed(e.id, "api_error", "batch rejected", max_attempts=1) for e in eps]

    assert set(statuses) == {"quarantined"}
    assert ledger.counts()["quarantined"] == 3


def test_error_messages_are_truncated_and_scrubbed(ledger):
    ep = make_episode("email", "m")
    ledger.register([ep], "2025-06-01")
    message = "auth failed for postgresql://svc:hunter2@db/x with api_key=sk-abcdefghijklmnopqrstuv " + "x" * 10_000

    ledger.mark_failed(ep.id, "api_error", message, max_attempts=5)

    stored = ledger.get(ep.id).last_error
    assert len(stored) <= MAX_ERROR_CHARS
    assert "hunter2" not in stored and "sk-abcdefghijklmnop" not in stored
    assert stored.endswith("[truncated]")


def test_replay_requeues_failed_and_quarantined_keeping_the_history(ledger):
    a, b, c = make_episode("email", "a"), make_episode("email", "b"), make_episode("jira", "c")
    ledger.register([a, b, c], "2025-06-01")
    ledger.mark_failed(a.id, "api_error", "boom", max_attempts=1, now=T0)  # quarantined
    ledger.mark_failed(b.id, "api_error", "boom", max_attempts=3, now=T0)  # failed, backing off
    ledger.mark_failed(c.id, "api_error", "boom", max_attempts=1, now=T0)  # quarantined, other source

    assert ledger.replay(source="email") == 2

    for ep in (a, b):
        row = ledger.get(ep.id)
        assert (row.status, row.attempts, row.last_error, row.replays) == (Status.pending, 0, None, 1)
        assert len(row.error_history) == 1
    assert ledger.get(c.id).status == Status.quarantined
    assert {e.id for e in ledger.claim(10, now=T0)} == {a.id, b.id}
    assert ledger.replay(episode_ids=[c.id]) == 1
    assert ledger.replay() == 0


def test_replay_refuses_statuses_that_would_double_or_resurrect(ledger):
    with pytest.raises(ValueError):
        ledger.replay(status=("duplicate",))
    with pytest.raises(ValueError):
        ledger.replay(status=("tombstoned",))


def test_a_stored_payload_that_no_longer_parses_is_quarantined_not_blocking(ledger, ledger_url):
    bad, good = make_episode("email", "bad", at=DAY), make_episode("email", "good", at=DAY + dt.timedelta(hours=1))
    ledger.register([bad, good], "2025-06-01")
    engine = sa.create_engine(ledger_url)
    with engine.begin() as conn:  # an old row written by a different Episode schema
        conn.execute(
            sa.text("UPDATE episodes SET payload = :p WHERE episode_id = :i"), {"p": '{"id": "x"}', "i": bad.id}
        )
    engine.dispose()

    assert ledger.claim(1) == [good]
    row = ledger.get(bad.id)
    assert (row.status, row.last_error_class) == (Status.quarantined, BAD_PAYLOAD)
