"""The hand-labelled real units (issue 15) keep the shared schema and the by-thread split, and are reproducible
from the corpus: what the eval split measures must be exactly the units the labeller read."""

import hashlib
import importlib.util
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LABELLED = REPO / "data" / "intent" / "labelled"
CORPUS = REPO.parent / "shared" / "corpus"
FIELDS = {
    "uid",
    "source_family",
    "corpus_file",
    "source_key",
    "thread",
    "subject",
    "raw_text",
    "label",
    "lang",
    "written",
    "split",
    "references",
}
REFERENCE_TYPES = {
    "person",
    "organization",
    "jira_issue",
    "url",
    "email_message",
    "salesforce_record",
    "attachment",
    "date",
    "money",
}


def _rows(name):
    return [json.loads(line) for line in (LABELLED / name).read_text(encoding="utf-8").splitlines()]


def _taxonomy():
    return {e["name"] for e in json.loads((REPO / "data/intent/taxonomy.json").read_text())["labels"]}


@pytest.mark.parametrize(
    "name,family",
    [
        ("mail.jsonl", "mail"),
        ("crm.jsonl", "crm"),
        ("crm_written.jsonl", "crm"),
        ("confluence_written.jsonl", "confluence"),
    ],
)
def test_labelled_units_follow_the_schema_and_the_thread_split(name, family):
    # given the committed labelled units of one family
    rows = _rows(name)
    labels = _taxonomy()
    # then every unit has the schema's fields, a taxonomy label and the split the shared rule gives its thread
    assert len({r["uid"] for r in rows}) == len(rows)
    splits_by_thread = {}
    for row in rows:
        assert set(row) == FIELDS, row["uid"]
        assert row["source_family"] == family and row["label"] in labels and row["raw_text"].strip()
        expected = "eval" if int(hashlib.sha256(row["thread"].encode()).hexdigest(), 16) % 10 < 4 else "train"
        assert row["split"] == expected, row["uid"]
        splits_by_thread.setdefault(row["thread"], set()).add(row["split"])
        assert (row["corpus_file"] is None) == row["written"], row["uid"]
        if row["references"] is not None:
            assert set(row["references"]) == REFERENCE_TYPES, row["uid"]
            for day in row["references"]["date"]:
                assert len(day) == 10 and day[4] == day[7] == "-", (row["uid"], day)
    # and no thread is on both sides
    assert all(len(s) == 1 for s in splits_by_thread.values())


@pytest.mark.slow
def test_labelled_units_are_rebuilt_byte_for_byte_from_the_corpus(tmp_path, monkeypatch):
    # given the corpus (required in CI)
    if not CORPUS.is_dir():
        if os.environ.get("GRAPHFEED_REQUIRE_CORPUS") == "1":
            pytest.fail(f"corpus missing at {CORPUS}")
        pytest.skip("shared corpus not present")
    spec = importlib.util.spec_from_file_location("build_labelled", REPO / "scripts/intent_units/build_labelled.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    before = {name: (LABELLED / name).read_bytes() for name in ("mail.jsonl", "crm.jsonl")}
    # when the build re-extracts every unit from the corpus into a scratch copy of the repository layout
    scratch = tmp_path / "repo"
    (scratch / "data/intent").mkdir(parents=True)
    (scratch / "data/intent/taxonomy.json").write_bytes((REPO / "data/intent/taxonomy.json").read_bytes())
    monkeypatch.setattr(build, "REPO", scratch)
    build.main(CORPUS)
    # then the text, labels and split are exactly the committed ones
    for name, content in before.items():
        assert (scratch / "data/intent/labelled" / name).read_bytes() == content, name
