"""Structured facts from Salesforce episodes (pure; deterministic uuids via transforms.facts builders).

Single-valued slots, each change a fact whose valid_at is the CRM's own change time (the writer ends the previous one):
  Account  HAS_CONTACT   <- primary contact roles (valid from the role's LastModifiedDate when IsPrimary is true);
                           a role no longer primary gives the closed [CreatedDate, flip) when the reader found the flip
  Account  OWNED_BY      <- OwnerId
  Opportunity IN_STAGE / HAS_AMOUNT / CLOSES_ON <- OpportunityHistory + field history + current values
  Opportunity OWNED_BY, Case HAS_STATUS / OWNED_BY
Standing relations: Contact WORKS_AT Account (the same edge the email facts make), Opportunity FOR_ACCOUNT Account.
Accounts are keyed ``org:<website domain>`` when the Website is known, so Acme's account is the organisation node the
mail from acme.example already made; otherwise ``salesforce:Account:<id>``.
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

from connectors.salesforce.history import field_changes
from connectors.salesforce.spec import MENTIONS
from connectors.salesforce.values import money, parse_number
from ground.episode import Episode
from ground.records import Actor, as_utc
from transforms.facts import (
    EntitySpec,
    FactBuilder,
    FactSet,
    Mentions,
    entity_uuid,
    make_fact,
    merge_factsets,
    organisation_entity,
    organisation_for,
    person_entity,
    reference_entity,
    slot_key,
    value_entity,
)
from transforms.intent_facts import message_subject
from transforms.mail_facts import email_facts

SOURCE = "salesforce"


def _when(value: Any) -> dt.datetime | None:
    if not value:
        return None
    try:
        return as_utc(dt.datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None


def _day(moment: dt.datetime) -> str:
    return moment.date().isoformat()


def account_entity(group_id: str, account: Mapping[str, Any], domain_orgs: Mapping[str, str]) -> EntitySpec | None:
    if not account or not account.get("id"):
        return None
    name = account.get("name") or account["id"]
    domain = (account.get("domain") or "").lower()
    if domain:
        return organisation_entity(group_id, f"org:{domain}", domain_orgs.get(domain) or name)
    key = f"salesforce:Account:{account['id']}"
    return EntitySpec(
        uuid=entity_uuid(group_id, key),
        key=key,
        label="Organization",
        name=name,
        summary=f"Organisation {name} (Salesforce account {account['id']})",
        attributes={"key": key, "salesforce_id": account["id"]},
    )


def record_entity(group_id: str, obj: str, rid: str, name: str) -> EntitySpec:
    """Same node as a mail's mention of the id (reference_entity key), with the record's readable name."""
    entity, _ = reference_entity(group_id, f"salesforce:{obj}:{rid}", MENTIONS)
    return entity.model_copy(update={"name": name or rid, "summary": f"Salesforce {obj} {name} ({rid})"})


def _person(group_id: str, person: Mapping[str, Any] | None) -> tuple[EntitySpec, Actor] | None:
    if not person:
        return None
    email = person.get("email")
    actor = Actor(type="human", id=email or f"salesforce:{person.get('id')}", name=person.get("name"), email=email)
    return person_entity(group_id, actor, SOURCE), actor


def _money(value: Any, currency: str | None) -> str | None:
    """Same rendering as the episode text: the reader's currency (record's own, else the org's), else none."""
    if parse_number(value) is None:
        return None
    return money(value, currency)


def _works_at(b: FactBuilder, g: str, person: EntitySpec, org: EntitySpec, when: dt.datetime | None, eps: list[str]):
    b.fact(
        make_fact(
            g,
            person,
            "WORKS_AT",
            org,
            f"{person.name} works at {org.name}",
            valid_at=when,
            episode_ids=eps,
            keyed_by_time=False,
        )
    )


def _timeline(fields: Mapping[str, Any], field: str) -> list[tuple[str, dt.datetime]]:
    """(value, since) for one field: history changes, then the current value if it differs from the last change."""
    values = fields.get("values") or {}
    out = [
        (str(c["value"]), _when(c["at"]))
        for c in field_changes(fields.get("history") or [], (field,))
        if c.get("value") not in (None, "") and _when(c["at"])
    ]
    current = values.get(field)
    if current not in (None, ""):
        if not out:
            out.append((str(current), _when(fields.get("created_at")) or _when(fields.get("modified_at"))))
        elif out[-1][0] != str(current):
            out.append((str(current), _when(fields.get("modified_at"))))
    return [(v, t) for v, t in out if t is not None]


def _slot_facts(
    b: FactBuilder,
    g: str,
    subject: EntitySpec,
    predicate: str,
    label: str,
    field: str,
    fields: Mapping[str, Any],
    eps: list[str],
    render=str,
    verb: str = "is",
) -> None:
    for value, since in _timeline(fields, field):
        shown = render(value)
        if not shown:
            continue
        target = b.entity(value_entity(g, label, shown))
        b.fact(
            make_fact(
                g,
                subject,
                predicate,
                target,
                f"{subject.name} {verb} {shown}",
                valid_at=since,
                episode_ids=eps,
                single_valued=slot_key(subject.key, predicate),
            )
        )


def salesforce_facts(episode: Episode, domain_orgs: Mapping[str, str], mentions: Mentions | None = None) -> FactSet:
    """A record's facts from its fields (`mentions` is unused: a CRM record's facts name its own records only)."""
    meta, g = episode.metadata, episode.group_id
    fields = meta.fields or {}
    eps = [episode.id]
    b = FactBuilder()
    actor = b.entity(person_entity(g, episode.actor, SOURCE))
    rid, kind = fields.get("id") or "", meta.kind
    created = _when(fields.get("created_at")) or episode.timestamp
    modified = (
        _when((fields.get("values") or {}).get("LastModifiedDate"))
        or _when(fields.get("modified_at"))
        or episode.timestamp
    )
    org = account_entity(g, fields.get("account") or {}, domain_orgs)
    org = b.entity(org) if org else None
    owner = _person(g, fields.get("owner"))
    values = fields.get("values") or {}

    if kind == "account" and org is not None:
        if owner:
            person = b.entity(owner[0])
            b.fact(
                make_fact(
                    g,
                    org,
                    "OWNED_BY",
                    person,
                    f"The Salesforce account {org.name} is owned by {person.name}",
                    valid_at=created,
                    episode_ids=eps,
                    single_valued=slot_key(org.key, "OWNED_BY"),
                )
            )
    elif kind in ("contact", "user"):
        me = _person(g, {"id": rid, "name": meta.title, "email": values.get("Email")})
        if me:
            person = b.entity(me[0])
            if org is None and kind == "user":
                found = organisation_for(me[1].email, domain_orgs)
                org = b.entity(organisation_entity(g, *found)) if found else None
            if org is not None:
                _works_at(b, g, person, org, created, eps)
    elif kind == "contact_role":
        contact = _person(g, fields.get("contact"))
        if contact:
            person = b.entity(contact[0])
            if org is not None:
                _works_at(b, g, person, org, created, eps)
            primary = str(values.get("IsPrimary", "")).lower() == "true"
            role = values.get("Role") or "contact"
            until = _when(fields.get("primary_until"))
            if (primary or until is not None) and org is not None:
                # A role no longer primary since the flip that made another role primary: the closed [created, flip),
                # the same fact (same text and uuid) an older snapshot gave while it was primary.
                b.fact(
                    make_fact(
                        g,
                        org,
                        "HAS_CONTACT",
                        person,
                        f"{person.name} is the primary contact of {org.name} ({role})",
                        valid_at=modified if primary else created,
                        invalid_at=None if primary else until,
                        episode_ids=eps,
                        single_valued=slot_key(org.key, "HAS_CONTACT"),
                    )
                )
    elif kind == "opportunity":
        opp = b.entity(record_entity(g, "Opportunity", rid, meta.title))
        currency = fields.get("currency") if "currency" in fields else values.get("CurrencyIsoCode")
        if org is not None:
            b.fact(
                make_fact(
                    g,
                    opp,
                    "FOR_ACCOUNT",
                    org,
                    f"{opp.name} is an opportunity with {org.name}",
                    valid_at=created,
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )
        _slot_facts(b, g, opp, "IN_STAGE", "Stage", "StageName", fields, eps, verb="is in stage")
        _slot_facts(
            b,
            g,
            opp,
            "HAS_AMOUNT",
            "Amount",
            "Amount",
            fields,
            eps,
            render=lambda v: _money(v, currency),
            verb="has the amount",
        )
        _slot_facts(
            b, g, opp, "CLOSES_ON", "Date", "CloseDate", fields, eps, render=lambda v: v[:10], verb="has the close date"
        )
        if owner:
            person = b.entity(owner[0])
            b.fact(
                make_fact(
                    g,
                    opp,
                    "OWNED_BY",
                    person,
                    f"{opp.name} is owned by {person.name}",
                    valid_at=created,
                    episode_ids=eps,
                    single_valued=slot_key(opp.key, "OWNED_BY"),
                )
            )
    elif kind == "case":
        case = b.entity(record_entity(g, "Case", rid, meta.title))
        _slot_facts(b, g, case, "HAS_STATUS", "Status", "Status", fields, eps, verb="has the status")
        if owner:
            person = b.entity(owner[0])
            b.fact(
                make_fact(
                    g,
                    case,
                    "OWNED_BY",
                    person,
                    f"{case.name} is owned by {person.name}",
                    valid_at=created,
                    episode_ids=eps,
                    single_valued=slot_key(case.key, "OWNED_BY"),
                )
            )
        if org is not None:
            b.fact(
                make_fact(
                    g,
                    case,
                    "FOR_ACCOUNT",
                    org,
                    f"{case.name} is a case of {org.name}",
                    valid_at=created,
                    episode_ids=eps,
                    keyed_by_time=False,
                )
            )
    elif kind in ("task", "event"):
        for item in fields.get("related") or []:
            if item.get("object") in ("Opportunity", "Case", "Account") and item.get("name"):
                target = b.entity(record_entity(g, item["object"], item["id"], item["name"]))
                verb = "logged a call about" if values.get("TaskSubtype") == "Call" else "logged an activity on"
                b.fact(
                    make_fact(
                        g,
                        actor,
                        "LOGGED_ACTIVITY",
                        target,
                        f"{actor.name} {verb} {target.name} on {_day(episode.timestamp)}: {meta.title}",
                        valid_at=episode.timestamp,
                        episode_ids=eps,
                        qualifier=meta.source_key,
                    )
                )
        contact = _person(g, fields.get("contact"))
        if contact:
            person = b.entity(contact[0])
            b.fact(
                make_fact(
                    g,
                    actor,
                    "TALKED_TO",
                    person,
                    f"{actor.name} talked to {person.name} on {_day(episode.timestamp)}: {meta.title}",
                    valid_at=episode.timestamp,
                    episode_ids=eps,
                    qualifier=meta.source_key,
                )
            )
    result = b.result()
    if kind == "email":
        parts = [result, email_facts(episode, domain_orgs)]
        extra = FactBuilder()
        for item in fields.get("related") or []:
            if item.get("name"):
                message = email_facts(episode, domain_orgs).entities[1]
                target = extra.entity(record_entity(g, item["object"], item["id"], item["name"]))
                extra.fact(
                    make_fact(
                        g,
                        message,
                        "ABOUT",
                        target,
                        f"The email '{meta.title}' is about {target.name}",
                        valid_at=episode.timestamp,
                        episode_ids=eps,
                    )
                )
        parts.append(extra.result())
        return merge_factsets(parts)
    return result


def record_subject(episode: Episode, domain_orgs: Mapping[str, str]) -> tuple[EntitySpec, str]:
    """What a Salesforce episode is about, for an intent fact: its opportunity/case/account, or the record an activity
    is related to; an e-mail activity is about its thread."""
    g, meta, fields = episode.group_id, episode.metadata, episode.metadata.fields or {}
    if meta.kind == "email":
        return message_subject(episode, domain_orgs)
    rid, kind = str(fields.get("id") or meta.source_key), meta.kind
    if kind in ("opportunity", "case"):
        entity = record_entity(g, kind.capitalize(), rid, meta.title)
        return entity, f"on {entity.name}"
    if kind == "account":
        entity = account_entity(g, fields.get("account") or {"id": rid, "name": meta.title}, domain_orgs)
        if entity is not None:
            return entity, f"on the account {entity.name}"
    for item in fields.get("related") or []:
        if item.get("object") in ("Opportunity", "Case", "Account") and item.get("id") and item.get("name"):
            entity = record_entity(g, item["object"], item["id"], item["name"])
            return entity, f"on {entity.name}"
    entity = record_entity(g, kind.capitalize() or "Record", rid, meta.title)
    return entity, f"on {entity.name}"
