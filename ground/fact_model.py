"""The fact model: entities, facts and FactSets with deterministic uuids, and the union of FactSets.

The model of what an episode says, in ground/ with the Episode: the graph sink reads it, the extractors in
transforms/ build it (transforms/facts.py: the builder helpers; transforms/fact_entities.py: the entity constructors)."""

import datetime as dt
import re
import uuid
from collections.abc import Callable, Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ground.episode import Episode
from ground.records import as_utc

# Fixed namespaces: changing them would re-key every entity/fact ever written.
ENTITY_NAMESPACE = uuid.UUID("0b6f7f53-5f0e-5a53-8f4c-2f1d4b6c7a10")
FACT_NAMESPACE = uuid.UUID("7d2e9c41-8a3b-5e6f-9c1d-3b4a5f6e7d21")

Scalar = str | int | float | bool
AttrValue = Scalar | list[str]


class EntitySpec(BaseModel):
    """One entity node. key is the readable identity (person:dana@acme.example); uuid derives from group + key."""

    model_config = ConfigDict(frozen=True)

    uuid: str
    key: str
    label: str  # Person, Organization, Document, Issue, Opportunity, Attachment, Message
    name: str
    summary: str = ""
    attributes: dict[str, AttrValue] = Field(default_factory=dict)


class FactSpec(BaseModel):
    """One fact (a RELATES_TO edge). valid_at/invalid_at are world time from the source's own timestamps.

    single_valued names a slot ("org:acme.example|HAS_CONTACT") where only one object holds at a time: a newer fact in the
    slot ends the older one. A fact may carry no episode of its own (a field change from a history table) as long as it
    has a valid_at (= the change time).
    """

    model_config = ConfigDict(frozen=True)

    uuid: str
    subject: str  # entity uuid
    predicate: str  # SENT, SENT_TO, CC, REPLIED_TO, HAS_ATTACHMENT, WORKS_AT, HAS_CONTACT...
    object: str  # entity uuid
    fact: str
    valid_at: dt.datetime | None = None
    invalid_at: dt.datetime | None = None
    episode_ids: list[str] = Field(default_factory=list)
    single_valued: str | None = None
    attributes: dict[str, AttrValue] = Field(default_factory=dict)

    @field_validator("valid_at", "invalid_at")
    @classmethod
    def _utc(cls, value: dt.datetime | None) -> dt.datetime | None:
        return as_utc(value) if value is not None else None


class FactSet(BaseModel):
    entities: list[EntitySpec] = Field(default_factory=list)
    facts: list[FactSpec] = Field(default_factory=list)
    mentions: list[str] = Field(default_factory=list)  # entity uuids the episode mentions (MENTIONS edges)


def entity_uuid(group_id: str, key: str) -> str:
    return str(uuid.uuid5(ENTITY_NAMESPACE, f"{group_id}\x1f{key}"))


def fact_uuid(
    group_id: str,
    subject: str,
    predicate: str,
    obj: str,
    valid_at: dt.datetime | None,
    single_valued: str | None = None,
    qualifier: str = "",
) -> str:
    """Same slot/subject/predicate/object/valid_at -> same edge, so a rerun MERGEs instead of duplicating.

    qualifier separates two events that share all of those (two mails between the same people in the same second).
    """
    when = as_utc(valid_at).isoformat() if valid_at is not None else ""
    name = "\x1f".join((group_id, single_valued or "", subject, predicate, obj, when, qualifier))
    return str(uuid.uuid5(FACT_NAMESPACE, name))


def make_fact(
    group_id: str,
    subject: EntitySpec,
    predicate: str,
    obj: EntitySpec,
    fact: str,
    *,
    valid_at: dt.datetime | None,
    episode_ids: list[str],
    invalid_at: dt.datetime | None = None,
    single_valued: str | None = None,
    qualifier: str = "",
    keyed_by_time: bool = True,
    attributes: Mapping[str, AttrValue] | None = None,
) -> FactSpec:
    """keyed_by_time=False: a standing relation (WORKS_AT) is one edge however often it is seen."""
    key_time = valid_at if keyed_by_time else None
    return FactSpec(
        uuid=fact_uuid(group_id, subject.uuid, predicate, obj.uuid, key_time, single_valued, qualifier),
        subject=subject.uuid,
        predicate=predicate,
        object=obj.uuid,
        fact=fact,
        valid_at=valid_at,
        invalid_at=invalid_at,
        episode_ids=sorted(set(episode_ids)),
        single_valued=single_valued,
        attributes=dict(attributes or {}),
    )


def slot_key(subject_key: str, predicate: str) -> str:
    """The single-valued slot of a subject: org:acme.example|HAS_CONTACT."""
    return f"{subject_key}|{predicate}"


Extractor = Callable[[Episode, Mapping[str, str]], FactSet]


def merge_factsets(parts: list[FactSet]) -> FactSet:
    """Union by uuid; a fact seen twice keeps the union of its episodes and the earliest valid_at."""
    entities: dict[str, EntitySpec] = {}
    facts: dict[str, FactSpec] = {}
    mentions: list[str] = []
    for part in parts:
        for entity in part.entities:
            entities[entity.uuid] = better_entity(entities.get(entity.uuid), entity)
        for fact in part.facts:
            old = facts.get(fact.uuid)
            facts[fact.uuid] = fact if old is None else merge_fact(old, fact)
        for m in part.mentions:
            if m not in mentions:
                mentions.append(m)
    return FactSet(entities=list(entities.values()), facts=list(facts.values()), mentions=mentions)


_BARE_DOMAIN = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")


def name_rank(name: str) -> tuple[bool, bool, str]:
    """How good a display name is: a real name beats a bare mail address, which beats nothing; a real name also beats a
    bare mail domain ("Fjordline Logistics" from the CRM over "fjordline.example" from a sender's address, whatever the
    case of their first letters); remaining ties by the name itself, so the choice never depends on arrival order."""
    return ("@" not in name, not _BARE_DOMAIN.match(name), name)


def better_entity(old: EntitySpec | None, new: EntitySpec) -> EntitySpec:
    """Order-independent choice between two sightings: a real name beats a bare address; ties by name."""
    if old is None:
        return new
    winner, other = (old, new) if name_rank(old.name) >= name_rank(new.name) else (new, old)
    return winner.model_copy(update={"attributes": {**other.attributes, **winner.attributes}})


def merge_fact(old: FactSpec, new: FactSpec) -> FactSpec:
    valid = [v for v in (old.valid_at, new.valid_at) if v is not None]
    invalid = [v for v in (old.invalid_at, new.invalid_at) if v is not None]
    winner = (
        old
        if (old.valid_at or dt.datetime.max.replace(tzinfo=dt.UTC))
        <= (new.valid_at or dt.datetime.max.replace(tzinfo=dt.UTC))
        else new
    )
    return winner.model_copy(
        update={
            "valid_at": min(valid) if valid else None,
            "invalid_at": min(invalid) if invalid else None,
            "episode_ids": sorted(set(old.episode_ids) | set(new.episode_ids)),
        }
    )
