"""JiraApiReader: incremental pulls through atlassian-python-api (Cloud REST v3 + nextPageToken, Server/DC v2 + startAt).

Window -> JQL `updated >= A AND updated < B` with A, B in epoch milliseconds (JQL date strings would be read in the API
user's profile zone at minute precision). Per issue the full changelog and all comments are fetched, paged (search caps
the changelog at 40 entries). After each page `self.checkpoint` holds where to resume.

Every status has an explicit outcome:
- 429 / 500 / 502 / 503 / 504 and timeouts: retried with exponential backoff, honouring Retry-After; still failing ->
  JiraUnavailableError (the run fails; the checkpoint resumes it).
- 401 -> JiraAuthError (bad or expired token). 403 / 404 / 400 on the search itself -> JiraConfigError naming the
  setting to fix (project keys / extra JQL / base URL / cloud flag).
- Per issue: 404 -> the issue is deleted (a DeletedIssue in the checkpoint, a tombstone for the lead to apply);
  400 / 403 / other 4xx -> a RecordFailure for that issue and the pull goes on.
"""

import datetime as dt
import logging
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from connectors.jira.api_settings import (
    DeletedIssue,
    JiraApiCheckpoint,
    JiraApiSettings,
    JiraAuthError,
    JiraConfigError,
    JiraUnavailableError,
)
from connectors.jira.records import SOURCE, Item, failure, issue_records
from connectors.jira.times import epoch_ms
from ground.contract import TimeWindow
from ground.records import Deletion, ErrorClass, Origin, RecordFailure, SourceRecord

log = logging.getLogger(__name__)

RETRY_STATUSES = (429, 500, 502, 503, 504)


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def _message(exc: BaseException) -> str:
    """Jira's own error text, never a header or credential."""
    text = str(exc).strip().replace("\n", "; ")
    return text[:300] or type(exc).__name__


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class JiraApiReader:
    source = SOURCE

    def __init__(self, settings: JiraApiSettings, *, client: Any = None, clock: Callable[[], dt.datetime] = utcnow):
        self.settings = settings
        self.client = client or self._make_client(settings)
        self.clock = clock
        self.checkpoint: JiraApiCheckpoint | None = None
        self._field_names: dict[str, str] | None = None

    # ------------------------------------------------------------------ client

    @staticmethod
    def _make_client(s: JiraApiSettings) -> Any:
        from atlassian import Jira

        auth: dict[str, Any] = (
            {"username": s.username, "password": s.token.get_secret_value()}
            if s.username
            else {"token": s.token.get_secret_value()}
        )
        client = Jira(
            url=s.base_url,
            cloud=s.cloud,
            api_version="3" if s.cloud else "2",
            timeout=s.timeout_seconds,
            verify_ssl=s.verify_ssl,
            backoff_and_retry=True,
            retry_status_codes=list(RETRY_STATUSES),
            max_backoff_retries=s.max_retries,
            backoff_factor=s.backoff_seconds,
            backoff_jitter=0.0,
            max_backoff_seconds=int(max(1, s.max_backoff_seconds)),
            retry_with_header=False,
            **auth,
        )
        # The client's own Retry only bounds status retries; connect/read timeouts would retry forever. Ours bounds all.
        retry = Retry(
            total=s.max_retries,
            connect=s.max_retries,
            read=s.max_retries,
            status=s.max_retries,
            other=0,
            allowed_methods=None,
            status_forcelist=RETRY_STATUSES,
            backoff_factor=s.backoff_seconds,
            backoff_max=s.max_backoff_seconds,
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        client.session.mount(s.base_url, HTTPAdapter(max_retries=retry))
        return client

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        """One client call; transport failures and exhausted retries become JiraUnavailableError, 401 JiraAuthError."""
        try:
            return fn()
        except requests.HTTPError as exc:
            status = _status(exc)
            if status == 401:
                raise JiraAuthError(
                    f"Jira at {self.settings.base_url} refused the credentials (401) for {what}: check the user "
                    "(GRAPHFEED_JIRA_USERNAME) and token (GRAPHFEED_JIRA_API_TOKEN); an expired or revoked token "
                    "gives this too"
                ) from None
            if status in RETRY_STATUSES:
                raise JiraUnavailableError(
                    f"Jira at {self.settings.base_url} answered {status} for {what} after "
                    f"{self.settings.max_retries} retries: {_message(exc)}"
                ) from None
            raise
        except (requests.Timeout, requests.ConnectionError, requests.exceptions.RetryError) as exc:
            raise JiraUnavailableError(
                f"Jira at {self.settings.base_url} did not answer {what} after {self.settings.max_retries} retries "
                f"({type(exc).__name__})"
            ) from None

    # ------------------------------------------------------------------ queries

    def scope_jql(self) -> str:
        parts = []
        if self.settings.project_keys:
            parts.append("project in (" + ", ".join(f'"{k}"' for k in self.settings.project_keys) + ")")
        if self.settings.extra_jql:
            parts.append(f"({self.settings.extra_jql})")
        return " AND ".join(parts)

    def window_jql(self, start_ms: int | None, end_ms: int | None) -> str:
        parts = [p for p in (self.scope_jql(),) if p]
        if start_ms is not None:
            parts.append(f"updated >= {start_ms}")
        if end_ms is not None:
            parts.append(f"updated < {end_ms}")
        return " AND ".join(parts) + " ORDER BY updated ASC, key ASC"

    def _search_page(self, jql: str, cp: JiraApiCheckpoint, fields: str = "*all") -> tuple[list[dict], bool]:
        """One search page; advances cp's cursor. Errors on the search are run-level: they name what to fix."""
        try:
            if self.settings.cloud:
                page = self._call(
                    "the issue search",
                    lambda: self.client.enhanced_jql(
                        jql,
                        fields=fields,
                        nextPageToken=cp.next_page_token,
                        limit=self.settings.page_size,
                        expand="names" if fields != "key" else None,
                    ),
                )
            else:
                page = self._call(
                    "the issue search",
                    lambda: self.client.jql(
                        jql,
                        fields=fields,
                        start=cp.start_at,
                        limit=self.settings.page_size,
                        expand="names" if fields != "key" else None,
                    ),
                )
        except requests.HTTPError as exc:
            status = _status(exc)
            hint = {
                400: "the JQL was rejected: check GRAPHFEED_JIRA_PROJECT_KEYS and GRAPHFEED_JIRA_EXTRA_JQL",
                403: "the user may not browse these projects: check GRAPHFEED_JIRA_PROJECT_KEYS and permissions",
                404: "no search endpoint here: check GRAPHFEED_JIRA_URL and GRAPHFEED_JIRA_CLOUD (Cloud vs Server)",
            }
            raise JiraConfigError(
                f"Jira search failed with {status}: {hint.get(status, 'unexpected answer')} ({_message(exc)})"
            ) from None
        if not isinstance(page, dict) or not isinstance(page.get("issues"), list):
            raise JiraConfigError(
                f"{self.settings.base_url} did not answer the search with Jira JSON: check "
                "GRAPHFEED_JIRA_URL (a login or proxy page answers like this)"
            )
        issues = [i for i in page["issues"] if isinstance(i, dict)]
        names = page.get("names") if isinstance(page.get("names"), dict) else {}
        if names:
            issues = [{**i, "names": {**names, **(i.get("names") or {})}} for i in issues]
        if self.settings.cloud:
            cp.next_page_token = page.get("nextPageToken")
            more = bool(cp.next_page_token) and not page.get("isLast", False)
        else:
            cp.start_at += len(issues)
            total = page.get("total")
            more = bool(issues) and (
                cp.start_at < total if isinstance(total, int) else len(issues) >= self.settings.page_size
            )
        cp.pages_done += 1
        return issues, more

    def field_names(self) -> dict[str, str]:
        if self._field_names is None:
            try:
                fields = self._call("the field list", self.client.get_all_fields)
            except requests.HTTPError as exc:
                log.warning(
                    "jira field list unavailable (%s); custom fields keep the names the search gives", _status(exc)
                )
                fields = []
            self._field_names = {
                str(f["id"]): str(f.get("name") or f["id"]) for f in fields or [] if isinstance(f, dict) and f.get("id")
            }
        return self._field_names

    def _changelog(self, key: str) -> list[dict]:
        histories: list[dict] = []
        start = 0
        size = self.settings.changelog_page_size
        while True:
            page = self._call(
                f"the changelog of {key}",
                lambda start=start: self.client.get_issue_changelog(key, start=start, limit=size),
            )
            if not isinstance(page, dict):
                return histories
            values = page.get("values") if isinstance(page.get("values"), list) else page.get("histories") or []
            histories.extend(v for v in values if isinstance(v, dict))
            start += len(values)
            total = page.get("total")
            if (
                not values
                or page.get("isLast") is True
                or (isinstance(total, int) and start >= total)
                or (not isinstance(total, int) and page.get("isLast") is None)
            ):
                return histories

    def _comments(self, key: str) -> list[dict]:
        comments: list[dict] = []
        start = 0
        size = self.settings.comment_page_size
        url = f"{self.client.resource_url('issue')}/{key}/comment"
        while True:
            page = self._call(
                f"the comments of {key}",
                lambda start=start: self.client.get(url, params={"startAt": start, "maxResults": size}),
            )
            values = page.get("comments") if isinstance(page, dict) and isinstance(page.get("comments"), list) else []
            comments.extend(v for v in values if isinstance(v, dict))
            start += len(values)
            total = page.get("total") if isinstance(page, dict) else None
            if not values or not isinstance(total, int) or start >= total:
                return comments

    # ------------------------------------------------------------------ read

    def read(
        self, window: TimeWindow | None = None, checkpoint: JiraApiCheckpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, JiraApiCheckpoint]:
        start_ms = epoch_ms(window.start) if window else None
        end_ms = epoch_ms(window.end) if window else None
        resume = (
            checkpoint is not None
            and checkpoint.has_more
            and checkpoint.window_start_ms == start_ms
            and checkpoint.window_end_ms == end_ms
        )
        base = checkpoint or JiraApiCheckpoint()
        cp = (
            base.model_copy(deep=True)
            if resume
            else JiraApiCheckpoint(
                window_start_ms=start_ms,
                window_end_ms=end_ms,
                last_full_listing=base.last_full_listing,
                known_keys=list(base.known_keys),
            )
        )
        cp.deleted = [] if not resume else cp.deleted
        self.checkpoint = cp.model_copy(deep=True)
        names = self.field_names()
        jql = self.window_jql(start_ms, end_ms)
        more = True
        while more:
            issues, more = self._search_page(jql, cp)
            for issue in issues:
                yield from self._issue_items(issue, names, cp)
            cp.has_more = more
            self.checkpoint = cp.model_copy(deep=True)  # page done: a resumed read starts after it
        if self._listing_due(cp):
            self._full_listing(cp)
        for gone in cp.deleted:  # this read's deletions (a resumed read's too), as items of the stream
            yield Deletion(
                source=SOURCE, source_key=gone.key, kind="issue", reason=gone.how, detected_at=gone.detected_at
            )
        cp.has_more = False
        self.checkpoint = cp.model_copy(deep=True)
        return cp

    def _issue_items(self, issue: dict, names: dict[str, str], cp: JiraApiCheckpoint) -> Iterator[Item]:
        key = str(issue.get("key") or "")
        origin = Origin(url=f"{self.settings.base_url.rstrip('/')}/browse/{key}" if key else self.settings.base_url)
        if not key:
            yield failure(origin, ErrorClass.missing_field, "search returned an issue without a key")
            return
        try:
            changelog = self._changelog(key)
            comments = self._comments(key)
        except requests.HTTPError as exc:
            status = _status(exc)
            if status == 404:
                cp.deleted.append(DeletedIssue(key=key, detected_at=self.clock(), how="not_found"))
                return
            yield failure(
                origin, ErrorClass.api_error, f"Jira answered {status} while reading {key}: {_message(exc)}", key
            )
            return
        yield from issue_records(
            issue,
            origin,
            base_url=self.settings.base_url,
            field_names=names,
            content_fields=self.settings.content_fields,
            changelog=changelog,
            comments=comments,
            export_format="api-v3" if self.settings.cloud else "api-v2",
        )

    # ------------------------------------------------------------------ deletions

    def _listing_due(self, cp: JiraApiCheckpoint) -> bool:
        every = self.settings.full_listing_every
        return every is not None and (cp.last_full_listing is None or self.clock() - cp.last_full_listing >= every)

    def list_keys(self) -> list[str]:
        """Every issue key in scope now (fields=key only)."""
        cp = JiraApiCheckpoint()
        jql = (self.scope_jql() or "") + " ORDER BY key ASC"
        keys: list[str] = []
        more = True
        while more:
            issues, more = self._search_page(jql.strip(), cp, fields="key")
            keys.extend(str(i["key"]) for i in issues if i.get("key"))
        return sorted(set(keys))

    def _full_listing(self, cp: JiraApiCheckpoint) -> None:
        now = self.clock()
        current = self.list_keys()
        if cp.last_full_listing is not None:
            gone = sorted(set(cp.known_keys) - set(current))
            already = {d.key for d in cp.deleted}
            cp.deleted.extend(
                DeletedIssue(key=k, detected_at=now, how="absent_from_listing") for k in gone if k not in already
            )
        cp.known_keys = current
        cp.last_full_listing = now

    def recheck(self, keys: Sequence[str]) -> list[DeletedIssue]:
        """Re-fetch keys (e.g. those the ledger holds); the ones Jira answers 404 for are deleted."""
        gone = []
        for key in keys:
            try:
                self._call(f"issue {key}", lambda key=key: self.client.get_issue(key, fields="key"))
            except requests.HTTPError as exc:
                if _status(exc) == 404:
                    gone.append(DeletedIssue(key=key, detected_at=self.clock(), how="not_found"))
                else:
                    raise
        return gone
