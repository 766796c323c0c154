"""SalesforceApiReader: incremental pulls through simple-salesforce (REST queryAll + nextRecordsUrl, Bulk 2.0 + locator).

Per object (settings.objects, in order): describe() -> columns; ``SELECT COUNT()`` over the SystemModstamp window
decides REST (small) or Bulk 2.0 queryAll (from bulk_threshold rows; REST again where Bulk refuses the object). queryAll
brings deleted rows, which become tombstone versions (getDeleted only looks back 15 days). For each page of parents,
their history and comment rows are queried (by parent id, not by window: a record carries its whole history) and
folded in. Rows go through ``convert_row`` as the export reader's do, so both paths give the same records.

Every answer has an explicit outcome:
- 429 / 500 / 502 / 503 / 504, timeouts, connection errors: retried with exponential backoff honouring Retry-After;
  still failing -> SalesforceUnavailableError (the checkpoint resumes the run).
- 401 / INVALID_SESSION_ID: one fresh login, then the same call again; a second refusal -> SalesforceAuthError.
- 403 REQUEST_LIMIT_EXCEEDED, or Sforce-Limit-Info within api_reserve of the daily allowance -> SalesforceLimitError,
  no retry. 403 otherwise -> SalesforceConfigError (the user lacks API Enabled / object access).
- 400 INVALID_FIELD / INVALID_TYPE / MALFORMED_QUERY on an object -> SalesforceConfigError naming OBJECTS or
  EXTRA_FIELDS; on a history/comment object -> that child is skipped (logged, listed in checkpoint.skipped).
- 400 INVALID_QUERY_LOCATOR / 404 on a resumed cursor (expired) -> the object is read again from its start.
- A row that does not convert -> a RecordFailure for that row; the read goes on.
"""

import csv
import io
import logging
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from simple_salesforce.bulk2 import Operation
from simple_salesforce.exceptions import SalesforceError

from connectors.salesforce.api_http import error_code
from connectors.salesforce.api_rows import (
    ObjectPlan,
    child_queries,
    child_soql,
    count_soql,
    export_row,
    learn_relationships,
    plan_object,
    soql,
)
from connectors.salesforce.api_session import SalesforceApiSession
from connectors.salesforce.api_settings import (
    ENV_PREFIX,
    SalesforceApiCheckpoint,
    SalesforceApiSettings,
    SalesforceUnavailableError,
)
from connectors.salesforce.directory import Directory, sid
from connectors.salesforce.records import SOURCE, convert_row, failure
from connectors.salesforce.values import Row, flatten, parse_bool
from ground.contract import Item, TimeWindow
from ground.records import ErrorClass, Origin, RecordFailure

log = logging.getLogger(__name__)

CURSOR_EXPIRED = {"INVALID_QUERY_LOCATOR", "INVALID_LOCATOR", "NOT_FOUND", "INVALIDJOB"}
BULK_UNSUPPORTED = {
    "INVALIDENTITY",
    "INVALID_TYPE_FOR_OPERATION",
    "FeatureNotEnabled",
    "API_ERROR",
    "INVALID_TYPE",
    "INVALIDJOB",
}
CHILD_UNAVAILABLE = {"INVALID_TYPE", "INVALID_FIELD", "NOT_FOUND", "INSUFFICIENT_ACCESS"}
CHILD_TYPES = {
    "CreatedDate": "datetime",
    "SystemModstamp": "datetime",
    "IsDeleted": "boolean",
    "IsPublished": "boolean",
}


class _CursorExpired(Exception):
    """A saved nextRecordsUrl or bulk job is gone (expired): read the object again."""


class _BulkRefused(Exception):
    """Bulk 2.0 does not take this object (or its job failed): use REST."""


class SalesforceApiReader(SalesforceApiSession):
    source = SOURCE

    def __init__(self, settings: SalesforceApiSettings, *, sleep: Callable[[float], None] = time.sleep):
        super().__init__(settings, sleep=sleep)
        self.directory = Directory()
        self.checkpoint: SalesforceApiCheckpoint | None = None
        self._plans: dict[str, ObjectPlan] = {}

    # ------------------------------------------------------------------ read

    def read(
        self, window: TimeWindow | None = None, checkpoint: SalesforceApiCheckpoint | None = None
    ) -> Generator[Item, None, SalesforceApiCheckpoint]:
        start = window.start if window else None
        end = window.end if window else None
        resume = (
            checkpoint is not None
            and checkpoint.has_more
            and checkpoint.window_start == start
            and checkpoint.window_end == end
        )
        cp = (
            checkpoint.model_copy(deep=True)
            if resume and checkpoint
            else SalesforceApiCheckpoint(window_start=start, window_end=end)
        )
        self._save(cp)
        if self.client is None:
            self.connect()
        objects = self.settings.objects
        while cp.object_index < len(objects):
            obj = objects[cp.object_index]
            if cp.object_name != obj:
                cp.object_name, cp.next_records_url, cp.bulk_job_id, cp.bulk_locator = obj, None, None, None
            yield from self._read_object(obj, cp)
            cp.object_index += 1
            cp.object_name, cp.next_records_url, cp.bulk_job_id, cp.bulk_locator = None, None, None, None
            self._save(cp)
        cp.has_more = False
        self._save(cp)
        return cp

    def _save(self, cp: SalesforceApiCheckpoint) -> None:
        cp.api_used, cp.api_total = self.watch.used, self.watch.total
        self.checkpoint = cp.model_copy(deep=True)

    def plan(self, obj: str) -> ObjectPlan:
        if obj not in self._plans:
            try:
                described = self._call(f"describe {obj}", lambda: getattr(self.client, obj).describe())
            except SalesforceError as exc:
                raise self._config_error(f"describe {obj}", exc, obj) from None
            self._plans[obj] = plan_object(obj, described or {}, self.settings.extra_fields.get(obj, []))
        return self._plans[obj]

    def _read_object(self, obj: str, cp: SalesforceApiCheckpoint) -> Iterator[Item]:
        plan = self.plan(obj)
        try:
            if cp.bulk_job_id:
                yield from self._bulk_pages(plan, cp)
                return
            if cp.next_records_url:
                yield from self._rest_pages(plan, cp)
                return
        except _CursorExpired:
            log.warning("salesforce: the saved cursor for %s expired; reading the object again", obj)
            cp.next_records_url, cp.bulk_job_id, cp.bulk_locator = None, None, None
        count = self._count(plan, cp)
        if count >= self.settings.bulk_threshold:
            try:
                self._start_bulk(plan, cp)
                yield from self._bulk_pages(plan, cp)
                return
            except _BulkRefused as exc:
                log.warning("salesforce: %s; reading %s through REST", exc, obj)
                cp.bulk_job_id, cp.bulk_locator = None, None
        yield from self._rest_pages(plan, cp)

    def _count(self, plan: ObjectPlan, cp: SalesforceApiCheckpoint) -> int:
        query = count_soql(plan.name, plan.updated_field, cp.window_start, cp.window_end)
        try:
            page = self._call(f"the {plan.name} count", lambda: self.client.query(query, include_deleted=True))
        except SalesforceError as exc:
            raise self._config_error(f"the {plan.name} count", exc, plan.name) from None
        total = page.get("totalSize") if isinstance(page, dict) else None
        return int(total) if isinstance(total, int) else 0

    # ------------------------------------------------------------------ REST

    def _rest_pages(self, plan: ObjectPlan, cp: SalesforceApiCheckpoint) -> Iterator[Item]:
        headers = {"Sforce-Query-Options": f"batchSize={min(self.settings.page_size, 2000)}"}
        what = f"the {plan.name} query"
        try:
            if cp.next_records_url:
                url = cp.next_records_url
                page = self._call(what, lambda: self.client.query_more(url, identifier_is_url=True, headers=headers))
            else:
                query = soql(plan.name, plan.columns, plan.updated_field, cp.window_start, cp.window_end)
                page = self._call(what, lambda: self.client.query(query, include_deleted=True, headers=headers))
            while True:
                records = [r for r in page.get("records") or [] if isinstance(r, dict)]
                yield from self._page_items(plan, [flatten(r) for r in records], cp)
                next_url = page.get("nextRecordsUrl")
                if page.get("done", True) or not next_url:
                    return
                cp.next_records_url = next_url
                cp.pages_done += 1
                self._save(cp)
                page = self._call(
                    what,
                    lambda next_url=next_url: self.client.query_more(next_url, identifier_is_url=True, headers=headers),
                )
        except SalesforceError as exc:
            code, _ = error_code(exc.content)
            if cp.next_records_url and (code in CURSOR_EXPIRED or exc.status == 404):
                raise _CursorExpired() from None
            raise self._config_error(what, exc, plan.name) from None

    # ------------------------------------------------------------------ Bulk 2.0

    def _bulk(self, obj: str) -> Any:
        return getattr(self.client.bulk2, obj)._client

    def _start_bulk(self, plan: ObjectPlan, cp: SalesforceApiCheckpoint) -> None:
        query = soql(plan.name, plan.bulk_columns, plan.updated_field, cp.window_start, cp.window_end, order=False)
        try:
            job = self._call(
                f"a Bulk 2.0 job for {plan.name}",
                lambda: self._bulk(plan.name).create_job(Operation.query_all, query=query),
            )
        except SalesforceError as exc:
            code, message = error_code(exc.content)
            if exc.status == 400 and code in BULK_UNSUPPORTED:
                raise _BulkRefused(f"Bulk 2.0 refused {plan.name} ({code}: {message})") from None
            raise self._config_error(f"a Bulk 2.0 job for {plan.name}", exc, plan.name) from None
        cp.bulk_job_id, cp.bulk_locator = str(job["id"]), None
        self._save(cp)

    def _wait_for_job(self, obj: str, job_id: str) -> None:
        deadline = time.monotonic() + self.settings.bulk_timeout_seconds
        while True:
            info = self._call(f"the Bulk 2.0 job {job_id}", lambda: self._bulk(obj).get_job(job_id, True))
            state = info.get("state")
            if state == "JobComplete":
                return
            if state in ("Failed", "Aborted"):
                raise _BulkRefused(
                    f"Bulk 2.0 job {job_id} for {obj} ended {state}: {str(info.get('errorMessage') or '')[:300]}"
                )
            if time.monotonic() > deadline:
                raise SalesforceUnavailableError(
                    f"Bulk 2.0 job {job_id} for {obj} still {state} after {self.settings.bulk_timeout_seconds:.0f}s: "
                    f"rerun later (the checkpoint keeps the job) or raise {ENV_PREFIX}BULK_TIMEOUT_SECONDS"
                )
            self.sleep(self.settings.bulk_poll_seconds)

    def _bulk_pages(self, plan: ObjectPlan, cp: SalesforceApiCheckpoint) -> Iterator[Item]:
        job_id = str(cp.bulk_job_id)
        try:
            self._wait_for_job(plan.name, job_id)
            while True:
                locator = cp.bulk_locator or ""
                result = self._call(
                    f"the results of Bulk 2.0 job {job_id}",
                    lambda locator=locator: self._bulk(plan.name).get_query_results(
                        job_id, locator, max_records=self.settings.page_size
                    ),
                )
                rows = list(csv.DictReader(io.StringIO(result["records"], newline="")))
                yield from self._page_items(plan, rows, cp)
                if not result["locator"]:
                    return
                cp.bulk_locator = result["locator"]
                cp.pages_done += 1
                self._save(cp)
        except SalesforceError as exc:
            code, _ = error_code(exc.content)
            if exc.status == 404 or code in CURSOR_EXPIRED:
                raise _CursorExpired() from None
            raise self._config_error(f"Bulk 2.0 job {job_id}", exc, plan.name) from None
        except csv.Error as exc:
            raise SalesforceUnavailableError(
                f"Bulk 2.0 job {job_id} for {plan.name} sent unreadable CSV: {exc}"
            ) from None

    # ------------------------------------------------------------------ rows

    def _page_items(self, plan: ObjectPlan, flats: list[dict], cp: SalesforceApiCheckpoint) -> Iterator[Item]:
        """One page of parents: learn them, fetch their children, then convert each row."""
        rows = [export_row(flat, plan.types) for flat in flats]
        for row in rows:
            self.directory.learn(plan.name, Row(row))
        rows = [learn_relationships(self.directory, row) for row in rows]
        live = [rid for rid in (sid(r.get("Id")) for r in rows if not parse_bool(r.get("IsDeleted") or False)) if rid]
        yield from self._children(plan.name, live, cp)
        base = f"{self.instance_url}/services/data/v{self.settings.api_version}/sobjects/{plan.name}"
        for index, row in enumerate(rows):
            rid = sid(row.get("Id"))
            origin = Origin(url=f"{base}/{rid}" if rid else base, index=index)
            yield convert_row(plan.name, row, self.directory, origin, self.instance_url, self.settings.currency)

    def _children(self, obj: str, parent_ids: list[str], cp: SalesforceApiCheckpoint) -> Iterator[RecordFailure]:
        for pid in parent_ids:  # the fresh rows replace what an earlier page or read said
            self.directory.history.pop(pid, None)
            self.directory.comments.pop(pid, None)
        size = self.settings.child_chunk
        for child, parent_field, columns in child_queries(obj):
            for i in range(0, len(parent_ids), size):
                if child in cp.skipped:
                    break
                chunk = parent_ids[i : i + size]
                query = child_soql(child, parent_field, columns, chunk)
                try:
                    for record in self._query_all(f"the {child} rows", query):
                        row = export_row(flatten(record), CHILD_TYPES)
                        self.directory.learn(child, Row(row))
                except SalesforceError as exc:
                    code, message = error_code(exc.content)
                    if exc.status in (400, 403, 404) and code in CHILD_UNAVAILABLE:
                        log.warning(
                            "salesforce: %s is not readable here (%s: %s); %s records come without it",
                            child,
                            code,
                            message,
                            obj,
                        )
                        cp.skipped.append(child)
                        break
                    yield failure(
                        Origin(url=self.instance_url),
                        ErrorClass.api_error,
                        f"{child} of {len(chunk)} {obj} record(s) not read ({exc.status} {code}: "
                        f"{message}); their history/comments are missing from this read",
                    )

    def _query_all(self, what: str, query: str) -> Iterator[dict]:
        page = self._call(what, lambda: self.client.query(query))
        while True:
            yield from (r for r in page.get("records") or [] if isinstance(r, dict))
            next_url = page.get("nextRecordsUrl")
            if page.get("done", True) or not next_url:
                return
            page = self._call(what, lambda next_url=next_url: self.client.query_more(next_url, identifier_is_url=True))
