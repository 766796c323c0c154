"""A local HTTP server that answers like Jira Cloud (v3, nextPageToken) or Server/DC (v2, startAt) for the calls the
connector makes: search, field list, paged changelog, paged comments, single issue. Tests script failures on top."""

import json

from werkzeug.wrappers import Request, Response

ACCOUNT = {"li": "712020:li", "michael": "712020:mc"}
USERS = {
    "712020:li": ("Li Na", "li.na@huaxin.example"),
    "712020:mc": ("Michael Chen", "michael.chen@northwind.example"),
}


def user(account: str) -> dict:
    name, email = USERS[account]
    return {"accountId": account, "name": account, "displayName": name, "emailAddress": email}


def make_issue(n: int, cloud: bool) -> dict:
    key = f"ACME-{n}"
    body = (
        {
            "type": "doc",
            "version": 1,
            "content": [{"type": "paragraph", "content": [{"type": "text", "text": f"Issue {n} body"}]}],
        }
        if cloud
        else f"h2. Issue {n}\n*body* of {n}"
    )
    return {
        "id": str(20000 + n),
        "key": key,
        "self": f"http://x/rest/api/2/issue/{20000 + n}",
        "fields": {
            "summary": f"Issue number {n}",
            "created": "2026-03-10T10:30:00.000+0000",
            "updated": f"2026-04-{10 + n:02d}T12:00:00.000+0000",
            "status": {"name": "In Progress"},
            "priority": {"name": "High"},
            "assignee": user("712020:li"),
            "reporter": user("712020:mc"),
            "description": body,
            "customfield_10050": {"value": "Acme Corp"},
            "issuelinks": [],
            "labels": [],
        },
    }


class FakeJira:
    def __init__(self, httpserver, cloud: bool, issues: int = 5, page_size: int = 2):
        self.server, self.cloud, self.page_size = httpserver, cloud, page_size
        self.issues = [make_issue(n, cloud) for n in range(1, issues + 1)]
        self.deleted: set[str] = set()
        self.search_calls: list[dict] = []
        api = "3" if cloud else "2"
        self.api = api
        search = "/rest/api/3/search/jql" if cloud else "/rest/api/2/search"
        httpserver.expect_request(search).respond_with_handler(self.search)
        httpserver.expect_request(f"/rest/api/{api}/field").respond_with_json(
            [{"id": "customfield_10050", "name": "Customer", "custom": True}, {"id": "summary", "name": "Summary"}]
        )
        for issue in self.issues:
            key = issue["key"]
            if cloud:
                httpserver.expect_request(f"/rest/api/3/issue/{key}/changelog").respond_with_handler(
                    lambda r, key=key: self.changelog(r, key)
                )
            httpserver.expect_request(f"/rest/api/{api}/issue/{key}/comment").respond_with_handler(
                lambda r, key=key: self.comments(r, key)
            )
            httpserver.expect_request(f"/rest/api/{api}/issue/{key}").respond_with_handler(
                lambda r, key=key: self.issue(r, key)
            )

    def _live(self):
        return [i for i in self.issues if i["key"] not in self.deleted]

    def search(self, request: Request) -> Response:
        args = request.args
        self.search_calls.append(dict(args))
        live = self._live()
        size = min(int(args.get("maxResults", 50)), self.page_size)
        start = int(args.get("nextPageToken") or 0) if self.cloud else int(args.get("startAt", 0))
        page = live[start : start + size]
        if args.get("fields") == "key":
            page = [{"id": i["id"], "key": i["key"]} for i in page]
        body: dict = {"issues": page, "names": {"customfield_10050": "Customer"}}
        if self.cloud:
            more = start + size < len(live)
            body.update({"isLast": not more, **({"nextPageToken": str(start + size)} if more else {})})
        else:
            body.update({"startAt": start, "maxResults": size, "total": len(live)})
        return Response(json.dumps(body), content_type="application/json")

    def _not_found(self, key):
        return Response(
            json.dumps({"errorMessages": [f"Issue {key} does not exist or you do not have permission"], "errors": {}}),
            status=404,
            content_type="application/json",
        )

    def changelog(self, request: Request, key: str) -> Response:
        if key in self.deleted:
            return self._not_found(key)
        histories = [
            {
                "id": "1",
                "author": user("712020:mc"),
                "created": "2026-04-14T15:00:00.000+0000",
                "items": [
                    {
                        "field": "assignee",
                        "fieldId": "assignee",
                        "from": "712020:mc",
                        "fromString": "Michael Chen",
                        "to": "712020:li",
                        "toString": "Li Na",
                    }
                ],
            },
            {
                "id": "2",
                "author": user("712020:mc"),
                "created": "2026-04-28T12:00:00.000+0000",
                "items": [{"field": "priority", "from": "3", "fromString": "Medium", "to": "2", "toString": "High"}],
            },
            {
                "id": "3",
                "author": user("712020:li"),
                "created": "2026-05-02T12:00:00.000+0000",
                "items": [
                    {"field": "status", "from": "1", "fromString": "To Do", "to": "3", "toString": "In Progress"}
                ],
            },
        ]
        start = int(request.args.get("startAt", 0))
        size = min(int(request.args.get("maxResults", 100)), 2)
        values = histories[start : start + size]
        return Response(
            json.dumps(
                {
                    "values": values,
                    "startAt": start,
                    "maxResults": size,
                    "total": len(histories),
                    "isLast": start + size >= len(histories),
                }
            ),
            content_type="application/json",
        )

    def comments(self, request: Request, key: str) -> Response:
        if key in self.deleted:
            return self._not_found(key)
        all_comments = [
            {
                "id": str(100 + i),
                "author": user("712020:li"),
                "body": (
                    {
                        "type": "doc",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": f"comment {i} on {key}"}]}
                        ],
                    }
                    if self.cloud
                    else f"comment {i} on {key}"
                ),
                "created": f"2026-04-2{i}T09:00:00.000+0000",
                "updated": f"2026-04-2{i}T09:00:00.000+0000",
            }
            for i in range(3)
        ]
        start = int(request.args.get("startAt", 0))
        size = min(int(request.args.get("maxResults", 100)), 2)
        return Response(
            json.dumps(
                {
                    "comments": all_comments[start : start + size],
                    "startAt": start,
                    "maxResults": size,
                    "total": len(all_comments),
                }
            ),
            content_type="application/json",
        )

    def issue(self, request: Request, key: str) -> Response:
        if key in self.deleted:
            return self._not_found(key)
        issue = next(i for i in self.issues if i["key"] == key)
        if self.cloud:
            return Response(json.dumps(issue), content_type="application/json")
        # Server: GET /issue/{key}?expand=changelog gives the histories inline
        full = {
            **issue,
            "changelog": {
                "startAt": 0,
                "maxResults": 1,
                "total": 1,
                "histories": [
                    {
                        "id": "1",
                        "author": user("712020:mc"),
                        "created": "2026-04-14T15:00:00.000+0000",
                        "items": [
                            {
                                "field": "assignee",
                                "from": "712020:mc",
                                "fromString": "Michael Chen",
                                "to": "712020:li",
                                "toString": "Li Na",
                            }
                        ],
                    }
                ],
            },
        }
        return Response(json.dumps(full), content_type="application/json")
