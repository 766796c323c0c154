"""Structured facts from system-of-record fields: no LLM, deterministic ids.

An Episode becomes a FactSet: the entities it names (people, organisations, referenced documents/issues/...), the facts
between them, and the entity uuids it mentions. Every uuid is a uuid5 of the group and a readable key, so the same person
seen in mail, Jira and Salesforce (same normalised email) is one node, and a rerun re-keys nothing.
"""

import datetime as dt
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ground.identity import normalise_email
from ground.records import as_utc
from transforms.episode import Episode, EpisodeActor

# Fixed namespaces: changing them would re-key every entity/fact ever written.
ENTITY_NAMESPACE = uuid.UUID("0b6f7f53-5f0e-5a53-8f4c-2f1d4b6c7a10")
FACT_NAMESPACE = uuid.UUID("7d2e9c41-8a3b-5e6f-9c1d-3b4a5f6e7d21")

# Mail domains that say nothing about an employer.
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "yahoo.com", "icloud.com", "me.com",
    "aol.com", "gmx.de", "gmx.net", "web.de", "proton.me", "protonmail.com", "mail.com",
})

# Canonical reference id prefix -> (entity label, predicate used when an episode names it).
REFERENCE_KINDS: dict[str, tuple[str, str]] = {
    "jira": ("Issue", "MENTIONS_ISSUE"),
    "issue": ("Issue", "MENTIONS_ISSUE"),
    "confluence": ("Document", "MENTIONS_DOCUMENT"),
    "doc": ("Document", "MENTIONS_DOCUMENT"),
    "document": ("Document", "MENTIONS_DOCUMENT"),
    "url": ("Document", "MENTIONS_DOCUMENT"),
    "salesforce": ("Opportunity", "MENTIONS_OPPORTUNITY"),
    "opportunity": ("Opportunity", "MENTIONS_OPPORTUNITY"),
    "sfdc": ("Opportunity", "MENTIONS_OPPORTUNITY"),
    "email": ("Message", "MENTIONS_MESSAGE"),
    "message": ("Message", "MENTIONS_MESSAGE"),
    "msg": ("Message", "MENTIONS_MESSAGE"),
    "attachment": ("Attachment", "MENTIONS_ATTACHMENT"),
}
DEFAULT_REFERENCE_KIND = ("Document", "MENTIONS_DOCUMENT")

Scalar = str | int | float | bool
AttrValue = Scalar | list[str]


class EntitySpec(BaseModel):
    """One entity node. key is the readable identity (person:dana@acme.example); uuid derives from group + key."""

    model_config = ConfigDict(frozen=True)

    uuid: str
    key: str
    label: str                                  # Person, Organization, Document, Issue, Opportunity, Attachment, Message
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
    subject: str                                # entity uuid
    predicate: str                              # SENT, SENT_TO, CC, REPLIED_TO, HAS_ATTACHMENT, WORKS_AT, HAS_CONTACT...
    object: str                                 # entity uuid
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
    mentions: list[str] = Field(default_factory=list)      # entity uuids the episode mentions (MENTIONS edges)


# ---------------------------------------------------------------- ids and builders


def entity_uuid(group_id: str, key: str) -> str:
    return str(uuid.uuid5(ENTITY_NAMESPACE, f"{group_id}\x1f{key}"))


def fact_uuid(group_id: str, subject: str, predicate: str, obj: str, valid_at: dt.datetime | None,
              single_valued: str | None = None, qualifier: str = "") -> str:
    """Same slot/subject/predicate/object/valid_at -> same edge, so a rerun MERGEs instead of duplicating.

    qualifier separates two events that share all of those (two mails between the same people in the same second).
    """
    when = as_utc(valid_at).isoformat() if valid_at is not None else ""
    name = "\x1f".join((group_id, single_valued or "", subject, predicate, obj, when, qualifier))
    return str(uuid.uuid5(FACT_NAMESPACE, name))


def person_key(actor: Any, source: str) -> str:
    """person:<email> where an email is known (cross-source identity), else person:<source>:<id>."""
    email = normalise_email(getattr(actor, "email", None)) or normalise_email(getattr(actor, "id", None))
    if email:
        return f"person:{email}"
    return f"person:{source}:{actor.id}"


def person_entity(group_id: str, actor: Any, source: str) -> EntitySpec:
    key = person_key(actor, source)
    email = normalise_email(getattr(actor, "email", None)) or normalise_email(getattr(actor, "id", None))
    name = (getattr(actor, "name", None) or "").strip() or email or str(actor.id)
    attributes: dict[str, AttrValue] = {"key": key}
    if email:
        attributes["email"] = email
    kind = "system account" if getattr(actor, "type", "human") == "system" else "person"
    summary = f"{name} ({email})" if email and email != name else name
    return EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Person", name=name,
                      summary=f"{summary}, {kind}", attributes=attributes)


def organisation_for(email: str | None, domain_orgs: Mapping[str, str]) -> tuple[str, str] | None:
    """(key, display name) of the employer a mail address implies, via the configured map or the domain itself."""
    if not email:
        return None
    domain = email.rsplit("@", 1)[1]
    parts = domain.split(".")
    for i in range(len(parts) - 1):                    # sales.acme.example -> acme.example
        candidate = ".".join(parts[i:])
        if candidate in domain_orgs:
            return f"org:{candidate}", domain_orgs[candidate]
    if domain in PUBLIC_MAIL_DOMAINS:
        return None
    return f"org:{domain}", domain


def organisation_entity(group_id: str, key: str, name: str) -> EntitySpec:
    domain = key.split(":", 1)[1]
    return EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Organization", name=name,
                      summary=f"Organisation {name} (mail domain {domain})", attributes={"key": key, "domain": domain})


def reference_entity(group_id: str, ref: str) -> tuple[EntitySpec, str]:
    """Entity for a canonical reference id (jira:PHX-42, confluence:123, salesforce:006X, email:<id>) + its predicate."""
    prefix = ref.split(":", 1)[0].lower() if ":" in ref else ""
    label, predicate = REFERENCE_KINDS.get(prefix, DEFAULT_REFERENCE_KIND)
    name = ref.split(":", 1)[1] if prefix in REFERENCE_KINDS and prefix != "url" else ref
    kind, _, ident = name.partition(":")           # jira:issue:NW-101, confluence:page:131073@v7, salesforce:Opportunity:006...
    if prefix == "salesforce" and ident:
        label = kind[:1].upper() + kind[1:] if kind.isalnum() else "Record"
        predicate, name = f"MENTIONS_{label.upper()}", ident
    elif kind in ("issue", "page", "sha256", "name") and ident:
        name = ident
    key = f"ref:{ref}"
    return (EntitySpec(uuid=entity_uuid(group_id, key), key=key, label=label, name=name,
                       summary=f"{label} {ref}", attributes={"key": key, "reference": ref}), predicate)


# Names found in prose (NER): the episode mentions the node, but "the mail mentions X" is no fact worth an edge.
NAME_MENTIONS = ("MENTIONS_PERSON", "MENTIONS_ORGANIZATION")
# Reference kinds that are values, not things: they stay on the Episodic node's `references`, never become entities.
VALUE_REFERENCES = ("date:", "money:")


def reference_target(group_id: str, ref: str, people: list[tuple["EntitySpec", Any]],
                     domain_orgs: Mapping[str, str], new_names: bool = True) -> tuple["EntitySpec", str] | None:
    """The entity a reference names and the predicate that links a message to it.

    People and organisations named in text resolve to the nodes mail headers already made (a person's display name,
    an organisation from the domain map), so "Priya Raman" in a body and priya.raman@acme.example are one node.
    With new_names=False a name that resolves to no known party gives None: it stays a reference on the episode.
    """
    if ref.startswith(VALUE_REFERENCES):
        return None
    kind, _, rest = ref.partition(":")
    if kind == "email_address":
        actor = EpisodeActor(type="human", id=rest, email=rest)
        return person_entity(group_id, actor, "reference"), "MENTIONS_PERSON"
    if kind == "person":
        for entity, _actor in people:
            if entity.name.casefold() == rest:
                return entity, "MENTIONS_PERSON"
        if not new_names:
            return None
        key = f"person-name:{rest}"
        return (EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Person", name=rest.title(),
                           summary=f"{rest.title()}, named in text", attributes={"key": key}), "MENTIONS_PERSON")
    if kind == "org":
        for domain, name in domain_orgs.items():
            if name.casefold() == rest or name.casefold().split()[0] == rest:
                return organisation_entity(group_id, f"org:{domain}", name), "MENTIONS_ORGANIZATION"
        if not new_names:
            return None
        key = f"org-name:{rest}"
        return (EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Organization", name=rest.title(),
                           summary=f"Organisation {rest.title()}, named in text", attributes={"key": key}),
                "MENTIONS_ORGANIZATION")
    return reference_entity(group_id, ref)


def message_entity(group_id: str, source: str, source_key: str, title: str) -> EntitySpec:
    key = f"ref:{source}:{source_key}"
    name = title.strip() or source_key
    return EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Message", name=name,
                      summary=f"Message {source_key}", attributes={"key": key, "reference": f"{source}:{source_key}"})


def attachment_entity(group_id: str, attachment: Any, owner_key: str) -> EntitySpec:
    """Same bytes (sha256) are one Attachment wherever they were sent; without a hash, one per message and name."""
    key = f"attachment:{attachment.sha256}" if attachment.sha256 else f"attachment:{owner_key}/{attachment.name}"
    attributes: dict[str, AttrValue] = {"key": key, "file_name": attachment.name}
    if attachment.size is not None:
        attributes["size"] = attachment.size
    if attachment.media_type:
        attributes["media_type"] = attachment.media_type
    return EntitySpec(uuid=entity_uuid(group_id, key), key=key, label="Attachment", name=attachment.name,
                      summary=f"Attachment {attachment.name}", attributes=attributes)


def make_fact(group_id: str, subject: EntitySpec, predicate: str, obj: EntitySpec, fact: str, *,
              valid_at: dt.datetime | None, episode_ids: list[str], invalid_at: dt.datetime | None = None,
              single_valued: str | None = None, qualifier: str = "", keyed_by_time: bool = True,
              attributes: Mapping[str, AttrValue] | None = None) -> FactSpec:
    """keyed_by_time=False: a standing relation (WORKS_AT) is one edge however often it is seen."""
    key_time = valid_at if keyed_by_time else None
    return FactSpec(uuid=fact_uuid(group_id, subject.uuid, predicate, obj.uuid, key_time, single_valued, qualifier),
                    subject=subject.uuid, predicate=predicate, object=obj.uuid, fact=fact, valid_at=valid_at,
                    invalid_at=invalid_at, episode_ids=sorted(set(episode_ids)), single_valued=single_valued,
                    attributes=dict(attributes or {}))


def slot_key(subject_key: str, predicate: str) -> str:
    """The single-valued slot of a subject: org:acme.example|HAS_CONTACT."""
    return f"{subject_key}|{predicate}"


# ---------------------------------------------------------------- per-source extractors


class _Builder:
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


def add_reference_facts(b: "_Builder", group_id: str, subject: EntitySpec, references: Iterable[str],
                        people: list[tuple[EntitySpec, Any]], domain_orgs: Mapping[str, str],
                        sentence: Callable[[EntitySpec], str], *, valid_at: dt.datetime, episode_ids: list[str],
                        qualifier: str = "", unconfirmed: Iterable[str] = ()) -> None:
    """What a record names (issues, pages, opportunities, messages, attachments) as facts from its subject; people and
    organisations named in prose only as mentions of the episode: "X mentions Y" is no fact about the world.
    `unconfirmed` names (NER only, below the entity confidence) become mentions only of a known party's node."""
    weak = set(unconfirmed)
    for ref in sorted(set(references)):
        target = reference_target(group_id, ref, people, domain_orgs, new_names=ref not in weak)
        if target is None:
            continue
        entity, predicate = target
        if entity.uuid == subject.uuid:
            continue
        entity = b.entity(entity)
        if predicate in NAME_MENTIONS:
            continue
        b.fact(make_fact(group_id, subject, predicate, entity, sentence(entity), valid_at=valid_at,
                         episode_ids=episode_ids, qualifier=qualifier))


def add_employers(b: "_Builder", group_id: str, people: list[tuple[EntitySpec, Any]],
                  domain_orgs: Mapping[str, str], *, valid_at: dt.datetime, episode_ids: list[str]) -> None:
    """Person WORKS_AT the organisation their mail domain implies: one standing edge however often it is seen."""
    for person, actor in people:
        email = normalise_email(getattr(actor, "email", None)) or normalise_email(getattr(actor, "id", None))
        org = organisation_for(email, domain_orgs)
        if org is None:
            continue
        org_entity = b.entity(organisation_entity(group_id, *org))
        b.fact(make_fact(group_id, person, "WORKS_AT", org_entity, f"{person.name} works at {org_entity.name}",
                         valid_at=valid_at, episode_ids=episode_ids, keyed_by_time=False))


def no_facts(episode: Episode, domain_orgs: Mapping[str, str]) -> FactSet:
    """Sources without structured rules yet: the episode still gets its author as a mention."""
    b = _Builder()
    b.entity(person_entity(episode.group_id, episode.actor, episode.source))
    return b.result()


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


def _name_rank(entity: EntitySpec) -> tuple[bool, str]:
    return ("@" not in entity.name, entity.name)


def better_entity(old: EntitySpec | None, new: EntitySpec) -> EntitySpec:
    """Order-independent choice between two sightings: a real name beats a bare address; ties by name."""
    if old is None:
        return new
    winner, other = (old, new) if _name_rank(old) >= _name_rank(new) else (new, old)
    return winner.model_copy(update={"attributes": {**other.attributes, **winner.attributes}})


def merge_fact(old: FactSpec, new: FactSpec) -> FactSpec:
    valid = [v for v in (old.valid_at, new.valid_at) if v is not None]
    invalid = [v for v in (old.invalid_at, new.invalid_at) if v is not None]
    winner = old if (old.valid_at or dt.datetime.max.replace(tzinfo=dt.timezone.utc)) <= (
        new.valid_at or dt.datetime.max.replace(tzinfo=dt.timezone.utc)) else new
    return winner.model_copy(update={
        "valid_at": min(valid) if valid else None,
        "invalid_at": min(invalid) if invalid else None,
        "episode_ids": sorted(set(old.episode_ids) | set(new.episode_ids)),
    })


__all__ = [
    "EntitySpec", "FactSpec", "FactSet", "EpisodeActor", "entity_uuid", "fact_uuid", "normalise_email", "person_key",
    "person_entity", "organisation_for", "organisation_entity", "reference_entity", "message_entity",
    "attachment_entity", "make_fact", "slot_key", "no_facts", "merge_factsets", "Extractor",
]
