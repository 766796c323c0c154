import datetime as dt

from graph.ledger.ledger import Status
from tests.ledger.factory import DAY, make_episode


def test_tombstone_marks_every_version_and_returns_their_ids_again_on_rerun(ledger):
    v1 = make_episode("confluence", "page-7", version="1", fingerprint="p7v1")
    v2 = make_episode("confluence", "page-7", version="2", fingerprint="p7v2", at=DAY + dt.timedelta(days=1))
    other = make_episode("confluence", "page-8")
    ledger.register([v1, v2, other], "2025-06-01")
    ledger.mark_ingested([v1.id])

    ids = ledger.tombstone("confluence", ["page-7", "never-seen"])

    assert ids == [v1.id, v2.id]
    assert {ledger.get(i).status for i in ids} == {Status.tombstoned}
    assert ledger.get(other.id).status == Status.pending
    assert [e.id for e in ledger.claim(10)] == [other.id]
    assert ledger.tombstone("confluence", ["page-7"]) == ids  # idempotent: the writer may redo invalidation
    assert ledger.tombstone("jira", ["page-7"]) == []  # keys are per source


def test_tombstoned_duplicate_leaves_the_canonical_source_keys(ledger):
    mail = make_episode("email", "<m@x>", fingerprint="f")
    crm = make_episode("salesforce", "00T", fingerprint="f")
    ledger.register([mail, crm], "2025-06-01")

    ledger.tombstone("salesforce", ["00T"])

    assert ledger.get(mail.id).source_keys == ["<m@x>"]
    assert ledger.get(mail.id).status == Status.pending


def test_tombstoned_canonical_hands_the_event_to_its_oldest_surviving_duplicate(ledger):
    mail = make_episode("email", "<m@x>", fingerprint="f", at=DAY)
    crm = make_episode("salesforce", "00T", fingerprint="f", at=DAY + dt.timedelta(hours=1))
    jira = make_episode("jira", "J-1", fingerprint="f", at=DAY + dt.timedelta(hours=2))
    ledger.register([mail, crm, jira], "2025-06-01")
    ledger.mark_ingested([mail.id])

    assert ledger.tombstone("email", ["<m@x>"]) == [mail.id]

    heir = ledger.get(crm.id)
    assert (heir.status, heir.duplicate_of, heir.source_keys) == (Status.pending, None, ["00T", "J-1"])
    assert ledger.get(jira.id).duplicate_of == crm.id
    assert [e.id for e in ledger.claim(10)] == [crm.id]
    later = make_episode("email", "<m-again@x>", fingerprint="f")  # the event still has an owner
    assert ledger.register([later], "2025-06-02").duplicates == 1
    assert ledger.get(later.id).duplicate_of == crm.id


def test_tombstoned_canonical_without_duplicates_frees_its_fingerprint(ledger):
    old = make_episode("jira", "J-1", fingerprint="f")
    ledger.register([old], "2025-06-01")
    ledger.tombstone("jira", ["J-1"])

    reborn = make_episode("jira", "J-2", fingerprint="f")
    result = ledger.register([reborn], "2025-06-02")

    assert (result.new, result.duplicates) == (1, 0)
    assert ledger.get(reborn.id).status == Status.pending


def test_a_deleted_record_takes_its_comments_and_nothing_else(ledger):
    # given an issue with two comments, a page with one, and records that only look related
    issue = make_episode("jira", "PHX-1", fingerprint="i")
    comments = [
        make_episode("jira", f"PHX-1#{n}", fingerprint=f"c{n}", kind="comment", thread="PHX-1") for n in (10001, 10002)
    ]
    page_comment = make_episode("confluence", "9001", fingerprint="pc", kind="comment", thread="777")
    others = [
        make_episode("jira", "PHX-10#1", fingerprint="o1", kind="comment", thread="PHX-10"),
        make_episode("email", "<reply@x>", fingerprint="o2", kind="email", thread="PHX-1"),
        make_episode("jira", "PHX-2", fingerprint="o3", kind="issue", thread="PHX-1"),
    ]
    ledger.register([issue, *comments, page_comment, *others], "2025-06-01")

    # when the issue and the page are tombstoned
    ids = ledger.tombstone("jira", ["PHX-1"]) + ledger.tombstone("confluence", ["777"])

    # then the issue and every comment in their threads are, each once; other threads, sources and kinds are not
    assert sorted(ids) == sorted([issue.id, *(c.id for c in comments), page_comment.id])
    assert all(ledger.get(o.id).status == Status.pending for o in others)
