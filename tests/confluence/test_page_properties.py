"""Page Properties (details macro, key/value tables) -> rows -> single-valued facts of the page."""

import datetime as dt
import json

from connectors.confluence import ConfluenceExportReader, ExportSettings
from connectors.confluence.facts import confluence_facts
from connectors.confluence.storage import storage_to_text
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode

UTC = dt.UTC
DETAILS = (
    '<ac:structured-macro ac:name="details"><ac:rich-text-body><table><tbody>'
    '<tr><th><p>Owner:</p></th><td><p><ac:link><ri:user ri:account-id="acc-lena"/></ac:link></p></td></tr>'
    '<tr><th><p>Due date</p></th><td><p><time datetime="2026-07-15" /></p></td></tr>'
    '<tr><th><p>Status</p></th><td><p><ac:structured-macro ac:name="status">'
    '<ac:parameter ac:name="colour">Yellow</ac:parameter><ac:parameter ac:name="title">In progress'
    "</ac:parameter></ac:structured-macro></p></td></tr>"
    '<tr><th><p>Approver</p></th><td><p><a href="mailto:omar.haddad@acme.example">Omar Haddad</a></p></td></tr>'
    "<tr><th><p>Driver</p></th><td><p>Priya Raman</p></td></tr>"
    "<tr><th><p>Budget</p></th><td><p>4,500</p></td></tr>"
    "<tr><th><p>Internal note</p></th><td><p>skip me</p></td></tr>"
    "</tbody></table></ac:rich-text-body></ac:structured-macro>"
    '<p>Cut-over on <time datetime="2026-07-15"/>, checkpoint <ac:structured-macro ac:name="status">'
    '<ac:parameter ac:name="title">At risk</ac:parameter></ac:structured-macro>.</p>'
    "<table><tbody><tr><th>Region</th><td>EU</td></tr><tr><th>Tier</th><td>Gold</td></tr></tbody></table>"
    "<table><tbody><tr><th>System</th><th>Size</th></tr><tr><td>Oracle</td><td>14 TB</td></tr></tbody></table>"
)
LENA = {"accountId": "acc-lena", "displayName": "Lena Ortiz", "email": "lena.ortiz@acme.example"}


def record(tmp_path, storage=DETAILS, **settings):
    (tmp_path / "page.json").write_text(
        json.dumps(
            {
                "id": "131073",
                "type": "page",
                "title": "Warehouse migration plan",
                "space": {"key": "OPS"},
                "history": {"createdDate": "2026-03-02T09:00:00Z", "createdBy": LENA},
                "version": {"number": 3, "when": "2026-05-11T14:30:00Z", "by": LENA},
                "body": {"storage": {"value": storage}},
            }
        )
    )
    records, failures = split(ConfluenceExportReader([tmp_path / "page.json"], ExportSettings(**settings)).read())
    assert failures == []
    return records[0]


def test_given_a_details_macro_then_each_row_keeps_its_key_slot_and_a_sentence_value():
    rows = storage_to_text(
        DETAILS, users=lambda a: "Lena Ortiz" if a.get("account-id") == "acc-lena" else None
    ).property_rows
    got = [(r.key, r.slot, r.value, r.kind, r.source) for r in rows]
    assert got == [
        ("Owner:", "owner", "Lena Ortiz", "person", "details"),
        ("Due date", "due date", "2026-07-15", "date", "details"),
        ("Status", "status", "In progress", "status", "details"),
        ("Approver", "approver", "Omar Haddad", "person", "details"),
        ("Driver", "driver", "Priya Raman", "text", "details"),
        ("Budget", "budget", "4,500", "text", "details"),  # no unit the page does not carry
        ("Internal note", "internal note", "skip me", "text", "details"),
        ("Region", "region", "EU", "text", "table"),  # a header/value table, no macro
        ("Tier", "tier", "Gold", "text", "table"),
    ]  # the System/Size grid is no key/value table
    assert rows[0].people == [{"account-id": "acc-lena", "name": "Lena Ortiz"}]
    assert rows[3].people == [{"email": "omar.haddad@acme.example", "name": "Omar Haddad"}]


def test_given_time_and_status_macros_then_the_episode_text_shows_them(tmp_path):
    body = record(tmp_path).body
    assert "| Due date | 2026-07-15 |" in body and "| Status | [IN PROGRESS] |" in body
    assert "Cut-over on 2026-07-15, checkpoint [AT RISK]." in body


def test_given_page_properties_then_single_valued_facts_with_people_resolved_by_email_or_name(tmp_path):
    page = record(tmp_path, ignore_property_keys=frozenset({"internal note"}))
    episode = make_episode(page, page.body, "en", "status_update", 0.9, [], EpisodeSettings(group_id="g"))
    facts = confluence_facts(episode, {})
    keys = {e.uuid: e.key for e in facts.entities}
    props = {f.attributes["property_key"]: f for f in facts.facts if f.predicate == "HAS_PROPERTY"}
    assert set(props) == {"owner", "due date", "status", "approver", "driver", "budget", "region", "tier"}
    assert props["owner"].fact == "Owner of 'Warehouse migration plan' is Lena Ortiz"
    assert keys[props["owner"].object] == "person:lena.ortiz@acme.example"  # user object of the export
    assert keys[props["approver"].object] == "person:omar.haddad@acme.example"  # mailto link
    assert keys[props["driver"].object] == "person-name:priya raman"  # by name, as text mentions are
    assert props["due date"].fact == "Due date of 'Warehouse migration plan' is 2026-07-15"
    assert props["status"].fact == "Status of 'Warehouse migration plan' is In progress"
    assert props["budget"].fact == "Budget of 'Warehouse migration plan' is 4,500"
    assert props["owner"].single_valued == "ref:confluence:page:131073|PROPERTY:owner"
    assert props["owner"].valid_at == dt.datetime(2026, 5, 11, 14, 30, tzinfo=UTC)
    assert props["owner"].attributes["slot_family"] == "ref:confluence:page:131073|PAGE_PROPERTIES"
    assert len(props["owner"].attributes["family_slots"]) == 8
    assert "skip me" in page.body  # ignored for facts, never dropped from text


def test_given_keys_that_differ_in_case_and_colon_then_one_slot():
    rows = storage_to_text(
        '<ac:structured-macro ac:name="details"><ac:rich-text-body><table>'
        "<tr><td>OWNER :</td><td>A</td></tr><tr><td>owner</td><td>B</td></tr>"
        "</table></ac:rich-text-body></ac:structured-macro>"
    ).property_rows
    assert {r.slot for r in rows} == {"owner"}


def test_given_the_same_details_as_adf_then_the_same_rows():
    def text(t, href=None):
        return {"type": "text", "text": t, **({"marks": [{"type": "link", "attrs": {"href": href}}]} if href else {})}

    def row(key, *value):
        return {
            "type": "tableRow",
            "content": [
                {"type": "tableHeader", "content": [{"type": "paragraph", "content": [text(key)]}]},
                {"type": "tableCell", "content": [{"type": "paragraph", "content": list(value)}]},
            ],
        }

    doc = {
        "type": "doc",
        "content": [
            {
                "type": "bodiedExtension",
                "attrs": {"extensionKey": "details"},
                "content": [
                    {
                        "type": "table",
                        "content": [
                            row("Owner:", {"type": "mention", "attrs": {"id": "acc-lena", "text": "@Lena Ortiz"}}),
                            row("Due date", {"type": "date", "attrs": {"timestamp": "1784073600000"}}),
                            row("Status", {"type": "status", "attrs": {"text": "In progress", "color": "yellow"}}),
                            row("Approver", text("Omar Haddad", "mailto:omar.haddad@acme.example")),
                            row("Driver", text("Priya Raman")),
                            row("Budget", text("4,500")),
                            row("Internal note", text("skip me")),
                        ],
                    }
                ],
            },
            {"type": "table", "content": [row("Region", text("EU")), row("Tier", text("Gold"))]},
        ],
    }
    from connectors.confluence.page_properties import adf_property_rows

    storage = storage_to_text(DETAILS, users=lambda a: "Lena Ortiz" if a.get("account-id") == "acc-lena" else None)
    assert [r.model_dump() for r in adf_property_rows(doc)] == [r.model_dump() for r in storage.property_rows]


def test_given_a_page_folder_with_children_then_each_child_is_part_of_the_page():
    from tests.corpus import corpus_dir

    (page,), _ = split(ConfluenceExportReader([corpus_dir("confluence", "querypie_cloud") / "544211126"]).read())
    episode = make_episode(page, page.body, "ko", "status_update", 0.9, [], EpisodeSettings(group_id="g"))
    facts = confluence_facts(episode, {})
    children = [f for f in facts.facts if f.predicate == "PART_OF" and f.object == facts.entities[0].uuid]
    assert "My Dashboard is part of 사용자 매뉴얼" in {f.fact for f in children}
    assert all(
        f.single_valued.endswith("|PART_OF") and f.single_valued != "ref:confluence:page:544211126|PART_OF"
        for f in children
    )
