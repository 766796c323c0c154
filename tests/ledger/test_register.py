import threading

from graph.ledger.engine import CHUNK
from graph.ledger.ledger import Ledger, Status
from tests.ledger.factory import DAY, make_episode, many


def test_given_registered_episodes_when_registered_again_then_nothing_is_added(ledger, ledger_url):
    eps = many("email", 5)
    first = ledger.register(eps, "2025-06-01")
    again = ledger.register(eps, "2025-06-01")
    with Ledger(ledger_url) as later_run:
        third = later_run.register(eps, "2025-06-02")

    assert (first.new, first.already_known, first.duplicates) == (5, 0, 0)
    assert (again.new, again.already_known) == (0, 5)
    assert (third.new, third.already_known) == (0, 5)
    assert ledger.counts()["pending"] == 5
    assert ledger.get(eps[0].id).partition == "2025-06-01"


def test_given_an_ingested_episode_when_registered_again_then_it_stays_ingested(ledger):
    ep = make_episode("jira", "J-1")
    ledger.register([ep], "2025-06-01")
    ledger.mark_ingested([ep.id], facts_written={ep.id: 4})

    ledger.register([ep], "2025-06-02")

    row = ledger.get(ep.id)
    assert row.status == Status.ingested and row.facts_written == 4
    assert ledger.claim(10) == []


def test_given_same_fingerprint_from_two_sources_when_registered_then_second_is_duplicate_of_first(ledger):
    mail = make_episode("email", "<m1@x>", fingerprint="same", duplicate_keys=["<m1-copy@x>"])
    note = make_episode("salesforce", "00T1", fingerprint="same", duplicate_keys=["00T1-old"])
    ledger.register([mail], "2025-06-01")

    result = ledger.register([note], "2025-06-02")  # a later run, another source

    assert (result.new, result.duplicates) == (0, 1)
    dup = ledger.get(note.id)
    assert dup.status == Status.duplicate and dup.duplicate_of == mail.id
    assert ledger.get(mail.id).source_keys == ["<m1@x>", "<m1-copy@x>", "00T1", "00T1-old"]
    assert [e.id for e in ledger.claim(10)] == [mail.id]


def test_given_duplicates_inside_one_call_then_first_seen_is_canonical_and_collects_keys(ledger):
    a = make_episode("email", "a", fingerprint="f")
    b = make_episode("jira", "b", fingerprint="f")
    c = make_episode("confluence", "c", fingerprint="f")

    result = ledger.register([a, b, c, a], "2025-06-01")

    assert (result.new, result.duplicates, result.already_known) == (1, 2, 1)
    assert ledger.get(a.id).source_keys == ["a", "b", "c"]
    assert {ledger.get(b.id).duplicate_of, ledger.get(c.id).duplicate_of} == {a.id}


def test_given_same_fingerprint_in_another_group_then_both_are_canonical(ledger):
    a = make_episode("email", "a", fingerprint="f", group_id="acme")
    b = make_episode("email", "b", fingerprint="f", group_id="globex")

    result = ledger.register([a, b], "2025-06-01")

    assert (result.new, result.duplicates) == (2, 0)


def test_given_more_episodes_than_a_chunk_then_all_are_registered_and_payloads_round_trip(ledger):
    eps = many("email", CHUNK * 2 + 7)
    eps.append(make_episode("jira", "late-dup", fingerprint=eps[3].fingerprint))

    result = ledger.register(iter(eps), "2025-06-01")  # a generator: registered chunk by chunk

    assert (result.new, result.duplicates) == (CHUNK * 2 + 7, 1)
    assert ledger.get(eps[3].id).source_keys == [eps[3].metadata.source_key, "late-dup"]
    assert ledger.payload(eps[-2].id) == eps[-2]
    assert ledger.get(eps[0].id).occurred_at == DAY


def test_given_two_writers_racing_on_the_same_events_then_exactly_one_owns_each(ledger_url):
    Ledger(ledger_url).dispose()  # schema first, so the race is on rows only
    n = 150
    per_writer = [
        [make_episode(src, f"{src}-{i}", fingerprint=f"event-{i}") for i in range(n)] for src in ("email", "salesforce")
    ]
    barrier = threading.Barrier(2)
    results, errors = [], []

    def write(eps):
        try:
            with Ledger(ledger_url) as own:
                barrier.wait()
                for i in range(0, n, 10):  # many small transactions interleave
                    results.append(own.register(eps[i : i + 10], "2025-06-01"))
        except Exception as exc:  # surfaced below, never swallowed
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(eps,)) for eps in per_writer]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert sum(r.new for r in results) == n
    assert sum(r.duplicates for r in results) == n
    with Ledger(ledger_url) as check:
        counts = check.counts()
        assert (counts["pending"], counts["duplicate"]) == (n, n)
        for i in range(n):
            owner_keys = [check.get(e.id) for e in (per_writer[0][i], per_writer[1][i])]
            canonical = [r for r in owner_keys if r.status == Status.pending]
            assert len(canonical) == 1
            assert sorted(canonical[0].source_keys) == sorted([f"email-{i}", f"salesforce-{i}"])


def test_odd_but_valid_episodes_register_on_every_backend(ledger):
    nul = make_episode("email", "<a\x00b@x>", fingerprint="0" * 64, content="line one\x00line two")
    long = make_episode("jira", "K-" + "9" * 400, group_id="g" * 300)

    result = ledger.register([nul, long], "2025-06-01")

    assert result.new == 2
    assert ledger.get(nul.id).source_key == "<ab@x>"
    assert ledger.payload(nul.id) == nul  # the payload keeps the exact text
    assert ledger.tombstone("email", ["<a\x00b@x>"]) == [nul.id]
    assert [e.id for e in ledger.claim(5)] == [long.id]
