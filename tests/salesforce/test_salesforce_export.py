"""Export reader over the bundled sample and small fixtures: keys, versions, actors, history, failures."""

import datetime as dt
import io
import zipfile
from pathlib import Path

from connectors.salesforce import SalesforceExportReader
from connectors.salesforce.values import parse_datetime
from ground.contract import TimeWindow, split
from ground.records import Deletion, ErrorClass

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample" / "exports" / "salesforce"
UTC = dt.UTC


def read(*paths, window=None):
    return split(SalesforceExportReader(list(paths)).read(window))


def test_given_rest_bulk_and_export_datetimes_when_parsed_then_all_are_the_same_utc_moment():
    moment = dt.datetime(2026, 6, 8, 14, 10, tzinfo=UTC)
    for text in (
        "2026-06-08T14:10:00.000+0000",
        "2026-06-08T14:10:00.000Z",
        "2026-06-08 14:10:00",
        "2026-06-08T09:10:00.000-0500",
    ):
        assert parse_datetime(text) == moment
    assert parse_datetime("") is None and parse_datetime(None) is None
    assert parse_datetime("2026-06-24") == dt.datetime(2026, 6, 24, tzinfo=UTC)


def test_given_the_sample_when_read_then_two_snapshots_give_versions_and_two_broken_rows_fail():
    records, failures = read(SAMPLE)
    keys = {(r.source_key, r.version) for r in records}
    assert ("Opportunity:0068d00000NwAcmAAF", "20260507T150000.000000Z") in keys
    assert ("Opportunity:0068d00000NwAcmAAF", "20260624T190000.000000Z") in keys
    assert sorted(f.error_class for f in failures) == [ErrorClass.bad_value, ErrorClass.missing_field]
    assert any("2026-06-31" in f.reason for f in failures)
    assert all(f.location.member for f in failures)


def test_given_the_sample_when_read_then_owner_is_the_person_with_the_mail_address():
    records, _ = read(SAMPLE)
    opp = [r for r in records if r.kind == "opportunity"][-1]
    assert opp.actor.id == "sarah.okafor@northwind.example" and opp.actor.name == "Sarah Okafor"
    assert opp.fields["account"] == {"id": "0018d00000AcmeCAAR", "name": "Acme Corp", "domain": "acme.example"}
    assert "Stage: Closed Won" in opp.body and "Amount: USD 94,800" in opp.body
    stages = [c["value"] for c in opp.fields["history"] if c["field"] == "StageName"]
    assert stages == ["Qualification", "Proposal/Price Quote", "Negotiation/Review", "Negotiation/Review", "Closed Won"]
    assert opp.occurred_at.tzinfo is not None and opp.updated_at == dt.datetime(2026, 6, 24, 19, tzinfo=UTC)


def test_given_the_sample_when_read_then_records_say_whether_they_hold_free_text_for_the_llm():
    records, _ = read(SAMPLE)
    free = {(r.kind, r.fields["free_text"]) for r in records}
    # notes, mails and described records have text to extract from; contacts, users and roles are all fields
    assert {("task", True), ("email", True), ("opportunity", True)} <= free
    assert {("contact", False), ("user", False), ("contact_role", False)} <= free
    assert ("contact", True) not in free and ("user", True) not in free


def test_given_the_sample_when_read_then_the_contact_role_changes_between_snapshots():
    records, _ = read(SAMPLE)
    roles = {
        (r.title.split(":")[0], r.version[:8], r.fields["values"]["IsPrimary"])
        for r in records
        if r.kind == "contact_role"
    }
    assert ("Dana Whitfield", "20260302", "true") in roles
    assert ("Dana Whitfield", "20260608", "false") in roles
    assert ("Priya Raman", "20260608", "true") in roles


def test_given_a_window_when_read_then_only_rows_updated_inside_it_come():
    window = TimeWindow(start=dt.datetime(2026, 6, 8, tzinfo=UTC), end=dt.datetime(2026, 6, 9, tzinfo=UTC))
    records, _ = read(SAMPLE, window=window)
    assert records and all(window.contains(r.updated_at) for r in records)


def _zip(tmp_path: Path, members: dict[str, str]) -> Path:
    path = tmp_path / "WE_00D000000000001_1.ZIP"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text.encode("cp1252" if "é" in text else "utf-8"))
    path.write_bytes(buf.getvalue())
    return path


def test_given_semicolon_cp1252_and_deleted_rows_when_read_then_tombstone_and_names_survive(tmp_path):
    path = _zip(
        tmp_path,
        {
            "Case.csv": "Id;Subject;Status;IsDeleted;SystemModstamp;OwnerId\n"
            "5008d00000CsAaa;Café login broken;New;false;2026-04-01T10:00:00.000Z;0058d00000SaOkf\n"
            "5008d00000CsBbb;Old;Closed;true;2026-04-02T10:00:00.000Z;\n",
            "User.csv": "Id;Name;Email;SystemModstamp\n0058d00000SaOkf;Sarah Okafor;Sarah.Okafor@northwind.example;"
            "2026-03-02T10:00:00.000Z\n",
            "CaseComment.csv": "Id;ParentId;CommentBody;CreatedDate;IsPublished\n"
            "00a8d00000CcAaa;5008d00000CsAaa;Reset the password;2026-04-01T11:00:00.000Z;true\n",
            "CaseHistory.csv": "Id;CaseId;Field;OldValue;NewValue;CreatedDate\n"
            "0178d00000ChAaa;5008d00000CsAaa;Status;;New;2026-04-01T10:00:00.000Z\n",
        },
    )
    items = list(SalesforceExportReader([path]).read(None))
    records, failures = split(items)
    assert not failures
    cases = {r.title: r for r in records if r.kind == "case"}
    assert cases["Café login broken"].actor.id == "sarah.okafor@northwind.example"
    assert "Reset the password" in cases["Café login broken"].body
    assert "Old" not in cases  # the deleted row is a Deletion, not a record
    assert [(d.source_key, d.kind, d.reason, d.detected_at) for d in items if isinstance(d, Deletion)] == [
        ("Case:5008d00000CsBbbAAF", "case", "deleted", dt.datetime(2026, 4, 2, 10, tzinfo=UTC))
    ]
    assert cases["Café login broken"].source_key == "Case:5008d00000CsAaaAAF"


def test_given_a_history_row_without_its_parent_when_read_then_a_partial_parent_carries_it(tmp_path):
    path = tmp_path / "OpportunityHistory.csv"
    path.write_text(
        "Id,OpportunityId,StageName,Amount,CloseDate,CreatedDate\n"
        "0088d00000OhZz1,0068d00000NwAcmAAF,Closed Won,94800,2026-06-24,2026-06-24T19:00:00.000Z\n"
    )
    records, failures = read(path)
    assert not failures and len(records) == 1
    assert records[0].source_key == "Opportunity:0068d00000NwAcmAAF" and records[0].fields["partial"] is True


def test_given_broken_files_when_read_then_each_is_a_failure_with_a_reason(tmp_path):
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "errors.json").write_text('[{"message": "Session expired", "errorCode": "INVALID_SESSION_ID"}]')
    (tmp_path / "Account.csv").write_text('Id,Name\n001,"unterminated\n')
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04garbage")
    records, failures = read(tmp_path)
    reasons = " | ".join(f.reason for f in failures)
    assert not records
    assert len(failures) == 5, reasons
    assert "INVALID_SESSION_ID" in reasons and "empty file" in reasons and "zip" in reasons
