"""Shared test material: episodes and facts for the graph tests (real models, no mocks)."""

import datetime as dt

from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor, Attachment, Participant
from transforms.facts import FactSet, make_fact, organisation_entity, person_entity, slot_key

UTC = dt.UTC
MARCH = dt.datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
JUNE = dt.datetime(2026, 6, 15, 9, 30, tzinfo=UTC)

DANA = Actor(type="human", id="dana.whitfield@acme.example", name="Dana Whitfield", email="Dana.Whitfield@acme.example")
TOM = Actor(id="tom.berger@globex.example", name="Tom Berger", email="tom.berger@globex.example")
PRIYA = Actor(id="priya.nair@acme.example", name="Priya Nair", email="priya.nair@acme.example")
LEE = Actor(id="lee@acme.example", name=None, email="lee@acme.example")
CRM = Actor(type="system", id="salesforce-integration", name="Salesforce")


def email_episode(
    group_id: str,
    key: str,
    when: dt.datetime,
    *,
    actor: Actor = DANA,
    to=(TOM,),
    cc=(),
    title: str = "Q2 budget",
    parent: str | None = None,
    refs=(),
    attachments=(),
    intent: str = "decision",
) -> Episode:
    participants = [Participant(role="to", actor=a) for a in to] + [Participant(role="cc", actor=a) for a in cc]
    return Episode(
        id=episode_id("email", key, "1"),
        group_id=group_id,
        timestamp=when,
        source="email",
        actor=actor,
        intent=intent,
        intent_confidence=0.87,
        content=f"{title}: we agreed on the numbers ({key}).",
        metadata=EpisodeMetadata(
            source_key=key,
            kind="email",
            version="1",
            title=title,
            occurred_at=when,
            updated_at=when,
            participants=participants,
            parent_key=parent,
            attachments=list(attachments),
        ),
        references=list(refs),
        fingerprint=f"fp-{key}",
    )


def contact_episode(group_id: str, key: str, when: dt.datetime, contact: str) -> Episode:
    """A CRM field-history record: Account 'Acme' got a new primary contact."""
    return Episode(
        id=episode_id("salesforce", key, "1"),
        group_id=group_id,
        timestamp=when,
        source="salesforce",
        actor=CRM,
        intent="status_change",
        intent_confidence=1.0,
        content=f"Account Acme Corp: primary contact changed to {contact} on {when.date().isoformat()}.",
        metadata=EpisodeMetadata(
            source_key=key, kind="account_history", version="1", title="Acme Corp", occurred_at=when, updated_at=when
        ),
        fingerprint=f"fp-{key}",
    )


def contact_facts(episode: Episode, person: Actor) -> FactSet:
    """Single-valued HAS_CONTACT: Acme has one primary contact at a time; valid_at = the change time."""
    g = episode.group_id
    org = organisation_entity(g, "org:acme.example", "Acme Corp")
    who = person_entity(g, person, "salesforce")
    fact = make_fact(
        g,
        org,
        "HAS_CONTACT",
        who,
        f"{who.name} is the primary contact of Acme Corp",
        valid_at=episode.timestamp,
        episode_ids=[episode.id],
        single_valued=slot_key("org:acme.example", "HAS_CONTACT"),
    )
    return FactSet(entities=[org, who], facts=[fact], mentions=[org.uuid, who.uuid])


def contact_change(group_id: str) -> list[tuple[Episode, FactSet]]:
    march = contact_episode(group_id, "acct-001/hist-1", MARCH, "Dana Whitfield")
    june = contact_episode(group_id, "acct-001/hist-2", JUNE, "Priya Nair")
    dana = Actor(id=DANA.id, name=DANA.name, email=DANA.email)
    return [(march, contact_facts(march, dana)), (june, contact_facts(june, PRIYA))]


ATTACHMENT = Attachment(name="budget.xlsx", size=1234, sha256="ab" * 32)
