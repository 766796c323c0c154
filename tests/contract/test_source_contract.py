"""The contract every registered source passes (issue 30): a read yields only records, failures and deletions and
returns a finished checkpoint; every broken file becomes a failure naming it, never an exception; deletions arrive as
`Deletion`; settings load from the environment. The sources come from connectors/registry.py, so a new source without
fixtures under tests/contract/fixtures/<source>/ fails here."""

import pytest

from assets.resources import SourceApisResource
from connectors import registry
from ground.records import Deletion, RecordFailure, SourceRecord
from tests.contract.cases import (
    BROKEN,
    CASES,
    DELETED,
    GOOD,
    NO_DELETIONS,
    SOURCES,
    TOLERATED,
    case_dir,
    drain,
    is_checkpoint,
    laid_out,
    names_a_file,
)

EVERY_CASE = [(source, case) for source in SOURCES for case in CASES]


@pytest.mark.parametrize("source", SOURCES)
def test_given_a_registered_source_then_it_has_every_contract_fixture(source):
    # given a source of the registry; then each case folder exists and holds a file
    missing = [
        case for case in CASES if not case_dir(source, case).is_dir() or not any(case_dir(source, case).iterdir())
    ]
    assert missing == [], f"{source}: no contract fixtures for {missing} under {case_dir(source, '')}"


@pytest.mark.parametrize(("source", "case"), EVERY_CASE)
def test_given_any_case_when_read_then_only_items_and_a_finished_checkpoint(source, case, tmp_path):
    # given a case laid out as an export folder
    if (case_dir(source, case) / NO_DELETIONS).exists():
        pytest.skip(f"{source} exports cannot carry a deletion")
    folder = laid_out(source, case, tmp_path)
    # when it is read whole (an exception here fails the contract)
    read = drain(source, folder)
    # then only records, failures and deletions of this source come, and the reader returns a finished checkpoint
    assert all(isinstance(item, SourceRecord | RecordFailure | Deletion) for item in read.items)
    assert {item.source for item in read.items} <= {source}  # type: ignore[attr-defined]
    assert is_checkpoint(read.checkpoint), read.checkpoint
    assert all(names_a_file(f, read.files) for f in read.failures), [f.describe() for f in read.failures]
    # and no deleted record poses as a record with a flag
    assert not [r for r in read.records if r.fields.get("deleted") or r.version.endswith("-deleted")]


@pytest.mark.parametrize("source", SOURCES)
def test_given_the_good_export_when_read_then_records_and_no_failure(source, tmp_path):
    read = drain(source, laid_out(source, GOOD, tmp_path))
    assert read.records and not read.failures and not read.deletions
    assert all(r.source_key and r.updated_at.tzinfo is not None for r in read.records)


@pytest.mark.parametrize(("source", "case"), [(s, c) for s in SOURCES for c in BROKEN])
def test_given_a_broken_file_when_read_then_a_failure_names_it(source, case, tmp_path):
    # given a truncated, junk, empty file or a zip with a corrupt member
    read = drain(source, laid_out(source, case, tmp_path))
    # then at least one failure names the file, and no record comes out of it
    assert read.failures and all(names_a_file(f, read.files) for f in read.failures)
    assert not read.records, [r.source_key for r in read.records]


@pytest.mark.parametrize(("source", "case"), [(s, c) for s in SOURCES for c in TOLERATED])
def test_given_a_wrong_encoding_or_a_huge_line_when_read_then_a_record_or_a_failure_never_silence(
    source, case, tmp_path
):
    # given a file in an encoding the source does not expect, or an 8 MB single line
    read = drain(source, laid_out(source, case, tmp_path))
    # then it is read (decoded or clipped) or refused with a failure naming it: something is said about it
    assert read.records or read.failures
    assert all(names_a_file(f, read.files) for f in read.failures)


@pytest.mark.parametrize("source", SOURCES)
def test_given_a_deleted_record_when_read_then_it_arrives_as_a_deletion(source, tmp_path):
    # given the source's export of a deleted record (or its note on why its exports cannot hold one)
    note = case_dir(source, DELETED) / NO_DELETIONS
    if note.exists():
        assert len(note.read_text().strip()) > 40  # says where this source's deletions come from
        return
    # when it is read
    read = drain(source, laid_out(source, DELETED, tmp_path))
    # then it is a Deletion of this source, with a reason, and no record
    assert read.deletions and not read.records and not read.failures
    assert all(d.source == source and d.source_key and d.reason for d in read.deletions)


def secret_text(value):
    return value.get_secret_value() if hasattr(value, "get_secret_value") else value


MARKED = ("_url", "_username", "_token", "_password", "_secret")  # free-text settings: any value is valid


@pytest.mark.parametrize("source", SOURCES)
def test_given_the_environment_when_settings_load_then_the_cli_and_the_resource_agree(source, monkeypatch, tmp_path):
    # given the source's free-text settings (URLs, user names, secrets) set in their GRAPHFEED_<SOURCE>_* variables
    model = type(registry.settings(source))
    marked = [name for name in model.model_fields if f"_{name}".endswith(MARKED)]
    for name in marked:
        monkeypatch.setenv(model.env_name(name), f"https://{source}.example/{name}")
    # when the CLI's settings (the registry's, no Dagster) and the Dagster resource's are read
    plain = registry.settings(source)
    # then they agree and each variable's value arrived
    assert plain == SourceApisResource().settings_of(source)
    assert all(secret_text(getattr(plain, name)) == f"https://{source}.example/{name}" for name in marked)
    # and with the defaults, the export reader builds from the environment and reads the good export
    for name in marked:
        monkeypatch.delenv(model.env_name(name))
    reader = registry.export_reader(source, [laid_out(source, GOOD, tmp_path)])
    assert any(isinstance(item, SourceRecord) for item in reader.read(None))
