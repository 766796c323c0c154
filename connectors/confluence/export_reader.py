"""ConfluenceExportReader: XML space export zips, HTML space export zips and saved REST API responses -> records.

Walks paths in sorted order. A zip holding entities.xml is an XML export, a zip of *.html pages an HTML export;
.json files are saved REST responses (v1 or v2, single objects, result lists, search hits); entities.xml and
exported *.html pages are also read unzipped. A folder of one saved Cloud page (page.v1.json, page.v2.json,
page.xhtml, page.adf, page.html, ancestors/children/attachments listings) is read as ONE page (page_folder). Every bad file, member or object becomes a RecordFailure.
"""

import zipfile
import zlib
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel

from connectors.archives import ArchiveLimits, checked_members, open_zip, read_member
from connectors.confluence.groups import GroupPolicy, ReadStats
from connectors.confluence.html_export import HtmlExportError, page_from_html, page_id_from_name
from connectors.confluence.identity import UserDirectory
from connectors.confluence.page_folder import FOLDER_FILES, PageFolderError, in_page_folder, read_page_folder
from connectors.confluence.records import SOURCE, failure, record_from_version
from connectors.confluence.rest_json import PayloadError, content_from_json, find_content, space_map, users_in
from connectors.confluence.xml_export import XmlExport, XmlExportError
from connectors.files import guarded, walk
from connectors.safe_json import field_error, load_json
from ground.contract import FileCheckpoint, Item, TimeWindow
from ground.records import Deletion, ErrorClass, Origin, RecordFailure, SourceRecord

ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
# Files an unzipped export holds beside its pages: not content, never a failure.
NOT_CONTENT = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".css",
    ".js",
    ".pdf",
    ".docx",
    ".xlsx",
    ".pptx",
    ".txt",
    ".md",
    ".properties",
    ".ico",
    ".woff",
    ".woff2",
    ".ttf",
    ".xhtml",
    ".adf",
    ".yaml",
    ".yml",
}


class ExportSettings(BaseModel):
    timezone: str = "UTC"  # XML export dates are the server's local time
    base_url: str | None = None  # for record URLs when the export has none
    groups: GroupPolicy = GroupPolicy()
    max_file_bytes: int = 2_000_000_000
    ignore_property_keys: frozenset[str] = frozenset()  # page-properties keys that make no facts (normalised)


class ConfluenceExportReader:
    source = SOURCE

    def __init__(
        self,
        paths: Sequence[str | Path],
        settings: ExportSettings | None = None,
        archive_limits: ArchiveLimits | None = None,
    ):
        self.paths = [Path(p) for p in paths]
        self.settings = settings or ExportSettings()
        self.archive_limits = archive_limits or ArchiveLimits()
        self.stats = ReadStats()

    def read(
        self, window: TimeWindow | None = None, checkpoint: FileCheckpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, FileCheckpoint]:
        done = list(checkpoint.files_done) if checkpoint else []
        skip = set(done)
        for path in self._files():
            if isinstance(path, RecordFailure):
                self.stats.failures += 1
                yield path
                continue
            if str(path) in skip:
                continue
            if in_page_folder(path):  # one page saved as several files: read the folder once
                files = sorted(str(path.parent / n) for n in FOLDER_FILES if (path.parent / n).is_file())
                items = guarded(self.source, Origin(file=str(path.parent)), self._read_folder(path.parent))
            else:
                files, items = [str(path)], guarded(self.source, Origin(file=str(path)), self._read_file(path))
            for item in items:
                if isinstance(item, RecordFailure):
                    self.stats.failures += 1
                    yield item
                elif isinstance(item, Deletion):  # a trashed page is a deletion whenever it was trashed
                    yield item
                elif window is None or window.contains(item.updated_at):
                    self.stats.records += 1
                    yield item
            for name in files:
                if name not in skip:
                    done.append(name)
                    skip.add(name)
        return FileCheckpoint(has_more=False, files_done=done)

    # ------------------------------------------------------------------ files

    def _files(self) -> Iterator[Path | RecordFailure]:
        return walk(
            self.source,
            self.paths,
            keep=lambda name: (
                not name.startswith(".") and (name in FOLDER_FILES or Path(name).suffix.lower() not in NOT_CONTENT)
            ),
        )

    def _read_folder(self, folder: Path) -> Iterator[Item]:
        origin = Origin(file=str(folder))
        try:
            version, users = read_page_folder(folder, self.settings.base_url)
        except PageFolderError as exc:
            yield failure(
                origin, ErrorClass.parse_error, f"page folder: {exc}", folder.name if folder.name.isdigit() else None
            )
            return
        except OSError as exc:
            yield failure(origin, ErrorClass.io_error, f"cannot read page folder: {exc.strerror or exc}")
            return
        files = ", ".join(sorted(n for n in FOLDER_FILES if (folder / n).is_file()))
        for item in self._emit(version, users, origin):
            if isinstance(item, RecordFailure):
                item = item.model_copy(update={"reason": f"page folder ({files}): {item.reason}"})
            yield item

    def _read_file(self, path: Path) -> Iterator[Item]:
        origin = Origin(file=str(path))
        suffix = path.suffix.lower()
        try:
            with open(path, "rb") as stream:
                head = stream.read(4)
            if head.startswith(ZIP_MAGICS) or suffix == ".zip":
                yield from self._read_zip(path)
            elif suffix == ".json":
                yield from self._read_json(path.read_bytes(), origin)
            elif path.name == "entities.xml":
                with open(path, "rb") as stream:
                    yield from self._read_xml(stream, origin)
            elif suffix in (".html", ".htm"):
                yield from self._read_html_pages([(path.name, path.read_bytes(), origin)], path.parent.name)
            else:
                yield failure(
                    origin,
                    ErrorClass.unsupported,
                    "not a Confluence export: expected a space export zip (XML or HTML), entities.xml, "
                    "an exported .html page or a saved REST response (.json)",
                )
        except OSError as exc:
            yield failure(origin, ErrorClass.io_error, f"cannot read file: {exc.strerror or exc}")

    def _read_zip(self, path: Path) -> Iterator[Item]:
        """One member at a time (entities.xml streamed, a page or JSON read whole), each within the archive limits."""
        origin = Origin(file=str(path))
        archive = open_zip(path, SOURCE, self.archive_limits)
        if isinstance(archive, RecordFailure):
            yield archive
            return
        with archive:
            infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
            entities = [i for i in infos if i.filename.rsplit("/", 1)[-1] == "entities.xml"]
            pages = [i for i in infos if i.filename.lower().endswith(".html") and page_id_from_name(i.filename)]
            jsons = [i for i in infos if i.filename.lower().endswith(".json")]
            if not (entities or pages or jsons):
                yield failure(
                    origin,
                    ErrorClass.unsupported,
                    "zip holds neither entities.xml (XML space export) nor exported pages "
                    "(<Title>_<id>.html) nor saved REST responses (.json)",
                )
                return
            for info in checked_members(path, entities or pages + jsons, SOURCE, self.archive_limits):
                if isinstance(info, RecordFailure):
                    yield info
                    continue
                member = origin.model_copy(update={"member": info.filename})
                try:
                    if entities:
                        with archive.open(info) as stream:
                            yield from self._read_xml(stream, member)
                    elif info.filename.lower().endswith(".html"):
                        space = info.filename.split("/")[0] if "/" in info.filename else None
                        yield from self._read_html_pages([(info.filename, read_member(archive, info), member)], space)
                    else:
                        yield from self._read_json(read_member(archive, info), member)
                except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
                    yield failure(member, ErrorClass.parse_error, f"zip member cannot be decompressed: {exc}")

    # ------------------------------------------------------------------ formats

    def _emit(self, version, users, origin: Origin, pages=None) -> Iterator[Item]:
        if version.status in ("trashed", "deleted", "archived_deleted"):
            yield Deletion(
                source=SOURCE,
                source_key=version.id,
                kind=version.type,
                reason="trashed",
                detected_at=version.version_at,
            )
            return
        result = record_from_version(
            version,
            users,
            self.settings.groups,
            origin,
            base_url=self.settings.base_url,
            pages=pages,
            ignore_property_keys=self.settings.ignore_property_keys,
        )
        if result is None:
            self.stats.skip_restricted(version.id)
            return
        yield result

    def _read_xml(self, stream, origin: Origin) -> Iterator[Item]:
        export = XmlExport(self.settings.timezone)
        try:
            export.load(stream)
        except XmlExportError as exc:
            yield failure(origin, ErrorClass.parse_error, str(exc))
            return
        for item in export.items():
            where = origin.model_copy(update={"index": None, "url": None})
            if item.version is None:
                yield failure(where, ErrorClass.bad_value, f"export object {item.object_id}: {item.error}", item.key)
                continue
            yield from self._emit(item.version, export.users, where, export.page_id)

    def _read_html_pages(self, pages: list[tuple[str, bytes, Origin]], space: str | None) -> Iterator[Item]:
        for name, data, origin in pages:
            try:
                version, _ = page_from_html(data, name, space)
            except HtmlExportError as exc:
                if page_id_from_name(name) is None and name.rsplit("/", 1)[-1] == "index.html":
                    continue  # the space overview page: not content
                yield failure(origin, ErrorClass.parse_error, str(exc), page_id_from_name(name))
                continue
            except Exception as exc:  # noqa: BLE001
                yield failure(
                    origin, ErrorClass.parse_error, f"HTML page did not parse: {exc}", page_id_from_name(name)
                )
                continue
            yield from self._emit(version, UserDirectory(), origin)

    def _read_json(self, data: bytes, origin: Origin) -> Iterator[Item]:
        try:
            payload = load_json(data)
        except ValueError as exc:  # not JSON, not decodable, or nested too deep
            yield failure(origin, ErrorClass.parse_error, f"not JSON: {exc}")
            return
        users = UserDirectory()
        users_in(payload, users)
        spaces = space_map(payload)
        found = 0
        for path, obj in find_content(payload):
            where = origin.model_copy(update={"url": None, "member": origin.member})
            stub = "body" not in obj and "version" not in obj
            if stub:
                continue  # ancestor/child/search listings: ids and titles, not content
            found += 1
            try:
                version = content_from_json(obj, users, spaces, self.settings.base_url)
            except PayloadError as exc:
                yield failure(where, ErrorClass.bad_value, f"{path}: {exc}", str(obj.get("id") or "") or None)
                continue
            except (TypeError, AttributeError, KeyError, ValueError) as exc:  # a field of a type we cannot use
                yield failure(
                    where, ErrorClass.bad_value, f"{path}: {field_error(exc)}", str(obj.get("id") or "") or None
                )
                continue
            for item in self._emit(version, users, where):
                if isinstance(item, RecordFailure):
                    item = item.model_copy(update={"reason": f"{path}: {item.reason}"})
                yield item
        if not found:
            yield failure(
                origin,
                ErrorClass.unsupported,
                "no Confluence page, blog post or comment with a body or version in this JSON "
                "(listings of ancestors, children, attachments, labels or spaces are not content)",
            )
