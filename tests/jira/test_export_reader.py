"""JiraExportReader over the bundled sample (JSON, search page, CSV, XML) and the whole shared corpus."""

import collections
import datetime as dt
from pathlib import Path

import pytest

from connectors.jira import JiraExportReader
from ground.contract import TimeWindow, split
from ground.records import ErrorClass, RecordFailure

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample" / "exports" / "jira"
CORPUS = ROOT / ".." / "shared" / "corpus" / "jira"
UTC = dt.UTC


def read(*paths, **kw):
    return split(JiraExportReader(list(paths), **kw).read())


def test_given_the_sample_export_then_every_issue_and_comment_is_a_record_and_broken_items_are_failures():
    records, failures = read(SAMPLE)
    keys = {r.source_key for r in records}
    assert {"ACME-1", "ACME-2", "ACME-7", "ACME-12", "ACME-15", "ACME-18", "NW-101", "NW-104", "NW-108"} <= keys
    assert {"ACME-12#41201", "ACME-12#41204", "NW-101#21011", "NW-104#21041", "NW-108#csv2"} <= keys
    reasons = sorted((f.error_class, Path(f.location.file).name) for f in failures)
    assert reasons == [
        (ErrorClass.missing_field, "search-NW-page-1.json"),
        (ErrorClass.parse_error, "ACME-99-partial.json"),
        (ErrorClass.parse_error, "NW-108.csv"),
    ]


def test_given_acme_12_then_the_record_carries_the_assignee_change_with_its_time_and_people_by_email():
    records, _ = read(SAMPLE / "issues" / "ACME-12.json")
    issue = next(r for r in records if r.kind == "issue")
    assert issue.source_key == "ACME-12" and issue.thread_key == "ACME-12"
    assert issue.actor.id == "michael.chen@northwind.example"
    assert issue.occurred_at == dt.datetime(2026, 3, 10, 10, 30, tzinfo=UTC)
    assert issue.url == "https://northwind.atlassian.net/browse/ACME-12"
    change = next(c for c in issue.fields["history"] if c["slot"] == "assignee")
    assert change["at"] == "2026-04-14T15:00:00+00:00"
    assert change["from_person"]["email"] == "michael.chen@northwind.example"
    assert change["to_person"]["email"] == "li.na@huaxin.example"
    assert issue.fields["custom_fields"] == {"Customer": "Acme Corp"}
    assert issue.fields["links"] == [
        {"type": "Blocks", "direction": "inward", "verb": "is blocked by", "key": "NW-108"}
    ]
    assert issue.fields["parent"] == "ACME-1"
    assert "Plan: https://northwind.atlassian.net/wiki/spaces/ACME/pages/131074/Data+Migration+Plan" in issue.body
    comment = next(r for r in records if r.source_key == "ACME-12#41204")
    assert comment.kind == "comment" and comment.parent_key == "ACME-12" and comment.actor.id == "li.na@huaxin.example"


def test_given_configured_content_fields_then_they_join_the_body():
    records, _ = read(SAMPLE / "issues" / "ACME-12.json", content_fields=["Customer"])
    assert next(r for r in records if r.kind == "issue").body.endswith("Customer: Acme Corp")


def test_given_the_csv_and_xml_exports_then_they_give_the_same_record_shape():
    records, _ = read(SAMPLE / "NW-104.xml", SAMPLE / "NW-108.csv")
    by_key = {r.source_key: r for r in records}
    xml, csv_ = by_key["NW-104"], by_key["NW-108"]
    assert (
        xml.fields["format"] == "xml"
        and xml.fields["status"] == "Done"
        and xml.fields["assignee"]["name"] == "Markus Vogel"
    )
    assert xml.body.startswith("SAP exports use TT.MM.JJJJ") and xml.attachments[0].name == "sap-date-samples.csv"
    assert xml.fields["links"][0]["key"] == "NW-101"
    assert csv_.fields["format"] == "csv" and csv_.occurred_at == dt.datetime(2026, 4, 14, 9, tzinfo=UTC)
    assert csv_.fields["labels"] == ["acme", "migration"] and csv_.fields["custom_fields"] == {
        "Story point estimate": "8"
    }
    assert by_key["NW-108#csv1"].occurred_at == dt.datetime(2026, 5, 12, 7, 10, tzinfo=UTC)


def test_given_a_window_and_a_checkpoint_then_only_updated_records_inside_come_and_done_files_are_skipped():
    window = TimeWindow(start=dt.datetime(2026, 6, 26, tzinfo=UTC), end=dt.datetime(2026, 6, 27, tzinfo=UTC))
    records, _ = split(JiraExportReader([SAMPLE / "issues"]).read(window))
    assert {r.source_key for r in records} == {"ACME-12", "ACME-12#41204"}
    gen = JiraExportReader([SAMPLE / "issues"]).read()
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        checkpoint = stop.value
    assert checkpoint.has_more is False and len(checkpoint.files_done) == 7
    assert list(JiraExportReader([SAMPLE / "issues"]).read(None, checkpoint)) == []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_every_corpus_file_yields_records_or_failures_without_raising():
    files = sorted(str(p) for p in CORPUS.rglob("*") if p.is_file())
    per_file = {f: collections.Counter() for f in files}
    for item in JiraExportReader([CORPUS]).read():
        item.model_dump_json()
        where = item.location.file if isinstance(item, RecordFailure) else item.origin.file
        per_file[where]["failure" if isinstance(item, RecordFailure) else "record"] += 1
    assert [f for f, c in per_file.items() if not c] == []
    # SOURCES.md: the deliberately malformed files fail with a parse error
    for name in ("go-jira/no_permissionschemes.json", "jira-ruby/mock_responses/issue/10002/transitions.post.json"):
        assert per_file[str(CORPUS / name)]["failure"] == 1 and per_file[str(CORPUS / name)]["record"] == 0
    # every issue file of the real Server dump and every issue webhook payload gives its issue
    for path in (CORPUS / "tidev_appcelerator_jira").rglob("*.json"):
        if "projects" not in path.parts:
            assert per_file[str(path)]["record"] >= 1, path
    webhooks = [p for p in (CORPUS / "mattermost_webhooks" / "testdata").glob("*issue*.json")]
    assert webhooks and all(per_file[str(p)]["record"] >= 1 for p in webhooks)
    records = sum(c["record"] for c in per_file.values())
    print(
        f"\njira corpus: {len(files)} files, {records} records, {sum(c['failure'] for c in per_file.values())} failures"
    )


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_given_the_changelog_corpus_then_history_items_are_normalised_in_time_order():
    records, _ = read(CORPUS / "indeed_engplans" / "ENGPLANS-10.json")
    issue = next(r for r in records if r.kind == "issue")
    times = [c["at"] for c in issue.fields["history"]]
    assert times == sorted(times) and len(times) >= 5
    assert issue.fields["history"][0]["slot"] == "status" and issue.fields["history"][0]["to_string"] == "Accepted"
