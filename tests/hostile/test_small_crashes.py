"""Silent skips and small crashes of issue 14 item 5: nested Salesforce zips, BOM mail, member names shown safely."""

from pathlib import Path

from connectors.registry import export_reader
from ground.contract import split
from ground.records import ErrorClass, Origin, RecordFailure
from tests.hostile import cases


def test_a_zip_inside_a_salesforce_export_zip_is_reported_not_skipped(tmp_path: Path):
    # given an export zip holding a good CSV and another zip
    inner = cases.zip_of({"Case.csv": b"Id,Subject\n5008d00000AbCdZAAV,x\n"})
    export = tmp_path / "export.zip"
    export.write_bytes(
        cases.zip_of(
            {"Case.json": cases.dumps(cases.salesforce_query(cases.salesforce_case())), "more/inner.zip": inner}
        )
    )
    # when it is read
    records, failures = split(export_reader("salesforce", [export]).read(None))
    # then the inner zip is a failure naming the member, and the good case is a record
    assert [(f.location.member, f.error_class) for f in failures] == [("more/inner.zip", ErrorClass.unsupported)]
    assert "zip inside a zip" in failures[0].reason
    assert [r.title for r in records] == ["Invoice totals are wrong"]


def test_an_eml_with_a_utf8_bom_is_read(tmp_path: Path):
    path = tmp_path / "bom.eml"
    path.write_bytes(b"\xef\xbb\xbf" + cases.email())
    records, failures = split(export_reader("email", [path]).read(None))
    assert failures == []
    assert [r.title for r in records] == ["Contract for signature"]


def test_hostile_member_names_are_shown_escaped_and_plain_ones_verbatim():
    def line(member: str) -> str:
        return RecordFailure(
            source="email",
            location=Origin(file="x.zip", member=member),
            error_class=ErrorClass.parse_error,
            reason="bad\x1b[2J",
        ).describe()

    assert line("mail/a.eml") == "x.zip, member mail/a.eml: parse_error: bad\\x1b[2J"
    assert "member '..\\\\..\\\\evil.eml'" in line("..\\..\\evil.eml")
    assert "member '../../etc/passwd'" in line("../../etc/passwd")
    assert "\x1b" not in line("a\x1b[31mred")
