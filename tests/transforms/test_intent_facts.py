"""Intent and date facts (transforms/intent_facts.py), golden in English, German and Chinese: one event fact per
episode from its author to what it is about, on the same entity ids the source extractors use; dates from the
author's own words; nothing for `other`, low confidence or a bot."""

import datetime as dt
from functools import partial

import pytest

from connectors.confluence.facts import confluence_facts
from connectors.jira.facts import jira_facts
from connectors.registry import episode_facts, intent_subjects, source_traits
from connectors.salesforce.facts import salesforce_facts
from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor
from transforms import intent_facts as intent
from transforms.intent_facts import DATE_RELATION

# as the registry's extractor calls it
intent_facts = partial(intent.intent_facts, subjects=intent_subjects(), traits=source_traits())

UTC = dt.UTC
LENA = Actor(type="human", id="lena.ortiz@acme.example", name="Lena Ortiz", email="lena.ortiz@acme.example")
MARC = Actor(type="human", id="marc.weber@acme.example", name="Marc Weber", email="marc.weber@acme.example")
MARKUS = Actor(
    type="human", id="markus.vogel@datenwerk.example", name="Markus Vogel", email="markus.vogel@datenwerk.example"
)
LI = Actor(type="human", id="li.na@huaxin.example", name="李娜", email="li.na@huaxin.example")
BOT = Actor(type="system", id="salesforce", name="Salesforce")
ORGS = {"acme.example": "Acme Corp"}


def make(
    source: str,
    kind: str,
    key: str,
    when: dt.datetime,
    content: str,
    intent: str,
    *,
    actor=LENA,
    title: str = "",
    confidence: float = 0.8,
    fields: dict | None = None,
    language: str = "en",
    thread_key: str | None = None,
) -> Episode:
    return Episode(
        id=episode_id(source, key, "1"),
        group_id="g",
        timestamp=when,
        source=source,
        actor=actor,
        intent=intent,
        intent_confidence=confidence,
        content=content,
        fingerprint=f"fp-{key}",
        metadata=EpisodeMetadata(
            source_key=key,
            kind=kind,
            version="1",
            title=title,
            occurred_at=when,
            updated_at=when,
            fields=fields or {},
            language=language,
            thread_key=thread_key,
        ),
    )


def jira_comment(intent="escalate_risk", confidence=0.8, content="This blocks the import for every legacy device."):
    return make(
        "jira",
        "comment",
        "OPS-42#10001",
        dt.datetime(2026, 5, 22, 9, 30, tzinfo=UTC),
        content,
        intent,
        confidence=confidence,
        fields={"issue_key": "OPS-42", "issue_summary": "Import fails for legacy devices"},
    )


def test_given_an_english_jira_escalation_then_one_event_fact_from_the_author_to_the_issue():
    episode = jira_comment()
    (fact,) = intent_facts(episode, ORGS).facts
    issue = next(e for e in jira_facts(episode, ORGS).entities if e.key == "ref:jira:issue:OPS-42")
    assert (
        fact.fact == "Lena Ortiz (Acme Corp) escalated a risk on OPS-42 (Import fails for legacy devices) on 2026-05-22"
    )
    assert (fact.predicate, fact.object, fact.valid_at) == ("ESCALATED_RISK", issue.uuid, episode.timestamp)
    assert fact.single_valued is None and fact.episode_ids == [episode.id]
    assert fact.attributes == {"kind": "intent", "intent": "escalate_risk", "intent_confidence": 0.8}


def test_given_a_confluence_decision_then_it_is_recorded_on_the_page_node_of_the_confluence_extractor():
    episode = make(
        "confluence",
        "page",
        "131090",
        dt.datetime(2026, 5, 28, 14, tzinfo=UTC),
        "Budget for the warehouse migration\n\nWe decided to keep the budget at EUR 80,000.",
        "decision",
        actor=MARC,
        title="Budget for the warehouse migration",
    )
    (fact,) = intent_facts(episode).facts
    page = next(e for e in confluence_facts(episode, {}).entities if e.key == "ref:confluence:page:131090")
    assert fact.fact == "Marc Weber recorded a decision in 'Budget for the warehouse migration' on 2026-05-28"
    assert (fact.predicate, fact.object) == ("DECIDED", page.uuid)


def test_given_a_german_confirmation_then_the_date_fact_carries_the_sentence_and_links_author_and_thread():
    content = (
        "Liefertermin SAP-Connector\n\nHallo Laura,\n\nhiermit bestätige ich den Liefertermin für den "
        "SAP-Connector: 26.05.2026. Die Abnahme planen wir am Tag danach.\n\nMarkus"
    )
    episode = make(
        "email",
        "email",
        "<m2@datenwerk.example>",
        dt.datetime(2026, 4, 23, 8, tzinfo=UTC),
        content,
        "confirm_date",
        actor=MARKUS,
        title="AW: Liefertermin SAP-Connector",
        language="de",
        thread_key="<m1@northwind.example>",
    )
    facts = {f.predicate: f for f in intent_facts(episode).facts}
    assert set(facts) == {"CONFIRMED_DATE", DATE_RELATION, "HAS_DELIVERY_DATE"}  # "den Liefertermin ...: 26.05.2026"
    assert facts["HAS_DELIVERY_DATE"].attributes["date"] == "2026-05-26"
    date = facts[DATE_RELATION]
    assert date.fact == "Markus Vogel confirmed 2026-05-26 for 'Liefertermin SAP-Connector' (on 2026-04-23)"
    assert date.attributes["date"] == "2026-05-26" and date.attributes["date_form"] == "absolute"
    assert date.attributes["sentence"] == "hiermit bestätige ich den Liefertermin für den SAP-Connector: 26.05.2026."
    assert date.subject == facts["CONFIRMED_DATE"].subject and date.object == facts["CONFIRMED_DATE"].object
    thread = next(e for e in intent_facts(episode).entities if e.label == "Message")
    assert thread.key == "ref:email:<m1@northwind.example>" and thread.name == "Liefertermin SAP-Connector"


def test_given_a_chinese_confirmation_then_the_cjk_date_is_written_and_the_quoted_old_date_is_not():
    content = "上线日期\n\n我确认上线日期为2026年7月15日。\n> 原计划是2026年7月1日"
    episode = make(
        "jira",
        "comment",
        "ACME-18#2",
        dt.datetime(2026, 6, 10, 8, tzinfo=UTC),
        content,
        "confirm_date",
        actor=LI,
        language="zh",
        fields={"issue_key": "ACME-18"},
    )
    dates = [f.attributes["date"] for f in intent_facts(episode).facts if f.predicate == DATE_RELATION]
    assert dates == ["2026-07-15"]


def test_given_an_ambiguous_english_date_then_only_the_intent_fact_is_written():
    episode = make(
        "email",
        "email",
        "<a@acme.example>",
        dt.datetime(2026, 6, 1, tzinfo=UTC),
        "Workshop\n\nI confirm 03/04/2026 for the workshop.",
        "confirm_date",
        title="Workshop",
    )
    assert [f.predicate for f in intent_facts(episode).facts] == ["CONFIRMED_DATE"]


@pytest.mark.parametrize(
    "intent,confidence,actor", [("other", 0.99, LENA), ("escalate_risk", 0.49, LENA), ("escalate_risk", 0.9, BOT)]
)
def test_given_other_low_confidence_or_a_bot_then_no_intent_fact(intent, confidence, actor):
    episode = jira_comment(intent, confidence).model_copy(update={"actor": actor})
    assert intent_facts(episode, threshold=0.5).facts == []


def test_given_an_intent_the_classifier_kept_then_its_fact_is_written_whatever_its_confidence():
    # the classifier's own (calibrated) threshold decided the intent; facts add no second bar by default
    assert len(intent_facts(jira_comment("escalate_risk", 0.31)).facts) == 1


def opportunity_episode(stage: str, won: bool, intent: str = "close_deal") -> Episode:
    fields = {
        "id": "0068d00000NwAcmAAF",
        "values": {"StageName": stage, "IsWon": "true" if won else "false"},
        "author": {"id": "sarah@northwind.example", "name": "Sarah Kim", "email": "sarah@northwind.example"},
    }
    return make(
        "salesforce",
        "opportunity",
        "Opportunity/0068d00000NwAcmAAF",
        dt.datetime(2026, 6, 24, tzinfo=UTC),
        f"Acme Corp - Data Platform 2026\n\nStage: {stage}\nAmount: USD 94,800",
        intent,
        actor=BOT,
        title="Acme Corp - Data Platform 2026",
        fields=fields,
    )


@pytest.mark.parametrize(("bar", "expected"), [(0.0, 1), (0.5, 1), (0.55, 0)])
def test_given_an_intent_fact_threshold_in_the_graph_resource_then_its_writer_writes_intent_facts_only_above_it(
    tmp_path, bar, expected
):
    from assets.resources import GraphResource

    writer = GraphResource(intent_fact_threshold=bar).writer(tmp_path)  # not opened: no database needed
    part = writer.writer.extractor(jira_comment("escalate_risk", 0.5), {})
    assert sum(1 for f in part.facts if f.attributes.get("kind") == "intent") == expected
    # the issue's own facts do not depend on the bar
    assert part.entities


def test_given_a_crm_integration_record_naming_a_human_author_then_the_fact_is_the_authors():
    episode = opportunity_episode("Closed Won", won=True)
    (fact,) = intent_facts(episode).facts
    opportunity = next(e for e in salesforce_facts(episode, {}).entities if e.label == "Opportunity")
    assert fact.fact == "Sarah Kim closed a deal on Acme Corp - Data Platform 2026 on 2026-06-24"
    assert fact.object == opportunity.uuid


@pytest.mark.parametrize("intent", ["close_deal", "confirm_date", "decision"])
def test_given_an_open_opportunity_then_no_intent_fact_whatever_the_classifier_read_into_its_fields(intent):
    # the sample's 05-07 version (Negotiation/Review, amount cut) was classified close_deal at 0.81
    assert intent_facts(opportunity_episode("Negotiation/Review", won=False, intent=intent)).facts == []


def test_given_an_opportunity_export_without_the_won_flag_then_the_closed_won_stage_decides():
    won, open_ = opportunity_episode("Closed Won", won=True), opportunity_episode("Prospecting", won=False)
    for episode in (won, open_):
        del episode.metadata.fields["values"]["IsWon"]
    assert len(intent_facts(won).facts) == 1
    assert intent_facts(open_).facts == []


def test_given_a_won_opportunity_classified_otherwise_then_no_intent_fact():
    assert intent_facts(opportunity_episode("Closed Won", won=True, intent="decision")).facts == []


def test_given_the_same_episode_twice_then_the_same_ids_and_two_episodes_in_one_second_stay_two_events():
    first, again = jira_comment(), jira_comment()
    other = make(
        "jira",
        "comment",
        "OPS-42#10002",
        first.timestamp,
        "Second risk.",
        "escalate_risk",
        fields=first.metadata.fields,
    )
    assert [f.uuid for f in episode_facts(first).facts] == [f.uuid for f in episode_facts(again).facts]
    (a,), (b,) = intent_facts(first).facts, intent_facts(other).facts
    assert a.uuid != b.uuid and (a.subject, a.object, a.valid_at) == (b.subject, b.object, b.valid_at)


@pytest.mark.parametrize(
    "sentence", ["We propose to move the go-live from 2026-07-01 to 2026-07-15.", "Could you confirm 2026-07-15?"]
)
def test_given_a_proposal_or_a_question_about_a_date_then_no_date_is_written_as_confirmed(sentence):
    episode = make(
        "email",
        "email",
        "<p@acme.example>",
        dt.datetime(2026, 5, 21, tzinfo=UTC),
        f"Go-live\n\n{sentence}",
        "confirm_date",
        title="Go-live",
    )
    assert [f.predicate for f in intent_facts(episode).facts] == ["CONFIRMED_DATE"]


def test_given_crm_master_data_then_no_intent_fact_even_with_an_intent():
    episode = make(
        "salesforce",
        "user",
        "User/005A",
        dt.datetime(2026, 3, 2, tzinfo=UTC),
        "Sarah Okafor",
        "escalate_risk",
        title="Sarah Okafor",
        fields={"id": "005A"},
    )
    assert intent_facts(episode).facts == []
