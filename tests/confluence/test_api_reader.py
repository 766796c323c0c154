"""The API reader through the real atlassian-python-api client against a local server answering like Confluence."""

import datetime as dt
import json

import pytest
from werkzeug import Response

from connectors.confluence import ConfluenceAuthError
from connectors.confluence.api_reader import ConfluenceApiReader
from connectors.confluence.api_settings import ConfluenceApiSettings
from ground.contract import TimeWindow, split
from ground.records import Deletion

pytestmark = pytest.mark.slow
UTC = dt.UTC
WINDOW = TimeWindow(start=dt.datetime(2026, 6, 10, tzinfo=UTC), end=dt.datetime(2026, 6, 11, tzinfo=UTC))
USER = {"accountId": "a-mc", "displayName": "Michael Chen", "email": "michael.chen@northwind.example"}


def page(ident: str, version: int = 1, restricted: bool = False) -> dict:
    read = (
        {"user": {"results": [{"accountId": "a-so", "displayName": "Sarah Okafor"}]}, "group": {"results": []}}
        if restricted
        else {"user": {"results": []}, "group": {"results": []}}
    )
    return {
        "id": ident,
        "type": "page",
        "status": "current",
        "title": f"Page {ident}",
        "space": {"key": "ACME", "name": "Acme Data Platform"},
        "version": {"number": version, "when": "2026-06-10T20:30:00.000Z", "by": USER},
        "history": {"createdDate": "2026-03-23T15:05:00.000Z", "createdBy": USER},
        "ancestors": [],
        "metadata": {"labels": {"results": [{"name": "charter"}]}},
        "restrictions": {"read": {"restrictions": read}},
        "body": {"storage": {"value": f"<p>Body of {ident}</p>"}},
    }


def settings(server, **kw) -> ConfluenceApiSettings:
    base = dict(
        base_url=server.url_for("/wiki"),
        username="bot@northwind.example",
        token="s3cret-token",
        cloud=True,
        page_size=2,
        max_retries=3,
        backoff_seconds=0.01,
        max_backoff_seconds=1,
    )
    base.update(kw)
    return ConfluenceApiSettings(**base)


def json_response(data, status=200, headers=None):
    return Response(json.dumps(data), status=status, headers=headers or {}, content_type="application/json")


def serve_pages(server, ids, cloud=True, deleted=()):
    for ident in ids:
        if ident in deleted:
            server.expect_request(f"/wiki/rest/api/content/{ident}").respond_with_json(
                {"statusCode": 404, "message": "No content found"}, status=404
            )
        else:
            server.expect_request(f"/wiki/rest/api/content/{ident}").respond_with_json(
                page(ident, restricted=ident == "9")
            )
        if cloud:
            for where in ("footer", "inline"):
                comments = (
                    [
                        {
                            "id": f"c{ident}",
                            "status": "current",
                            "pageId": ident,
                            "version": {"number": 1, "createdAt": "2026-06-10T21:00:00Z", "authorId": "a-mc"},
                            "body": {"storage": {"value": "<p>ok</p>"}},
                        }
                    ]
                    if where == "footer" and ident == "1"
                    else []
                )
                server.expect_request(f"/wiki/api/v2/pages/{ident}/{where}-comments").respond_with_json(
                    {"results": comments, "_links": {}}
                )
        else:
            server.expect_request(f"/wiki/rest/api/content/{ident}/child/comment").respond_with_json(
                {"results": [], "start": 0, "limit": 2, "size": 0, "_links": {}}
            )


def test_cloud_cursor_pagination_rate_limit_server_error_deleted_and_restricted(httpserver):
    calls = {"search": 0}

    def search(request):
        calls["search"] += 1
        cursor = request.args.get("cursor")
        if calls["search"] == 1:
            assert 'lastmodified >= "2026-06-09 23:50"' in request.args["cql"]
            return json_response({"message": "slow down"}, 429, {"Retry-After": "1"})
        if cursor is None:
            return json_response(
                {
                    "results": [{"id": "1", "type": "page"}, {"id": "2", "type": "page"}],
                    "_links": {"next": "/wiki/rest/api/content/search?cursor=abc&limit=2"},
                }
            )
        if cursor == "abc" and calls["search"] == 3:
            return json_response({"message": "boom"}, 500)
        if cursor == "abc":
            return json_response(
                {
                    "results": [{"id": "3", "type": "page"}, {"id": "9", "type": "page"}],
                    "_links": {"next": "/wiki/rest/api/content/search?cursor=def&limit=2"},
                }
            )
        return json_response({"results": [{"id": "4", "type": "page"}], "_links": {}})

    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_handler(search)
    serve_pages(httpserver, ["1", "2", "3", "4", "9"], deleted=("3",))
    reader = ConfluenceApiReader(settings(httpserver))
    gen = reader.read(WINDOW)
    items = []
    try:
        while True:
            items.append(next(gen))
    except StopIteration as stop:
        checkpoint = stop.value
    records, failures = split(items)
    assert sorted((r.kind, r.source_key) for r in records) == [
        ("comment", "c1"),
        ("page", "1"),
        ("page", "2"),
        ("page", "4"),
    ]
    assert failures == []
    assert [(d.source, d.source_key, d.reason) for d in items if isinstance(d, Deletion)] == [
        ("confluence", "3", "deleted")
    ]
    assert reader.stats.skipped_restricted == 1 and reader.stats.skipped_restricted_keys == ["9"]
    assert checkpoint.has_more is False and checkpoint.pages_read == 3
    assert calls["search"] >= 5  # 429 and 500 were retried
    page1 = [r for r in records if r.source_key == "1"][0]
    assert page1.actor.id == "michael.chen@northwind.example" and page1.fields["labels"] == ["charter"]
    comment = [r for r in records if r.kind == "comment"][0]
    assert comment.parent_key == "1" and comment.actor.name == "Michael Chen"


def test_server_start_limit_and_403_rate_limit(httpserver):
    calls = {"n": 0}

    def search(request):
        calls["n"] += 1
        if calls["n"] == 1:
            return Response("Rate limit exceeded", status=403, headers={"Retry-After": "0"})
        start = int(request.args.get("start", 0))
        ids = ["1", "2", "4"][start : start + 2]
        return json_response(
            {
                "results": [{"id": i, "type": "page"} for i in ids],
                "start": start,
                "limit": 2,
                "size": len(ids),
                "_links": {},
            }
        )

    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_handler(search)
    serve_pages(httpserver, ["1", "2", "4"], cloud=False)
    reader = ConfluenceApiReader(settings(httpserver, cloud=False))
    records, failures = split(reader.read(WINDOW))
    assert [r.source_key for r in records] == ["1", "2", "4"] and failures == []
    assert reader.stats.retries >= 1


def test_401_stops_the_run_with_a_clear_message_without_the_secret(httpserver):
    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_data("Unauthorized", status=401)
    with pytest.raises(ConfluenceAuthError) as err:
        list(ConfluenceApiReader(settings(httpserver)).read(WINDOW))
    assert "CONFLUENCE_API_TOKEN" in str(err.value) and "s3cret" not in str(err.value)


def test_one_refused_page_is_a_failure_and_the_run_goes_on(httpserver):
    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_json(
        {"results": [{"id": "1", "type": "page"}, {"id": "5", "type": "page"}], "_links": {}}
    )
    serve_pages(httpserver, ["1"])
    httpserver.expect_request("/wiki/rest/api/content/5").respond_with_json({"message": "Not permitted"}, status=403)
    records, failures = split(ConfluenceApiReader(settings(httpserver)).read(WINDOW))
    assert [r.source_key for r in records if r.kind == "page"] == ["1"]
    assert [(f.source_key, f.error_class.value) for f in failures] == [("5", "api_error")]
    assert "403" in failures[0].reason


def serve_history(server, ident: str, saved: dict[int, str], restricted: bool = False, purged: tuple = ()):
    """One page whose versions were saved at the given times; the newest is current."""
    current = max(saved)

    def content(request):
        number = int(request.args.get("version", current))
        if request.args.get("status") == "historical" and number in purged:
            return json_response({"statusCode": 404, "message": "No content found"}, 404)
        body = page(ident, version=number, restricted=restricted)
        body["version"]["when"] = saved[number]
        body["body"]["storage"]["value"] = f"<p>Owner: {'Dana' if number < 3 else 'Priya'} (v{number})</p>"
        if number != current:
            body["status"] = "historical"
        return json_response(body)

    server.expect_request(f"/wiki/rest/api/content/{ident}").respond_with_handler(content)
    for where in ("footer", "inline"):
        server.expect_request(f"/wiki/api/v2/pages/{ident}/{where}-comments").respond_with_json(
            {"results": [], "_links": {}}
        )


def test_versions_saved_inside_the_window_are_each_an_episode_older_ones_are_not_reread(httpserver):
    # given a page saved at 08:00 (v2) and 20:30 (v3) on the partition day, and v1 months earlier
    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_json(
        {"results": [{"id": "7", "type": "page"}], "_links": {}}
    )
    serve_history(
        httpserver, "7", {1: "2026-03-23T15:05:00.000Z", 2: "2026-06-10T08:00:00.000Z", 3: "2026-06-10T20:30:00.000Z"}
    )
    # when the day's window is read
    records, failures = split(ConfluenceApiReader(settings(httpserver)).read(WINDOW))
    # then v3 and v2 are records (distinct versions, own times and text), v1 is not read again
    assert failures == []
    assert sorted((r.source_key, r.version) for r in records) == [("7", "2"), ("7", "3")]
    v2 = [r for r in records if r.version == "2"][0]
    assert "Dana" in v2.body and v2.updated_at == dt.datetime(2026, 6, 10, 8, tzinfo=UTC)


def test_history_of_a_restricted_page_is_skipped_and_a_purged_version_ends_the_walk(httpserver):
    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_json(
        {"results": [{"id": "8", "type": "page"}, {"id": "9", "type": "page"}], "_links": {}}
    )
    saved = {1: "2026-06-10T01:00:00.000Z", 2: "2026-06-10T02:00:00.000Z", 3: "2026-06-10T03:00:00.000Z"}
    serve_history(httpserver, "8", saved, restricted=True)
    serve_history(httpserver, "9", saved, purged=(1,))
    reader = ConfluenceApiReader(settings(httpserver))
    records, failures = split(reader.read(WINDOW))
    assert failures == []
    assert sorted((r.source_key, r.version) for r in records) == [("9", "2"), ("9", "3")]
    assert reader.stats.skipped_restricted_keys == ["8"]


def test_history_reads_nothing_more_when_switched_off_or_without_a_window(httpserver):
    httpserver.expect_request("/wiki/rest/api/content/search").respond_with_json(
        {"results": [{"id": "7", "type": "page"}], "_links": {}}
    )
    serve_history(httpserver, "7", {1: "2026-06-10T01:00:00.000Z", 2: "2026-06-10T02:00:00.000Z"})
    off, _ = split(ConfluenceApiReader(settings(httpserver, history_versions=0)).read(WINDOW))
    whole, _ = split(ConfluenceApiReader(settings(httpserver)).read(None))
    assert [r.version for r in off] == ["2"] and [r.version for r in whole] == ["2"]
