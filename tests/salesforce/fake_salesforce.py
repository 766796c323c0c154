"""A local HTTPS server that answers like Salesforce: OAuth token, describe, query/queryAll + nextRecordsUrl, Bulk 2.0
query jobs (create / poll / CSV results paged by Sforce-Locator), Sforce-Limit-Info on every answer and injected faults
(error bodies as Salesforce writes them). Rows come from Data Export CSVs (the bundled sample), typed for REST like the
real API does (booleans, numbers, ``+0000`` datetimes, nested relationship objects) and flat for Bulk 2.0 CSV.

simple-salesforce hard-codes https://, hence TLS with a self-signed certificate (tests/salesforce/fake_tls.py); the
export tables and their describe() types come from tests/salesforce/fake_tables.py.
"""

import csv
import datetime as dt
import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from werkzeug import Request, Response

from tests.salesforce.fake_tables import field_type, parse_when

API = re.compile(r"^/services/data/v(?P<version>[\d.]+)/(?P<rest>.*)$")
SOQL = re.compile(r"^SELECT (?P<columns>.+?) FROM (?P<obj>\w+)(?: WHERE (?P<where>.+?))?(?: ORDER BY .+)?$", re.S)
RELATION_TARGET = {
    "Owner": None,
    "CreatedBy": "User",
    "LastModifiedBy": "User",
    "Who": None,
    "What": None,
    "RelatedTo": None,
    "Parent": None,
}


@dataclass
class Fault:
    method: str
    path: str  # regex searched in the path (+ "?" + query string)
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1


class FakeSalesforce:
    def __init__(
        self,
        tables: dict[str, list[dict[str, str]]],
        base_url: str,
        *,
        password: str = "pw",
        security_token: str = "tok",
        api_total: int = 15_000,
        api_used: int = 0,
    ):
        self.tables = tables
        self.base_url = base_url.rstrip("/")
        self.secret = password + security_token
        self.api_total, self.api_used = api_total, api_used
        self.types = {
            obj: {c: field_type(c, [r.get(c, "") for r in rows]) for c in (rows[0] if rows else {})}
            for obj, rows in tables.items()
        }
        self.extra_describe: dict[str, list[dict]] = {}  # object -> more describe() fields (compound, ...)
        self.bulk_unsupported: set[str] = set()
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str]] = []  # (method, path?query)
        self.tokens = 0
        self.valid_token: str | None = None
        self.cursors: dict[str, tuple[list[dict], int, int]] = {}
        self.jobs: dict[str, dict] = {}

    # ------------------------------------------------------------------ plumbing

    def __call__(self, request: Request) -> Response:
        where = request.path + ("?" + request.query_string.decode() if request.query_string else "")
        self.log.append((request.method, where))
        self.api_used += 1
        headers = {"Sforce-Limit-Info": f"api-usage={self.api_used}/{self.api_total}"}
        for fault in self.faults:
            if fault.times and fault.method == request.method and re.search(fault.path, where):
                fault.times -= 1
                return self._json(fault.body, fault.status, {**headers, **fault.headers})
        if request.path == "/services/oauth2/token":
            return self._token(request, headers)
        if request.headers.get("Authorization") != f"Bearer {self.valid_token}":
            return self._json(
                [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID"}], 401, headers
            )
        match = API.match(request.path)
        if not match:
            return self._json(
                [{"errorCode": "NOT_FOUND", "message": "The requested resource does not exist"}], 404, headers
            )
        rest = match["rest"].rstrip("/")
        if request.method == "GET" and rest.startswith("sobjects/") and rest.endswith("/describe"):
            return self._describe(rest.split("/")[1], headers)
        if request.method == "GET" and rest in ("query", "queryAll"):
            return self._query(request.args["q"], rest == "queryAll", request, headers)
        if request.method == "GET" and rest.startswith(("query/", "queryAll/")):
            return self._more(rest.split("/", 1)[1], headers)
        if request.method == "POST" and rest == "jobs/query":
            return self._create_job(json.loads(request.get_data()), headers)
        if request.method == "GET" and rest.startswith("jobs/query/"):
            parts = rest.split("/")
            if len(parts) == 3:
                return self._job(parts[2], headers)
            return self._results(parts[2], request, headers)
        return self._json([{"errorCode": "NOT_FOUND", "message": f"no route {rest}"}], 404, headers)

    @staticmethod
    def _json(body: Any, status: int = 200, headers: dict | None = None) -> Response:
        return Response(json.dumps(body), status=status, headers=headers or {}, content_type="application/json")

    def fail(self, method: str, path: str, status: int, body: Any, times: int = 1, **headers: str) -> None:
        self.faults.append(Fault(method, path, status, body, dict(headers), times))

    def expire_session(self) -> None:
        self.valid_token = "revoked"

    def _token(self, request: Request, headers: dict) -> Response:
        form = request.form
        if form.get("grant_type") != "password" or form.get("password") != self.secret:
            return self._json({"error": "invalid_grant", "error_description": "authentication failure"}, 400, headers)
        self.tokens += 1
        self.valid_token = f"00Dfake!token{self.tokens}"
        return self._json(
            {
                "access_token": self.valid_token,
                "instance_url": self.base_url,
                "token_type": "Bearer",
                "id": f"{self.base_url}/id/00D/005",
                "issued_at": "1780000000000",
            },
            200,
            headers,
        )

    # ------------------------------------------------------------------ describe / query

    def _describe(self, obj: str, headers: dict) -> Response:
        if obj not in self.types:
            return self._json(
                [{"errorCode": "NOT_FOUND", "message": "The requested resource does not exist"}], 404, headers
            )
        fields = []
        for name, kind in self.types[obj].items():
            entry: dict[str, Any] = {"name": name, "type": kind}
            if kind == "reference":
                entry["relationshipName"] = name[:-2]
            fields.append(entry)
        return self._json({"name": obj, "fields": fields + self.extra_describe.get(obj, [])}, 200, headers)

    def _select(self, soql: str, include_deleted: bool) -> tuple[str, list[str], list[dict]] | Response:
        match = SOQL.match(soql.strip())
        if not match or match["obj"] not in self.tables:
            return self._json(
                [
                    {
                        "errorCode": "INVALID_TYPE" if match else "MALFORMED_QUERY",
                        "message": f"sObject type '{match['obj'] if match else '?'}' is not supported.",
                    }
                ],
                400,
            )
        obj = match["obj"]
        columns = [c.strip() for c in match["columns"].split(",")]
        for column in columns:
            if (
                column != "COUNT()"
                and column.split(".")[0] not in self.types[obj]
                and column.split(".")[0] + "Id" not in self.types[obj]
            ):
                return self._json(
                    [{"errorCode": "INVALID_FIELD", "message": f"No such column '{column}' on entity '{obj}'."}], 400
                )
        rows = [r for r in self.tables[obj] if include_deleted or r.get("IsDeleted", "false") != "true"]
        for cond in re.split(r"\s+AND\s+", match["where"] or "") if match["where"] else []:
            inside = re.fullmatch(r"(\w+) IN \((.*)\)", cond.strip())
            if inside:
                ids = {i.strip().strip("'") for i in inside[2].split(",")}
                rows = [r for r in rows if r.get(inside[1]) in ids]
                continue
            name, op, value = cond.strip().split(" ")
            bound = parse_when(value)
            rows = [
                r
                for r in rows
                if (parse_when(r.get(name, "")) is not None)
                and ((parse_when(r[name]) >= bound) if op == ">=" else (parse_when(r[name]) < bound))
            ]
        if "ORDER BY SystemModstamp" in soql:
            rows = sorted(rows, key=lambda r: (r.get("SystemModstamp", ""), r.get("Id", "")))
        return obj, columns, rows

    def _query(self, soql: str, include_deleted: bool, request: Request, headers: dict) -> Response:
        selected = self._select(soql, include_deleted)
        if isinstance(selected, Response):
            selected.headers.update(headers)
            return selected
        obj, columns, rows = selected
        if columns == ["COUNT()"]:
            return self._json({"totalSize": len(rows), "done": True, "records": []}, 200, headers)
        options = request.headers.get("Sforce-Query-Options", "")
        size = int(re.search(r"batchSize=(\d+)", options)[1]) if "batchSize" in options else 2000
        records = [self.rest_record(obj, columns, r) for r in rows]
        cursor = f"01gFAKE{len(self.cursors):04d}"
        self.cursors[cursor] = (records, size, len(records))
        return self._page(cursor, 0, headers)

    def _more(self, token: str, headers: dict) -> Response:
        cursor, _, offset = token.partition("-")
        if cursor not in self.cursors:
            return self._json(
                [{"errorCode": "INVALID_QUERY_LOCATOR", "message": "invalid query locator"}], 400, headers
            )
        return self._page(cursor, int(offset), headers)

    def _page(self, cursor: str, offset: int, headers: dict) -> Response:
        records, size, total = self.cursors[cursor]
        page = records[offset : offset + size]
        body: dict[str, Any] = {"totalSize": total, "done": offset + size >= total, "records": page}
        if not body["done"]:
            body["nextRecordsUrl"] = f"/services/data/v62.0/query/{cursor}-{offset + size}"
        return self._json(body, 200, headers)

    # ------------------------------------------------------------------ values

    def lookup(self, rid: str) -> tuple[str, dict] | None:
        for obj, rows in self.tables.items():
            for row in rows:
                if rid and row.get("Id") == rid:
                    return obj, row
        return None

    def typed(self, obj: str, column: str, value: str) -> Any:
        kind = self.types.get(obj, {}).get(column, "string")
        if value == "":
            return None
        if kind == "boolean":
            return value == "true"
        if kind in ("currency", "percent", "double", "int") or (
            kind == "anyType" and re.fullmatch(r"-?\d+(\.\d+)?", value)
        ):
            return float(value) if kind != "int" else int(value)
        if kind == "datetime" and parse_when(value) is not None:
            return parse_when(value).astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000+0000")
        return value

    def _related(self, obj: str, row: dict, path: list[str]) -> tuple[str, dict] | None:
        """Follow ``Owner`` / ``Opportunity.Account`` from row; None where the lookup is empty."""
        current: tuple[str, dict] | None = (obj, row)
        for rel in path:
            if current is None:
                return None
            current = self.lookup(current[1].get(f"{rel}Id", ""))
        return current

    def rest_record(self, obj: str, columns: list[str], row: dict) -> dict:
        out: dict[str, Any] = {"attributes": {"type": obj, "url": f"/services/data/v62.0/sobjects/{obj}/{row['Id']}"}}
        for column in columns:
            parts = column.split(".")
            if len(parts) == 1:
                out[column] = self.typed(obj, column, row.get(column, ""))
                continue
            target = out
            for depth, rel in enumerate(parts[:-1]):
                found = self._related(obj, row, parts[: depth + 1])
                if found is None:
                    target[rel] = None
                    break
                node = target.get(rel) or {"attributes": {"type": found[0]}}
                target[rel] = node
                target = node
            else:
                found = self._related(obj, row, parts[:-1])
                target[parts[-1]] = self.typed(found[0], parts[-1], found[1].get(parts[-1], "")) if found else None
        return out

    def bulk_value(self, obj: str, row: dict, column: str) -> str:
        parts = column.split(".")
        found = self._related(obj, row, parts[:-1]) if len(parts) > 1 else (obj, row)
        if found is None:
            return ""
        value = found[1].get(parts[-1], "")
        kind = self.types.get(found[0], {}).get(parts[-1])
        if value and kind in ("currency", "percent"):
            return str(float(value))  # Bulk 2.0 writes 94800.0
        return value

    # ------------------------------------------------------------------ Bulk 2.0

    def _create_job(self, payload: dict, headers: dict) -> Response:
        match = SOQL.match(payload.get("query", ""))
        if match and match["obj"] in self.bulk_unsupported:
            return self._json(
                [
                    {
                        "errorCode": "INVALIDENTITY",
                        "message": f"Entity '{match['obj']}' is not supported by the Bulk API.",
                    }
                ],
                400,
                headers,
            )
        selected = self._select(payload["query"], payload.get("operation") == "queryAll")
        if isinstance(selected, Response):
            selected.headers.update(headers)
            return selected
        job_id = f"750FAKE{len(self.jobs):011d}"
        self.jobs[job_id] = {"selected": selected, "polls": 0}
        return self._json(
            {"id": job_id, "operation": payload.get("operation"), "object": selected[0], "state": "UploadComplete"},
            200,
            headers,
        )

    def _job(self, job_id: str, headers: dict) -> Response:
        job = self.jobs.get(job_id)
        if job is None:
            return self._json([{"errorCode": "NOT_FOUND", "message": "job not found"}], 404, headers)
        job["polls"] += 1
        state = "InProgress" if job["polls"] == 1 else "JobComplete"
        return self._json({"id": job_id, "state": state}, 200, headers)

    def _results(self, job_id: str, request: Request, headers: dict) -> Response:
        job = self.jobs.get(job_id)
        if job is None:
            return self._json([{"errorCode": "NOT_FOUND", "message": "job not found"}], 404, headers)
        obj, columns, rows = job["selected"]
        offset = int(request.args.get("locator") or 0)
        size = int(request.args.get("maxRecords") or 50_000)
        page = rows[offset : offset + size]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerow(columns)
        for row in page:
            writer.writerow([self.bulk_value(obj, row, c) for c in columns])
        more = offset + size < len(rows)
        return Response(
            out.getvalue(),
            status=200,
            content_type="text/csv",
            headers={
                **headers,
                "Sforce-Locator": str(offset + size) if more else "null",
                "Sforce-NumberOfRecords": str(len(page)),
            },
        )
