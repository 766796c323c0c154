"""A saved Confluence Cloud page folder (one folder per page id) -> ONE ContentVersion.

Tools that save a Cloud page keep each REST answer in its own file: `page.v1.json` (v1: body.storage, ancestors,
usually no version or date unless expanded), `page.v2.json` (v2: body.atlas_doc_format, version.createdAt, createdAt,
authorId, ownerId), `page.xhtml` (storage), `page.adf` (ADF JSON), `page.html` (rendered view), and beside them
`ancestors.v1.json`, `children.v2.json`, `attachments.v1.json`. Read file by file, each is a fragment (a v1 page
without a date, a v2 page whose body nobody read); merged they are the page. The merge takes every value from the
file that has it, the body from storage when present, else ADF, else the rendered view, and the page id from the
files or, failing that, from the folder's name. A conflict (two ids) or a missing body is an error naming the files.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from connectors.confluence.identity import UserDirectory
from connectors.confluence.records import AttachmentInfo, ContentVersion
from connectors.confluence.rest_json import PayloadError, adf_body, content_from_json, space_map, users_in

PAGE_FILES = ("page.v2.json", "page.v1.json", "page.xhtml", "page.adf", "page.html")  # a saved page.json stays a
SIDE_FILES = ("ancestors.v1.json", "children.v2.json", "attachments.v1.json")  # REST response of its own
FOLDER_FILES = frozenset(PAGE_FILES + SIDE_FILES)


class PageFolderError(ValueError):
    """The folder's files cannot make one page (conflicting ids, no body, no id, a file that does not parse)."""


def is_page_folder(folder: Path) -> bool:
    return any((folder / name).is_file() for name in PAGE_FILES)


def in_page_folder(path: Path) -> bool:
    return path.name in FOLDER_FILES and is_page_folder(path.parent)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PageFolderError(f"{path.name} is not JSON: {exc}") from None


def _results(payload: Any, name: str) -> list[Mapping]:
    items = payload.get("results") if isinstance(payload, Mapping) else payload
    if not isinstance(items, list):
        raise PageFolderError(f"{name} holds no 'results' list")
    return [i for i in items if isinstance(i, Mapping)]


def _version(
    obj: Mapping | None, users: UserDirectory, spaces: dict, base_url: str | None, name: str, folder: Path
) -> ContentVersion | None:
    if obj is None:
        return None
    if not obj.get("id") and folder.name.isdigit():
        obj = {**obj, "id": folder.name}  # the folder is named by the page id
    try:
        return content_from_json(obj, users, spaces, base_url)
    except PayloadError as exc:
        raise PageFolderError(f"{name}: {exc}") from None


def read_page_folder(folder: Path, base_url: str | None = None) -> tuple[ContentVersion, UserDirectory]:
    """The merged page of one folder; raises PageFolderError naming the file and what is wrong."""
    present = {name: folder / name for name in FOLDER_FILES if (folder / name).is_file()}
    raw: dict[str, Any] = {name: _json(path) for name, path in present.items() if name.endswith(".json")}
    users, spaces = UserDirectory(), {}
    for payload in raw.values():
        users_in(payload, users)
        spaces.update(space_map(payload))
    v2_name = "page.v2.json" if "page.v2.json" in raw else None
    v1_name = "page.v1.json" if "page.v1.json" in raw else None
    for name in filter(None, (v2_name, v1_name)):
        if not isinstance(raw[name], Mapping):
            raise PageFolderError(f"{name} is not a JSON object")
    v2 = _version(raw.get(v2_name) if v2_name else None, users, spaces, base_url, v2_name or "", folder)
    v1 = _version(raw.get(v1_name) if v1_name else None, users, spaces, base_url, v1_name or "", folder)

    ids = {n: v.id for n, v in ((v2_name, v2), (v1_name, v1)) if v is not None}
    if len(set(ids.values())) > 1:
        raise PageFolderError("the files name different pages: " + ", ".join(f"{n} says {i}" for n, i in ids.items()))
    page_id = next(iter(ids.values()), None) or (folder.name if folder.name.isdigit() else None)
    if page_id is None:
        raise PageFolderError(f"no page id: no page JSON names one and the folder name {folder.name!r} is not an id")

    # dated values come from a file that carries a version (v2 always does; v1 only when expanded)
    v1_dated = v1 is not None and isinstance(raw[v1_name].get("version"), Mapping)
    dated = v2 or (v1 if v1_dated else None)
    base = (dated or v1 or ContentVersion(id=page_id)).model_copy()
    other = v1 if dated is v2 else v2
    update: dict[str, Any] = {"id": page_id}
    if other is not None:
        for field in ("title", "space_key", "space_name", "url", "labels", "attachments", "restriction"):
            if not getattr(base, field) and getattr(other, field):
                update[field] = getattr(other, field)
        update["restricted"] = base.restricted or other.restricted
        if v1 is not None and v1.ancestors and len(v1.ancestors) >= len(base.ancestors):
            update["ancestors"] = v1.ancestors  # v1 lists every ancestor with its title, v2 only the parent
    if dated is None:
        update.update(version_at=None, created_at=None)

    update.update(_body(present, v1, v2))
    if "ancestors.v1.json" in raw:
        name = "ancestors.v1.json"
        listed = [(str(a["id"]), str(a.get("title") or "")) for a in _results(raw[name], name) if a.get("id")]
        if listed and len(listed) >= len(update.get("ancestors", base.ancestors)):
            update["ancestors"] = listed
    if "children.v2.json" in raw:
        update["children"] = [
            (str(c["id"]), str(c.get("title") or ""))
            for c in _results(raw["children.v2.json"], "children.v2.json")
            if c.get("id") and c.get("status", "current") == "current"
        ]
    if "attachments.v1.json" in raw:
        update["attachments"] = _attachments(_results(raw["attachments.v1.json"], "attachments.v1.json")) or update.get(
            "attachments", base.attachments
        )
    return base.model_copy(update=update), users


def _body(present: dict[str, Path], v1: ContentVersion | None, v2: ContentVersion | None) -> dict[str, Any]:
    """Storage first (the page's own format), then ADF, then the rendered view: the first the folder holds."""
    for version, name in ((v1, "page.v1.json"), (v2, "page.v2.json")):
        if version is not None and version.storage is not None:
            return {"storage": version.storage, "adf": None, "text": None, "body_source": f"{name} body.storage"}
    if "page.xhtml" in present:
        try:
            markup = present["page.xhtml"].read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise PageFolderError(f"page.xhtml is not UTF-8 text: {exc}") from None
        return {"storage": markup, "adf": None, "text": None, "body_source": "page.xhtml"}
    for version, name in ((v2, "page.v2.json"), (v1, "page.v1.json")):
        if version is not None and version.adf is not None:
            return {"storage": None, "adf": version.adf, "text": None, "body_source": f"{name} body.atlas_doc_format"}
    if "page.adf" in present:
        try:
            doc = adf_body(present["page.adf"].read_bytes(), "page.adf")
        except PayloadError as exc:
            raise PageFolderError(str(exc)) from None
        return {"storage": None, "adf": doc, "text": None, "body_source": "page.adf"}
    for version, name in ((v1, "page.v1.json"), (v2, "page.v2.json")):
        if version is not None and version.text is not None:
            return {"storage": None, "adf": None, "text": version.text, "body_source": f"{name} body.view"}
    if "page.html" in present:
        view = BeautifulSoup(present["page.html"].read_bytes(), "html.parser")
        return {"storage": None, "adf": None, "text": view.get_text("\n"), "body_source": "page.html"}
    files = ", ".join(sorted(present)) or "no files"
    raise PageFolderError(
        f"no body: none of {files} holds body.storage, body.atlas_doc_format or a rendered view, "
        "and there is no page.xhtml, page.adf or page.html"
    )


def _attachments(items: list[Mapping]) -> list[AttachmentInfo]:
    out = []
    for att in items:
        if not att.get("title"):
            continue
        ext = att.get("extensions") if isinstance(att.get("extensions"), Mapping) else {}
        meta = att.get("metadata") if isinstance(att.get("metadata"), Mapping) else {}
        version = att.get("version") if isinstance(att.get("version"), Mapping) else {}
        size = ext.get("fileSize")
        out.append(
            AttachmentInfo(
                name=str(att["title"]),
                id=str(att.get("id") or "") or None,
                version=version.get("number") if isinstance(version.get("number"), int) else None,
                media_type=ext.get("mediaType") or meta.get("mediaType") or att.get("mediaType"),
                size=size if isinstance(size, int) else None,
            )
        )
    return out
