"""JiraApiReader through the real atlassian-python-api client against a local server that answers like Jira Cloud and
Jira Server: pagination, 429 + Retry-After, 500 then success, expired token, deleted issue, full-listing tombstones."""

import datetime as dt

import pytest
from werkzeug.wrappers import Response

from connectors.jira import JiraApiReader, JiraApiSettings, JiraAuthError, JiraConfigError, JiraUnavailableError
from ground.contract import TimeWindow, split
from tests.jira.fake_jira import FakeJira

pytestmark = pytest.mark.slow
UTC = dt.UTC
WINDOW = TimeWindow(start=dt.datetime(2026, 4, 1, tzinfo=UTC), end=dt.datetime(2026, 5, 1, tzinfo=UTC))


def settings(httpserver, cloud=True, **kw) -> JiraApiSettings:
    base = dict(
        base_url=httpserver.url_for("/").rstrip("/"),
        username="bot@northwind.example" if cloud else None,
        token="s3cr3t-token",
        cloud=cloud,
        project_keys=["ACME"],
        page_size=2,
        backoff_seconds=0.01,
        max_backoff_seconds=0.05,
        max_retries=3,
        timeout_seconds=5,
        full_listing_every=None,
    )
    return JiraApiSettings(**{**base, **kw})


def drain(reader, window=WINDOW, checkpoint=None):
    gen = reader.read(window, checkpoint)
    items = []
    try:
        while True:
            items.append(next(gen))
    except StopIteration as stop:
        return items, stop.value


@pytest.mark.parametrize("cloud", [True, False], ids=["cloud-v3", "server-v2"])
def test_given_three_pages_then_every_issue_comes_with_full_changelog_and_all_comments(httpserver, cloud):
    fake = FakeJira(httpserver, cloud=cloud, issues=5, page_size=2)
    items, checkpoint = drain(JiraApiReader(settings(httpserver, cloud=cloud)))
    records, failures = split(items)
    assert failures == []
    issues = [r for r in records if r.kind == "issue"]
    assert [r.source_key for r in issues] == [f"ACME-{n}" for n in range(1, 6)]
    assert len([r for r in records if r.kind == "comment"]) == 15  # 3 per issue over 2 pages
    assert checkpoint.has_more is False and checkpoint.pages_done == 3
    jql = fake.search_calls[0]["jql"]
    start, end = int(WINDOW.start.timestamp() * 1000), int(WINDOW.end.timestamp() * 1000)
    assert f"updated >= {start}" in jql and f"updated < {end}" in jql and 'project in ("ACME")' in jql
    first = issues[0]
    assert first.fields["custom_fields"] == {"Customer": "Acme Corp"}
    assignee = [c for c in first.fields["history"] if c["slot"] == "assignee"]
    assert assignee[0]["to_person"]["email"] == "li.na@huaxin.example"
    if cloud:
        assert len(first.fields["history"]) == 3  # changelog paged 2 + 1
        assert first.body == "Issue 1 body"  # ADF
    else:
        assert first.body == "## Issue 1\nbody of 1"  # wiki markup
    assert records[1].source_key == "ACME-1#100" and records[1].parent_key == "ACME-1"


def test_given_a_429_with_retry_after_then_the_reader_waits_and_goes_on(httpserver):
    fake = FakeJira(httpserver, cloud=True, issues=2)
    httpserver.expect_oneshot_request("/rest/api/3/search/jql").respond_with_response(
        Response(
            '{"errorMessages":["Rate limit exceeded"]}',
            status=429,
            headers={"Retry-After": "1"},
            content_type="application/json",
        )
    )
    records, failures = split(drain(JiraApiReader(settings(httpserver)))[0])
    assert failures == [] and {r.source_key for r in records if r.kind == "issue"} == {"ACME-1", "ACME-2"}
    assert len(fake.search_calls) == 1  # the 429 was not a page


def test_given_a_500_then_success_then_the_call_is_retried(httpserver):
    FakeJira(httpserver, cloud=True, issues=1)
    httpserver.expect_oneshot_request("/rest/api/3/issue/ACME-1/comment").respond_with_data("boom", status=500)
    records, failures = split(drain(JiraApiReader(settings(httpserver)))[0])
    assert failures == [] and len([r for r in records if r.kind == "comment"]) == 3


def test_given_jira_keeps_failing_then_the_run_fails_with_a_resumable_checkpoint(httpserver):
    FakeJira(httpserver, cloud=True, issues=4, page_size=2)
    reader = JiraApiReader(settings(httpserver, max_retries=1))
    for _ in range(3):
        httpserver.expect_oneshot_request("/rest/api/3/issue/ACME-3/changelog").respond_with_data("down", status=503)
    gen = reader.read(WINDOW)
    seen = []
    with pytest.raises(JiraUnavailableError, match="503"):
        for item in gen:
            seen.append(item.source_key)
    assert "ACME-1" in seen and "ACME-3" not in seen
    assert reader.checkpoint.pages_done == 1 and reader.checkpoint.has_more  # page 1 done, resume at page 2
    items, final = drain(JiraApiReader(settings(httpserver)), checkpoint=reader.checkpoint)
    assert {r.source_key for r in split(items)[0] if r.kind == "issue"} == {"ACME-3", "ACME-4"}


def test_given_an_expired_token_then_the_run_fails_with_an_auth_error_that_hides_the_token(httpserver):
    httpserver.expect_request("/rest/api/3/field").respond_with_json(
        {"errorMessages": ["Client must be authenticated to access this resource."]}, status=401
    )
    with pytest.raises(JiraAuthError) as caught:
        drain(JiraApiReader(settings(httpserver)))
    assert "401" in str(caught.value) and "GRAPHFEED_JIRA_API_TOKEN" in str(caught.value)
    assert "s3cr3t-token" not in str(caught.value) and "s3cr3t-token" not in repr(settings(httpserver))


def test_given_bad_jql_then_the_run_fails_naming_the_setting(httpserver):
    httpserver.expect_request("/rest/api/3/field").respond_with_json([])
    httpserver.expect_request("/rest/api/3/search/jql").respond_with_json(
        {"errorMessages": ["Error in the JQL Query: 'nosuch' is not a field"], "errors": {}}, status=400
    )
    with pytest.raises(JiraConfigError, match="GRAPHFEED_JIRA_EXTRA_JQL"):
        drain(JiraApiReader(settings(httpserver, extra_jql="nosuch = 1")))


def test_given_a_forbidden_issue_then_it_becomes_a_failure_and_the_rest_goes_on(httpserver):
    FakeJira(httpserver, cloud=True, issues=3)
    httpserver.expect_oneshot_request("/rest/api/3/issue/ACME-2/changelog").respond_with_json(
        {"errorMessages": ["You do not have the permission to see the specified issue."]}, status=403
    )
    records, failures = split(drain(JiraApiReader(settings(httpserver)))[0])
    assert [f.source_key for f in failures] == ["ACME-2"] and "403" in failures[0].reason
    assert {r.source_key for r in records if r.kind == "issue"} == {"ACME-1", "ACME-3"}


def test_given_a_deleted_issue_then_404_and_full_listing_report_tombstones(httpserver):
    fake = FakeJira(httpserver, cloud=True, issues=3)
    clock = iter(
        [
            dt.datetime(2026, 5, 1, tzinfo=UTC),
            dt.datetime(2026, 5, 1, 1, tzinfo=UTC),
            dt.datetime(2026, 5, 9, tzinfo=UTC),
            dt.datetime(2026, 5, 9, 1, tzinfo=UTC),
            dt.datetime(2026, 5, 9, 2, tzinfo=UTC),
            dt.datetime(2026, 5, 9, 3, tzinfo=UTC),
        ]
    )
    s = settings(httpserver, full_listing_every=dt.timedelta(days=7))
    first_items, first = drain(JiraApiReader(s, clock=lambda: next(clock)))
    assert first.known_keys == ["ACME-1", "ACME-2", "ACME-3"] and first.deleted == []

    # ACME-2 deleted: a re-fetch answers 404; ACME-3 vanished from the listing since last week
    reader = JiraApiReader(s, clock=lambda: next(clock))
    assert [d.key for d in reader.recheck(["ACME-1", "ACME-2"])] == []
    fake.deleted.add("ACME-3")
    gone = reader.recheck(["ACME-1", "ACME-3"])
    assert [(d.key, d.how) for d in gone] == [("ACME-3", "not_found")]
    items, second = drain(reader, checkpoint=first)
    assert [(d.key, d.how) for d in second.deleted] == [("ACME-3", "absent_from_listing")]
    assert second.known_keys == ["ACME-1", "ACME-2"]


def test_given_an_issue_that_404s_during_the_pull_then_it_is_reported_deleted(httpserver):
    FakeJira(httpserver, cloud=True, issues=2)
    httpserver.expect_oneshot_request("/rest/api/3/issue/ACME-2/changelog").respond_with_json(
        {"errorMessages": ["Issue does not exist"]}, status=404
    )
    items, checkpoint = drain(JiraApiReader(settings(httpserver, full_listing_every=None)))
    assert [(d.key, d.how) for d in checkpoint.deleted] == [("ACME-2", "not_found")]
    assert {r.source_key for r in split(items)[0] if r.kind == "issue"} == {"ACME-1"}
