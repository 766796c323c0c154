"""Every file of ../shared/corpus/salesforce through the export reader: zero exceptions, each file yields something."""

from pathlib import Path

import pytest

from connectors.salesforce import SalesforceExportReader
from ground.contract import split
from ground.records import Deletion, ErrorClass

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "salesforce"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.exists() else []

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not FILES, reason="shared corpus not present")
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_given_a_corpus_file_when_read_then_it_yields_records_or_failures_without_crashing(path):
    items = list(SalesforceExportReader([path]).read())
    records, failures = split(items)
    deletions = [item for item in items if isinstance(item, Deletion)]
    if path.name != "query_empty_response.json":  # a query with zero records is a valid empty answer
        assert records or failures or deletions  # a getDeleted answer holds deletions only
    for failure in failures:
        assert failure.reason and failure.location.file == str(path)
    for record in records:
        assert record.source_key.split(":", 1)[1] and record.updated_at.tzinfo is not None


@pytest.mark.skipif(not FILES, reason="shared corpus not present")
def test_given_the_deliberately_broken_files_when_read_then_their_failures_say_why():
    empty = CORPUS / "restforce" / "sobject" / "upsert_updated_success_response.json"
    _, failures = split(SalesforceExportReader([empty]).read())
    assert [f.error_class for f in failures] == [ErrorClass.parse_error] and "empty" in failures[0].reason
    variants = sorted((CORPUS / "sf_cli_tree_and_csv" / "csv").glob("*.csv"))
    for path in variants:  # 8 delimiter variants: same verdict for all
        _, failures = split(SalesforceExportReader([path]).read())
        assert len(failures) == 1 and "no Id column" in failures[0].reason
    _, failures = split(SalesforceExportReader([CORPUS / "sf_cli_tree_and_csv" / "data" / "missingRef"]).read())
    assert failures and all(f.error_class in (ErrorClass.missing_field, ErrorClass.unsupported) for f in failures)


@pytest.mark.skipif(not FILES, reason="shared corpus not present")
def test_given_the_fivetran_seeds_when_read_together_then_snapshots_and_owners_resolve():
    items = list(SalesforceExportReader([CORPUS / "fivetran_seeds"]).read())
    records, failures = split(items)
    assert not failures
    tasks = [r for r in records if r.kind == "task"]
    assert tasks and {r.source_key.split(":")[0] for r in records} >= {"Account", "Task", "User"}
    deleted = {item.source_key.split(":")[0] for item in items if isinstance(item, Deletion)}
    assert deleted == {"Account", "Opportunity"}  # every seeded opportunity is in the recycle bin (is_deleted)
