"""Pure tier (no server): structured facts and the single-valued timeline."""

import datetime as dt
import itertools

from connectors.registry import episode_facts
from graph.timeline import SlotEdge, recompute_slot
from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor
from tests.graph.scenario import ATTACHMENT, DANA, JUNE, LEE, MARCH, email_episode
from transforms.facts import entity_uuid, merge_factsets, person_entity

UTC = dt.UTC


def test_given_an_email_then_sender_recipients_thread_attachment_references_and_employers():
    episode = email_episode(
        "acme",
        "<m2@acme.example>",
        MARCH,
        cc=(LEE,),
        parent="<m1@acme.example>",
        refs=["jira:PHX-42"],
        attachments=[ATTACHMENT],
    )
    facts = episode_facts(episode, {"acme.example": "Acme Corp"})
    by_predicate = {f.predicate: f for f in facts.facts}
    assert set(by_predicate) == {
        "SENT",
        "SENT_TO",
        "CC",
        "REPLIED_TO",
        "HAS_ATTACHMENT",
        "MENTIONS_ISSUE",
        "WORKS_AT",
        "DECIDED",
    }  # the episode's intent (transforms/intent_facts.py)
    assert by_predicate["SENT_TO"].fact == "Dana Whitfield emailed Tom Berger about 'Q2 budget' on 2026-03-02"
    assert all(f.valid_at == MARCH and f.episode_ids == [episode.id] for f in facts.facts)
    labels = {e.label for e in facts.entities}
    assert labels == {"Person", "Message", "Attachment", "Issue", "Organization"}
    orgs = {e.name for e in facts.entities if e.label == "Organization"}
    assert orgs == {"Acme Corp", "globex.example"}  # mapped domain, else the mail domain
    assert set(facts.mentions) == {e.uuid for e in facts.entities}


def test_same_input_same_uuids_and_group_is_part_of_the_id():
    a = episode_facts(email_episode("acme", "<m1@acme.example>", MARCH))
    b = episode_facts(email_episode("acme", "<m1@acme.example>", MARCH))
    c = episode_facts(email_episode("other", "<m1@acme.example>", MARCH))
    assert [f.uuid for f in a.facts] == [f.uuid for f in b.facts]
    assert not {f.uuid for f in a.facts} & {f.uuid for f in c.facts}


def test_a_person_is_one_node_across_sources_by_normalised_email():
    from_mail = person_entity("acme", DANA, "email")
    from_jira = person_entity(
        "acme", Actor(id="jira:557058:abc", name="Dana W.", email=" dana.whitfield@ACME.example "), "jira"
    )
    from_sf = person_entity(
        "acme", Actor(id="0035g00000XyZ", name=None, email="Dana.Whitfield@acme.example"), "salesforce"
    )
    assert from_mail.uuid == from_jira.uuid == from_sf.uuid == entity_uuid("acme", "person:dana.whitfield@acme.example")
    no_email = person_entity("acme", Actor(id="jira:557058:zzz", name="Anon"), "jira")
    assert no_email.key == "person:jira:jira:557058:zzz"


def test_merge_prefers_a_real_name_whatever_the_order():
    bare = person_entity("acme", Actor(id="x", email="dana.whitfield@acme.example"), "salesforce")
    named = person_entity("acme", DANA, "email")
    for parts in itertools.permutations([bare, named]):
        from transforms.facts import FactSet

        merged = merge_factsets([FactSet(entities=[p]) for p in parts])
        assert [e.name for e in merged.entities] == ["Dana Whitfield"]


def test_given_a_mail_domain_and_an_account_name_for_one_org_then_the_account_name_whatever_the_order():
    # the sender's domain names the org "fjordline.example"; the CRM account calls it "Fjordline Logistics". By the
    # string alone the lower-case domain sorted last and won, so the graph showed the domain as the company's name.
    from transforms.facts import FactSet, organisation_entity

    domain = organisation_entity("acme", "org:fjordline.example", "fjordline.example")
    account = organisation_entity("acme", "org:fjordline.example", "Fjordline Logistics")
    for parts in itertools.permutations([domain, account]):
        merged = merge_factsets([FactSet(entities=[p]) for p in parts])
        assert [e.name for e in merged.entities] == ["Fjordline Logistics"]


def test_standing_relation_is_one_edge_with_the_earliest_time_and_all_episodes():
    early = episode_facts(email_episode("acme", "<e1@acme.example>", MARCH))
    late = episode_facts(email_episode("acme", "<e2@acme.example>", JUNE))
    for parts in ([early, late], [late, early]):
        works = [f for f in merge_factsets(parts).facts if f.predicate == "WORKS_AT" and "Dana" in f.fact]
        assert len(works) == 1 and works[0].valid_at == MARCH and len(works[0].episode_ids) == 2


def test_other_sources_without_rules_still_mention_their_author():
    when = MARCH
    episode = Episode(
        id=episode_id("zendesk", "PHX-1", "1"),
        group_id="acme",
        timestamp=when,
        source="zendesk",
        actor=Actor(type="human", id="tom.berger@globex.example", name="Tom Berger"),
        intent="report",
        intent_confidence=0.5,
        content="x",
        fingerprint="f",
        metadata=EpisodeMetadata(source_key="PHX-1", kind="issue", version="1", occurred_at=when, updated_at=when),
    )
    facts = episode_facts(episode)
    assert facts.facts == [] and facts.mentions == [entity_uuid("acme", "person:tom.berger@globex.example")]


def d(month: int) -> dt.datetime:
    return dt.datetime(2026, month, 1, tzinfo=UTC)


def test_timeline_any_arrival_order_gives_the_same_chain():
    edges = [
        SlotEdge(uuid="a", object="dana", valid_at=d(3)),
        SlotEdge(uuid="b", object="priya", valid_at=d(6)),
        SlotEdge(uuid="c", object="dana", valid_at=d(4)),
        SlotEdge(uuid="d", object="tom", valid_at=d(9)),
    ]
    now = d(12)
    results = {
        tuple(sorted((k, v.invalid_at) for k, v in recompute_slot(list(p), now).items()))
        for p in itertools.permutations(edges)
    }
    assert results == {(("a", d(6)), ("b", d(9)), ("c", d(6)), ("d", None))}


def test_timeline_rerun_keeps_expired_at_and_source_end_wins_if_earlier():
    first = recompute_slot(
        [
            SlotEdge(uuid="a", object="dana", valid_at=d(3), source_invalid_at=d(5)),
            SlotEdge(uuid="b", object="priya", valid_at=d(6)),
        ],
        now=d(7),
    )
    assert first["a"].invalid_at == d(5) and first["a"].expired_at == d(7) and first["b"].invalid_at is None
    stored = [
        SlotEdge(uuid="a", object="dana", valid_at=d(3), source_invalid_at=d(5), invalid_at=d(5), expired_at=d(7)),
        SlotEdge(uuid="b", object="priya", valid_at=d(6)),
    ]
    again = recompute_slot(stored, now=d(11))
    assert again["a"].expired_at == d(7) and not again["a"].differs(stored[0])


def test_timeline_tombstoned_successor_no_longer_ends_its_predecessor():
    out = recompute_slot(
        [
            SlotEdge(uuid="a", object="dana", valid_at=d(3), invalid_at=d(6), expired_at=d(7)),
            SlotEdge(uuid="b", object="priya", valid_at=d(6), tombstoned_at=d(8)),
        ],
        now=d(8),
    )
    assert out["a"].invalid_at is None and out["a"].expired_at is None
    assert out["b"].invalid_at == d(8)


def test_given_a_mail_linking_a_confluence_page_by_url_then_its_mention_names_the_page_by_the_links_title():
    # given a mail whose text links a page with its title slug, and one that names another page by id only
    episode = email_episode("acme", "<m9@acme.example>", MARCH, refs=["confluence:page:131074", "confluence:page:7"])
    episode = episode.model_copy(
        update={
            "content": "Plan: https://acme.atlassian.net/wiki/spaces/ACME/pages/131074/Data+Migration+Plan "
            "and https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=7"
        }
    )
    # when its facts are built
    facts = episode_facts(episode, {"acme.example": "Acme Corp"})
    mentioned = {f.fact for f in facts.facts if f.predicate == "MENTIONS_DOCUMENT"}
    # then the linked page is named by its title, on the same node a Confluence page record makes; the other by its id
    assert any(text.endswith("mentions Data Migration Plan") for text in mentioned)
    assert any(text.endswith("mentions 7") for text in mentioned)
    page = next(e for e in facts.entities if e.name == "Data Migration Plan")
    assert page.uuid == entity_uuid("acme", "ref:confluence:page:131074")
