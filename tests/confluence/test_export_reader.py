"""The bundled sample (XML space export), the HTML space export and the real corpus through the export reader."""

import importlib.util
import json
from pathlib import Path

import pytest

from connectors.confluence import ConfluenceExportReader, ExportSettings, GroupPolicy
from ground.contract import TimeWindow, split
from ground.records import ErrorClass
from tests.corpus import corpus_dir

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample" / "exports" / "confluence"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_confluence_sample", ROOT / "sample" / "make_confluence_sample.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(paths, **settings):
    reader = ConfluenceExportReader(paths, ExportSettings(**settings))
    records, failures = split(reader.read())
    return reader, records, failures


def test_committed_sample_equals_a_fresh_run(tmp_path):
    _generator().write(tmp_path)
    for name in ("ACME-xml-export.zip", "ACME-xml-export-2026-06-30.zip"):
        assert (tmp_path / "exports" / "confluence" / name).read_bytes() == (SAMPLE / name).read_bytes()


def test_given_the_sample_then_every_version_is_a_record_keyed_by_page_id():
    reader, records, failures = read([SAMPLE])
    versions = sorted((r.source_key, r.version) for r in records if r.kind == "page")
    assert versions == [
        ("131073", "1"),
        ("131073", "2"),
        ("131073", "3"),
        ("131074", "1"),
        ("131074", "2"),
        ("131074", "3"),
        ("131075", "1"),
        ("131075", "2"),
    ]
    charter = {r.version: r for r in records if r.source_key == "131073"}
    assert [charter[v].fields["owner"]["name"] for v in "123"] == ["Dana Whitfield", "Dana Whitfield", "Priya Raman"]
    assert charter["3"].fields["owner"]["id"] == "priya.raman@acme.example"
    assert charter["3"].actor.id == "michael.chen@northwind.example"
    assert charter["3"].occurred_at.isoformat() == "2026-06-10T20:30:00+00:00"
    assert (
        charter["3"].url == "https://northwind.atlassian.net/wiki/spaces/ACME/pages/131073" or charter["3"].url is None
    )
    assert "Go-live target: 2026-07-15" in charter["3"].body and "2026-07-01" in charter["1"].body
    assert charter["1"].fields["labels"] == ["charter"] and charter["1"].fields["space_key"] == "ACME"
    assert charter["3"].fields["references"] == ["confluence:page:131074"]  # title link resolved to its id
    plan = [r for r in records if r.source_key == "131074" and r.version == "3"][0]
    assert plan.fields["ancestors"] == [{"id": "131073", "title": "Project Charter"}]
    assert (
        plan.attachments[0].name == "reconciliation-report.pdf" and plan.attachments[0].media_type == "application/pdf"
    )
    assert "| Oracle warehouse | 14 TB |" in plan.body and "SELECT COUNT(*)" in plan.body
    comments = {r.source_key: r for r in records if r.kind == "comment"}
    assert set(comments) == {"131101", "131102"}
    assert comments["131101"].parent_key == "131073" and comments["131101"].fields["location"] == "footer"
    assert comments["131102"].fields["location"] == "inline"
    assert comments["131102"].fields["inline_selection"] == "recent three years first"
    assert "@Priya Raman" in comments["131101"].body
    assert {r.fields["group_id"] for r in records} == {""}  # the pipeline's own group
    json.dumps([r.fields for r in records])  # JSON-serialisable
    # broken items: the truncated download and the comment dated 31 June
    assert sorted((f.error_class.value, f.source_key or "") for f in failures) == [
        ("bad_value", "131103"),
        ("parse_error", ""),
    ]
    assert "2026-06-31" in [f for f in failures if f.source_key == "131103"][0].reason
    # the restricted page is never written, and counted
    assert "131076" not in {r.source_key for r in records}
    assert reader.stats.skipped_restricted == 1 and reader.stats.skipped_restricted_keys == ["131076"]


def test_restricted_pages_go_to_a_separate_group_when_configured():
    _, records, _ = read([SAMPLE / "ACME-xml-export.zip"], groups=GroupPolicy(restricted="separate_group"))
    groups = {r.source_key: r.fields["group_id"] for r in records}
    assert groups["131076"] == "confluence_ACME_restricted" and groups["131073"] == ""


def test_window_keeps_records_updated_inside():
    import datetime as dt

    utc = dt.UTC
    window = TimeWindow(start=dt.datetime(2026, 6, 10, tzinfo=utc), end=dt.datetime(2026, 6, 11, tzinfo=utc))
    records, _ = split(ConfluenceExportReader([SAMPLE / "ACME-xml-export.zip"]).read(window))
    assert sorted((r.source_key, r.version) for r in records) == [("131073", "3"), ("131075", "2")]


def test_server_local_dates_are_converted_with_the_configured_zone():
    _, records, _ = read([SAMPLE / "ACME-xml-export.zip"], timezone="America/New_York")
    charter = [r for r in records if r.source_key == "131073" and r.version == "3"][0]
    assert charter.occurred_at.isoformat() == "2026-06-11T00:30:00+00:00"  # 20:30 EDT


def test_html_space_export(tmp_path):
    path = _generator().write_html_export(tmp_path / "ACME-html.zip")
    _, records, failures = read([path])
    by_id = {r.source_key: r for r in records}
    assert set(by_id) == {"131073", "131074", "131075"}
    assert by_id["131074"].version == "html-20260626"
    assert by_id["131074"].fields["ancestors"] == [{"id": "131073", "title": "Project Charter"}]
    assert by_id["131074"].attachments[0].name == "reconciliation-report.pdf"
    assert by_id["131073"].fields["references"] == ["confluence:page:131074"]
    assert by_id["131073"].actor.name == "Michael Chen"
    assert [f.source_key for f in failures] == ["131077"]


def test_saved_rest_responses_and_junk(tmp_path):
    (tmp_path / "page.json").write_text(
        json.dumps(
            {
                "id": "131073",
                "type": "page",
                "status": "current",
                "title": "Project Charter",
                "space": {"key": "ACME", "name": "Acme Data Platform"},
                "version": {
                    "number": 3,
                    "when": "2026-06-10T20:30:00.000Z",
                    "by": {"accountId": "a1", "displayName": "Michael Chen", "email": "michael.chen@northwind.example"},
                },
                "body": {"storage": {"value": "<p>Go-live 2026-07-15</p>"}},
            }
        )
    )
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "notes.bin").write_bytes(b"\x00\x01")
    _, records, failures = read([tmp_path])
    assert [(r.source_key, r.version, r.actor.id) for r in records] == [
        ("131073", "3", "michael.chen@northwind.example")
    ]
    assert sorted(f.error_class for f in failures) == [ErrorClass.parse_error, ErrorClass.unsupported]


@pytest.mark.slow
def test_every_corpus_file_yields_records_or_failures_and_nothing_raises():
    files = sorted(p for p in corpus_dir("confluence").rglob("*") if p.is_file() and p.suffix in (".json", ".html"))
    assert len(files) > 50
    total = 0
    for path in files:
        records, failures = split(ConfluenceExportReader([path]).read())
        assert records or failures, path
        total += len(records)
        for record in records:
            assert record.source_key and record.occurred_at.tzinfo is not None
            json.dumps(record.fields)
    assert total >= 10
