"""Structured facts from Jira records: field histories as bi-temporal single-valued slots, links, parent/epic, mentions.

Each tracked field (assignee, reporter, status, priority, resolution, fix version, sprint, due date) is a slot of the
issue: the value at creation (read back from the first change's 'from') holds from the created time, and every change
from the issue's own changelog starts a new fact at the change time; the writer ends the previous fact there. The
history travels in episode.metadata.fields (read through the typed view connectors/jira/fields.py), so the facts are a
pure function of the episode.
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

from connectors.jira.fields import JiraFields
from connectors.jira.spec import MENTIONS
from ground.episode import Episode
from ground.records import Actor, as_utc
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
    slot_key,
)

# slot -> (predicate, value label, sentence for a value, sentence for "no value" or None to skip)
SLOTS: dict[str, tuple[str, str, str, str | None]] = {
    "assignee": ("ASSIGNED_TO", "Person", "{issue} is assigned to {value}", "{issue} is unassigned"),
    "reporter": ("REPORTED_BY", "Person", "{issue} was reported by {value}", None),
    "status": ("HAS_STATUS", "Status", "{issue} has status {value}", None),
    "priority": ("HAS_PRIORITY", "Priority", "{issue} has priority {value}", None),
    "resolution": ("HAS_RESOLUTION", "Resolution", "{issue} is resolved as {value}", "{issue} is unresolved"),
    "fix_version": (
        "HAS_FIX_VERSION",
        "Version",
        "{issue} is planned for fix version {value}",
        "{issue} has no fix version",
    ),
    "sprint": ("IN_SPRINT", "Sprint", "{issue} is in sprint {value}", "{issue} is in no sprint"),
    "due_date": ("DUE_ON", "Date", "{issue} is due on {value}", "{issue} has no due date"),
}
NONE = object()


def _time(value: Any) -> dt.datetime | None:
    if not value:
        return None
    try:
        return as_utc(dt.datetime.fromisoformat(str(value)))
    except ValueError:
        return None


def _actor(p: Mapping[str, Any] | None) -> Actor | None:
    if not p or not p.get("id"):
        return None
    return Actor(type="human", id=str(p["id"]), name=p.get("name"), email=p.get("email"))


def _value(slot: str, change: Mapping[str, Any], side: str) -> Any:
    """The value on one side ('from'/'to') of a change: a person dict, a string, or NONE."""
    if slot in ("assignee", "reporter"):
        return change.get(f"{side}_person") or NONE
    text = change.get(f"{side}_string") or (change.get(side) if slot == "due_date" else None)
    if not text:
        return NONE
    text = str(text)
    if slot == "sprint":
        text = text.split(",")[-1].strip()
    if slot == "due_date":
        text = text[:10]
    return text or NONE


def _current(slot: str, fields: JiraFields) -> Any:
    if slot == "fix_version":
        return fields.fix_versions[-1] if fields.fix_versions else NONE
    if slot == "sprint":
        return fields.sprints[-1] if fields.sprints else NONE
    return getattr(fields, slot) or NONE  # assignee, reporter (a person), status, priority, resolution, due_date


def slot_timeline(slot: str, fields: JiraFields) -> list[tuple[dt.datetime, Any]]:
    """[(valid_at, value)] of one slot: the creation value, then one entry per change (NONE = cleared)."""
    created = _time(fields.created)
    changes = [c for c in fields.history if c.get("slot") == slot and _time(c.get("at"))]
    timeline: list[tuple[dt.datetime, Any]] = []
    if changes:
        first = _value(slot, changes[0], "from")
        if first is not NONE and created is not None and created < _time(changes[0]["at"]):
            timeline.append((created, first))
        for change in changes:
            timeline.append((_time(change["at"]), _value(slot, change, "to")))
    else:
        value = _current(slot, fields)
        if value is not NONE:
            start = created
            if slot in ("status", "resolution") and fields.resolution:
                start = _time(fields.resolved) or created  # without history: resolved when it was resolved
            if start is not None:
                timeline.append((start, value))
    return timeline


def _value_entity(g: str, slot: str, label: str, value: str) -> EntitySpec:
    key = f"jira-{slot}:{value.casefold()}"
    return EntitySpec(
        uuid=entity_uuid(g, key),
        key=key,
        label=label,
        name=value,
        summary=f"Jira {label.lower()} {value}",
        attributes={"key": key},
    )


def _none_entity(g: str, slot: str) -> EntitySpec:
    key = f"jira-{slot}:none"
    name = {"assignee": "Unassigned", "resolution": "Unresolved"}.get(slot, f"No {slot.replace('_', ' ')}")
    return EntitySpec(
        uuid=entity_uuid(g, key), key=key, label="Value", name=name, summary=name, attributes={"key": key}
    )


def _predicate(verb: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in verb.upper()).split()
    name = "_".join(words) or "LINKED_TO"
    return "RELATES_TO_ISSUE" if name == "RELATES_TO" else name


def jira_facts(episode: Episode, domain_orgs: Mapping[str, str], mentions: Mentions | None = None) -> FactSet:
    """`mentions`: what each source's reference namespace names (default: Jira's own)."""
    g, meta = episode.group_id, episode.metadata
    fields = JiraFields.of(meta.fields)
    eps = [episode.id]
    b = FactBuilder()
    when = episode.timestamp
    author = b.entity(person_entity(g, episode.actor, episode.source))
    people: list[tuple[EntitySpec, Any]] = [(author, episode.actor)]
    issue_key = fields.key_of(meta.thread_key, meta.source_key)
    issue_entity, _ = reference_entity(g, f"jira:issue:{issue_key}", MENTIONS)
    summary = fields.summary
    if meta.kind == "issue" and summary:
        issue_entity = issue_entity.model_copy(update={"summary": f"Jira issue {issue_key}: {summary}"})
    issue = b.entity(issue_entity)
    label = f"{issue_key} ({summary})" if summary else issue_key

    if meta.kind == "comment":
        b.fact(
            make_fact(
                g,
                author,
                "COMMENTED_ON",
                issue,
                f"{author.name} commented on {label} on {as_utc(when).date().isoformat()}",
                valid_at=when,
                episode_ids=eps,
                qualifier=meta.source_key,
            )
        )
        subject_text = f"A comment by {author.name} on {issue_key}"
    else:
        subject_text = label
        for slot, (predicate, value_label, sentence, none_sentence) in SLOTS.items():
            for valid_at, value in slot_timeline(slot, fields):
                if value is NONE:
                    if none_sentence is None:
                        continue
                    target = b.entity(_none_entity(g, slot))
                    text = none_sentence.format(issue=label)
                elif isinstance(value, dict):
                    actor = _actor(value)
                    if actor is None:
                        continue
                    target = b.entity(person_entity(g, actor, episode.source))
                    people.append((target, actor))
                    text = sentence.format(issue=label, value=target.name)
                else:
                    target = b.entity(_value_entity(g, slot, value_label, str(value)))
                    text = sentence.format(issue=label, value=target.name)
                b.fact(
                    make_fact(
                        g,
                        issue,
                        predicate,
                        target,
                        f"{text} (from {valid_at.date().isoformat()})",
                        valid_at=valid_at,
                        episode_ids=eps,
                        single_valued=slot_key(f"jira:issue:{issue_key}", predicate),
                    )
                )
        seen_at = meta.updated_at
        for link in fields.links:
            other, _ = reference_entity(g, f"jira:issue:{link.get('key')}", MENTIONS)
            other = b.entity(other)
            verb = str(link.get("verb") or "relates to")
            b.fact(
                make_fact(
                    g,
                    issue,
                    _predicate(verb),
                    other,
                    f"{issue_key} {verb} {other.name}",
                    valid_at=seen_at,
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )
        for relation, predicate, sentence in (
            ("parent", "PART_OF", "{issue} is part of {other}"),
            ("epic", "IN_EPIC", "{issue} belongs to the epic {other}"),
        ):
            other_key = getattr(fields, relation)
            if other_key and other_key != issue_key:
                other, _ = reference_entity(g, f"jira:issue:{other_key}", MENTIONS)
                other = b.entity(other)
                b.fact(
                    make_fact(
                        g,
                        issue,
                        predicate,
                        other,
                        sentence.format(issue=issue_key, other=other.name),
                        valid_at=seen_at,
                        episode_ids=eps,
                        keyed_by_time=False,
                    )
                )

    add_reference_facts(
        b,
        g,
        issue,
        episode.references,
        people,
        domain_orgs,
        lambda e: f"{subject_text} on {as_utc(when).date().isoformat()} mentions {e.name}",
        valid_at=when,
        episode_ids=eps,
        qualifier=meta.source_key,
        unconfirmed=meta.unconfirmed_names,
        mentions=mentions or MENTIONS,
        content=episode.content,
    )
    add_employers(b, g, people, domain_orgs, valid_at=when, episode_ids=eps)
    return b.result()


def issue_subject(episode: Episode, domain_orgs: Mapping[str, str]) -> tuple[EntitySpec, str]:
    """What a Jira episode is about, for an intent fact: its issue, named with its summary when known."""
    meta = episode.metadata
    fields = JiraFields.of(meta.fields)
    key = fields.key_of(meta.thread_key, meta.source_key)
    entity, _ = reference_entity(episode.group_id, f"jira:issue:{key}", MENTIONS)
    summary = fields.summary
    return entity, f"on {key} ({summary})" if summary else f"on {key}"
