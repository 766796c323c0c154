"""Given zip archives that expand far beyond their size on disk (bombs generated here, a few hundred KB each) or list
too many members, when an export reader reads them in a child process under an address-space limit, then each breach
is a failure naming the archive and the limit, the good members beside it still become records, and the peak RSS
stays far below what the bomb expands to."""

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from connectors.archives import ArchiveLimits
from flow.settings import REPO_ROOT

SAMPLE = REPO_ROOT / "sample" / "exports"
BOMB_BYTES = 256 << 20  # what each bomb expands to
ADDRESS_SPACE = 1536 << 20  # the child's hard memory ceiling (a safety bound)
RSS_BOUND_MB = 200  # ~45-65 MB to read the small sample; old readers went past the bomb's size
CHUNK = 1 << 20


def bomb(archive: zipfile.ZipFile, name: str, pattern: bytes, size: int = BOMB_BYTES, head: bytes = b"") -> None:
    """A member of `size` bytes of a repeated pattern: deflated ~300-1000 times smaller."""
    info = zipfile.ZipInfo(name, date_time=(2026, 3, 2, 9, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    chunk = (pattern * (CHUNK // len(pattern) + 1))[:CHUNK]
    with archive.open(info, "w", force_zip64=True) as out:
        out.write(head)
        for _ in range((size - len(head)) // CHUNK):
            out.write(chunk)


def copy_members(source: Path, archive: zipfile.ZipFile, rename=lambda name: name) -> None:
    with zipfile.ZipFile(source) as original:
        for info in original.infolist():
            archive.writestr(rename(info.filename), original.read(info), compress_type=zipfile.ZIP_DEFLATED)


def read_in_child(source: str, *paths: Path, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.archives.read_bounded", source, str(ADDRESS_SPACE), *map(str, paths)],
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _breach(result: dict, archive: Path, limit: str) -> list[str]:
    return [f for f in result["failures"] if f.startswith(str(archive)) and limit in f and archive.name in f]


def _confluence_html_zip(tmp_path: Path) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_confluence_sample", REPO_ROOT / "sample" / "make_confluence_sample.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.write_html_export(tmp_path / "good-html.zip")


def test_given_a_confluence_html_export_with_a_bomb_page_when_read_then_the_page_fails_and_the_rest_is_read(tmp_path):
    good = _confluence_html_zip(tmp_path)
    path = tmp_path / "ACME-html-bomb.zip"
    with zipfile.ZipFile(path, "w") as archive:
        copy_members(good, archive)
        bomb(archive, "ACME/Huge-Page_999999.html", b" ", head=b"<html><head><title>Huge</title></head><body>")
        bomb(archive, "ACME/rest/huge.json", b" ", head=b'{"results": [')
    assert path.stat().st_size < 2_000_000

    result = read_in_child("confluence", path)

    assert {"131073", "131074", "131075"} <= set(result["records"])
    assert len(_breach(result, path, "GRAPHFEED_ZIP_MAX_RATIO")) == 2
    assert any("Huge-Page_999999.html" in f for f in result["failures"])
    assert result["maxrss_mb"] < RSS_BOUND_MB


def test_given_an_entities_xml_bomb_when_read_then_it_fails_naming_the_limit_in_flat_memory(tmp_path):
    path = tmp_path / "ACME-xml-bomb.zip"
    with zipfile.ZipFile(path, "w") as archive:
        bomb(
            archive,
            "entities.xml",
            b'<object class="Label"><id>1</id><property name="name">x</property></object>',
            head=b'<?xml version="1.0"?><hibernate-generic>',
        )

    result = read_in_child("confluence", path)
    assert len(_breach(result, path, "GRAPHFEED_ZIP_MAX_RATIO")) == 1

    # with the ratio limit lifted, the parse itself is bounded: one endless object stops it
    endless = tmp_path / "ACME-xml-endless.zip"
    with zipfile.ZipFile(endless, "w") as archive:
        bomb(
            archive,
            "entities.xml",
            b"x",
            head=b'<hibernate-generic><object class="Page"><id>1</id><property name="title">',
        )
    lifted = read_in_child("confluence", endless, GRAPHFEED_ZIP_MAX_RATIO="100000")
    assert [f for f in lifted["failures"] if "entities.xml has an object over" in f]
    assert lifted["maxrss_mb"] < RSS_BOUND_MB


def test_given_an_email_zip_of_repeated_messages_when_read_then_the_bomb_fails_and_the_good_message_is_read(tmp_path):
    message = (
        b"From a@acme.example Mon Mar  2 09:00:00 2026\nFrom: a@acme.example\nTo: b@acme.example\n"
        b"Subject: again\nMessage-ID: <x@acme.example>\nDate: Mon, 2 Mar 2026 09:00:00 +0000\n\nagain\n\n"
    )
    path = tmp_path / "mail-bomb.zip"
    with zipfile.ZipFile(path, "w") as archive:
        copy_members(SAMPLE / "email" / "legacy-export.zip", archive)
        bomb(archive, "repeated.mbox", message)

    result = read_in_child("email", path)

    assert len(_breach(result, path, "GRAPHFEED_ZIP_MAX_RATIO")) == 1
    assert "<20260302.0915.dana@acme.example>" in result["records"]
    assert result["maxrss_mb"] < RSS_BOUND_MB


def test_given_a_salesforce_export_with_a_bomb_csv_when_read_then_it_fails_and_the_other_objects_are_read(tmp_path):
    export = next((SAMPLE / "salesforce" / "2026-05-30").glob("*.ZIP"))
    path = tmp_path / "WE_bomb.zip"
    with zipfile.ZipFile(path, "w") as archive:
        copy_members(export, archive)
        bomb(
            archive,
            "Case.csv",
            b'"5008d00000XyZzAAA","New","2026-03-02T09:00:00.000Z"\r\n',
            head=b'"Id","Status","SystemModstamp"\r\n',
        )

    result = read_in_child("salesforce", path)

    assert len(_breach(result, path, "GRAPHFEED_ZIP_MAX_RATIO")) == 1
    assert "Account:0018d00000AcmeCAAR" in result["records"]
    assert result["maxrss_mb"] < RSS_BOUND_MB


@pytest.mark.parametrize("source", ["email", "confluence", "salesforce"])
def test_given_archive_limits_in_the_environment_when_breached_then_nothing_over_them_is_read(tmp_path, source):
    many = tmp_path / f"{source}-many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(30):
            archive.writestr(f"m/{i:03d}_{i + 100}.json" if source != "email" else f"m/{i:03d}.eml", b"{}")
    sized = tmp_path / f"{source}-sized.zip"
    shutil.copyfile(
        SAMPLE / "email" / "legacy-export.zip"
        if source == "email"
        else SAMPLE / "confluence" / "ACME-xml-export.zip"
        if source == "confluence"
        else next((SAMPLE / "salesforce" / "2026-05-30").glob("*.ZIP")),
        sized,
    )

    members = read_in_child(source, many, GRAPHFEED_ZIP_MAX_MEMBERS="20")
    total = read_in_child(source, sized, GRAPHFEED_ZIP_MAX_TOTAL_BYTES="1000")
    member = read_in_child(source, sized, GRAPHFEED_ZIP_MAX_MEMBER_BYTES="300")

    assert members["records"] == [] and len(_breach(members, many, "GRAPHFEED_ZIP_MAX_MEMBERS")) == 1
    assert "lists 30 members" in members["failures"][0]
    assert total["records"] == [] and len(_breach(total, sized, "GRAPHFEED_ZIP_MAX_TOTAL_BYTES")) == 1
    assert _breach(member, sized, "GRAPHFEED_ZIP_MAX_MEMBER_BYTES")


def test_given_a_bad_limit_in_the_environment_when_read_then_the_error_names_the_variable():
    with pytest.raises(ValueError, match="GRAPHFEED_ZIP_MAX_RATIO"):
        ArchiveLimits.from_env({"GRAPHFEED_ZIP_MAX_RATIO": "lots"})
    with pytest.raises(ValueError, match="GRAPHFEED_ZIP_MAX_MEMBERS"):
        ArchiveLimits.from_env({"GRAPHFEED_ZIP_MAX_MEMBERS": "0"})
    assert ArchiveLimits.from_env({"GRAPHFEED_ZIP_MAX_TOTAL_BYTES": "1_000"}).max_total_bytes == 1000


def test_given_the_environment_when_the_pipeline_builds_a_reader_then_it_carries_the_limits(monkeypatch):
    from assets.resources import SourceApisResource

    monkeypatch.setenv("GRAPHFEED_ZIP_MAX_MEMBERS", "7")
    for source in ("email", "confluence", "salesforce"):
        assert SourceApisResource().export_reader(source, [str(SAMPLE / source)]).archive_limits.max_members == 7


def test_given_a_zip64_archive_when_members_are_counted_then_the_end_record_is_read(tmp_path):
    from connectors.archives import _declared_members

    path = tmp_path / "z64.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(70_000):  # past 0xFFFF entries: only the zip64 end record has the count
            archive.writestr(f"{i}", b"")
    assert _declared_members(path) == 70_000
    assert _declared_members(Path(io.__file__)) is None
