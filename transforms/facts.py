"""Structured facts from system-of-record fields: no LLM, deterministic ids.

An Episode becomes a FactSet: the entities it names (people, organisations, referenced documents/issues/...), the facts
between them, and the entity uuids it mentions. Every uuid is a uuid5 of the group and a readable key, so the same person
seen in mail, Jira and Salesforce (same normalised email) is one node, and a rerun re-keys nothing.

The model is in ground/fact_model.py, the entity constructors in fact_entities.py; this module holds the builder helpers the
per-source extractors share and is the public entry for all three.
"""

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ground.episode import Episode
from ground.fact_model import (
    ENTITY_NAMESPACE,
    FACT_NAMESPACE,
    AttrValue,
    EntitySpec,
    Extractor,
    FactSet,
    FactSpec,
    better_entity,
    entity_uuid,
    fact_uuid,
    make_fact,
    merge_fact,
    merge_factsets,
    slot_key,
)
from ground.identity import normalise_email
from ground.records import Actor, as_utc
from transforms.fact_entities import (
    DEFAULT_REFERENCE_KIND,
    NAME_MENTIONS,
    PUBLIC_MAIL_DOMAINS,
    REFERENCE_KINDS,
    VALUE_REFERENCES,
    Mentions,
    attachment_entity,
    message_entity,
    organisation_entity,
    organisation_for,
    person_entity,
    person_key,
    reference_entity,
    reference_target,
    titled_page,
    value_entity,
)
from transforms.reference_ids import confluence_page_titles

# ---------------------------------------------------------------- builders shared by the per-source extractors


class FactBuilder:
    """Collects entities/facts without duplicates (same uuid twice in one episode)."""

    def __init__(self) -> None:
        self.entities: dict[str, EntitySpec] = {}
        self.facts: dict[str, FactSpec] = {}
        self.mentions: list[str] = []

    def entity(self, spec: EntitySpec, mention: bool = True) -> EntitySpec:
        self.entities.setdefault(spec.uuid, spec)
        if mention and spec.uuid not in self.mentions:
            self.mentions.append(spec.uuid)
        return self.entities[spec.uuid]

    def fact(self, spec: FactSpec) -> None:
        self.facts.setdefault(spec.uuid, spec)

    def result(self) -> FactSet:
        return FactSet(entities=list(self.entities.values()), facts=list(self.facts.values()), mentions=self.mentions)


def _label(entity: EntitySpec) -> str:
    return entity.name


def _day(moment: dt.datetime) -> str:
    return as_utc(moment).date().isoformat()


def add_reference_facts(
    b: "FactBuilder",
    group_id: str,
    subject: EntitySpec,
    references: Iterable[str],
    people: list[tuple[EntitySpec, Any]],
    domain_orgs: Mapping[str, str],
    sentence: Callable[[EntitySpec], str],
    *,
    valid_at: dt.datetime,
    episode_ids: list[str],
    qualifier: str = "",
    unconfirmed: Iterable[str] = (),
    mentions: Mentions,
    content: str = "",
) -> None:
    """What a record names (issues, pages, opportunities, messages, attachments) as facts from its subject; people and
    organisations named in prose only as mentions of the episode: "X mentions Y" is no fact about the world.
    `unconfirmed` names (NER only, below the entity confidence) become mentions only of a known party's node.
    `content`: the episode's text, whose Confluence links name their pages ("/pages/131074/Data+Migration+Plan")."""
    weak = set(unconfirmed)
    titles = confluence_page_titles(content)
    for ref in sorted(set(references)):
        target = reference_target(group_id, ref, people, domain_orgs, new_names=ref not in weak, mentions=mentions)
        if target is None:
            continue
        entity, predicate = target
        if entity.uuid == subject.uuid:
            continue
        if ref in titles and entity.name == ref.rsplit(":", 1)[1]:  # a page known by its id only
            entity = titled_page(entity, entity.name, titles[ref])
        entity = b.entity(entity)
        if predicate in NAME_MENTIONS:
            continue
        b.fact(
            make_fact(
                group_id,
                subject,
                predicate,
                entity,
                sentence(entity),
                valid_at=valid_at,
                episode_ids=episode_ids,
                qualifier=qualifier,
            )
        )


def add_employers(
    b: "FactBuilder",
    group_id: str,
    people: list[tuple[EntitySpec, Any]],
    domain_orgs: Mapping[str, str],
    *,
    valid_at: dt.datetime,
    episode_ids: list[str],
) -> None:
    """Person WORKS_AT the organisation their mail domain implies: one standing edge however often it is seen."""
    for person, actor in people:
        email = normalise_email(getattr(actor, "email", None)) or normalise_email(getattr(actor, "id", None))
        org = organisation_for(email, domain_orgs)
        if org is None:
            continue
        org_entity = b.entity(organisation_entity(group_id, *org))
        b.fact(
            make_fact(
                group_id,
                person,
                "WORKS_AT",
                org_entity,
                f"{person.name} works at {org_entity.name}",
                valid_at=valid_at,
                episode_ids=episode_ids,
                keyed_by_time=False,
            )
        )


def no_facts(episode: Episode, domain_orgs: Mapping[str, str], mentions: Mentions | None = None) -> FactSet:
    """Sources without structured rules yet: the episode still gets its author as a mention."""
    b = FactBuilder()
    b.entity(person_entity(episode.group_id, episode.actor, episode.source))
    return b.result()


# The public entry: callers import the model and the entity constructors from here too.
__all__ = [
    "EntitySpec",
    "FactSpec",
    "FactSet",
    "Actor",
    "entity_uuid",
    "fact_uuid",
    "normalise_email",
    "person_key",
    "person_entity",
    "organisation_for",
    "organisation_entity",
    "reference_entity",
    "message_entity",
    "attachment_entity",
    "value_entity",
    "make_fact",
    "slot_key",
    "no_facts",
    "merge_factsets",
    "Extractor",
    "ENTITY_NAMESPACE",
    "FACT_NAMESPACE",
    "AttrValue",
    "better_entity",
    "merge_fact",
    "reference_target",
    "titled_page",
    "PUBLIC_MAIL_DOMAINS",
    "REFERENCE_KINDS",
    "DEFAULT_REFERENCE_KIND",
    "NAME_MENTIONS",
    "VALUE_REFERENCES",
    "add_reference_facts",
    "add_employers",
    "Mentions",
]
