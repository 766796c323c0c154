"""Deeply nested JSON is a failure naming its file; the good file beside it is still read (issue 14, item 2)."""

from pathlib import Path

import pytest

from connectors.registry import export_reader
from connectors.safe_json import JsonInputError, load_json
from ground.contract import split
from tests.hostile import cases

GOOD = {
    "jira": lambda: cases.dumps(cases.jira_issue()),
    "confluence": lambda: cases.dumps(cases.confluence_page()),
    "salesforce": lambda: cases.dumps(cases.salesforce_query(cases.salesforce_case())),
}
DEEP = {
    "100k arrays": lambda source: cases.deep_array(100_000),
    "ADF 900 lists": lambda source: cases.with_deep(
        cases.jira_issue("HOST-9", description=cases.PLACEHOLDER), cases.deep_adf_lists(900)
    ),
    "900 objects in a record": lambda source: cases.with_deep(
        {
            "jira": cases.jira_issue("HOST-8"),
            "confluence": {"results": [cases.confluence_page("9009")]},
            "salesforce": cases.salesforce_query(cases.salesforce_case("5008d00000AbCdXAAV")),
        }[source]
        | {"extra": cases.PLACEHOLDER},
        cases.deep_object(900),
    ),
}


@pytest.mark.parametrize("source", sorted(GOOD))
@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_json_is_a_failure_naming_the_file_and_the_good_file_is_read(tmp_path: Path, source: str, shape: str):
    # given a good export file and a deeply nested one in the same folder
    (tmp_path / "a-good.json").write_bytes(GOOD[source]())
    deep = tmp_path / "b-deep.json"
    deep.write_bytes(DEEP[shape](source))
    # when the folder is read
    records, failures = split(export_reader(source, [tmp_path]).read(None))
    # then the deep file is one failure that names it and says why, and the good record is there
    assert [f.location.file for f in failures] == [str(deep)]
    assert "nested" in failures[0].reason
    assert records and all(r.origin.file == str(tmp_path / "a-good.json") for r in records)


def test_load_json_refuses_what_is_too_deep_to_walk_and_reads_the_rest():
    assert load_json(b"[" * 50 + b"]" * 50, max_depth=50) == load_json("[" * 50 + "]" * 50)
    with pytest.raises(JsonInputError, match="more than 50 levels"):
        load_json(b"[" * 51 + b"]" * 51, max_depth=50)
    with pytest.raises(ValueError, match="deeper than the JSON parser allows"):
        load_json(cases.deep_array(100_000))
