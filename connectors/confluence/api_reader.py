"""ConfluenceApiReader: the live REST API through atlassian-python-api, incremental by CQL, checkpointed per page.

Listing: v1 CQL search (`rest/api/content/search`). Cloud pages with the `_links.next` cursor (v2-style; start is
ignored there), Server/DC with start/limit. Each hit is then read in full (v1 content with body, space, ancestors,
labels, restrictions, attachments), its earlier versions saved since the window start
(`rest/api/content/{id}?status=historical&version=N`, each its own episode) and its comments: Cloud v2
footer-comments/inline-comments (cursor), Server v1 child/comment (start/limit).
Outcome per status: 200 data; 429/5xx retried with backoff honouring Retry-After (urllib3 inside the client) and
Server's 403-when-rate-limited retried here; 401 stops the run (ConfluenceAuthError); 400 on the search stops it
(ConfluenceConfigError: the CQL/space is wrong); 404 on a listed page = deleted upstream (a Deletion item); any other
refusal of one item = a RecordFailure and the run goes on.
"""

import datetime as dt
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

from connectors.confluence.api_http import get_json, make_client
from connectors.confluence.api_settings import ConfluenceApiSettings, ConfluenceCheckpoint
from connectors.confluence.cql import window_cql
from connectors.confluence.errors import ConfluenceApiError, ConfluenceConfigError
from connectors.confluence.groups import ReadStats
from connectors.confluence.identity import UserDirectory
from connectors.confluence.records import SOURCE, ContentVersion, failure, record_from_version
from connectors.confluence.rest_json import PayloadError, content_from_json, users_in
from ground.contract import TimeWindow
from ground.records import Deletion, ErrorClass, Origin, RecordFailure, SourceRecord

PAGE_EXPAND = (
    "body.storage,version,space,history,ancestors,metadata.labels,children.attachment,"
    "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
)
COMMENT_EXPAND = "body.storage,version,history,extensions.location,extensions.inlineProperties,extensions.resolution"
HISTORY_EXPAND = "body.storage,version,space,history,ancestors,metadata.labels,children.attachment"


class ConfluenceApiReader:
    source = SOURCE

    def __init__(self, settings: ConfluenceApiSettings, client: Any = None):
        self.settings = settings
        self.client = client or self._client()
        self.stats = ReadStats()
        self.checkpoint: ConfluenceCheckpoint | None = None
        self.users = UserDirectory()
        self._history_since: dt.datetime | None = None

    def _client(self) -> Any:
        return make_client(self.settings)

    # ------------------------------------------------------------------ HTTP with an outcome per status

    def _get(self, path: str, params: dict | None = None) -> tuple[int, Any]:
        """(status, json) for 200/403/404/other item-level statuses; raises for run-level ones."""
        return get_json(self.client, self.settings, self.stats, path, params)

    @staticmethod
    def _message(body: Any) -> str:
        if isinstance(body, dict):
            return str(body.get("message") or body.get("errors") or body)[:300]
        return str(body)[:300]

    # ------------------------------------------------------------------ read

    def read(
        self, window: TimeWindow | None = None, checkpoint: ConfluenceCheckpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, ConfluenceCheckpoint]:
        s = self.settings
        cql = (
            checkpoint.cql
            if checkpoint and checkpoint.cql
            else window_cql(
                window,
                timezone=s.user_timezone,
                overlap=dt.timedelta(minutes=s.overlap_minutes),
                spaces=s.spaces,
                include_labels=s.include_labels,
                exclude_labels=s.exclude_labels,
            )
        )
        self._history_since = window.start - dt.timedelta(minutes=s.overlap_minutes) if window else None
        state = ConfluenceCheckpoint(
            cql=cql,
            next_url=checkpoint.next_url if checkpoint else None,
            start=checkpoint.start if checkpoint else 0,
            pages_read=checkpoint.pages_read if checkpoint else 0,
        )
        if checkpoint is not None and not checkpoint.has_more:
            return checkpoint
        while True:
            if s.cloud and state.next_url:
                status, body = self._get(state.next_url)
            else:
                status, body = self._get(
                    "rest/api/content/search",
                    {"cql": cql, "limit": s.page_size, "start": state.start, "expand": "version"},
                )
            if status == 400:
                raise ConfluenceConfigError(
                    f"Confluence refused the search (400: {self._message(body)}); check "
                    f"the spaces/labels settings. CQL was: {cql}"
                )
            if status != 200:
                raise ConfluenceApiError(f"Confluence search failed (HTTP {status}: {self._message(body)})")
            hits = body.get("results") or [] if isinstance(body, dict) else []
            for hit in hits:
                yield from self._read_content(hit)
            state.pages_read += 1
            nxt = (body.get("_links") or {}).get("next") if isinstance(body, dict) else None
            if s.cloud:
                state.next_url = self._absolute(nxt) if nxt else None
                state.has_more = bool(nxt) and bool(hits)
            else:
                state.start += len(hits)
                state.has_more = bool(hits) and (bool(nxt) or len(hits) >= s.page_size)
            self.checkpoint = state.model_copy()
            if not state.has_more:
                return state

    def _absolute(self, link: str) -> str:
        if link.startswith("http"):
            return link
        base = urlparse(self.settings.base_url)
        root = f"{base.scheme}://{base.netloc}"
        context = base.path.rstrip("/")
        if context and not link.startswith(context + "/"):
            return f"{root}{context}{link}"
        return f"{root}{link}"

    def _read_content(self, hit: Any) -> Iterator[SourceRecord | RecordFailure | Deletion]:
        ident = str(hit.get("id") or "") if isinstance(hit, dict) else ""
        origin = Origin(url=f"{self.settings.base_url.rstrip('/')}/rest/api/content/{ident}")
        if not ident:
            yield self._failed(origin, ErrorClass.api_error, "search hit without a content id")
            return
        status, body = self._get(f"rest/api/content/{ident}", {"expand": PAGE_EXPAND})
        if status == 404:
            yield Deletion(
                source=SOURCE,
                source_key=ident,
                kind=str(hit.get("type") or "page"),
                reason="deleted",
                detected_at=dt.datetime.now(dt.UTC),
            )
            return
        if status != 200:
            yield self._failed(
                origin,
                ErrorClass.api_error,
                f"Confluence refused content {ident} (HTTP {status}: {self._message(body)})",
                ident,
            )
            return
        users_in(body, self.users)
        version = self._parse(body, origin, ident)
        if isinstance(version, RecordFailure):
            yield version
            return
        if version.status in ("trashed", "deleted"):
            yield Deletion(
                source=SOURCE, source_key=ident, kind=version.type, reason="trashed", detected_at=version.version_at
            )
            return
        record = self._record(version, origin)
        if record is None:
            self.stats.skip_restricted(ident)
            return
        yield record
        yield from self._history(version, origin)
        if self.settings.comments and isinstance(record, SourceRecord):
            yield from self._comments(version, record.fields.get("group_id"))

    def _history(self, current: Any, origin: Origin) -> Iterator[SourceRecord | RecordFailure]:
        """Versions saved between the window start and the current one. They are read under the current version's
        restrictions (the stricter view today), so a page restricted now never leaks through its history."""
        since, limit = self._history_since, self.settings.history_versions
        if since is None or limit <= 0 or current.type == "comment":
            return
        for number in range(current.version - 1, max(0, current.version - 1 - limit), -1):
            status, body = self._get(
                f"rest/api/content/{current.id}", {"status": "historical", "version": number, "expand": HISTORY_EXPAND}
            )
            if status == 404:  # purged from the page history
                return
            if status != 200:
                yield self._failed(
                    origin,
                    ErrorClass.api_error,
                    f"version {number} of {current.type} {current.id} not read (HTTP {status}: {self._message(body)})",
                    current.id,
                )
                continue
            users_in(body, self.users)
            version = self._parse(body, origin, current.id, f"version {number}: ")
            if isinstance(version, RecordFailure):
                yield version
                continue
            if version.version_at is not None and version.version_at < since:
                return
            record = self._record(
                version.model_copy(
                    update={"restricted": current.restricted, "restriction": current.restriction, "status": "current"}
                ),
                origin,
            )
            if record is not None:
                yield record

    def _failed(self, origin: Origin, error: ErrorClass, reason: str, key: str | None = None) -> RecordFailure:
        self.stats.failures += 1
        return failure(origin, error, reason, key)

    def _parse(self, body: Any, origin: Origin, key: str | None, what: str = "") -> ContentVersion | RecordFailure:
        """The content version in a response body, or a counted RecordFailure naming what was wrong."""
        try:
            return content_from_json(body, self.users, base_url=self.settings.base_url)
        except PayloadError as exc:
            return self._failed(origin, ErrorClass.bad_value, f"{what}{exc}", key)

    def _record(self, version: ContentVersion, origin: Origin) -> SourceRecord | None:
        """The record of a version (None: restricted and skipped by the group policy), counted."""
        record = record_from_version(
            version,
            self.users,
            self.settings.groups,
            origin,
            base_url=self.settings.base_url,
            ignore_property_keys=self.settings.ignore_property_keys,
        )
        if record is not None:
            self.stats.records += 1
        return record

    def _comments(self, page: Any, group_id: str | None) -> Iterator[SourceRecord | RecordFailure]:
        s = self.settings
        if s.cloud:
            kind = "blogposts" if page.type == "blogpost" else "pages"
            queries = [
                (f"api/v2/{kind}/{page.id}/{where}-comments", {"body-format": "storage", "limit": s.page_size})
                for where in ("footer", "inline")
            ]
        else:
            queries = [
                (
                    f"rest/api/content/{page.id}/child/comment",
                    {"expand": COMMENT_EXPAND, "depth": "all", "limit": s.page_size, "start": 0},
                )
            ]
        for path, params in queries:
            inline = "inline-comments" in path
            url: str | None = path
            start = 0
            while url:
                status, body = self._get(url, params if url == path else None)
                origin = Origin(url=f"{s.base_url.rstrip('/')}/{path}")
                if status != 200:
                    yield self._failed(
                        origin,
                        ErrorClass.api_error,
                        f"comments of {page.type} {page.id} not read (HTTP {status}: {self._message(body)})",
                        page.id,
                    )
                    break
                results = body.get("results") or []
                users_in(body, self.users)
                for obj in results:
                    yield from self._comment(obj, page, inline, origin, group_id)
                nxt = (body.get("_links") or {}).get("next")
                if s.cloud:
                    url = self._absolute(nxt) if nxt and results else None
                else:
                    start += len(results)
                    params = {**params, "start": start}
                    url = path if results and (nxt or len(results) >= s.page_size) else None

    def _comment(
        self, obj: Any, page: Any, inline: bool, origin: Origin, group_id: str | None
    ) -> Iterator[SourceRecord | RecordFailure]:
        version = self._parse({**obj, "type": "comment"}, origin, str(obj.get("id") or "") or None, "comment: ")
        if isinstance(version, RecordFailure):
            yield version
            return
        record = self._record(
            version.model_copy(
                update={
                    "container_id": version.container_id or page.id,
                    "container_title": page.title,
                    "space_key": page.space_key,
                    "space_name": page.space_name,
                    "restricted": page.restricted,
                    "location": "inline" if inline else (version.location or "footer"),
                }
            ),
            origin,
        )
        if record is not None:
            yield record


def next_cursor(link: str | None) -> str | None:
    """The cursor value of a Cloud `_links.next` (for logs and tests)."""
    if not link:
        return None
    values = parse_qs(urlparse(link).query).get("cursor")
    return values[0] if values else None
