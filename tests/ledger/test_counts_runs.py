import datetime as dt

from graph.ledger.ledger import Ledger, backlog_growing, ledger_url_for_home
from tests.ledger.factory import DAY, make_episode, many


def test_counts_per_status_and_source(ledger):
    mail = many("email", 3)
    jira = [make_episode("jira", "J-1", fingerprint=mail[0].fingerprint), make_episode("jira", "J-2")]
    ledger.register(mail + jira, "2025-06-01")
    ledger.mark_ingested([mail[1].id])
    ledger.mark_failed(mail[2].id, "api_error", "x", max_attempts=1)

    assert ledger.counts() == {
        "pending": 2,
        "ingested": 1,
        "duplicate": 1,
        "failed": 0,
        "quarantined": 1,
        "tombstoned": 0,
    }
    assert ledger.counts("jira") == {
        "pending": 1,
        "ingested": 0,
        "duplicate": 1,
        "failed": 0,
        "quarantined": 0,
        "tombstoned": 0,
    }
    assert ledger.backlog() == 2 and ledger.backlog("email") == 1
    assert [f.episode_id for f in ledger.failures(source="email")] == [mail[2].id]
    assert ledger.failures(source="jira") == []


def test_runs_record_the_backlog_they_leave_behind(ledger):
    for night in range(4):
        nightly = [
            make_episode("email", f"n{night}-{i}", at=DAY + dt.timedelta(days=night, minutes=i)) for i in range(3)
        ]
        ledger.register(nightly, f"2025-06-0{night + 1}")
        batch = ledger.claim(1, sources=["email"])  # ingestion falls behind: 1 of 3 per night
        ledger.mark_ingested([e.id for e in batch])
        ledger.record_run(
            f"run-{night}",
            source="email",
            partition=f"2025-06-0{night + 1}",
            started_at=DAY + dt.timedelta(days=night),
            counts={"ingested": len(batch)},
        )
    ledger.record_run("run-3", source="email", started_at=DAY + dt.timedelta(days=3), counts={"ingested": 1})

    recent = ledger.recent_runs("email", 10)

    assert [r.run_id for r in recent] == ["run-3", "run-2", "run-1", "run-0"]
    assert [r.backlog for r in recent] == [8, 6, 4, 2]
    assert recent[0].counts == {"ingested": 1}
    assert backlog_growing(recent, 3)
    assert not backlog_growing(recent[:2], 3)
    assert ledger.recent_runs("jira") == []


def test_backlog_growing_is_false_when_a_run_caught_up():
    from graph.ledger.models import RunRow

    runs = [RunRow(run_id=str(i), started_at=DAY + dt.timedelta(days=i), backlog=b) for i, b in enumerate([5, 9, 7, 8])]
    assert not backlog_growing(runs, 3)
    assert backlog_growing(runs, 1)


def test_default_url_puts_the_ledger_in_the_home_and_creates_it(tmp_path):
    home = tmp_path / "gf-home"
    with Ledger(ledger_url_for_home(home)) as ledger:
        ledger.register([make_episode("email", "m")], "2025-06-01")
    assert (home / "ledger.sqlite").exists()
    with Ledger(ledger_url_for_home(home)) as reopened:  # schema creation is idempotent
        assert reopened.backlog() == 1


def test_in_memory_sqlite_works_for_previews():
    with Ledger("sqlite://") as ledger:
        assert ledger.register([make_episode("email", "m")], "2025-06-01").new == 1
        assert ledger.backlog() == 1
