"""One Salesforce row (flat columns, any API/export spelling) -> one SourceRecord, a Deletion for an `IsDeleted` row,
or a RecordFailure saying why not.

Shared by the export reader and the API reader, so a row keys and reads the same however it arrived:
source_key ``<Object>:<18-char Id>``, version = its SystemModstamp (a later change is a new version), actor = owner, else last modifier, else creator, resolved to a person with a normalised email.
"""

import datetime as dt
import functools
from typing import Any

from connectors.salesforce.directory import Directory, Person, sid
from connectors.salesforce.history import field_changes
from connectors.salesforce.objects import OBJECTS, SYSTEM_FIELDS, ObjectSpec, spec_for
from connectors.salesforce.values import Row, canonical, is_null, money, parse_bool
from ground.identity import SALESFORCE_PREFIXES, normalise_email
from ground.records import Actor, Deletion, ErrorClass, Origin, Participant, RecordFailure, SourceRecord

SOURCE = "salesforce"
SYSTEM_ACTOR = Actor(type="system", id="salesforce", name="Salesforce")
UPDATED_FIELDS = (
    "SystemModstamp",
    "LastModifiedDate",
    "CreatedDate",
    "_fivetran_synced",
)  # Fivetran: sync time, last resort


failure = functools.partial(RecordFailure.at, SOURCE)  # (origin, error_class, reason, key=None)


def object_of(rid: str | None) -> str:
    return SALESFORCE_PREFIXES.get((rid or "")[:3], "record")


def record_key(obj: str, rid: str) -> str:
    return f"{obj}:{rid}"


def _person_dict(person: Person | None) -> dict | None:
    return person.model_dump() if person else None


def record_currency(row: Row, org_currency: str | None) -> str | None:
    """The row's own CurrencyIsoCode (multi-currency orgs), else the configured org currency, else none."""
    return row.text("CurrencyIsoCode") or org_currency or None


LABELS = {"StageName": "Stage", "ForecastCategoryName": "Forecast category", "IsPrimary": "Primary"}


@functools.lru_cache(maxsize=1 << 12)
def _label(field: str) -> str:
    if field in LABELS:
        return LABELS[field]
    name = field.removesuffix("__c").replace("_", " ")
    out = ""
    for i, ch in enumerate(name):
        if ch.isupper() and i and name[i - 1].islower():
            out += " "
        out += ch
    return out[:1].upper() + out[1:].lower() if out else field


def render_value(row: Row, field: str, currency: str | None = None) -> str | None:
    value = row.text(field)
    if value is None:
        return None
    if canonical(field) == "amount":
        return money(value, currency)
    if canonical(field) in ("closedate", "activitydate", "startdate", "enddate") and len(value) >= 10:
        return value[:10]
    if canonical(field) in ("isprimary", "isdirect", "isactive"):
        return "yes" if parse_bool(value) else "no"
    return value


def _actor(row: Row, directory: Directory, spec: ObjectSpec) -> tuple[Actor, Person | None]:
    if spec.name == "EmailMessage":
        email = normalise_email(row.text("FromAddress"))
        if email:
            return Actor(type="human", id=email, name=row.text("FromName"), email=email), None
    owner = directory.person(row.get("OwnerId"))
    if spec.name == "User":
        me = directory.person(row.get("Id"))
        if me is not None:
            return me.actor(), owner
    for field in ("OwnerId", "LastModifiedById", "CreatedById"):
        rid = sid(row.get(field))
        if rid is None:
            continue
        person = directory.person(rid)
        if person is not None:
            return person.actor(), owner
        if rid[:3] == "005":
            return Actor(type="human", id=f"salesforce:{rid}"), owner
    return SYSTEM_ACTOR, owner


def _addresses(value: str | None) -> list[str]:
    out = []
    for part in (value or "").replace(",", ";").split(";"):
        email = normalise_email(part)
        if email and email not in out:
            out.append(email)
    return out


def _related(row: Row, spec: ObjectSpec, directory: Directory) -> list[dict]:
    related = []
    for field in spec.related:
        rid = sid(row.get(field))
        if rid:
            related.append(
                {
                    "field": field,
                    "id": rid,
                    "object": object_of(rid),
                    "name": directory.names.get(rid) or row.text(f"{field.removesuffix('Id')}.Name"),
                }
            )
    return related


def _account(row: Row, spec: ObjectSpec, directory: Directory, obj: str, rid: str) -> dict | None:
    if obj == "Account":
        info = directory.account(rid)
        name = row.text("Name") or (info.name if info else None)
        domain = info.domain if info else None
        from connectors.salesforce.directory import website_domain

        return {"id": rid, "name": name, "domain": website_domain(row.text("Website")) or domain}
    account_id = None
    for field in spec.account:
        account_id = sid(row.get(field))
        if account_id:
            break
    if account_id is None:
        for field in ("OpportunityId", "WhatId", "ContactId"):
            linked = sid(row.get(field))
            if linked and linked in directory.record_account:
                account_id = directory.record_account[linked]
                break
    if account_id is None:
        return None
    info = directory.account(account_id)
    return info.model_dump() if info else None


def convert_row(
    obj: str,
    values: dict[str, Any],
    directory: Directory,
    origin: Origin,
    instance_url: str | None = None,
    currency: str | None = None,
) -> SourceRecord | Deletion | RecordFailure:
    """currency: the org's currency (GRAPHFEED_SALESFORCE_CURRENCY) for rows without a CurrencyIsoCode."""
    """Never raises: anything unexpected in a row becomes a RecordFailure for that row."""
    row = Row(values)
    rid = sid(row.get("Id"))
    key = record_key(obj, rid) if rid else None
    try:
        if rid is None:
            return failure(origin, ErrorClass.missing_field, f"{obj} row has no Id: cannot key it")
        return _convert(obj, rid, key, row, directory, origin, instance_url, record_currency(row, currency))
    except ValueError as exc:
        return failure(origin, ErrorClass.bad_value, f"{obj} {rid}: {exc}", key)
    except Exception as exc:  # noqa: BLE001 - one row never stops the export
        return failure(origin, ErrorClass.parse_error, f"{obj} {rid}: {type(exc).__name__}: {exc}", key)


def _convert(
    obj: str,
    rid: str,
    key: str,
    row: Row,
    directory: Directory,
    origin: Origin,
    instance_url: str | None,
    currency: str | None,
) -> SourceRecord | Deletion | RecordFailure:
    spec = spec_for(obj)
    created = row.when("CreatedDate")
    updated = row.when(*UPDATED_FIELDS)
    own_date = row.when(*spec.when) if spec.when else None
    if updated is None and own_date is None:
        return failure(
            origin,
            ErrorClass.missing_field,
            f"{obj} {rid} has no SystemModstamp, LastModifiedDate or CreatedDate: cannot place it in time",
            key,
        )
    updated = updated or own_date
    occurred = (own_date or created or updated) if spec.event else (row.when("LastModifiedDate") or updated)
    if parse_bool(row.get("IsDeleted") or False):  # the recycle bin's row: a deletion like every source reports
        return Deletion(source=SOURCE, source_key=key, kind=spec.kind, reason="deleted", detected_at=updated)
    actor, owner = _actor(row, directory, spec)

    participants: list[Participant] = []
    if owner is not None:
        participants.append(Participant(role="owner", actor=owner.actor()))
    contact = directory.person(row.get("ContactId", "WhoId"))
    if contact is not None:
        participants.append(Participant(role="contact", actor=contact.actor()))
    if spec.name == "EmailMessage":
        for role, field in (("to", "ToAddress"), ("cc", "CcAddress"), ("bcc", "BccAddress")):
            for email in _addresses(row.text(field)):
                participants.append(Participant(role=role, actor=Actor(type="human", id=email, email=email)))

    account = _account(row, spec, directory, obj, rid)
    related = _related(row, spec, directory)
    history = sorted(directory.history.get(rid, []), key=lambda c: (c["at"], c.get("field") or "", c.get("row") or ""))
    comments = sorted(directory.comments.get(rid, []), key=lambda c: (c["at"] or "", c.get("id") or ""))
    title = _title(row, spec, directory, contact, related)
    body = _body(row, spec, obj, owner, account, contact, related, history, comments, currency)

    fields: dict[str, Any] = {
        "object": obj,
        "id": rid,
        "values": row.scalars(),
        "deleted": False,  # always: a deleted row is a Deletion; kept so episodes stay byte-identical to before
        "created_at": created.isoformat() if created else None,
        "modified_at": updated.isoformat(),
        "owner": _person_dict(owner),
        "account": account,
        "contact": _person_dict(contact),
        "related": related,
        "history": history,
        "comments": comments,
        "currency": currency,  # of its amounts; None: the data carries none (render the number alone)
        # LLM extraction is for free text: a record without any (an account without a description) is fully
        # described by the facts written from its fields. Custom objects may hold text in any field: assume some.
        "free_text": (
            spec.name not in OBJECTS
            or bool(comments)
            or any(row.text(f) for f in spec.text)
            or (spec.name == "EmailMessage" and bool(body.strip()))
        ),  # an HTML-only mail
    }
    until = _primary_until(obj, row, directory, created)
    if until is not None:
        fields["primary_until"] = until.isoformat()
    if spec.name == "EmailMessage" and row.text("MessageIdentifier"):
        fields["message_id"] = row.text("MessageIdentifier")
    thread = related[0] if related else None
    return SourceRecord(
        source=SOURCE,
        kind=spec.kind,
        source_key=key,
        version=updated.strftime("%Y%m%dT%H%M%S.%fZ"),
        url=f"{instance_url.rstrip('/')}/{rid}" if instance_url else None,
        title=title,
        body=body,
        actor=actor,
        occurred_at=occurred,
        updated_at=updated,
        participants=participants,
        parent_key=record_key(thread["object"], thread["id"]) if thread and spec.kind != "email" else None,
        thread_key=record_key(thread["object"], thread["id"]) if thread else key,
        fields=fields,
        origin=origin,
    )


def _primary_until(obj: str, row: Row, directory: Directory, created: dt.datetime | None) -> dt.datetime | None:
    """When a role that is no longer primary stopped being so: its LastModifiedDate, if it was created before that and
    another primary role of the same opportunity/account starts exactly then (see docs/architecture.md)."""
    if parse_bool(row.get("IsPrimary") or False):
        return None
    modified = row.when("LastModifiedDate")
    if created is None or modified is None or created >= modified:
        return None
    return modified if directory.successor_role(obj, row) is not None else None


def _title(row: Row, spec: ObjectSpec, directory: Directory, contact: Person | None, related: list[dict]) -> str:
    for field in spec.title:
        value = row.text(field)
        if value:
            return value
    if spec.kind == "contact_role":
        who = contact.name if contact and contact.name else row.text("ContactId") or "?"
        role = row.text("Role", "Roles") or "contact"
        where = related[0]["name"] if related and related[0].get("name") else None
        account = directory.account(row.get("AccountId"))
        where = where or (account.name if account else None)
        return f"{who}: {role}" + (f" on {where}" if where else "")
    first = [row.text("FirstName"), row.text("LastName")]
    return " ".join(p for p in first if p)


def _body(
    row: Row,
    spec: ObjectSpec,
    obj: str,
    owner: Person | None,
    account: dict | None,
    contact: Person | None,
    related: list[dict],
    history: list[dict],
    comments: list[dict],
    currency: str | None,
) -> str:
    lines: list[str] = []
    if spec.name == "EmailMessage":
        # The mail's own text only, so it fingerprints like the same mail from the email export (dedup).
        text = row.text("TextBody")
        if not text and row.text("HtmlBody"):
            from bs4 import BeautifulSoup

            text = BeautifulSoup(row.text("HtmlBody"), "lxml").get_text("\n").strip()
        return text or ""
    head = [f"Salesforce {obj}"]
    if account and account.get("name") and obj != "Account":
        head.append(f"account {account['name']}")
    if owner is not None and owner.name:
        head.append(f"owner {owner.name}")
    if contact is not None and contact.name:
        head.append(f"contact {contact.name}" + (f" <{contact.email}>" if contact.email else ""))
    for item in related:
        if item.get("name") and item["field"] not in ("WhoId",):
            head.append(f"{item['object']} {item['name']}")
    lines.append(", ".join(head) + ".")
    shown = (
        spec.body
        if spec.name
        in (
            "Account",
            "Contact",
            "Lead",
            "Opportunity",
            "Case",
            "Task",
            "Event",
            "EmailMessage",
            "OpportunityContactRole",
            "AccountContactRole",
            "AccountContactRelation",
        )
        else _generic_fields(row, spec)
    )
    if shown is spec.body and row.custom:  # a standard object's custom fields are the org's own data: shown too
        shown = shown + [f for f in _generic_fields(row, spec) if f.endswith("__c") and f not in shown]
    for field in shown:
        value = render_value(row, field, currency)
        if value is not None:
            lines.append(f"{_label(field)}: {value}")
    for field in spec.text:
        text = row.text(field)
        if text:
            lines.append("")
            lines.append(text)
    if spec.name == "EmailMessage" and not row.text("TextBody") and row.text("HtmlBody"):
        from bs4 import BeautifulSoup

        lines.extend(["", BeautifulSoup(row.text("HtmlBody"), "lxml").get_text("\n").strip()])
    changes = field_changes(history)
    if changes:
        lines.extend(["", "History:"])
        for change in changes:
            value = change.get("value")
            if change.get("field") == "Amount" and value is not None:
                value = money(value, currency)
            lines.append(
                f"- {change['at'][:10]}: {_label(change.get('field') or '?')} -> {value if value is not None else '(empty)'}"
            )
    if comments:
        lines.extend(["", "Comments:"])
        for comment in comments:
            lines.append(f"- {(comment.get('at') or '')[:10]}: {comment['body']}")
    return "\n".join(lines).strip()


def _generic_fields(row: Row, spec: ObjectSpec) -> list[str]:
    """Other objects: every non-system, non-text scalar column with a value, in file order. No cap: a field past any
    cut-off would be lost from the episode (the fidelity test found a tax message as the 60th column of an Order)."""
    skip = {canonical(f) for f in spec.title + spec.text} | SYSTEM_FIELDS
    out = []
    for name, value in row.scalars().items():
        c = canonical(name)
        if c in skip or c.startswith("fivetran") or "." in name or (len(str(value)) > 200 and " " not in str(value)):
            continue  # a long value without a space is a blob (base64 body), not words
        if not is_null(value):
            out.append(name)
    return out
