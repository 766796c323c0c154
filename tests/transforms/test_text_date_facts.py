"""Dates the author states (transforms/text_date_facts.py through intent_facts), EN and DE, whatever the intent:
slot facts of the subject (go-live, deadline, delivery, release, target date) and confirmed dates, resolved against
the record's time; nothing from a question, a quote, a hedge, a file name, code or a CRM record's rendered fields."""

import datetime as dt

import pytest

from connectors.jira.facts import jira_facts
from ground.episode import Episode, episode_id
from tests.transforms.test_intent_facts import ORGS, UTC, intent_facts, make
from transforms.intent_facts import DATE_RELATION


def comment(content: str, intent: str = "status_update", *, language: str = "en", when=None) -> Episode:
    return make(
        "jira",
        "comment",
        "OPS-42#20001",
        when or dt.datetime(2026, 6, 3, 9, 0, tzinfo=UTC),  # a Wednesday
        content,
        intent,
        language=language,
        fields={"issue_key": "OPS-42", "issue_summary": "Import fails for legacy devices"},
    )


def slots(episode: Episode) -> dict[str, tuple[str, str]]:
    """predicate -> (date, date_form) of the slot facts an episode states."""
    return {
        f.predicate: (str(f.attributes["date"]), str(f.attributes["date_form"]))
        for f in intent_facts(episode).facts
        if f.single_valued
    }


def test_given_a_status_update_that_moves_the_go_live_then_a_slot_fact_of_the_issue_with_the_year_resolved():
    episode = comment("Import is fixed on staging. Go-live moved to 14 July.")
    facts = {f.predicate: f for f in intent_facts(episode, ORGS).facts}
    assert set(facts) == {"REPORTED_STATUS", "HAS_GO_LIVE_DATE"}
    slot = facts["HAS_GO_LIVE_DATE"]
    issue = next(e for e in jira_facts(episode, ORGS).entities if e.key == "ref:jira:issue:OPS-42")
    assert (slot.subject, slot.valid_at, slot.single_valued) == (
        issue.uuid,
        episode.timestamp,
        "ref:jira:issue:OPS-42|HAS_GO_LIVE_DATE",
    )
    assert slot.fact == (
        "The go-live date of OPS-42 (Import fails for legacy devices) is 2026-07-14 "
        "(Lena Ortiz (Acme Corp), 2026-06-03)"
    )
    assert slot.attributes["date"] == "2026-07-14" and slot.attributes["date_form"] == "year_inferred"
    assert slot.attributes["sentence"] == "Go-live moved to 14 July."
    date = next(e for e in intent_facts(episode).entities if e.uuid == slot.object)
    assert (date.label, date.name) == ("Date", "2026-07-14")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Die Frist für die Abnahme ist der 30. Juni.", {"HAS_DEADLINE": ("2026-06-30", "year_inferred")}),
        ("Der Go-Live wurde auf nächsten Dienstag verschoben.", {"HAS_GO_LIVE_DATE": ("2026-06-09", "relative")}),
        ("Liefertermin ist jetzt der 26.06.2026.", {"HAS_DELIVERY_DATE": ("2026-06-26", "absolute")}),
        ("Stichtag: 1. Juli", {"HAS_DEADLINE": ("2026-07-01", "year_inferred")}),
        ("Am 14.07. ist Go-Live.", {"HAS_GO_LIVE_DATE": ("2026-07-14", "year_inferred")}),
    ],
)
def test_given_german_date_statements_then_slot_facts_with_dates_resolved_against_the_record_time(text, expected):
    assert slots(comment(text, "other", language="de")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The deadline for the import fix is tomorrow.", {"HAS_DEADLINE": ("2026-06-04", "relative")}),
        ("Release date is set for Sept 1.", {"HAS_RELEASE_DATE": ("2026-09-01", "year_inferred")}),
        ("We moved the go-live from 1 July to 14 July.", {"HAS_GO_LIVE_DATE": ("2026-07-14", "year_inferred")}),
        ("The fix is due by 2026-06-19.", {"HAS_DEADLINE": ("2026-06-19", "absolute")}),
        ("Delivery: 20 June 2026", {"HAS_DELIVERY_DATE": ("2026-06-20", "absolute")}),
    ],
)
def test_given_english_date_statements_whatever_the_intent_then_slot_facts(text, expected):
    assert slots(comment(text, "other")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Is the go-live still 14 July?",
        "Wann ist der Go-Live, am 14.07.?",
        "> The go-live is 1 July.\nAgreed, thanks.",
        "{quote}The deadline is 30 June.{quote}\nNoted.",
        "We could move the go-live to 14 July.",
        "The go-live is not 14 July.",
        "Go-live screenshot attached: golive_2026-07-14.png",
        "Deadline config:\n```\ndeadline = 2026-07-14\n```",
        "We met on 3 June to talk about the import.",
        "The delay is due to the 14 July freeze.",
    ],
)
def test_given_a_question_a_quote_a_hedge_a_file_name_or_no_slot_word_then_no_date_fact(text):
    assert [f for f in intent_facts(comment(text)).facts if f.predicate != "REPORTED_STATUS"] == []


def test_given_a_confirmation_in_a_status_update_then_the_confirmed_date_and_the_slot_are_written():
    episode = comment("I confirm 14 July for the go-live.")
    facts = {f.predicate: f for f in intent_facts(episode).facts}
    assert set(facts) == {"REPORTED_STATUS", DATE_RELATION, "HAS_GO_LIVE_DATE"}
    assert facts[DATE_RELATION].attributes["date"] == facts["HAS_GO_LIVE_DATE"].attributes["date"] == "2026-07-14"


def test_given_two_statements_of_one_slot_then_both_share_the_slot_and_differ_in_value_and_time():
    first = comment("Go-live is 30 June.", when=dt.datetime(2026, 5, 20, tzinfo=UTC))
    later = comment("Go-live moved to 14 July.").model_copy(update={"id": episode_id("jira", "OPS-42#20002", "1")})
    (a,), (b,) = ([f for f in intent_facts(e).facts if f.single_valued] for e in (first, later))
    assert a.single_valued == b.single_valued and a.uuid != b.uuid and a.object != b.object
    assert (a.valid_at, b.valid_at) == (first.timestamp, later.timestamp)


@pytest.mark.parametrize(
    "text",
    [
        "Go-live: see [attachment: Screenshot 2026-07-14 at 1.33.58 ]",
        "Deadline check failed: !ENTRY core 4 0 2026-07-14 14:29:57.951",
    ],
)
def test_given_an_attachment_placeholder_or_a_log_timestamp_then_no_date_fact(text):
    assert [f for f in intent_facts(comment(text, "other")).facts] == []


def test_given_a_crm_task_then_its_rendered_fields_state_no_date_but_its_description_does():
    content = (
        "Call: rollout plan\n\nSalesforce Task, account Acme Corp, owner Sarah Okafor.\nStatus: Completed\n"
        "Due date: 2026-06-12\n\nDana said the go-live is 14 July."
    )
    fields = {"id": "00T1", "author": {"id": "sarah@northwind.example", "name": "Sarah Kim"}}
    episode = make(
        "salesforce",
        "task",
        "Task/00T1",
        dt.datetime(2026, 6, 3, tzinfo=UTC),
        content,
        "other",
        title="Call: rollout plan",
        fields=fields,
    )
    assert slots(episode) == {"HAS_GO_LIVE_DATE": ("2026-07-14", "year_inferred")}


def test_given_a_slot_value_and_the_day_it_was_confirmed_then_the_value_fills_the_slot_and_is_the_confirmed_date():
    # the sample's Go-Live Runbook page, version of 2026-06-12
    episode = comment("Go-live target: 2026-07-15 (confirmed by Acme's steering committee on 2026-06-10).", "other")
    facts = intent_facts(episode).facts
    assert slots(episode) == {"HAS_GO_LIVE_DATE": ("2026-07-15", "absolute")}
    assert [f.attributes["date"] for f in facts if f.predicate == DATE_RELATION] == ["2026-07-15"]


@pytest.mark.parametrize(
    "text",
    [
        "The steering committee will decide on 4 June; you will get the formal confirmation after that.",
        "Cutover rehearsal on 7 July, cutover on 11 and 12 July.",
    ],
)
def test_given_a_pending_decision_or_another_milestone_then_no_date_fact(text):
    assert intent_facts(comment(text, "other")).facts == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # the sample's kickoff mail: "9 April." keeps its period, so find_dates' sentence runs on into a request
            "Key points: target go-live is 2026-07-01; the committee decides on 9 April. Please review the page.",
            {"HAS_GO_LIVE_DATE": ("2026-07-01", "absolute")},
        ),
        (
            "- SSO (OPS-42): waiting for the Okta metadata, due 10 April.",
            {"HAS_DEADLINE": ("2026-04-10", "year_inferred")},
        ),
        ("- SSO (ACME-15): waiting for the Okta metadata, due 10 April.", {}),  # another issue's deadline
        ("Die Rechnung ist fällig am 30. Juni.", {"HAS_DEADLINE": ("2026-06-30", "year_inferred")}),
    ],
)
def test_given_a_clause_of_a_longer_sentence_or_a_self_stating_slot_word_then_the_slot_fact(text, expected):
    assert slots(comment(text, "other")) == expected
