"""Facts from what people write, without an LLM: one intent fact per episode, and the dates a confirmation states.

An episode whose intent is not `other` (the classifier's threshold already applied) becomes one event fact from its actor to
what it is about — the Jira issue, the Confluence page, the CRM record, or the mail thread — on the same entity ids the
structured extractors use, so "who escalated the risk?" finds a person linked to the issue the risk is on. A
confirm_date episode also yields one fact per date in the author's own text ("Priya Raman confirmed 2026-07-15 for
'Go-live confirmed'"), keeping the sentence it came from. Events never close each other (no single-valued slot);
ids are uuid5 of the episode, so a rerun rewrites the same edges. A system actor (bot, CRM integration) states no
intent unless the record names a human author; CRM master data (users, contacts, accounts) states none. A date
counts as confirmed only in a sentence that confirms (confirm/bestätigen/confirmer/confirmar/确认...), not a question. Amounts and decisions' contents stay with the LLM path.
"""

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from ground.records import Actor, as_utc
from transforms.episode import Episode
from transforms.facts import (
    EntitySpec,
    FactSet,
    FactSpec,
    _Builder,
    make_fact,
    message_entity,
    normalise_email,
    organisation_for,
    person_entity,
)
from transforms.quotes import strip_reply
from transforms.text_dates import find_dates

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
DATE_RELATION = "CONFIRMED_DATE_VALUE"
FACT_KINDS = {relation: "intent" for relation, _ in INTENT_RELATIONS.values()} | {DATE_RELATION: "text_date"}
# Word stems (connectors/graph/search.py's _stem) by which a question asks for an event relation: any set, all of it.
EVENT_CUES: dict[str, tuple[frozenset[str], ...]] = {
    "ESCALATED_RISK": (frozenset({"escalat"}),),
    "CONFIRMED_DATE": (frozenset({"confirm"}),),
    DATE_RELATION: (frozenset({"confirm"}),),
    "DECIDED": (frozenset({"decid"}), frozenset({"decision"})),
    "REJECTED": (frozenset({"reject"}),),
    "REQUESTED_INFO": (frozenset({"request"}),),
    "REPORTED_STATUS": (frozenset({"report", "status"}),),
    "CLOSED_DEAL": (frozenset({"clos", "deal"}),),
}

_REPLY_PREFIX = re.compile(
    r"^\s*((re|aw|wg|fw|fwd|tr|rv|sv|vs|antw|答复|回复|转发)\s*(\[\d+\])?\s*[:：]\s*)+", re.IGNORECASE
)
_QUOTED_LINE = re.compile(r"^\s*>")
# A confirm_date episode also proposes, moves and asks about dates (the taxonomy's label covers all four): a date is
# written as confirmed only from a sentence that says so and is not a question.
CONFIRMS = re.compile(
    r"\b(confirm(s|ed|ing)?|agreed|approved|bestätig\w*|zugesagt|vereinbart|festgelegt|steht fest|"
    r"confirm[eéoa]\w*|confirmons|convenu\w*|validé\w*|acordad\w*|aprobad\w*)\b|确认|确定|敲定",
    re.IGNORECASE,
)
# CRM master data (people, accounts, roles) is no one's writing: its rendered fields carry no intent.
NO_INTENT_KINDS = frozenset({"user", "contact", "contact_role", "account", "account_history"})
# An opportunity is a field record too, but its won flag is the system of record's own word on closing: it alone says
# "closed a deal" (an open one rendered as "Stage: Negotiation/Review, Amount: ..." reads like a win to the classifier).
FIELD_RECORD_WON = {"opportunity": "IsWon"}


def record_vetoes(episode: Episode) -> bool:
    """True where the record's own fields, not the classifier, decide that no intent fact holds."""
    if episode.source != "salesforce":
        return False
    kind = episode.metadata.kind
    if kind in NO_INTENT_KINDS:
        return True
    won_field = FIELD_RECORD_WON.get(kind)
    if won_field is None:
        return False
    values = (episode.metadata.fields or {}).get("values") or {}
    if won_field in values:
        won = str(values[won_field]).strip().lower() == "true"
    else:  # an export without the flag: the standard won stage is the record's word
        won = str(values.get("StageName", "")).strip().lower() == "closed won"
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


def own_text(episode: Episode) -> str:
    """The author's new words: reply history, '>' quotes and signatures removed (mail content is already stripped)."""
    text = episode.content if episode.source == "email" else strip_reply(episode.content)
    return "\n".join(line for line in text.splitlines() if not _QUOTED_LINE.match(line))


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
) -> FactSet:
    """The intent fact (and, for confirm_date, the date facts) of one episode; empty for `other` or a bot.

    subjects maps a source to what its episodes are about (connectors.registry.intent_subjects()).
    """
    b = _Builder()
    relation = INTENT_RELATIONS.get(episode.intent)
    writer = author(episode)
    if relation is None or episode.intent_confidence < threshold or writer is None or record_vetoes(episode):
        return b.result()
    orgs = {k.lower(): v for k, v in (domain_orgs or {}).items()}
    g, when = episode.group_id, as_utc(episode.timestamp)
    person = b.entity(person_entity(g, writer, episode.source))
    target, where = subject_of(episode, orgs, subjects)
    target = b.entity(target)
    who, day = _who(person, writer, orgs), when.date().isoformat()
    confidence = round(float(episode.intent_confidence), 4)
    predicate, verb = relation
    base = {"kind": "intent", "intent": episode.intent, "intent_confidence": confidence}
    confirmed = _confirmed_dates(episode, when) if episode.intent == "confirm_date" else []
    # the intent fact names the dates it confirms, so the first hit answers "who confirmed which date"
    stated = f" ({', '.join(f.date.isoformat() for f in confirmed)})" if confirmed else ""
    b.fact(_event(g, person, predicate, target, f"{who} {verb}{stated} {where} on {day}", when, episode.id, base))
    for found in confirmed:
        iso = found.date.isoformat()
        text = f"{who} confirmed {iso} for {where.split(' ', 1)[1]} (on {day})"
        attributes = {
            **base,
            "kind": "text_date",
            "date": iso,
            "sentence": found.sentence[:500],
            "date_form": found.form,
        }
        b.fact(_event(g, person, DATE_RELATION, target, text, when, f"{episode.id}|{iso}", attributes))
    return b.result()


def _confirmed_dates(episode: Episode, when: dt.datetime) -> list[Any]:
    """Dates in the author's own words, each in a sentence that confirms it (not a question)."""
    return [
        found
        for found in find_dates(own_text(episode), episode.metadata.language, when).dates
        if CONFIRMS.search(found.sentence) and not found.sentence.rstrip().endswith(("?", "？"))
    ]


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
