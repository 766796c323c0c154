"""Golden tests: small hand-written messages through the whole reader (no mocks)."""

import datetime as dt
import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest

from connectors.email import EmailExportReader, read_email_exports
from ground.contract import FileCheckpoint, TimeWindow, split
from ground.records import ErrorClass, RecordFailure, SourceRecord

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "email"
CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "email"


def only(path: Path) -> SourceRecord | RecordFailure:
    items = list(read_email_exports([path]))
    assert len(items) == 1, items
    return items[0]


def test_given_rfc2047_headers_when_read_then_subject_names_and_keys_are_decoded():
    record = only(FIXTURES / "rfc2047_subject.eml")
    assert isinstance(record, SourceRecord)
    assert record.title == "Überprüfung der Rechnung für März"
    assert record.source_key == "<RFC2047.Subject.1@mail.example.de>"  # domain lower-cased, local part kept
    assert record.actor.model_dump() == {
        "type": "human",
        "id": "joerg.mueller@example.de",
        "name": "Jörg Müller",
        "email": "joerg.mueller@example.de",
    }
    assert [(p.role, p.actor.id, p.actor.name) for p in record.participants] == [
        ("to", "jane.doe@example.com", "Doe, Jane"),
        ("to", "bob@example.com", None),
        ("cc", "li.ming@example.cn", "李明"),
    ]
    assert record.fields["to"] == ["jane.doe@example.com", "bob@example.com"]
    assert record.fields["cc"] == ["li.ming@example.cn"]
    assert record.fields["headers"]["List-Id"] == "Finance team <finance.example.de>"
    assert record.fields["headers"]["X-Mailer"] == "TestMailer 1.0"
    assert record.links == ["https://lists.example.de/finance/", "mailto:finance@example.de"]
    assert record.language == "de-DE"
    assert record.occurred_at == dt.datetime(2023, 3, 14, 8, 30, tzinfo=dt.UTC)
    assert record.updated_at == record.occurred_at
    assert record.body == "Hallo zusammen,\n\nbitte die Rechnung bis Freitag prüfen."
    assert record.origin.file == str(FIXTURES / "rfc2047_subject.eml")


def test_given_quoted_printable_latin1_when_read_then_body_is_unicode():
    record = only(FIXTURES / "qp_latin1.eml")
    assert record.body == "Grüße aus Köln, das Straßenfest ist am Samstag. Bis dann!"
    assert record.title == "Grüße"
    assert record.occurred_at == dt.datetime(2023, 2, 1, 17, 0, tzinfo=dt.UTC)


def test_given_html_only_when_read_then_text_keeps_paragraphs_lists_and_link_targets():
    record = only(FIXTURES / "html_only.eml")
    assert record.body == (
        "Release 2.0\n\nWe shipped the new importer.\n\n- Faster mbox reading\n"
        "- See the notes (https://example.net/notes/2.0)\n\nQuestions? Reply to this mail.\nThe team"
    )
    assert record.fields["body_kind"] == "html"
    assert record.actor.type == "system"  # no-reply sender


def test_given_multipart_with_attachment_when_read_then_attachment_is_a_reference():
    record = only(FIXTURES / "attachment.eml")
    assert record.body == "Please find the draft attached."
    pdf = b"%PDF-1.4\nhello pdf\n"
    assert [a.model_dump() for a in record.attachments] == [
        {
            "name": "draft.pdf",
            "size": len(pdf),
            "sha256": hashlib.sha256(pdf).hexdigest(),
            "media_type": "application/pdf",
        }
    ]


def test_given_no_message_id_when_read_then_key_is_synthetic_and_stable(tmp_path):
    record = only(FIXTURES / "no_message_id.eml")
    assert record.source_key.endswith("@graphfeed.invalid>")
    assert record.fields["synthetic_key"] is True
    # Same message with CRLF line endings and an extra transport header keys the same.
    raw = (FIXTURES / "no_message_id.eml").read_bytes()
    variant = tmp_path / "variant.eml"
    variant.write_bytes(b"Received: from mx by mx; Sat, 04 Mar 2023 11:00:05 +0000\n" + raw.replace(b"\n", b"\r\n"))
    assert only(variant).source_key == record.source_key


def test_given_no_date_anywhere_when_read_then_missing_field_failure_with_key():
    failure = only(FIXTURES / "no_date.eml")
    assert isinstance(failure, RecordFailure)
    assert failure.error_class == ErrorClass.missing_field
    assert failure.source_key == "<no.date@example.com>"
    assert "Date" in failure.reason


def test_given_broken_boundary_when_read_then_text_survives_and_defects_are_named():
    record = only(FIXTURES / "broken_boundary.eml")
    assert isinstance(record, SourceRecord)
    assert "The quarterly numbers are in the spreadsheet." in record.body
    assert "StartBoundaryNotFoundDefect" in record.fields["defects"]
    assert record.attachments == []


def test_given_reply_chain_mbox_when_read_then_threading_is_header_based_and_loop_safe():
    records, failures = split(read_email_exports([FIXTURES / "thread.mbox"]))
    assert failures == []
    root, reply, looped = records
    assert [r.origin.index for r in records] == [0, 1, 2]
    assert root.origin.offset == 0 and reply.origin.offset > root.origin.offset
    assert root.source_key == "<root@example.com>" and root.thread_key == root.source_key and root.parent_key is None
    assert reply.parent_key == "<root@example.com>" and reply.thread_key == "<root@example.com>"
    assert reply.related_keys == ["<root@example.com>"]
    # No Date header: the mbox "From " line supplies it.
    assert reply.fields["date_source"] == "mbox_from_line"
    assert reply.occurred_at == dt.datetime(2023, 1, 2, 10, 0, tzinfo=dt.UTC)
    # ">From " in the body is unquoted once (mboxrd).
    assert "\nFrom here on, please use the ticket." in reply.body
    # In-Reply-To is itself and References repeats ids with other domain case: no self-parent, no duplicates.
    assert looped.parent_key == "<reply1@example.com>"
    assert looped.related_keys == ["<root@example.com>", "<reply1@example.com>"]
    assert looped.thread_key == "<root@example.com>"


def test_given_same_message_in_mbox_eml_and_zip_when_read_then_same_source_key(tmp_path):
    for name in ("no_message_id.eml", "attachment.eml"):
        raw = (FIXTURES / name).read_bytes()
        mbox = tmp_path / f"{name}.mbox"
        mbox.write_bytes(b"From someone@example.com Sat Mar  4 11:00:00 2023\n" + raw + b"\n")
        archive = tmp_path / f"{name}.zip"
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.write(FIXTURES / name, f"inbox/{name}")
            zf.write(mbox, "inbox/all.mbox")
        keys = {item.source_key for item in read_email_exports([FIXTURES / name, mbox, archive])}
        assert len(keys) == 1, keys
        members = [i.origin.member for i in read_email_exports([archive])]
        assert members == ["inbox/all.mbox", f"inbox/{name}"]


def test_given_outlook_msg_when_read_then_record_comes_from_extract_msg():
    path = CORPUS / "mail-parser" / "mails" / "mail_outlook_1"
    if not path.exists():
        pytest.skip("shared corpus not present")
    record = only(path)
    assert isinstance(record, SourceRecord)
    assert record.source_key == "<20170918100018.6AE0948009C@www.w-vwa.de>"
    assert record.title == "Newsletter Prüfung Personalwesen / Prüfung Eröffnungsbilanz"
    assert record.actor.id == "nueblingv@w-vwa.de"
    assert record.occurred_at == dt.datetime(2017, 9, 18, 10, 0, 18, tzinfo=dt.UTC)
    assert "Sehr geehrte Frau Gaiser-Schönenborn" in record.body
    assert [a.name for a in record.attachments][:2] == ["newsletter.png", "spacer.gif"]
    assert all(a.sha256 and a.size for a in record.attachments)


def test_given_garbage_files_when_read_then_failures_and_reading_goes_on(tmp_path):
    (tmp_path / "a_readme.txt").write_text("Just some notes\nnot a mail at all\n")
    (tmp_path / "b_corrupt.zip").write_bytes(b"PK\x03\x04 this is not really a zip")
    (tmp_path / "c_empty.eml").write_bytes(b"")
    shutil.copy(FIXTURES / "qp_latin1.eml", tmp_path / "d_good.eml")
    items = list(read_email_exports([tmp_path, tmp_path / "missing.mbox"]))
    records, failures = split(items)
    assert [r.source_key for r in records] == ["<qp.latin1@example.org>"]
    assert [(Path(f.location.file).name, f.error_class) for f in failures] == [
        ("a_readme.txt", ErrorClass.parse_error),
        ("b_corrupt.zip", ErrorClass.parse_error),
        ("c_empty.eml", ErrorClass.parse_error),
        ("missing.mbox", ErrorClass.io_error),
    ]
    assert all(f.reason for f in failures)


def test_given_message_over_limit_when_read_then_too_large_and_next_message_still_read(tmp_path):
    big = b"X" * 5000
    mbox = tmp_path / "big.mbox"
    first = (FIXTURES / "qp_latin1.eml").read_bytes()
    mbox.write_bytes(
        b"From a Mon Jan  2 09:00:00 2023\nSubject: big\n\n"
        + big
        + b"\n\n"
        + b"From b Mon Jan  2 09:00:00 2023\n"
        + first
    )
    items = list(EmailExportReader([mbox], max_message_bytes=2000).read())
    assert isinstance(items[0], RecordFailure) and items[0].error_class == ErrorClass.too_large
    assert items[0].location.index == 0
    assert isinstance(items[1], SourceRecord) and items[1].origin.index == 1


def test_given_window_and_checkpoint_when_read_then_filtered_and_resumable():
    window = TimeWindow(start=dt.datetime(2023, 3, 1, tzinfo=dt.UTC), end=dt.datetime(2023, 3, 4, tzinfo=dt.UTC))
    reader = EmailExportReader([FIXTURES])
    generator = reader.read(window)
    items = []
    while True:
        try:
            items.append(next(generator))
        except StopIteration as stop:
            checkpoint = stop.value
            break
    records, failures = split(items)
    assert sorted(r.source_key for r in records) == ["<html.only@example.net>", "<with.attachment@example.com>"]
    assert [f.source_key for f in failures] == ["<no.date@example.com>"]  # failures are never filtered out
    assert isinstance(checkpoint, FileCheckpoint) and checkpoint.has_more is False
    assert len(checkpoint.files_done) == len([p for p in FIXTURES.rglob("*") if p.is_file()])
    assert list(reader.read(None, checkpoint)) == []
