"""Wrong types in every JSON field of the reader record shapes: a record or a failure naming the file, never an
exception (issue 14, item 5). Exhaustive over the fields for a few wrong values, then hypothesis for any value."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.registry import export_reader
from ground.contract import split
from ground.records import RecordFailure, SourceRecord
from tests.hostile import cases

SHAPES = {
    "jira": cases.jira_issue,
    "confluence": cases.confluence_page,
    "salesforce": lambda: cases.salesforce_query(cases.salesforce_case()),
}
WRONG = [7, -1.5, "text", "", [], [1, "a"], {}, {"x": 1}, None, True]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def read_one(folder: Path, source: str, document) -> tuple[list[SourceRecord], list[RecordFailure]]:
    path = folder / f"{source}.json"
    path.write_bytes(cases.dumps(document))
    records, failures = split(export_reader(source, [path]).read(None))
    for record in records:
        record.model_dump_json()  # staged as JSON: must serialise whatever the input held
    for failure in failures:
        assert failure.location.file == str(path) and failure.reason, failure
    return records, failures


@pytest.mark.parametrize("source", sorted(SHAPES))
def test_every_field_of_the_wrong_type_gives_a_record_or_a_failure(tmp_path: Path, source: str):
    good = SHAPES[source]()
    paths = cases.json_paths(good)
    for path in paths:
        for value in WRONG:
            read_one(tmp_path, source, cases.replaced(good, path, value))  # raises on the old code for some


def test_issuelinks_as_a_number_is_a_failure_naming_the_field_path(tmp_path: Path):
    records, failures = read_one(tmp_path, "jira", cases.replaced(cases.jira_issue(), "fields.issuelinks", 7))
    assert records == []
    assert [f.source_key for f in failures] == ["HOST-1"]
    assert "fields.issuelinks" in failures[0].reason and "expected a list" in failures[0].reason


@pytest.mark.parametrize("source", sorted(SHAPES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_json_value_in_any_field_gives_a_record_or_a_failure(tmp_path: Path, source: str, data):
    good = SHAPES[source]()
    path = data.draw(st.sampled_from(cases.json_paths(good)))
    read_one(tmp_path, source, cases.replaced(good, path, data.draw(JSON_VALUES)))
