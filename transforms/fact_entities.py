"""Entities a fact names, keyed so that every source agrees: people (by e-mail where known), organisations (by mail
domain or the configured map), referenced issues/pages/records/messages, messages and attachments."""

from collections.abc import Mapping
from typing import Any

from ground.fact_model import AttrValue, EntitySpec, entity_uuid
from ground.identity import normalise_email
from ground.records import Actor
from ground.source_traits import MentionKind

# Mail domains that say nothing about an employer.
PUBLIC_MAIL_DOMAINS = frozenset(
    {
        "gmail.com",
        "googlemail.com",
        "outlook.com",
        "hotmail.com",
        "live.com",
        "yahoo.com",
        "icloud.com",
        "me.com",
        "aol.com",
        "gmx.de",
        "gmx.net",
        "web.de",
        "proton.me",
        "protonmail.com",
        "mail.com",
    }
)

# Canonical reference id prefix -> (entity label, predicate used when an episode names it). A source's own namespace
# (jira:, confluence:, salesforce:, email:) is not here: each source declares it (SourceTraits.mention) and callers
# pass those as `mentions` (connectors.registry.mention_kinds()).
REFERENCE_KINDS: dict[str, tuple[str, str]] = {
    "issue": ("Issue", "MENTIONS_ISSUE"),
    "doc": ("Document", "MENTIONS_DOCUMENT"),
    "document": ("Document", "MENTIONS_DOCUMENT"),
    "url": ("Document", "MENTIONS_DOCUMENT"),
    "opportunity": ("Opportunity", "MENTIONS_OPPORTUNITY"),
    "sfdc": ("Opportunity", "MENTIONS_OPPORTUNITY"),
    "message": ("Message", "MENTIONS_MESSAGE"),
    "msg": ("Message", "MENTIONS_MESSAGE"),
    "attachment": ("Attachment", "MENTIONS_ATTACHMENT"),
}
Mentions = Mapping[str, MentionKind]  # a source's reference namespace (its name) -> the node its ids name
DEFAULT_REFERENCE_KIND = ("Document", "MENTIONS_DOCUMENT")


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
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label="Person",
        name=name,
        summary=f"{summary}, {kind}",
        attributes=attributes,
    )


def organisation_for(email: str | None, domain_orgs: Mapping[str, str]) -> tuple[str, str] | None:
    """(key, display name) of the employer a mail address implies, via the configured map or the domain itself."""
    if not email:
        return None
    domain = email.rsplit("@", 1)[1]
    parts = domain.split(".")
    for i in range(len(parts) - 1):  # sales.acme.example -> acme.example
        candidate = ".".join(parts[i:])
        if candidate in domain_orgs:
            return f"org:{candidate}", domain_orgs[candidate]
    if domain in PUBLIC_MAIL_DOMAINS:
        return None
    return f"org:{domain}", domain


def organisation_entity(group_id: str, key: str, name: str) -> EntitySpec:
    domain = key.split(":", 1)[1]
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label="Organization",
        name=name,
        summary=f"Organisation {name} (mail domain {domain})",
        attributes={"key": key, "domain": domain},
    )


def reference_entity(group_id: str, ref: str, mentions: Mentions) -> tuple[EntitySpec, str]:
    """Entity for a canonical reference id (jira:PHX-42, confluence:123, salesforce:006X, email:<id>) + its predicate;
    `mentions` says what a source's namespace names."""
    prefix = ref.split(":", 1)[0].lower() if ":" in ref else ""
    source = mentions.get(prefix)
    label, predicate = (
        (source.label, source.relation) if source else REFERENCE_KINDS.get(prefix, DEFAULT_REFERENCE_KIND)
    )
    known = source is not None or prefix in REFERENCE_KINDS
    name = ref.split(":", 1)[1] if known and prefix != "url" else ref
    kind, _, ident = name.partition(":")  # jira:issue:NW-101, confluence:page:131073@v7, salesforce:Opportunity:006...
    if source is not None and source.typed and ident:
        label = kind[:1].upper() + kind[1:] if kind.isalnum() else "Record"
        predicate, name = f"MENTIONS_{label.upper()}", ident
    elif kind in ("issue", "page", "sha256", "name") and ident:
        name = ident
    key = f"ref:{ref}"
    return (
        EntitySpec(
            uuid=entity_uuid(group_id, key),
            key=key,
            label=label,
            name=name,
            summary=f"{label} {ref}",
            attributes={"key": key, "reference": ref},
        ),
        predicate,
    )


def titled_page(entity: EntitySpec, page_id: str, title: str, kind: str = "page") -> EntitySpec:
    """A Confluence page's node (reference_entity of confluence:page:<id>) named by its title."""
    return entity.model_copy(
        update={
            "name": title,
            "summary": f"Confluence {kind} '{title}' ({page_id})",
            "attributes": {**entity.attributes, "title": title},
        }
    )


# Names found in prose (NER): the episode mentions the node, but "the mail mentions X" is no fact worth an edge.
NAME_MENTIONS = ("MENTIONS_PERSON", "MENTIONS_ORGANIZATION")
# Reference kinds that are values, not things: they stay on the Episodic node's `references`, never become entities.
# A version too: "3.5.2" without its product would join unrelated releases, and one with its product is still a value
# of that product (episodes search finds it by its id, version:<product>/<version>).
VALUE_REFERENCES = ("date:", "money:", "version:")


def reference_target(
    group_id: str,
    ref: str,
    people: list[tuple["EntitySpec", Any]],
    domain_orgs: Mapping[str, str],
    new_names: bool = True,
    *,
    mentions: Mentions,
) -> tuple["EntitySpec", str] | None:
    """The entity a reference names and the predicate that links a message to it.

    People and organisations named in text resolve to the nodes mail headers already made (a person's display name,
    an organisation from the domain map), so "Priya Raman" in a body and priya.raman@acme.example are one node.
    With new_names=False a name that resolves to no known party gives None: it stays a reference on the episode.
    """
    if ref.startswith(VALUE_REFERENCES):
        return None
    kind, _, rest = ref.partition(":")
    if kind == "email_address":
        actor = Actor(type="human", id=rest, email=rest)
        return person_entity(group_id, actor, "reference"), "MENTIONS_PERSON"
    if kind == "person":
        for entity, _actor in people:
            if entity.name.casefold() == rest:
                return entity, "MENTIONS_PERSON"
        if not new_names:
            return None
        key = f"person-name:{rest}"
        return (
            EntitySpec(
                uuid=entity_uuid(group_id, key),
                key=key,
                label="Person",
                name=rest.title(),
                summary=f"{rest.title()}, named in text",
                attributes={"key": key},
            ),
            "MENTIONS_PERSON",
        )
    if kind == "org":
        for domain, name in domain_orgs.items():
            if name.casefold() == rest or name.casefold().split()[0] == rest:
                return organisation_entity(group_id, f"org:{domain}", name), "MENTIONS_ORGANIZATION"
        if not new_names:
            return None
        key = f"org-name:{rest}"
        return (
            EntitySpec(
                uuid=entity_uuid(group_id, key),
                key=key,
                label="Organization",
                name=rest.title(),
                summary=f"Organisation {rest.title()}, named in text",
                attributes={"key": key},
            ),
            "MENTIONS_ORGANIZATION",
        )
    return reference_entity(group_id, ref, mentions)


def message_entity(group_id: str, source: str, source_key: str, title: str) -> EntitySpec:
    key = f"ref:{source}:{source_key}"
    name = title.strip() or source_key
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label="Message",
        name=name,
        summary=f"Message {source_key}",
        attributes={"key": key, "reference": f"{source}:{source_key}"},
    )


def attachment_entity(group_id: str, attachment: Any, owner_key: str) -> EntitySpec:
    """Same bytes (sha256) are one Attachment wherever they were sent; without a hash, one per message and name."""
    key = f"attachment:{attachment.sha256}" if attachment.sha256 else f"attachment:{owner_key}/{attachment.name}"
    attributes: dict[str, AttrValue] = {"key": key, "file_name": attachment.name}
    if attachment.size is not None:
        attributes["size"] = attachment.size
    if attachment.media_type:
        attributes["media_type"] = attachment.media_type
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label="Attachment",
        name=attachment.name,
        summary=f"Attachment {attachment.name}",
        attributes=attributes,
    )


def value_entity(group_id: str, label: str, value: str) -> EntitySpec:
    """A literal value (a date, an amount, a stage) as a node, keyed by kind and value only, so the CRM's close date and
    a date written in a mail are one node."""
    key = f"value:{label.lower()}:{value}"
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label=label,
        name=value,
        summary=f"{label} {value}",
        attributes={"key": key},
    )
