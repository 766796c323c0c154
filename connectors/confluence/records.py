"""One Confluence content version (page, blog post or comment), whatever it was read from, -> SourceRecord.

Every input (REST v1/v2 JSON, XML space export, HTML space export) is first turned into a ContentVersion; only this
module decides what a record means, so a page keys the same from the API and from an export: source_key = page id
(comment id for comments), version = the version number. Each version is its own record; older ones stay as history.
"""

import datetime as dt
import functools
import json
import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from connectors.atlassian.adf import adf_media, adf_mentions, adf_to_text
from connectors.confluence.groups import GroupPolicy
from connectors.confluence.identity import ConfluenceUser, UserDirectory
from connectors.confluence.page_properties import adf_property_rows, keep_rows
from connectors.confluence.storage import StorageText, owner_users, storage_to_text
from ground.records import Attachment, ErrorClass, Origin, Participant, RecordFailure, SourceRecord, as_utc

SOURCE = "confluence"
PAGE_KINDS = ("page", "blogpost")


class AttachmentInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    id: str | None = None
    version: int | None = None
    media_type: str | None = None
    size: int | None = None


class ContentVersion(BaseModel):
    id: str
    type: Literal["page", "blogpost", "comment"] = "page"
    status: str = "current"
    title: str = ""
    version: int = 1
    version_message: str = ""
    version_key: str | None = None  # record version when there is no number (HTML export: html-<day>)
    created_at: dt.datetime | None = None  # when the page was created (version 1)
    version_at: dt.datetime | None = None  # when this version was saved
    author: ConfluenceUser | None = None  # created the page
    editor: ConfluenceUser | None = None  # saved this version
    owner: ConfluenceUser | None = None  # the page owner, where the source has one (Cloud v2 ownerId)
    space_key: str | None = None
    space_name: str | None = None
    ancestors: list[tuple[str, str]] = Field(default_factory=list)  # (id, title), root first, parent last
    labels: list[str] = Field(default_factory=list)
    storage: str | None = None  # storage-format body
    adf: dict | None = None  # Atlassian Document Format body (Cloud v2), when there is no storage
    text: str | None = None  # already-plain body (HTML export, rendered view) when neither
    body_source: str = ""  # which file/field the body came from (for failures and the record)
    children: list[tuple[str, str]] = Field(default_factory=list)  # (id, title) of child pages
    attachments: list[AttachmentInfo] = Field(default_factory=list)
    restricted: bool = False
    restriction: str = ""  # who may read, for the record (never used to decide alone)
    url: str | None = None
    # comments
    container_id: str | None = None
    container_title: str | None = None
    parent_comment_id: str | None = None
    location: str | None = None  # footer | inline
    inline_selection: str | None = None
    resolved: bool | None = None


failure = functools.partial(RecordFailure.at, SOURCE)  # (origin, error_class, reason, key=None)


def _iso(value: dt.datetime | None) -> str | None:
    return as_utc(value).isoformat() if value is not None else None


def page_url(base_url: str | None, item: ContentVersion) -> str | None:
    if item.url:
        return item.url
    if not base_url or item.type == "comment":
        return None
    base = base_url.rstrip("/")
    if item.space_key:
        return f"{base}/spaces/{item.space_key}/pages/{item.id}"
    return f"{base}/pages/viewpage.action?pageId={item.id}"


def convert(
    item: ContentVersion, users: UserDirectory, pages: Callable[[str | None, str], str | None] | None = None
) -> StorageText:
    if item.storage is not None:
        return storage_to_text(item.storage, users=users.display_name, pages=pages, space_key=item.space_key)
    if item.adf is not None:
        return adf_storage_text(item.adf, users)
    return StorageText(text=item.text or "")


def adf_storage_text(doc: dict, users: UserDirectory) -> StorageText:
    """An ADF body with what it names in the same shape as a storage body's (mentions, attachments)."""
    named = [
        {"account-id": m["account_id"], "name": (users.display_name({"account-id": m["account_id"]}) or m["name"])}
        for m in adf_mentions(doc)
        if m["account_id"]
    ]
    files = [{"file_name": m["name"]} for m in adf_media(doc) if m.get("name") and m.get("name") != m.get("id")]
    rows = adf_property_rows(doc)
    details = [r for r in rows if r.source == "details"]
    return StorageText(
        text=adf_to_text(doc),
        users=named,
        attachments=files,
        references=[f"attachment:name:{f['file_name']}" for f in files],
        property_rows=rows,
        properties={r.key: r.value for r in reversed(details)},
        property_users={r.key: r.people for r in reversed(details) if r.people},
    )


def _has_words(item: ContentVersion) -> bool:
    """Whether the raw body carries any text at all (an empty page is a page; a lost body is a failure)."""
    if item.storage is None and item.adf is not None:
        return bool(re.search(r'"text":\s*"[^"\s]', json.dumps(item.adf, ensure_ascii=False)))
    raw = item.storage if item.storage is not None else item.text
    return bool(re.search(r"\w", re.sub(r"<[^>]*>", " ", raw or "")))


def _property_person(person: dict[str, str], users: UserDirectory) -> ConfluenceUser | None:
    """A person a property value names: the export's user object by id, else the mailto address, else the id."""
    ident = person.get("account-id") or person.get("userkey") or person.get("username")
    if ident:
        return users.get(ident) or ConfluenceUser(key=ident, name=person.get("name") or None)
    if person.get("email"):
        return users.get(person["email"]) or ConfluenceUser(
            key=person["email"], email=person["email"], name=person.get("name") or None
        )
    return None


def page_properties(converted: StorageText, users: UserDirectory, ignore: frozenset[str]) -> list[dict]:
    """Page-properties rows for the record: one per normalised key, people resolved to the ids mail/Jira use."""
    out = []
    for row in keep_rows(converted.property_rows, ignore):
        entry = row.model_dump(exclude={"people"})
        people = [u.as_field() for u in (_property_person(p, users) for p in row.people) if u is not None and u.key]
        if people:
            entry["people"] = people
        out.append(entry)
    return out


def record_from_version(
    item: ContentVersion,
    users: UserDirectory,
    policy: GroupPolicy,
    origin: Origin,
    *,
    base_url: str | None = None,
    pages: Callable[[str | None, str], str | None] | None = None,
    ignore_property_keys: frozenset[str] = frozenset(),
) -> SourceRecord | RecordFailure | None:
    """The record, a failure saying why not, or None when the read-restriction policy skips it."""
    key = item.id
    try:
        when = item.version_at or item.created_at
        if when is None:
            return failure(
                origin,
                ErrorClass.missing_field,
                f"{item.type} {key} version {item.version} has no date: cannot place it in time",
                key,
            )
        if item.storage is None and item.adf is None and item.text is None:
            return failure(
                origin,
                ErrorClass.missing_field,
                f"{item.type} {key} version {item.version} has no body (no storage, ADF or rendered view"
                f" in {item.body_source or 'the payload'}): an episode of its title alone would lose the page",
                key,
            )
        group = policy.group_for(item.space_key, item.restricted)
        if group is None:
            return None
        converted = convert(item, users, pages)
        if not converted.text.strip() and _has_words(item):
            return failure(
                origin,
                ErrorClass.bad_value,
                f"{item.type} {key} version {item.version}: the body in {item.body_source or 'the payload'}"
                " holds text but converted to none",
                key,
            )
        editor = item.editor or item.author
        actor = (editor or ConfluenceUser(key="unknown-user")).actor()
        owner = item.owner
        declared = owner_users(converted)
        if declared:
            owner = _property_person(declared[0], users) or owner
        participants: list[Participant] = []
        for role, user in (("author", item.author), ("editor", editor), ("owner", owner)):
            if user is not None and user.key:
                participants.append(Participant(role=role, actor=user.actor()))
        seen_mentions: set[str] = set()
        mentions = []
        for attrs in converted.users:
            ident = attrs.get("account-id") or attrs.get("userkey") or attrs.get("username") or ""
            user = users.get(ident) or ConfluenceUser(key=ident, name=attrs.get("name") or None)
            if ident and ident not in seen_mentions:
                seen_mentions.add(ident)
                participants.append(Participant(role="mentioned", actor=user.actor()))
                mentions.append(user.as_field())
        known = {a.name: a for a in item.attachments}
        for used in converted.attachments:
            if used["file_name"] not in known:
                version = used.get("version")
                known[used["file_name"]] = AttachmentInfo(
                    name=used["file_name"], version=int(version) if version and version.isdigit() else None
                )
        attachments = [Attachment(name=a.name, size=a.size, media_type=a.media_type) for a in known.values()]
        parent_id = item.ancestors[-1][0] if item.ancestors else None
        fields: dict = {
            "content_type": item.type,
            "status": item.status,
            "version": item.version,
            "version_message": item.version_message,
            "created_at": _iso(item.created_at),
            "version_at": _iso(when),
            "space_key": item.space_key,
            "space_name": item.space_name,
            "ancestors": [{"id": i, "title": t} for i, t in item.ancestors],
            "children": [{"id": i, "title": t} for i, t in item.children],
            "body_source": item.body_source or None,
            "parent_id": parent_id,
            "labels": sorted(set(item.labels)),
            "author": item.author.as_field() if item.author else None,
            "last_editor": editor.as_field() if editor else None,
            "owner": owner.as_field() if owner else None,
            "properties": converted.properties,
            "page_properties": page_properties(converted, users, ignore_property_keys),
            "references": converted.references,
            "includes": converted.includes,
            "mentions": mentions,
            "macros": converted.macros,
            "attachments": [a.model_dump(exclude_none=True) for a in known.values()],
            "restricted": item.restricted,
            "restriction": item.restriction,
            "group_id": group,
        }
        if converted.degraded:
            fields["converter_degraded"] = converted.degraded
        if item.type == "comment":
            fields.update(
                {
                    "page_id": item.container_id,
                    "page_title": item.container_title,
                    "parent_comment_id": item.parent_comment_id,
                    "location": item.location or "footer",
                    "inline_selection": item.inline_selection,
                    "resolved": item.resolved,
                }
            )
        title = item.title
        if item.type == "comment" and not title:
            title = f"Comment on {item.container_title or item.container_id or 'a page'}"
        created = item.created_at or when
        return SourceRecord(
            source=SOURCE,
            kind=item.type,
            source_key=key,
            version=item.version_key or str(item.version),
            url=page_url(base_url, item),
            title=title,
            body=converted.text,
            actor=actor,
            occurred_at=when if item.type != "comment" else created,
            updated_at=when,
            participants=participants,
            attachments=attachments,
            links=[],
            parent_key=(item.parent_comment_id or item.container_id) if item.type == "comment" else parent_id,
            thread_key=item.container_id if item.type == "comment" else key,
            fields=fields,
            origin=origin,
        )
    except Exception as exc:  # noqa: BLE001 - one bad page never stops the run
        if type(exc).__name__ == "ConfigError":
            raise
        return failure(
            origin, ErrorClass.bad_value, f"could not convert {item.type} {key}: {type(exc).__name__}: {exc}", key
        )
