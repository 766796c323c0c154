"""Facts from what people write, without an LLM: one intent fact per episode, and the dates its author states.

An episode whose intent is not `other` (the classifier's threshold already applied) becomes one event fact from its actor to
what it is about — the Jira issue, the Confluence page, the CRM record, or the mail thread — on the same entity ids the
structured extractors use, so "who escalated the risk?" finds a person linked to the issue the risk is on. Whatever
its intent, an episode also yields (transforms/text_date_facts.py) one event fact per date its author's own prose
confirms ("Priya Raman confirmed 2026-07-15 for 'Go-live confirmed'") and one slot fact per date it sets a slot of
the subject to ("The go-live date of FJL-7 (...) is 2026-07-14"): single-valued per (subject, slot kind), so a later
statement ends the earlier value. Events never close each other; ids are uuid5 of the episode, so a rerun rewrites
the same edges. A system actor (bot, CRM integration) states nothing unless the record names a human author; CRM
master data (users, contacts, accounts) states no intent. Amounts and decisions' contents stay with the LLM path.
"""

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from ground.episode import Episode
from ground.records import Actor, as_utc
from ground.source_traits import SourceTraits, traits_of
from transforms.facts import (
    EntitySpec,
    FactBuilder,
    FactSet,
    FactSpec,
    make_fact,
    message_entity,
    normalise_email,
    organisation_for,
    person_entity,
    slot_key,
    value_entity,
)
from transforms.question_cues import DATE_RELATION
from transforms.text_date_facts import SLOT_KINDS, date_statements, prose, slot_values, stated_by_prose

# The classifier already applied the intent threshold (GRAPHFEED_INTENT_THRESHOLD, by default its own calibrated one):
# below it the episode's intent is `other`. A higher bar for facts is opt-in.
DEFAULT_THRESHOLD = 0.0

# intent -> (relation, what the actor did, as a phrase)
INTENT_RELATIONS: dict[str, tuple[str, str]] = {
    "escalate_risk": ("ESCALATED_RISK", "escalated a risk"),
    "confirm_date": ("CONFIRMED_DATE", "confirmed a date"),
    "decision": ("DECIDED", "recorded a decision"),
    "reject_requirement": ("REJECTED", "rejected a requirement"),
    "request_info": ("REQUESTED_INFO", "requested information"),
    "status_update": ("REPORTED_STATUS", "reported status"),
    "close_deal": ("CLOSED_DEAL", "closed a deal"),
}
FACT_KINDS = (
    {relation: "intent" for relation, _ in INTENT_RELATIONS.values()}
    | {DATE_RELATION: "text_date"}
    | {kind.predicate: "text_slot" for kind in SLOT_KINDS.values()}
)

_REPLY_PREFIX = re.compile(
    r"^\s*((re|aw|wg|fw|fwd|tr|rv|sv|vs|antw|答复|回复|转发)\s*(\[\d+\])?\s*[:：]\s*)+", re.IGNORECASE
)


def record_vetoes(episode: Episode, traits: SourceTraits) -> bool:
    """True where the record's own fields, not the classifier, decide that no intent fact holds: master data (people,
    accounts, roles) is no one's writing, and a field record with a closing rule (an opportunity) says "closed a
    deal" only by its won flag, the system of record's own word (an open one rendered as "Stage: Negotiation/Review,
    Amount: ..." reads like a win to the classifier). The source declares both (traits)."""
    kind = episode.metadata.kind
    if kind in traits.no_intent_kinds:
        return True
    rule = traits.closing_rules.get(kind)
    if rule is None:
        return False
    values = (episode.metadata.fields or {}).get("values") or {}
    if rule.flag_field in values:
        won = str(values[rule.flag_field]).strip().lower() == "true"
    else:  # an export without the flag: the standard won stage is the record's word
        won = str(values.get(rule.stage_field, "")).strip().lower() == rule.won_stage
    return not (episode.intent == "close_deal" and won)


def thread_title(title: str) -> str:
    """'AW: Re: Budget' -> 'Budget': a reply is about the thread's subject."""
    return _REPLY_PREFIX.sub("", title or "").strip()


def author(episode: Episode) -> Actor | None:
    """Who wrote it: the actor, or for a system actor the human author the record names (fields.author), else None."""
    if episode.actor.type == "human":
        return episode.actor
    named = (episode.metadata.fields or {}).get("author")
    if isinstance(named, Mapping) and named.get("id") and named.get("type", "human") == "human":
        return Actor(
            type="human", id=str(named["id"]), name=named.get("name") or None, email=named.get("email") or None
        )
    return None


# What an episode is about, as its source's own extractor keys it, and how a sentence names it ("on PHX-42 (...)").
# Each source supplies one (connectors/registry.py); a source without one is about its message thread.
Subject = Callable[[Episode, Mapping[str, str]], tuple[EntitySpec, str]]


def message_subject(episode: Episode, domain_orgs: Mapping[str, str]) -> tuple[EntitySpec, str]:
    """The mail thread (its subject without reply prefixes): what a message is about when nothing else is."""
    meta = episode.metadata
    title = thread_title(meta.title)
    entity = message_entity(episode.group_id, episode.source, meta.thread_key or meta.source_key, title)
    return entity, f"in '{entity.name}'"


def subject_of(
    episode: Episode, domain_orgs: Mapping[str, str], subjects: Mapping[str, Subject]
) -> tuple[EntitySpec, str]:
    """The entity the episode is about (keyed as the source's own extractor keys it) and how a sentence names it."""
    return subjects.get(episode.source, message_subject)(episode, domain_orgs)


def _who(person: EntitySpec, actor: Actor, domain_orgs: Mapping[str, str]) -> str:
    """'Dana Whitfield (Acme Corp)': a configured employer makes "what did Acme decide?" findable."""
    org = organisation_for(normalise_email(actor.email) or normalise_email(actor.id), domain_orgs)
    return f"{person.name} ({org[1]})" if org and org[0].split(":", 1)[1] in domain_orgs else person.name


def intent_facts(
    episode: Episode,
    domain_orgs: Mapping[str, str] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    subjects: Mapping[str, Subject],
    traits: Mapping[str, SourceTraits],
) -> FactSet:
    """The intent fact of one episode (none for `other`, below the threshold or vetoed by the record), and whatever
    its intent, the dates its author's prose confirms and the slots it sets (transforms/text_date_facts.py); empty
    for a bot. subjects maps a source to what its episodes are about (connectors.registry.intent_subjects()), traits
    a source to its SourceTraits (connectors.registry.source_traits()).
    """
    b = FactBuilder()
    writer = author(episode)
    if writer is None:
        return b.result()
    relation = INTENT_RELATIONS.get(episode.intent)
    source = traits_of(traits, episode.source)
    if relation is not None and (episode.intent_confidence < threshold or record_vetoes(episode, source)):
        relation = None
    when = as_utc(episode.timestamp)
    said = stated_by_prose(episode, source)
    statements = date_statements(prose(episode, source), episode.metadata.language, when) if said else []
    if relation is None and not statements:
        return b.result()
    orgs = {k.lower(): v for k, v in (domain_orgs or {}).items()}
    g = episode.group_id
    person = b.entity(person_entity(g, writer, episode.source))
    target, where = subject_of(episode, orgs, subjects)
    target = b.entity(target)
    who, day = _who(person, writer, orgs), when.date().isoformat()
    base = {"kind": "intent", "intent": episode.intent, "intent_confidence": round(float(episode.intent_confidence), 4)}
    confirmed = [s for s in statements if s.confirms]
    if relation is not None:
        predicate, verb = relation
        # the intent fact names the dates it confirms, so the first hit answers "who confirmed which date"
        dates = sorted({s.date.isoformat() for s in confirmed}) if episode.intent == "confirm_date" else []
        stated = f" ({', '.join(dates)})" if dates else ""
        b.fact(_event(g, person, predicate, target, f"{who} {verb}{stated} {where} on {day}", when, episode.id, base))
    named = where.split(" ", 1)[1]
    for found in confirmed:
        iso = found.date.isoformat()
        text = f"{who} confirmed {iso} for {named} (on {day})"
        attributes = {
            **base,
            "kind": "text_date",
            "date": iso,
            "sentence": found.sentence[:500],
            "date_form": found.form,
        }
        b.fact(_event(g, person, DATE_RELATION, target, text, when, f"{episode.id}|{iso}", attributes))
    for kind, found in slot_values(statements, f"{target.key} {target.name}").items():
        slot = SLOT_KINDS[kind]
        iso = found.date.isoformat()
        value = b.entity(value_entity(g, "Date", iso))
        attributes = {
            **base,
            "kind": "text_slot",
            "slot_kind": kind,
            "date": iso,
            "sentence": found.sentence[:500],
            "date_form": found.form,
            "stated_by": person.name,
        }
        b.fact(
            make_fact(
                g,
                target,
                slot.predicate,
                value,
                f"The {slot.phrase} of {named} is {iso} ({who}, {day})",
                valid_at=when,
                episode_ids=[episode.id],
                single_valued=slot_key(target.key, slot.predicate),
                qualifier=episode.id,
                attributes=attributes,
            )
        )
    return b.result()


def _event(
    g: str,
    subject: EntitySpec,
    predicate: str,
    obj: EntitySpec,
    text: str,
    when: dt.datetime,
    qualifier: str,
    attributes: dict[str, Any],
) -> FactSpec:
    return make_fact(
        g,
        subject,
        predicate,
        obj,
        text,
        valid_at=when,
        episode_ids=[qualifier.split("|", 1)[0]],
        qualifier=qualifier,
        attributes=attributes,
    )
