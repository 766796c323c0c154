"""A saved Cloud page folder (page.v1.json, page.v2.json, page.xhtml, page.adf, page.html, listings) is ONE page."""

import json
import shutil

import pytest

from connectors.confluence import ConfluenceExportReader
from ground.contract import split
from ground.records import ErrorClass
from tests.confluence.storage_adf_pair import ADF, STORAGE, TEXT
from tests.corpus import corpus_dir


def read(*paths):
    reader = ConfluenceExportReader(list(paths))
    gen = reader.read()
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return (*split(items), stop.value)


def v2_page(ident="131073", body=None, **extra):
    page = {
        "id": ident,
        "status": "current",
        "title": "Warehouse migration plan",
        "spaceId": "98",
        "parentId": "131070",
        "parentType": "page",
        "authorId": "acc-lena",
        "ownerId": "acc-lena",
        "createdAt": "2026-03-02T09:00:00.000Z",
        "version": {"number": 4, "authorId": "acc-omar", "createdAt": "2026-05-11T14:30:00.000Z"},
        "_links": {"webui": "/spaces/OPS/pages/131073/Warehouse", "base": "https://acme.atlassian.net/wiki"},
    }
    if body is not None:
        page["body"] = {"atlas_doc_format": {"value": json.dumps(body), "representation": "atlas_doc_format"}}
    page.update(extra)
    return page


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return folder


def test_given_a_real_cloud_page_folder_then_one_record_with_body_dates_author_and_structure():
    folder = corpus_dir("confluence", "querypie_cloud") / "544112828"
    records, failures, checkpoint = read(folder)
    assert failures == []
    assert len(records) == 1
    page = records[0]
    assert (page.source_key, page.version, page.title) == ("544112828", "19", "User Agent")
    assert page.occurred_at.isoformat() == "2025-11-15T03:45:52.751000+00:00"  # v2 version.createdAt
    assert page.fields["created_at"] == "2024-07-14T05:25:02.926000+00:00"
    assert page.actor.id == "confluence:712020:f3e573c0-e3bc-4fde-9a9f-0d5e206c30c9"  # v2 version.authorId
    assert page.fields["body_source"] == "page.v1.json body.storage"
    assert "QueryPie Agent를 설치하면" in page.body and len(page.body) > 2000
    assert [a["id"] for a in page.fields["ancestors"]] == ["576585864", "608501837", "544211126"]
    assert page.parent_key == "544211126" and page.fields["space_key"] == "QM"
    sizes = {a["id"]: a.get("size") for a in page.fields["attachments"]}
    assert sizes["att576560404"] == 253016  # attachments.v1.json
    assert len(checkpoint.files_done) == 8  # every file of the folder


def test_given_a_real_folder_with_children_then_they_are_structure():
    records, failures, _ = read(corpus_dir("confluence", "querypie_cloud") / "544211126")
    assert failures == [] and len(records) == 1
    children = records[0].fields["children"]
    assert {"id": "578945174", "title": "My Dashboard"} in children and len(children) >= 7


def test_given_only_v2_json_then_the_adf_body_is_read(tmp_path):
    folder = write(tmp_path / "131073", {"page.v2.json": v2_page(body=ADF)})
    records, failures, _ = read(folder)
    assert failures == []
    assert records[0].body == TEXT
    assert records[0].fields["body_source"] == "page.v2.json body.atlas_doc_format"
    assert records[0].fields["owner"]["key"] == "acc-lena" and records[0].version == "4"


def test_given_the_same_page_as_storage_or_as_adf_then_the_text_is_identical(tmp_path):
    by_storage = write(tmp_path / "a" / "131073", {"page.v2.json": v2_page(), "page.xhtml": STORAGE})
    by_adf = write(tmp_path / "b" / "131073", {"page.v2.json": v2_page(), "page.adf": ADF})
    (storage_page,), _, _ = read(by_storage)
    (adf_page,), _, _ = read(by_adf)
    assert storage_page.body == adf_page.body == TEXT
    assert (storage_page.fields["body_source"], adf_page.fields["body_source"]) == ("page.xhtml", "page.adf")


def test_given_a_folder_named_by_the_id_then_files_without_an_id_take_it(tmp_path):
    page = v2_page()
    del page["id"]
    folder = write(tmp_path / "131073", {"page.v2.json": page, "page.html": "<h2>Plan</h2><p>Cut-over in July</p>"})
    (record,), failures, _ = read(folder)
    assert failures == [] and record.source_key == "131073"
    assert "Cut-over in July" in record.body and record.fields["body_source"] == "page.html"


def test_given_no_body_anywhere_then_a_failure_naming_the_files_never_a_title_only_episode(tmp_path):
    folder = write(tmp_path / "131073", {"page.v2.json": v2_page(), "ancestors.v1.json": {"results": []}})
    records, failures, _ = read(folder)
    assert records == []
    (failure,) = failures
    assert failure.source_key == "131073" and "no body" in failure.reason
    assert "page.v2.json" in failure.reason and "ancestors.v1.json" in failure.reason


def test_given_an_undated_page_then_a_failure_not_an_invented_date(tmp_path):
    folder = write(tmp_path / "131073", {"page.v1.json": {"id": "131073", "title": "Plan"}, "page.xhtml": STORAGE})
    records, failures, _ = read(folder)
    assert records == []
    assert failures[0].error_class == ErrorClass.missing_field and "no date" in failures[0].reason
    assert "page.v1.json" in failures[0].reason and "page.xhtml" in failures[0].reason


def test_given_files_naming_two_pages_or_a_broken_adf_then_a_failure_says_which(tmp_path):
    clash = write(
        tmp_path / "x" / "131073",
        {"page.v2.json": v2_page(body=ADF), "page.v1.json": {"id": "999", "type": "page", "title": "Other"}},
    )
    broken = write(tmp_path / "y" / "131073", {"page.v2.json": v2_page(), "page.adf": '{"type": "paragraph"}'})
    _, failures, _ = read(clash, broken)
    reasons = [f.reason for f in failures]
    assert "page.v2.json says 131073" in reasons[0] and "page.v1.json says 999" in reasons[0]
    assert "page.adf is not an ADF document" in reasons[1]


def test_given_a_v2_json_file_alone_then_its_adf_body_is_read(tmp_path):
    path = tmp_path / "saved.json"
    path.write_text(json.dumps({"results": [v2_page(body=ADF)]}))
    (record,), failures, _ = read(path)
    assert failures == [] and record.body == TEXT


@pytest.mark.parametrize("name", ["544112828", "1844969501"])
def test_given_the_real_folder_copied_with_only_adf_then_the_page_still_has_its_text(name, tmp_path):
    source = corpus_dir("confluence", "querypie_cloud") / name
    folder = tmp_path / name
    folder.mkdir()
    for file in ("page.v2.json", "page.adf", "ancestors.v1.json"):
        shutil.copy(source / file, folder / file)
    (record,), failures, _ = read(folder)
    assert failures == [] and record.fields["body_source"] == "page.v2.json body.atlas_doc_format"
    assert len(record.body) > 500


def test_given_a_saved_response_without_an_expanded_body_then_a_failure_not_a_title_only_record(tmp_path):
    path = tmp_path / "listing.json"
    path.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "id": "131073",
                        "type": "page",
                        "title": "Plan",
                        "version": {"number": 2, "when": "2026-05-11T14:30:00Z"},
                        "_expandable": {"body": ""},
                    }
                ]
            }
        )
    )
    records, failures, _ = read(path)
    assert records == []
    assert failures[0].error_class == ErrorClass.missing_field and "has no body" in failures[0].reason
