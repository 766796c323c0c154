"""REST payloads (v1 content, v2 pages/blog posts/comments; live or saved to files) -> ContentVersion.

v1 carries everything in one object when expanded (space, version.by, history.createdBy, ancestors, labels,
restrictions); v2 carries ids (authorId, spaceId, parentId, ownerId) that a UserDirectory/space map resolve.
"""

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from typing import Any

from connectors.atlassian.adf import is_adf
from connectors.confluence.identity import ConfluenceUser, UserDirectory, user_from_json
from connectors.confluence.records import AttachmentInfo, ContentVersion
from connectors.safe_json import as_list

CONTENT_TYPES = {"page": "page", "blogpost": "blogpost", "blog_post": "blogpost", "comment": "comment"}


class PayloadError(ValueError):
    """A payload that is not a Confluence content object (or lacks what a record needs)."""


def parse_time(value: Any) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, (int, float)):  # epoch milliseconds (some Server payloads)
        return dt.datetime.fromtimestamp(value / 1000, tz=dt.UTC)
    text = str(value).strip()
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise PayloadError(f"date {text!r} is not an ISO 8601 timestamp") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _results(value: Any) -> list:
    if isinstance(value, Mapping):
        value = value.get("results")
    return value if isinstance(value, list) else []


def looks_like_content(obj: Any) -> bool:
    """A v1/v2 page, blog post or comment object (not a space, label, user or attachment)."""
    if not isinstance(obj, Mapping) or not obj.get("id"):
        return False
    kind = obj.get("type")
    if kind is not None:
        return isinstance(kind, str) and kind in CONTENT_TYPES
    # v2 objects have no type: a page has spaceId+title; a comment has pageId/blogPostId or a comment body
    return bool(
        ("spaceId" in obj and "title" in obj and ("version" in obj or "body" in obj or "authorId" in obj))
        or "pageId" in obj
        or "blogPostId" in obj
        or "parentCommentId" in obj
    )


def v2_kind(obj: Mapping) -> str:
    if obj.get("type") in CONTENT_TYPES:
        return CONTENT_TYPES[obj["type"]]
    if "pageId" in obj or "blogPostId" in obj or "parentCommentId" in obj:
        return "comment"
    links = str(_get(obj, "_links", "webui") or "")
    return "blogpost" if "/blog/" in links else "page"


def restricted_v1(obj: Mapping) -> tuple[bool, str]:
    read = _get(obj, "restrictions", "read", "restrictions")
    if not isinstance(read, Mapping):
        return False, ""
    users = [u.get("displayName") or u.get("accountId") or u.get("username") for u in _results(read.get("user"))]
    groups = [g.get("name") for g in _results(read.get("group"))]
    who = [str(x) for x in users + groups if x]
    return bool(who), ", ".join(who)


def content_from_json(
    obj: Mapping, users: UserDirectory, spaces: Mapping[str, tuple[str, str]] | None = None, base_url: str | None = None
) -> ContentVersion:
    """v1 or v2 object -> ContentVersion; raises PayloadError when it cannot be one."""
    if not isinstance(obj, Mapping):
        raise PayloadError("not a JSON object")
    ident = str(obj.get("id") or "").strip()
    if not ident:
        raise PayloadError("content object without an id")
    kind = CONTENT_TYPES.get(str(obj.get("type"))) if obj.get("type") else v2_kind(obj)
    if kind is None:
        raise PayloadError(f"content type {obj.get('type')!r} is not a page, blog post or comment")

    version = obj.get("version") if isinstance(obj.get("version"), Mapping) else {}
    number = version.get("number", 1)
    try:
        number = int(number)
    except (TypeError, ValueError):
        raise PayloadError(f"version number {number!r} is not a number") from None
    editor = users.add(user_from_json(version.get("by"))) or users.get(version.get("authorId"))
    if editor is None and version.get("authorId"):
        editor = users.resolve(str(version["authorId"]))
    author = users.add(user_from_json(_get(obj, "history", "createdBy")))
    if author is None and obj.get("authorId"):
        author = users.resolve(str(obj["authorId"]))
    owner = users.resolve(str(obj["ownerId"])) if obj.get("ownerId") else None
    version_at = parse_time(version.get("when") or version.get("createdAt"))
    created_at = parse_time(_get(obj, "history", "createdDate") or obj.get("createdAt"))
    if author is None and number == 1:
        author = editor

    space_key = _get(obj, "space", "key")
    space_name = _get(obj, "space", "name")
    if not space_key and obj.get("spaceId") and spaces:
        space_key, space_name = spaces.get(str(obj["spaceId"]), (None, None))
    if not space_key:
        webui = str(_get(obj, "_links", "webui") or "")
        if webui.startswith("/spaces/"):
            space_key = webui.split("/")[2] or None

    ancestors = [
        (str(a.get("id")), str(a.get("title") or ""))
        for a in as_list(obj.get("ancestors"), "ancestors")
        if isinstance(a, Mapping) and a.get("id") and a.get("type", "page") in ("page", "blogpost", "folder")
    ]
    if not ancestors and obj.get("parentId") and obj.get("parentType", "page") == "page":
        ancestors = [(str(obj["parentId"]), "")]

    labels = [
        str(label.get("name") or label.get("label"))
        for label in _results(_get(obj, "metadata", "labels")) or _results(obj.get("labels"))
        if isinstance(label, Mapping) and (label.get("name") or label.get("label"))
    ]
    storage = _get(obj, "body", "storage", "value")
    adf = None
    text = None
    body_source = "body.storage" if isinstance(storage, str) else ""
    if storage is None and _get(obj, "body", "atlas_doc_format", "value") is not None:
        adf = adf_body(_get(obj, "body", "atlas_doc_format", "value"), "body.atlas_doc_format")
        body_source = "body.atlas_doc_format"
    if storage is None and adf is None:
        view = _get(obj, "body", "view", "value") or _get(obj, "body", "export_view", "value")
        if isinstance(view, str):
            from bs4 import BeautifulSoup

            text = BeautifulSoup(view, "html.parser").get_text("\n")
            body_source = "body.view"
    restricted, restriction = restricted_v1(obj)

    attachments = []
    for att in _results(_get(obj, "children", "attachment")):
        if isinstance(att, Mapping) and att.get("title"):
            attachments.append(
                AttachmentInfo(
                    name=str(att["title"]),
                    id=str(att.get("id") or "") or None,
                    version=_get(att, "version", "number"),
                    media_type=_get(att, "extensions", "mediaType") or _get(att, "metadata", "mediaType"),
                    size=_get(att, "extensions", "fileSize"),
                )
            )

    container = obj.get("container") if isinstance(obj.get("container"), Mapping) else {}
    container_id = obj.get("pageId") or obj.get("blogPostId") or (container.get("id") if container else None)
    parent_comment = obj.get("parentCommentId")
    if container and container.get("type") == "comment":
        parent_comment = container.get("id")
        container_id = None
    location = _get(obj, "extensions", "location")
    selection = (
        _get(obj, "extensions", "inlineProperties", "originalSelection")
        or _get(obj, "inlineCommentProperties", "textSelection")
        or _get(obj, "properties", "inlineOriginalSelection")
    )
    if location is None and kind == "comment":
        location = (
            "inline"
            if (
                selection
                or "inlineCommentProperties" in obj
                or "resolutionStatus" in obj
                and "inline" in str(_get(obj, "_links", "self") or "")
            )
            else "footer"
        )
    resolution = _get(obj, "extensions", "resolution", "status") or obj.get("resolutionStatus")
    webui = _get(obj, "_links", "webui")
    base = _get(obj, "_links", "base") or base_url
    url = f"{str(base).rstrip('/')}{webui}" if webui and base else None

    return ContentVersion(
        id=ident,
        type=kind,
        status=str(obj.get("status") or "current"),
        title=str(obj.get("title") or ""),
        version=number,
        version_message=str(version.get("message") or ""),
        created_at=created_at,
        version_at=version_at,
        author=author,
        editor=editor,
        owner=owner,
        space_key=space_key,
        space_name=space_name,
        ancestors=ancestors,
        labels=labels,
        storage=storage if isinstance(storage, str) else None,
        adf=adf,
        text=text,
        body_source=body_source,
        attachments=attachments,
        restricted=restricted,
        restriction=restriction,
        url=url,
        container_id=str(container_id) if container_id else None,
        container_title=container.get("title") if container else None,
        parent_comment_id=str(parent_comment) if parent_comment else None,
        location=location if kind == "comment" else None,
        inline_selection=str(selection) if selection else None,
        resolved=(str(resolution).lower() == "resolved") if resolution else None,
    )


def adf_body(value: Any, where: str) -> dict:
    """An ADF document from a REST body value (a JSON string, or the object itself); PayloadError if it is not one."""
    doc = value
    if isinstance(value, (str, bytes)):
        try:
            doc = json.loads(value)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PayloadError(f"{where} is not JSON: {exc}") from None
    if not is_adf(doc):
        raise PayloadError(f"{where} is not an ADF document (expected an object with type 'doc' and a content list)")
    return doc


def find_content(value: Any, path: str = "$") -> Iterator[tuple[str, Mapping]]:
    """Every content object inside a saved response: a single object, `results` lists, search hits
    ({"content": {...}}), or a file of named responses; with a JSON path for the failure messages."""
    if isinstance(value, Mapping):
        if looks_like_content(value):
            yield path, value
            return
        for key, child in value.items():
            if key in (
                "_links",
                "_expandable",
                "space",
                "ancestors",
                "container",
                "version",
                "history",
                "body",
                "metadata",
                "restrictions",
                "extensions",
            ):
                continue
            yield from find_content(child, f"{path}.{key}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from find_content(child, f"{path}[{i}]")


def users_in(value: Any, users: UserDirectory) -> None:
    """Collect every user object of a payload (so v2 authorId/ownerId can be named)."""
    if isinstance(value, Mapping):
        if value.get("accountId") and (value.get("displayName") or value.get("publicName") or value.get("email")):
            try:
                users.add(user_from_json(value))
            except ValueError:  # a malformed user names no one; content that points to it fails by itself
                pass
        for child in value.values():
            users_in(child, users)
    elif isinstance(value, list):
        for child in value:
            users_in(child, users)


def space_map(value: Any) -> dict[str, tuple[str, str]]:
    """spaceId -> (key, name) from any space objects in a payload."""
    out: dict[str, tuple[str, str]] = {}

    def walk(v: Any) -> None:
        if isinstance(v, Mapping):
            if (
                v.get("key")
                and v.get("id")
                and v.get("type") in ("global", "personal", "collaboration", "knowledge_base")
            ):
                out[str(v["id"])] = (str(v["key"]), str(v.get("name") or v["key"]))
            for child in v.values():
                walk(child)
        elif isinstance(v, list):
            for child in v:
                walk(child)

    walk(value)
    return out


__all__ = [
    "content_from_json",
    "find_content",
    "looks_like_content",
    "parse_time",
    "PayloadError",
    "users_in",
    "space_map",
    "ConfluenceUser",
]
