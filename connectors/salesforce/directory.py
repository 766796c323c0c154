"""Ids -> people and names, and child rows grouped by parent: what one record needs from the rest of the org.

Salesforce rows name other rows by id (OwnerId, AccountId, ContactId). The export reader fills a Directory from every
file of the export before converting (Users, Contacts, Accounts, Opportunities, histories, comments); the API reader
fills it from relationship columns (``Owner.Email``) and child queries. Ids are kept in their 18-character form so
15- and 18-character spellings of one id meet.
"""

import functools
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from connectors.salesforce.objects import COMMENT_CHILDREN, HISTORY_CHILDREN, OPPORTUNITY_SNAPSHOT_FIELDS
from connectors.salesforce.values import Row, is_null, parse_datetime
from ground.identity import normalise_email, salesforce_id18
from ground.records import Actor


def sid(value: Any) -> str | None:
    """18-char id where the value is a Salesforce id; other keys (Fivetran hashes, @refs) unchanged."""
    if value.__class__ is str:
        return _sid_text(value)
    if is_null(value):
        return None
    return _sid(str(value).strip())


@functools.lru_cache(maxsize=1 << 16)
def _sid_text(value: str) -> str | None:
    """A cell as read (ten id look-ups a row, the same few ids again and again): null check and strip cached too."""
    if is_null(value):
        return None
    return _sid(value.strip())


@functools.lru_cache(maxsize=1 << 16)
def _sid(text: str) -> str:
    """Cached: owner, account and parent ids repeat across the rows of an export."""
    return salesforce_id18(text, strict=False) or text


def website_domain(value: str | None) -> str | None:
    """``https://www.acme.example/about`` -> ``acme.example``."""
    if not value:
        return None
    text = value.strip()
    host = urlsplit(text if "//" in text else f"//{text}").hostname or ""
    host = host.lower().removeprefix("www.")
    return host if "." in host else None


# Contact-role objects with an IsPrimary flag -> the field naming the record they are a role of.
ROLE_PARENT = {"OpportunityContactRole": "OpportunityId", "AccountContactRole": "AccountId"}


class Person(BaseModel):
    id: str
    name: str | None = None
    email: str | None = None

    def actor(self) -> Actor:
        email = normalise_email(self.email)
        return Actor(type="human", id=email or f"salesforce:{self.id}", name=self.name, email=email)


class AccountInfo(BaseModel):
    id: str
    name: str | None = None
    domain: str | None = None


def _iso(value: Any) -> str | None:
    try:
        moment = parse_datetime(value)
    except (ValueError, TypeError):
        return None
    return moment.isoformat() if moment else None


def _name(row: Row) -> str | None:
    name = row.text("Name")
    if name:
        return name
    parts = [row.text("FirstName"), row.text("LastName")]
    return " ".join(p for p in parts if p) or None


class Directory(BaseModel):
    people: dict[str, Person] = Field(default_factory=dict)  # User and Contact ids
    accounts: dict[str, AccountInfo] = Field(default_factory=dict)
    names: dict[str, str] = Field(default_factory=dict)  # any id -> display name
    record_account: dict[str, str] = Field(default_factory=dict)  # opportunity/contact id -> account id
    history: dict[str, list[dict]] = Field(default_factory=dict)  # parent id -> field changes
    comments: dict[str, list[dict]] = Field(default_factory=dict)  # parent id -> comments
    primary_roles: dict[str, list[dict]] = Field(default_factory=dict)  # opportunity/account id -> primary roles

    def learn(self, obj: str, row: Row) -> None:
        """Pass 1: remember what other rows will need. Never raises on a bad row (the converter reports it)."""
        rid = sid(row.get("Id"))
        if obj in HISTORY_CHILDREN or obj in COMMENT_CHILDREN:
            self._learn_child(obj, row)
            return
        if rid is None:
            return
        name = _name(row) or row.text("Subject")
        if name:
            self.names[rid] = name
        if obj in ("User", "Contact", "Lead"):
            self.people[rid] = Person(id=rid, name=name, email=normalise_email(row.text("Email")))
        if obj == "Account":
            self.accounts[rid] = AccountInfo(id=rid, name=name, domain=website_domain(row.text("Website")))
        account = sid(row.get("AccountId"))
        if account and obj in ("Contact", "Opportunity", "Case"):
            self.record_account[rid] = account
        if obj in ROLE_PARENT and str(row.get("IsPrimary") or "").strip().lower() == "true":
            parent = sid(row.get(ROLE_PARENT[obj]))
            since = _iso(row.get("LastModifiedDate", "SystemModstamp"))
            if parent and since:
                self.primary_roles.setdefault(parent, []).append({"id": rid, "since": since})
        self.learn_relations(row)

    def successor_role(self, obj: str, row: Row) -> dict | None:
        """The primary role of the same opportunity/account that started when this (no longer primary) row was last
        modified: the flip that ended this row's primacy (the role object keeps no history of its own)."""
        parent = sid(row.get(ROLE_PARENT.get(obj, "")))
        if not parent:  # not a role object (the common row): no date to parse
            return None
        at = _iso(row.get("LastModifiedDate"))
        if not at:
            return None
        rid = sid(row.get("Id"))
        return next((r for r in self.primary_roles.get(parent, []) if r["id"] != rid and r["since"] == at), None)

    def learn_relations(self, row: Row) -> None:
        """Relationship columns from the API (``Owner.Name``, ``Owner.Email``) fill the same maps."""
        if not row.dotted:  # a Data Export CSV has no relationship columns: nothing to learn (a third of pass 1)
            return
        for rel in ("Owner", "CreatedBy", "LastModifiedBy", "Contact", "Who"):
            rid = sid(row.get(f"{rel}Id" if rel != "Who" else "WhoId"))
            name, email = row.text(f"{rel}.Name"), row.text(f"{rel}.Email")
            if rid and (name or email) and rid not in self.people:
                self.people[rid] = Person(id=rid, name=name, email=normalise_email(email))
        account = sid(row.get("AccountId", "Opportunity.AccountId"))
        if account and account not in self.accounts and row.text("Account.Name", "Opportunity.Account.Name"):
            self.accounts[account] = AccountInfo(
                id=account,
                name=row.text("Account.Name", "Opportunity.Account.Name"),
                domain=website_domain(row.text("Account.Website", "Opportunity.Account.Website")),
            )

    def _learn_child(self, obj: str, row: Row) -> None:
        if obj in COMMENT_CHILDREN:
            parent = sid(row.get(COMMENT_CHILDREN[obj][1]))
            if parent and row.text("CommentBody"):
                self.comments.setdefault(parent, []).append(
                    {
                        "id": sid(row.get("Id")),
                        "body": row.text("CommentBody"),
                        "at": _iso(row.get("CreatedDate")),
                        "by": sid(row.get("CreatedById")),
                        "public": str(row.get("IsPublished") or "").lower() == "true",
                    }
                )
            return
        parent = sid(row.get(HISTORY_CHILDREN[obj][1], "ParentId"))
        at = _iso(row.get("CreatedDate"))
        if parent is None or at is None:
            return
        changes = self.history.setdefault(parent, [])
        row_id = sid(row.get("Id"))
        if row_id and any(c.get("row") == row_id for c in changes):
            return  # the same history row seen in an older snapshot of the export
        base = {"at": at, "by": sid(row.get("CreatedById")), "from": obj, "row": sid(row.get("Id"))}
        if obj == "OpportunityHistory":
            for field in OPPORTUNITY_SNAPSHOT_FIELDS:
                value = row.text(field)
                if value is not None:
                    changes.append({**base, "field": field, "value": value})
            return
        field = row.text("Field")
        if field:
            changes.append({**base, "field": field, "old": row.text("OldValue"), "value": row.text("NewValue")})

    def person(self, rid: Any) -> Person | None:
        key = sid(rid)
        return self.people.get(key) if key else None

    def account(self, rid: Any) -> AccountInfo | None:
        key = sid(rid)
        if not key:
            return None
        return self.accounts.get(key) or AccountInfo(id=key, name=self.names.get(key))
