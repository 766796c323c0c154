"""Structured facts of a mail message: sender, recipients (to/cc/bcc), thread, attachments, references, employers.

Generic to mail-shaped episodes: the e-mail source's extractor, and the one Salesforce e-mail activities reuse (a
source package never imports another source package, so the shared rule lives here).
"""

from collections.abc import Mapping
from typing import Any

from ground.episode import Episode
from transforms.facts import (
    EntitySpec,
    FactBuilder,
    FactSet,
    Mentions,
    _day,
    _label,
    add_employers,
    add_reference_facts,
    attachment_entity,
    make_fact,
    message_entity,
    person_entity,
)


def email_facts(episode: Episode, domain_orgs: Mapping[str, str], mentions: Mentions | None = None) -> FactSet:
    """Sender, recipients (to/cc/bcc), thread (reply-to), attachments, references, employers from mail domains;
    `mentions`: what each source's reference namespace names (connectors.registry.mention_kinds())."""
    g, meta, when = episode.group_id, episode.metadata, episode.timestamp
    eps = [episode.id]
    b = FactBuilder()
    subject = meta.title.strip() or "(no subject)"
    sender = b.entity(person_entity(g, episode.actor, episode.source))
    message = b.entity(message_entity(g, episode.source, meta.source_key, meta.title))
    q = meta.source_key

    b.fact(
        make_fact(
            g,
            sender,
            "SENT",
            message,
            f"{_label(sender)} sent the email '{subject}' on {_day(when)}",
            valid_at=when,
            episode_ids=eps,
            qualifier=q,
        )
    )
    people: list[tuple[EntitySpec, Any]] = [(sender, episode.actor)]
    verbs = {
        "to": ("SENT_TO", "emailed {o} about '{s}' on {d}"),
        "cc": ("CC", "copied {o} on the email '{s}' on {d}"),
        "bcc": ("BCC", "blind-copied {o} on the email '{s}' on {d}"),
    }
    for participant in meta.participants:
        role = participant.role.lower()
        if role not in verbs:
            continue
        person = b.entity(person_entity(g, participant.actor, episode.source))
        people.append((person, participant.actor))
        if person.uuid == sender.uuid:
            continue
        predicate, template = verbs[role]
        text = f"{_label(sender)} " + template.format(o=_label(person), s=subject, d=_day(when))
        b.fact(make_fact(g, sender, predicate, person, text, valid_at=when, episode_ids=eps, qualifier=q))

    if meta.parent_key:
        parent = b.entity(message_entity(g, episode.source, meta.parent_key, ""))
        b.fact(
            make_fact(
                g,
                message,
                "REPLIED_TO",
                parent,
                f"The email '{subject}' from {_label(sender)} on {_day(when)} replied to message {meta.parent_key}",
                valid_at=when,
                episode_ids=eps,
            )
        )
    for attachment in meta.attachments:
        att = b.entity(attachment_entity(g, attachment, f"{episode.source}:{meta.source_key}"))
        b.fact(
            make_fact(
                g,
                message,
                "HAS_ATTACHMENT",
                att,
                f"The email '{subject}' from {_label(sender)} on {_day(when)} carried the attachment {att.name}",
                valid_at=when,
                episode_ids=eps,
            )
        )
    add_reference_facts(
        b,
        g,
        message,
        episode.references,
        people,
        domain_orgs,
        lambda e: f"The email '{subject}' from {_label(sender)} on {_day(when)} mentions {e.name}",
        valid_at=when,
        episode_ids=eps,
        unconfirmed=episode.metadata.unconfirmed_names,
        mentions=mentions or {},
        content=episode.content,
    )
    add_employers(b, g, people, domain_orgs, valid_at=when, episode_ids=eps)
    return b.result()
