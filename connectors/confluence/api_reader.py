"""ConfluenceApiReader: the live REST API through atlassian-python-api, incremental by CQL, checkpointed per page.

Listing: v1 CQL search (`rest/api/content/search`). Cloud pages with the `_links.next` cursor (v2-style; start is
ignored there), Server/DC with start/limit. Each hit is then read in full (v1 content with body, space, ancestors,
labels, restrictions, attachments), its earlier versions saved since the window start
(`rest/api/content/{id}?status=historical&version=N`, each its own episode) and its comments: Cloud v2
footer-comments/inline-comments (cursor), Server v1 child/comment (start/limit).
Outcome per status: 200 data; 429/5xx retried with backoff honouring Retry-After (urllib3 inside the client) and
Server's 403-when-rate-limited retried here; 401 stops the run (ConfluenceAuthError); 400 on the search stops it
(ConfluenceConfigError: the CQL/space is wrong); 404 on a listed page = deleted upstream (a Tombstone); any other
refusal of one item = a RecordFailure and the run goes on.
"""

import datetime as dt
import time
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import requests
from pydantic import BaseModel, Field, SecretStr

from connectors.confluence.content import SOURCE, ContentVersion, failure, record_from_version
from connectors.confluence.cql import window_cql
from connectors.confluence.errors import ConfluenceApiError, ConfluenceAuthError, ConfluenceConfigError
from connectors.confluence.groups import GroupPolicy, ReadStats
from connectors.confluence.identity import UserDirectory
from connectors.confluence.rest_json import PayloadError, content_from_json, users_in
from connectors.confluence.tombstones import Tombstone
from ground.contract import Checkpoint, TimeWindow
from ground.records import ErrorClass, Origin, RecordFailure, SourceRecord
from connectors.safe_json import load_json

PAGE_EXPAND = ("body.storage,version,space,history,ancestors,metadata.labels,children.attachment,"
               "restrictions.read.restrictions.user,restrictions.read.restrictions.group")
COMMENT_EXPAND = "body.storage,version,history,extensions.location,extensions.inlineProperties,extensions.resolution"
HISTORY_EXPAND = "body.storage,version,space,history,ancestors,metadata.labels,children.attachment"


class ConfluenceApiSettings(BaseModel):
    base_url: str                                   # https://northwind.atlassian.net/wiki or https://confluence.corp
    username: str | None = None                     # Cloud: account email; Server: user (None = PAT as bearer)
    token: SecretStr                                # Cloud API token / Server password or personal access token
    cloud: bool = True
    spaces: list[str] = Field(default_factory=list)
    include_labels: list[str] = Field(default_factory=list)
    exclude_labels: list[str] = Field(default_factory=list)
    user_timezone: str = "UTC"                      # the API user's profile time zone (CQL dates are in it)
    overlap_minutes: int = 10
    page_size: int = 25
    timeout_seconds: float = 30.0
    max_retries: int = 5
    backoff_seconds: float = 1.0                    # first backoff; doubles per retry
    max_backoff_seconds: float = 120.0
    comments: bool = True
    # Earlier versions saved inside the window are read too, newest first, at most this many per page (0 = only the
    # current version). Older ones were read on earlier nights; a read without a window takes the current only.
    history_versions: int = 20
    groups: GroupPolicy = GroupPolicy()
    ignore_property_keys: frozenset[str] = frozenset()   # page-properties keys that make no facts (normalised)


class ConfluenceCheckpoint(Checkpoint):
    cql: str | None = None
    next_url: str | None = None                     # Cloud cursor (relative _links.next)
    start: int = 0                                  # Server offset
    pages_read: int = 0


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class ConfluenceApiReader:
    source = SOURCE

    def __init__(self, settings: ConfluenceApiSettings, client: Any = None):
        self.settings = settings
        self.client = client or self._client()
        self.stats = ReadStats()
        self.tombstones: list[Tombstone] = []
        self.checkpoint: ConfluenceCheckpoint | None = None
        self.users = UserDirectory()
        self._history_since: dt.datetime | None = None

    def _client(self) -> Any:
        from atlassian import Confluence

        s = self.settings
        auth: dict[str, Any] = ({"username": s.username, "password": s.token.get_secret_value()} if s.username
                                else {"token": s.token.get_secret_value()})
        return Confluence(s.base_url, cloud=s.cloud, backoff_and_retry=True, timeout=int(max(1, s.timeout_seconds)),
                          retry_status_codes=[429, 500, 502, 503, 504], max_backoff_retries=s.max_retries,
                          backoff_factor=s.backoff_seconds, backoff_jitter=0.0,
                          max_backoff_seconds=int(max(1, s.max_backoff_seconds)), **auth)

    # ------------------------------------------------------------------ HTTP with an outcome per status

    def _get(self, path: str, params: dict | None = None) -> tuple[int, Any]:
        """(status, json) for 200/403/404/other item-level statuses; raises for run-level ones."""
        s = self.settings
        url = path if path.startswith("http") else f"{s.base_url.rstrip('/')}/{path.lstrip('/')}"
        where = urlparse(url).path
        delay = s.backoff_seconds
        for attempt in range(s.max_retries + 1):
            self.stats.requests += 1
            try:
                response = self.client.request("GET", url, params=params, absolute=True, advanced_mode=True)
            except requests.exceptions.RetryError as exc:
                raise ConfluenceApiError(f"Confluence kept answering with errors for GET {where} after "
                                         f"{s.max_retries} retries ({type(exc).__name__}); try again later") from None
            except (requests.ConnectionError, requests.Timeout) as exc:
                if attempt == s.max_retries:
                    raise ConfluenceApiError(f"cannot reach Confluence at {s.base_url}: {type(exc).__name__}") from None
                self.stats.retries += 1
                time.sleep(min(delay, s.max_backoff_seconds))
                delay *= 2
                continue
            status = response.status_code
            if status == 200:
                try:
                    return status, load_json(response.content)   # ValueError too when nested too deep
                except ValueError:
                    return 599, {"message": "response is not JSON"}
            if status == 401:
                raise ConfluenceAuthError(
                    f"Confluence at {s.base_url} rejected the credentials (401) for user "
                    f"{s.username or '<token>'}: check CONFLUENCE_USERNAME and CONFLUENCE_API_TOKEN")
            rate_limited = status == 429 or status >= 500 or (
                status == 403 and (response.headers.get("Retry-After") is not None
                                   or "rate limit" in response.text.lower()))
            if rate_limited and attempt < s.max_retries:
                self.stats.retries += 1
                time.sleep(min(_retry_after(response) or delay, s.max_backoff_seconds))
                delay *= 2
                continue
            if rate_limited:
                raise ConfluenceApiError(f"Confluence still rate-limits or fails GET {where} (HTTP {status}) after "
                                         f"{s.max_retries} retries; try again later or lower the page size")
            try:
                body = load_json(response.content)
            except ValueError:
                body = {"message": response.text[:300]}
            return status, body
        raise ConfluenceApiError(f"GET {where}: no answer after {s.max_retries} retries")

    @staticmethod
    def _message(body: Any) -> str:
        if isinstance(body, dict):
            return str(body.get("message") or body.get("errors") or body)[:300]
        return str(body)[:300]

    # ------------------------------------------------------------------ read

    def read(self, window: TimeWindow | None = None, checkpoint: ConfluenceCheckpoint | None = None
             ) -> Generator[SourceRecord | RecordFailure, None, ConfluenceCheckpoint]:
        s = self.settings
        cql = (checkpoint.cql if checkpoint and checkpoint.cql else
               window_cql(window, timezone=s.user_timezone, overlap=dt.timedelta(minutes=s.overlap_minutes),
                          spaces=s.spaces, include_labels=s.include_labels, exclude_labels=s.exclude_labels))
        self._history_since = window.start - dt.timedelta(minutes=s.overlap_minutes) if window else None
        state = ConfluenceCheckpoint(cql=cql, next_url=checkpoint.next_url if checkpoint else None,
                                     start=checkpoint.start if checkpoint else 0,
                                     pages_read=checkpoint.pages_read if checkpoint else 0)
        if checkpoint is not None and not checkpoint.has_more:
            return checkpoint
        while True:
            if s.cloud and state.next_url:
                status, body = self._get(state.next_url)
            else:
                status, body = self._get("rest/api/content/search",
                                         {"cql": cql, "limit": s.page_size, "start": state.start, "expand": "version"})
            if status == 400:
                raise ConfluenceConfigError(f"Confluence refused the search (400: {self._message(body)}); check "
                                            f"the spaces/labels settings. CQL was: {cql}")
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

    def _read_content(self, hit: Any) -> Iterator[SourceRecord | RecordFailure]:
        ident = str(hit.get("id") or "") if isinstance(hit, dict) else ""
        origin = Origin(url=f"{self.settings.base_url.rstrip('/')}/rest/api/content/{ident}")
        if not ident:
            yield self._failed(origin, ErrorClass.api_error, "search hit without a content id")
            return
        status, body = self._get(f"rest/api/content/{ident}", {"expand": PAGE_EXPAND})
        if status == 404:
            self.tombstones.append(Tombstone(source_key=ident, kind=str(hit.get("type") or "page"), reason="deleted",
                                             detected_at=dt.datetime.now(dt.timezone.utc)))
            return
        if status != 200:
            yield self._failed(origin, ErrorClass.api_error,
                               f"Confluence refused content {ident} (HTTP {status}: {self._message(body)})", ident)
            return
        users_in(body, self.users)
        version = self._parse(body, origin, ident)
        if isinstance(version, RecordFailure):
            yield version
            return
        if version.status in ("trashed", "deleted"):
            self.tombstones.append(Tombstone(source_key=ident, kind=version.type, reason="trashed",
                                             detected_at=version.version_at))
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
            status, body = self._get(f"rest/api/content/{current.id}",
                                     {"status": "historical", "version": number, "expand": HISTORY_EXPAND})
            if status == 404:                        # purged from the page history
                return
            if status != 200:
                yield self._failed(origin, ErrorClass.api_error, f"version {number} of {current.type} {current.id} "
                                   f"not read (HTTP {status}: {self._message(body)})", current.id)
                continue
            users_in(body, self.users)
            version = self._parse(body, origin, current.id, f"version {number}: ")
            if isinstance(version, RecordFailure):
                yield version
                continue
            if version.version_at is not None and version.version_at < since:
                return
            record = self._record(version.model_copy(update={
                "restricted": current.restricted, "restriction": current.restriction, "status": "current"}), origin)
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
        record = record_from_version(version, self.users, self.settings.groups, origin,
                                     base_url=self.settings.base_url,
                                     ignore_property_keys=self.settings.ignore_property_keys)
        if record is not None:
            self.stats.records += 1
        return record

    def _comments(self, page: Any, group_id: str | None) -> Iterator[SourceRecord | RecordFailure]:
        s = self.settings
        if s.cloud:
            kind = "blogposts" if page.type == "blogpost" else "pages"
            queries = [(f"api/v2/{kind}/{page.id}/{where}-comments", {"body-format": "storage", "limit": s.page_size})
                       for where in ("footer", "inline")]
        else:
            queries = [(f"rest/api/content/{page.id}/child/comment",
                        {"expand": COMMENT_EXPAND, "depth": "all", "limit": s.page_size, "start": 0})]
        for path, params in queries:
            inline = "inline-comments" in path
            url: str | None = path
            start = 0
            while url:
                status, body = self._get(url, params if url == path else None)
                origin = Origin(url=f"{s.base_url.rstrip('/')}/{path}")
                if status != 200:
                    yield self._failed(origin, ErrorClass.api_error, f"comments of {page.type} {page.id} not read "
                                       f"(HTTP {status}: {self._message(body)})", page.id)
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

    def _comment(self, obj: Any, page: Any, inline: bool, origin: Origin, group_id: str | None
                 ) -> Iterator[SourceRecord | RecordFailure]:
        version = self._parse({**obj, "type": "comment"}, origin, str(obj.get("id") or "") or None, "comment: ")
        if isinstance(version, RecordFailure):
            yield version
            return
        record = self._record(version.model_copy(update={
            "container_id": version.container_id or page.id, "container_title": page.title,
            "space_key": page.space_key, "space_name": page.space_name, "restricted": page.restricted,
            "location": "inline" if inline else (version.location or "footer")}), origin)
        if record is not None:
            yield record


def next_cursor(link: str | None) -> str | None:
    """The cursor value of a Cloud `_links.next` (for logs and tests)."""
    if not link:
        return None
    values = parse_qs(urlparse(link).query).get("cursor")
    return values[0] if values else None
