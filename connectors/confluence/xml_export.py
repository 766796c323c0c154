"""Confluence XML space export (a zip holding entities.xml, Hibernate's generic object dump) -> ContentVersions.

entities.xml is streamed (lxml iterparse, elements cleared as they are read): objects are reduced to small dicts of
properties and references, bodies are kept per content id, and pages are assembled once the file is read, because an
object may refer to one written later. Every historical version is its own Page object whose originalVersion points
at the current page: its record keys as the current page id with its own version number.
Dates carry no zone: they are the server's local time (`timezone`, default UTC).
"""

import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Iterator
from typing import IO, Any

from lxml import etree
from pydantic import BaseModel, Field

from connectors.confluence.identity import ConfluenceUser, UserDirectory
from connectors.confluence.records import AttachmentInfo, ContentVersion

PAGE_CLASSES = {"Page": "page", "BlogPost": "blogpost", "Comment": "comment"}
KEPT_CLASSES = set(PAGE_CLASSES) | {
    "Space",
    "BodyContent",
    "ConfluenceUserImpl",
    "InternalUser",
    "User",
    "Label",
    "Labelling",
    "ContentPermissionSet",
    "ContentPermission",
    "Attachment",
    "ContentProperty",
}
STORAGE_BODY_TYPE = "2"
MAX_OBJECT_BYTES = 64 << 20  # one <object> (a page body with its properties); Confluence itself caps bodies far lower


class ExportObject(BaseModel):
    cls: str
    id: str
    props: dict[str, str] = Field(default_factory=dict)
    refs: dict[str, tuple[str, str]] = Field(default_factory=dict)  # property -> (class, id)
    lists: dict[str, list[tuple[str, str]]] = Field(default_factory=dict)


class XmlExportError(ValueError):
    pass


class XmlItem(BaseModel):
    """A version assembled from the export, or why it could not be (object id + reason)."""

    version: ContentVersion | None = None
    object_id: str
    key: str | None = None
    error: str | None = None


def _parse_object(el: Any) -> ExportObject:
    ident = ""
    obj = ExportObject(cls=el.get("class") or "", id="")
    for child in el:
        tag = child.tag
        if tag == "id":
            ident = (child.text or "").strip()
        elif tag == "property":
            name = child.get("name") or ""
            if child.get("class"):
                ref = child.find("id")
                if ref is not None:
                    obj.refs[name] = (child.get("class") or "", (ref.text or "").strip())
            else:
                obj.props[name] = child.text or ""
        elif tag == "collection":
            name = child.get("name") or ""
            obj.lists[name] = [
                (e.get("class") or "", (e.findtext("id") or "").strip()) for e in child.findall("element")
            ]
    obj.id = ident
    return obj


class _ObjectBound:
    """The stream as lxml reads it, counting the bytes since the last complete object: an object that grows past the
    bound (an endless body, a bomb) stops the parse instead of filling memory."""

    def __init__(self, stream: IO[bytes], limit: int):
        self.stream, self.limit, self.since = stream, limit, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size if size and size > 0 else 1 << 16)
        self.since += len(data)
        if self.since > self.limit:
            raise XmlExportError(
                f"entities.xml has an object over {self.limit:,} bytes (or none closes): not read further"
            )
        return data


def iter_objects(stream: IO[bytes], max_object_bytes: int = MAX_OBJECT_BYTES) -> Iterator[ExportObject]:
    """Stream the kept objects of entities.xml. Raises XmlExportError when the XML breaks or an object is too big."""
    bounded = _ObjectBound(stream, max_object_bytes)
    try:
        for _event, el in etree.iterparse(
            bounded,
            events=("end",),
            tag="object",
            huge_tree=True,
            recover=False,
            resolve_entities=False,
            no_network=True,
        ):
            bounded.since = 0
            if el.get("class") in KEPT_CLASSES:
                yield _parse_object(el)
            el.clear()
            while el.getprevious() is not None:
                del el.getparent()[0]
    except etree.XMLSyntaxError as exc:
        raise XmlExportError(f"entities.xml is not well-formed XML: {exc}") from None


class XmlExport:
    """The assembled export: users, spaces, labels, restrictions, attachments, bodies, content versions."""

    def __init__(self, timezone: str = "UTC", max_object_bytes: int = MAX_OBJECT_BYTES) -> None:
        self.tz = zoneinfo.ZoneInfo(timezone)
        self.max_object_bytes = max_object_bytes
        self.users = UserDirectory()
        self.spaces: dict[str, tuple[str, str]] = {}
        self.contents: list[ExportObject] = []
        self.bodies: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.content_labels: dict[str, list[str]] = defaultdict(list)
        self.permission_sets: dict[str, str] = {}  # set id -> owning content id (View sets only)
        self.readers: dict[str, list[str]] = defaultdict(list)  # content id -> who may read
        self.attachments: dict[str, list[AttachmentInfo]] = defaultdict(list)
        self.att_props: dict[str, dict[str, str]] = defaultdict(dict)
        self.content_props: dict[str, dict[str, str]] = defaultdict(dict)
        self._internal: dict[str, tuple[str, str]] = {}  # username -> (display name, email)
        self._att_objects: list[ExportObject] = []
        self._permissions: list[ExportObject] = []
        self.titles: dict[tuple[str | None, str], str] = {}

    def time(self, value: str | None) -> dt.datetime | None:
        if not value or not value.strip():
            return None
        text = value.strip()
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            raise XmlExportError(f"date {text!r} is not a date") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self.tz)
        return moment.astimezone(dt.UTC)

    def load(self, stream: IO[bytes]) -> None:
        for obj in iter_objects(stream, self.max_object_bytes):
            cls = obj.cls
            if cls in PAGE_CLASSES:
                self.contents.append(obj)
            elif cls == "BodyContent":
                target = obj.refs.get("content")
                if target and obj.props.get("bodyType", STORAGE_BODY_TYPE).strip() == STORAGE_BODY_TYPE:
                    self.bodies[target[1]] = obj.props.get("body", "")
            elif cls == "Space":
                self.spaces[obj.id] = (obj.props.get("key", "").strip(), obj.props.get("name", "").strip())
            elif cls == "ConfluenceUserImpl":
                self.users.add(
                    ConfluenceUser(
                        key=obj.id,
                        username=obj.props.get("name") or None,
                        email=obj.props.get("email") or None,
                        name=obj.props.get("displayName") or None,
                    )
                )
            elif cls in ("InternalUser", "User"):
                self._internal[obj.props.get("name", "").strip()] = (
                    obj.props.get("displayName", "").strip(),
                    obj.props.get("emailAddress", "").strip(),
                )
            elif cls == "Label":
                self.labels[obj.id] = obj.props.get("name", "").strip()
            elif cls == "Labelling":
                label, content = obj.refs.get("label"), obj.refs.get("content")
                if label and content:
                    self.content_labels[content[1]].append(label[1])
            elif cls == "ContentPermissionSet":
                owner = obj.refs.get("owningContent")
                if owner and obj.props.get("type", "").strip().lower() == "view":
                    self.permission_sets[obj.id] = owner[1]
            elif cls == "ContentPermission":
                self._permissions.append(obj)
            elif cls == "Attachment":
                self._att_objects.append(obj)
            elif cls == "ContentProperty":
                target = obj.refs.get("content")
                if target:
                    value = obj.props.get("stringValue") or obj.props.get("longValue") or ""
                    self.content_props[target[1]][obj.props.get("name", "").strip()] = value.strip()
        self._finish()

    def _finish(self) -> None:
        for username, (display, email) in self._internal.items():
            for key in list(self.users._by_key):
                user = self.users._by_key[key]
                if user.username == username:
                    self.users.add(
                        ConfluenceUser(key=user.key, username=username, name=display or None, email=email or None)
                    )
        for perm in self._permissions:
            owning = perm.refs.get("owningSet")
            content = self.permission_sets.get(owning[1]) if owning else None
            if content is None:
                continue
            subject = perm.refs.get("userSubject")
            who = perm.props.get("groupName", "").strip() or (
                (self.users.resolve(subject[1]).name or subject[1]) if subject else ""
            )
            self.readers[content].append(who or "restricted")
        for att in self._att_objects:
            if att.refs.get("originalVersion") or att.props.get("contentStatus", "current").strip() != "current":
                continue
            container = att.refs.get("containerContent")
            if not container:
                continue
            props = self.content_props.get(att.id, {})
            size = props.get("FILESIZE") or att.props.get("fileSize")
            version = att.props.get("version", "").strip()
            self.attachments[container[1]].append(
                AttachmentInfo(
                    name=att.props.get("title", "").strip(),
                    id=att.id,
                    version=int(version) if version.isdigit() else None,
                    media_type=props.get("MEDIA_TYPE") or att.props.get("contentType") or None,
                    size=int(size) if size and size.isdigit() else None,
                )
            )
        by_id = {c.id: c for c in self.contents}
        for obj in self.contents:
            if obj.cls != "Comment" and not obj.refs.get("originalVersion"):
                space = obj.refs.get("space")
                key = self.spaces.get(space[1], (None, None))[0] if space else None
                self.titles[(key, obj.props.get("title", "").strip())] = obj.id
        self._by_id = by_id

    def page_id(self, space_key: str | None, title: str) -> str | None:
        return self.titles.get((space_key, title)) or next((i for (s, t), i in self.titles.items() if t == title), None)

    def current_id(self, obj: ExportObject) -> str:
        original = obj.refs.get("originalVersion")
        return original[1] if original and original[1] else obj.id

    def items(self) -> Iterator[XmlItem]:
        """Content versions in a stable order (current id, version number); drafts are not content yet."""

        def order(o: ExportObject) -> tuple:
            v = o.props.get("version", "0").strip()
            return (self.current_id(o).zfill(20), int(v) if v.isdigit() else 0, o.id)

        for obj in sorted(self.contents, key=order):
            status = obj.props.get("contentStatus", "current").strip() or "current"
            if status == "draft":
                continue
            key = self.current_id(obj)
            try:
                yield XmlItem(version=self.version(obj, key, status), object_id=obj.id, key=key)
            except Exception as exc:  # noqa: BLE001 - becomes a failure for this one object
                yield XmlItem(
                    object_id=obj.id,
                    key=key,
                    error=f"{type(exc).__name__}: {exc}" if not isinstance(exc, XmlExportError) else str(exc),
                )

    def _space(self, obj: ExportObject) -> tuple[str | None, str | None]:
        space = obj.refs.get("space")
        if space is None:
            container = obj.refs.get("containerContent") or obj.refs.get("originalVersion")
            if container and container[1] in self._by_id and container[1] != obj.id:
                return self._space(self._by_id[container[1]])
            return None, None
        return self.spaces.get(space[1], (None, None))

    def _ancestors(self, obj: ExportObject) -> list[tuple[str, str]]:
        chain: list[tuple[str, str]] = []
        seen = {obj.id}
        parent = obj.refs.get("parent")
        while parent and parent[1] and parent[1] not in seen and len(chain) < 100:
            seen.add(parent[1])
            node = self._by_id.get(parent[1])
            chain.append((parent[1], node.props.get("title", "").strip() if node else ""))
            parent = node.refs.get("parent") if node else None
        return list(reversed(chain))

    def version(self, obj: ExportObject, key: str, status: str) -> ContentVersion:
        kind = PAGE_CLASSES[obj.cls]
        current = self._by_id.get(key, obj)
        number = obj.props.get("version", "1").strip() or "1"
        if not number.isdigit():
            raise XmlExportError(f"version {number!r} is not a number")
        creator = obj.refs.get("creator")
        modifier = obj.refs.get("lastModifier")
        space_key, space_name = self._space(current)
        restricted_readers = self.readers.get(key, [])
        props = self.content_props.get(key, {})
        container = obj.refs.get("containerContent")
        parent_comment = obj.refs.get("parent") if kind == "comment" else None
        container_id = (
            self.current_id(self._by_id[container[1]])
            if container and container[1] in self._by_id
            else (container[1] if container else None)
        )
        container_obj = self._by_id.get(container_id or "")
        if kind == "comment" and container_obj is not None:
            space_key, space_name = self._space(container_obj)
            restricted_readers = self.readers.get(container_id or "", [])
        return ContentVersion(
            id=key,
            type=kind,
            status="current" if status == "historical" else status,
            title=obj.props.get("title", "").strip(),
            version=int(number),
            version_message=obj.props.get("versionComment", "").strip(),
            created_at=self.time(current.props.get("creationDate") or obj.props.get("creationDate")),
            version_at=self.time(obj.props.get("lastModificationDate") or obj.props.get("creationDate")),
            author=self.users.resolve(creator[1]) if creator else None,
            editor=self.users.resolve(modifier[1])
            if modifier
            else (self.users.resolve(creator[1]) if creator else None),
            space_key=space_key or None,
            space_name=space_name or None,
            ancestors=self._ancestors(current) if kind != "comment" else [],
            labels=sorted({self.labels.get(i, "") for i in self.content_labels.get(key, [])} - {""}),
            storage=self.bodies.get(obj.id, ""),
            attachments=list(self.attachments.get(key, [])),
            restricted=bool(restricted_readers),
            restriction=", ".join(restricted_readers),
            container_id=container_id if kind == "comment" else None,
            container_title=container_obj.props.get("title", "").strip() if container_obj is not None else None,
            parent_comment_id=parent_comment[1] if parent_comment else None,
            location=("inline" if props.get("inline-comment", "").lower() == "true" else "footer")
            if kind == "comment"
            else None,
            inline_selection=props.get("inline-original-selection") or None,
            resolved=(props.get("status", "").lower() == "resolved") if props.get("status") else None,
        )
