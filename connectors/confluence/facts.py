"""Structured facts of a Confluence episode: page PART_OF parent, IN_SPACE space, author, last editor, owner, links.

Single-valued slots (a page has one parent, one space, one last editor and one owner at a time) carry valid_at = the
version's own save time, so each page version re-states them and the writer ends the previous holder.
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

from connectors.confluence.spec import MENTIONS
from ground.episode import Episode
from ground.records import Actor
from transforms.facts import (
    EntitySpec,
    FactBuilder,
    FactSet,
    Mentions,
    add_employers,
    add_reference_facts,
    entity_uuid,
    make_fact,
    person_entity,
    reference_entity,
    reference_target,
    slot_key,
    titled_page,
)

# Keys whose plain-text value names a person (resolved by name when no user link or mailto says who).
PERSON_KEYS = frozenset(
    {
        "owner",
        "page owner",
        "document owner",
        "doc owner",
        "driver",
        "approver",
        "reviewer",
        "assignee",
        "author",
        "lead",
        "contact",
        "responsible",
        "accountable",
        "sponsor",
    }
)
PROPERTY_LABELS = {"date": "Date", "status": "Status", "text": "Value", "person": "Value"}


def page_entity(group_id: str, page_id: str, title: str = "", kind: str = "page") -> EntitySpec:
    """The same node a text reference confluence:page:<id> resolves to, named by its title when known."""
    entity, _ = reference_entity(group_id, f"confluence:page:{page_id}", MENTIONS)
    return titled_page(entity, page_id, title, kind) if title else entity


def space_entity(group_id: str, key: str, name: str | None) -> EntitySpec:
    ekey = f"confluence-space:{key}"
    shown = name or key
    return EntitySpec(
        uuid=entity_uuid(group_id, ekey),
        key=ekey,
        label="Space",
        name=shown,
        summary=f"Confluence space {shown} ({key})",
        attributes={"key": ekey, "space_key": key},
    )


def _person(group_id: str, value: Any) -> tuple[EntitySpec, Actor] | None:
    if not isinstance(value, Mapping) or not value.get("id"):
        return None
    actor = Actor(type="human", id=str(value["id"]), name=value.get("name") or None, email=value.get("email") or None)
    return person_entity(group_id, actor, "confluence"), actor


def _time(value: Any, fallback: dt.datetime) -> dt.datetime:
    if isinstance(value, str) and value:
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            pass
    return fallback


def property_value_entity(group_id: str, kind: str, value: str) -> EntitySpec:
    key = f"confluence-{kind}:{value.casefold()}"
    label = PROPERTY_LABELS.get(kind, "Value")
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label=label,
        name=value,
        summary=f"{label} {value}",
        attributes={"key": key},
    )


def add_page_properties(
    b: FactBuilder,
    g: str,
    page: EntitySpec,
    rows: list,
    people: list,
    domain_orgs: Mapping[str, str],
    when: dt.datetime,
    eps: list[str],
) -> None:
    """Each page-properties row -> one single-valued fact of the page, valid from this version's time.

    Slot per normalised key; a later version with another value ends it (the slot chain), and so does a later
    version whose table no longer has the key: every fact names its family (the page's properties) and the keys
    its version stated, so the writer can end a slot the next version left out.
    """
    page_slot = page.key  # ref:confluence:page:<id>, as the other page slots
    family = slot_key(page_slot, "PAGE_PROPERTIES")
    rows = [r for r in rows if isinstance(r, Mapping) and r.get("slot") and r.get("value")]
    stated = sorted(slot_key(page_slot, f"PROPERTY:{r['slot']}") for r in rows)
    for row in rows:
        value, kind = str(row["value"]), str(row.get("kind") or "text")
        persons = [p for p in (_person(g, x) for x in row.get("people") or []) if p]
        for person in persons:
            people.append(person)
        if len(persons) == 1:
            target = b.entity(persons[0][0])
            value = target.name
        else:
            for person in persons:
                b.entity(person[0])
            found = None
            if not persons and row["slot"] in PERSON_KEYS:
                found = reference_target(g, f"person:{value.casefold()}", people, domain_orgs, mentions=MENTIONS)
            target = b.entity(found[0] if found else property_value_entity(g, kind, value))
        key = " ".join(str(row.get("key") or row["slot"]).split()).rstrip(":").rstrip()
        slot = slot_key(page_slot, f"PROPERTY:{row['slot']}")
        b.fact(
            make_fact(
                g,
                page,
                "HAS_PROPERTY",
                target,
                f"{key} of '{page.name}' is {value}",
                valid_at=when,
                episode_ids=eps,
                single_valued=slot,
                attributes={
                    "property": key,
                    "property_key": row["slot"],
                    "value": value,
                    "slot_family": family,
                    "family_slots": stated,
                },
            )
        )


def confluence_facts(episode: Episode, domain_orgs: Mapping[str, str], mentions: Mentions | None = None) -> FactSet:
    g, meta = episode.group_id, episode.metadata
    f = meta.fields or {}
    when = _time(f.get("version_at"), episode.timestamp)
    eps = [episode.id]
    b = FactBuilder()
    kind = str(f.get("content_type") or meta.kind)
    version = f.get("version") or meta.version
    people: list[tuple[EntitySpec, Any]] = []

    if kind == "comment":
        page_id = f.get("page_id") or meta.parent_key
        comment = b.entity(
            reference_entity(g, f"confluence:comment:{meta.source_key}", MENTIONS)[0].model_copy(
                update={"label": "Comment", "name": meta.title or f"Comment {meta.source_key}"}
            )
        )
        author = _person(g, {"id": episode.actor.id, "name": episode.actor.name, "email": episode.actor.email})
        if author:
            person = b.entity(author[0])
            people.append(author)
            b.fact(
                make_fact(
                    g,
                    person,
                    "COMMENTED",
                    comment,
                    f"{person.name} commented on '{f.get('page_title') or page_id}' on {when.date().isoformat()}",
                    valid_at=when,
                    episode_ids=eps,
                    qualifier=meta.source_key,
                )
            )
        if page_id:
            page = b.entity(page_entity(g, str(page_id), f.get("page_title") or ""))
            where = "an inline comment" if f.get("location") == "inline" else "a comment"
            b.fact(
                make_fact(
                    g,
                    comment,
                    "COMMENT_ON",
                    page,
                    f"{where.capitalize()} by {episode.actor.name or episode.actor.id} is on '{page.name}'",
                    valid_at=when,
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )
        subject = comment
        subject_name = f"a comment on '{f.get('page_title') or page_id}'"
    else:
        page = b.entity(page_entity(g, meta.source_key, meta.title, kind))
        subject, subject_name = page, f"'{page.name}'"
        page_slot = f"ref:confluence:page:{meta.source_key}"
        space_key = f.get("space_key")
        if space_key:
            space = b.entity(space_entity(g, str(space_key), f.get("space_name")))
            b.fact(
                make_fact(
                    g,
                    page,
                    "IN_SPACE",
                    space,
                    f"{page.name} is in the Confluence space {space.name}",
                    valid_at=when,
                    episode_ids=eps,
                    single_valued=slot_key(page_slot, "IN_SPACE"),
                )
            )
        ancestors = f.get("ancestors") or []
        if ancestors and isinstance(ancestors[-1], Mapping) and ancestors[-1].get("id"):
            parent = b.entity(page_entity(g, str(ancestors[-1]["id"]), str(ancestors[-1].get("title") or "")))
            b.fact(
                make_fact(
                    g,
                    page,
                    "PART_OF",
                    parent,
                    f"{page.name} is part of {parent.name}",
                    valid_at=when,
                    episode_ids=eps,
                    single_valued=slot_key(page_slot, "PART_OF"),
                )
            )
        for child in f.get("children") or []:  # a saved children listing: the same edge the child states
            if isinstance(child, Mapping) and child.get("id"):
                sub = b.entity(page_entity(g, str(child["id"]), str(child.get("title") or "")))
                b.fact(
                    make_fact(
                        g,
                        sub,
                        "PART_OF",
                        page,
                        f"{sub.name} is part of {page.name}",
                        valid_at=when,
                        episode_ids=eps,
                        single_valued=slot_key(sub.key, "PART_OF"),
                    )
                )
        author = _person(g, f.get("author"))
        if author:
            person = b.entity(author[0])
            people.append(author)
            b.fact(
                make_fact(
                    g,
                    page,
                    "CREATED_BY",
                    person,
                    f"{page.name} was created by {person.name}",
                    valid_at=_time(f.get("created_at"), when),
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )
        editor = _person(g, f.get("last_editor"))
        if editor:
            person = b.entity(editor[0])
            people.append(editor)
            b.fact(
                make_fact(
                    g,
                    page,
                    "LAST_EDITED_BY",
                    person,
                    f"{page.name} was last edited by {person.name} (version {version}, {when.date().isoformat()})",
                    valid_at=when,
                    episode_ids=eps,
                    single_valued=slot_key(page_slot, "LAST_EDITED_BY"),
                )
            )
        owner = _person(g, f.get("owner"))
        if owner:
            person = b.entity(owner[0])
            people.append(owner)
            b.fact(
                make_fact(
                    g,
                    page,
                    "OWNED_BY",
                    person,
                    f"{page.name} is owned by {person.name} (version {version}, {when.date().isoformat()})",
                    valid_at=when,
                    episode_ids=eps,
                    single_valued=slot_key(page_slot, "OWNED_BY"),
                )
            )
        add_page_properties(b, g, page, f.get("page_properties") or [], people, domain_orgs, when, eps)
        for att in f.get("attachments") or []:
            if not isinstance(att, Mapping) or not att.get("name"):
                continue
            entity, _ = reference_entity(g, f"attachment:name:{att['name']}", MENTIONS)
            extra = {
                k: v
                for k, v in (("media_type", att.get("media_type")), ("version", att.get("version")))
                if v is not None
            }
            entity = b.entity(
                entity.model_copy(
                    update={
                        "label": "Attachment",
                        "name": str(att["name"]),
                        "attributes": {**entity.attributes, **extra},
                    }
                )
            )
            b.fact(
                make_fact(
                    g,
                    page,
                    "HAS_ATTACHMENT",
                    entity,
                    f"{page.name} has the attachment {entity.name}",
                    valid_at=when,
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )

    for mention in f.get("mentions") or []:
        found = _person(g, mention)
        if found:
            person = b.entity(found[0])
            b.fact(
                make_fact(
                    g,
                    subject,
                    "MENTIONS_PERSON",
                    person,
                    f"{subject_name} mentions {person.name}",
                    valid_at=when,
                    episode_ids=eps,
                )
            )
    refs = set(episode.references) | set(f.get("references") or [])
    if kind != "comment":
        refs = {r for r in refs if not r.startswith("attachment:")}  # already HAS_ATTACHMENT
    add_reference_facts(
        b,
        g,
        subject,
        refs,
        people,
        domain_orgs,
        lambda e: f"{subject_name} links to {e.name}",
        valid_at=when,
        episode_ids=eps,
        unconfirmed=episode.metadata.unconfirmed_names,
        mentions=mentions or MENTIONS,
        content=episode.content,
    )
    add_employers(b, g, people, domain_orgs, valid_at=when, episode_ids=eps)
    return b.result()


def page_subject(episode: Episode, domain_orgs: Mapping[str, str]) -> tuple[EntitySpec, str]:
    """What a Confluence episode is about, for an intent fact: its page (a comment's is the page it is on)."""
    g, meta = episode.group_id, episode.metadata
    fields = meta.fields or {}
    kind = str(fields.get("content_type") or meta.kind)
    if kind == "comment":
        page_id = str(fields.get("page_id") or meta.parent_key or meta.source_key)
        entity = page_entity(g, page_id, str(fields.get("page_title") or ""))
    else:
        entity = page_entity(g, meta.source_key, meta.title, kind)
    return entity, f"in '{entity.name}'"
