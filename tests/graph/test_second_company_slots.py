"""Slot questions on the second scenario (tests/fixtures/second_company), asked the way `graphfeed search` asks, on
FalkorDB and Neo4j: "when is the go-live of FJL-7", "what is the status of FJL-7 now" rank the slot's own fact FIRST,
above the event facts (REPORTED_STATUS, REQUESTED_INFO, COMMENTED_ON) that only mention the issue; the go-live date a
later comment states ends the earlier one (FJL-7's comments, transforms/text_date_facts.py)."""

from graph.sync_facade import SyncGraphReader, SyncGraphWriter
from tests.graph.test_second_company import (
    HANDED_OVER,
    ISSUE,
    SCENARIO,
    Question,
    at,
    episodes,
    extractor,
    jira_episodes,
)

# Questions that ask for a slot's value, next to event facts that only mention the subject (REPORTED_STATUS on FJL-7,
# COMMENTED_ON): the slot's own fact must be the FIRST hit, its value stated in a comment's text or by the tracker.
GO_LIVE, SAID_LATER, SAID_FIRST = "When is the go-live of FJL-7?", at("2026-06-03T11:00"), at("2026-05-20T09:00")
SLOT_QUESTIONS = [
    Question(
        ask=GO_LIVE,
        relation="HAS_GO_LIVE_DATE",
        subject=ISSUE,
        value="2026-07-14",
        valid_at=SAID_LATER,
        episode="FJL-7#50002",
    ),
    Question(
        ask=GO_LIVE,
        as_of=at("2026-05-25"),
        relation="HAS_GO_LIVE_DATE",
        subject=ISSUE,
        value="2026-06-30",
        valid_at=SAID_FIRST,
        invalid_at=SAID_LATER,
        episode="FJL-7#50001",
    ),
    Question(
        ask="Wann ist der Go-Live von FJL-7?",
        relation="HAS_GO_LIVE_DATE",
        subject=ISSUE,
        value="2026-07-14",
        valid_at=SAID_LATER,
        episode="FJL-7#50002",
    ),
    Question(
        ask="What is the deadline for FJL-7?",
        relation="HAS_DEADLINE",
        subject=ISSUE,
        value="2026-07-10",
        valid_at=SAID_LATER,
        episode="FJL-7#50002",
    ),
    Question(
        ask="What is the status of FJL-7 now?",
        relation="HAS_STATUS",
        subject=ISSUE,
        value="In Progress",
        valid_at=at("2026-04-22T08:00"),
        episode=ISSUE,
    ),
    Question(
        ask="Wie ist der Status von FJL-7?",
        relation="HAS_STATUS",
        subject=ISSUE,
        value="In Progress",
        valid_at=at("2026-04-22T08:00"),
        episode=ISSUE,
    ),
    Question(
        ask="Which status does FJL-7 have?",
        relation="HAS_STATUS",
        subject=ISSUE,
        value="In Progress",
        valid_at=at("2026-04-22T08:00"),
        episode=ISSUE,
    ),
    Question(
        ask="When is FJL-7 due?",
        relation="HAS_DEADLINE",
        subject=ISSUE,
        value="2026-07-10",
        valid_at=SAID_LATER,
        episode="FJL-7#50002",
    ),
    Question(
        ask="Who is FJL-7 assigned to now?",
        relation="ASSIGNED_TO",
        subject=ISSUE,
        value="Maja Berg",
        valid_at=HANDED_OVER,
        episode=ISSUE,
    ),
]


def first_hits(writer: SyncGraphWriter, group_id: str, questions: list[Question]) -> list[str]:
    """The questions whose first hit is not the expected slot fact (relation, subject, value, interval, episode)."""
    reader, wrong = SyncGraphReader(writer), []
    for q in questions:
        hits = reader.search(q.ask, group_id=group_id, as_of=q.as_of, limit=10)
        got = [(h.name, h.subject, h.object, h.valid_at, h.invalid_at, [e.name for e in h.episodes][:1]) for h in hits]
        want = (q.relation, q.subject, q.value, q.valid_at, q.invalid_at, [q.episode])
        if not got or got[0] != want:
            wrong.append(f"{q.ask!r} as of {q.as_of}: want {want} first, got {got[:3]}")
    return wrong


def test_slot_questions_rank_the_slot_fact_first_and_event_questions_the_events(backend_config, group_id):
    with SyncGraphWriter(backend_config(), extractor=extractor) as writer:
        for batch in episodes([SCENARIO / "fjordline"], group_id):
            writer.write_batch(batch)
        writer.write_batch(jira_episodes(group_id))
        not_first = first_hits(writer, group_id, SLOT_QUESTIONS)
        # a question that asks for the event still gets the events first
        reported = SyncGraphReader(writer).search("Who reported status on FJL-7?", group_id=group_id, limit=5)
    assert not_first == []
    assert [h.name for h in reported[:3]] == ["REPORTED_STATUS"] * 3


def test_given_slot_and_event_questions_then_the_relations_they_ask_for():
    from graph.read.search import named_events, named_slots

    assert named_slots("When is the go-live of FJL-7?") == named_slots("Wann ist der Go-Live von FJL-7?")
    assert named_slots("When is FJL-7 due?") == named_slots("Was ist die Frist für FJL-7?") == ["HAS_DEADLINE"]
    assert named_slots("What is the status of FJL-7 now?") == named_events("What is the status of FJL-7 now?") == []
    # an event cue is stemmed as the question is: "status" -> "statu" matched neither before
    assert named_events("Who reported status on FJL-7?") == ["REPORTED_STATUS"]
