"""The hand-labelled Jira/Confluence units (data/intent/labelled) keep the shared schema and come from the corpus.

Why: another helper trains and measures on these files; a unit on the wrong side of the split, a label outside the
taxonomy or a text that the corpus does not hold would silently skew every figure printed from them.
"""

import datetime as dt
import hashlib
import importlib.util
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABELLED = ROOT / "data" / "intent" / "labelled"
CORPUS = ROOT / ".." / "shared" / "corpus"
FAMILIES = {
    "jira_description": "jira_description.jsonl",
    "jira_comment": "jira_comment.jsonl",
    "confluence": "confluence.jsonl",
}
KEYS = [
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
    "context",
]
REFERENCE_KINDS = {
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
STRUCTURED = ("jira_issue", "url", "email_message", "salesforce_record", "attachment")


def _rows(family: str) -> list[dict]:
    return [json.loads(line) for line in (LABELLED / FAMILIES[family]).read_text(encoding="utf-8").splitlines()]


def _all_rows() -> list[dict]:
    return [row for family in FAMILIES for row in _rows(family)]


def _split(thread: str) -> str:
    return "eval" if int(hashlib.sha256(thread.encode()).hexdigest(), 16) % 10 < 4 else "train"


def _corpus_or_skip() -> Path:
    if CORPUS.exists():
        return CORPUS.resolve()
    if os.environ.get("GRAPHFEED_REQUIRE_CORPUS") == "1":
        pytest.fail(f"shared corpus required but missing at {CORPUS}")
    pytest.skip("shared corpus not present")


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "intent_units" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_given_the_labelled_files_then_every_row_keeps_the_shared_schema():
    labels = {entry["name"] for entry in json.loads((ROOT / "data/intent/taxonomy.json").read_text())["labels"]}
    for family in FAMILIES:
        rows = _rows(family)
        assert rows, family
        for row in rows:
            assert list(row) == KEYS, row["uid"]
            assert row["source_family"] == family and row["uid"].startswith(family + ":")
            assert row["label"] in labels, row["uid"]
            assert row["written"] is False and row["raw_text"].strip()
            assert row["split"] == _split(row["thread"]), row["uid"]


def test_given_all_units_then_ids_are_unique_and_no_text_or_thread_is_on_both_sides():
    rows = _all_rows()
    assert len({row["uid"] for row in rows}) == len(rows)
    sides: dict[str, set[str]] = {}
    for row in rows:
        sides.setdefault(row["thread"], set()).add(row["split"])
        sides.setdefault("text:" + row["raw_text"].strip(), set()).add(row["split"])
    assert [key for key, seen in sides.items() if len(seen) > 1] == []


def test_given_labelled_references_then_ids_are_written_in_the_text_and_dates_are_real_days():
    labelled = [row for row in _all_rows() if row["references"] is not None]
    assert len(labelled) >= 100
    for row in labelled:
        assert set(row["references"]) <= REFERENCE_KINDS, row["uid"]
        for kind in STRUCTURED + ("person", "organization"):
            for value in row["references"].get(kind, []):
                assert value in row["raw_text"], (row["uid"], kind, value)
        for day in row["references"].get("date", []):
            dt.date.fromisoformat(day)


def test_given_the_corpus_then_the_extraction_scripts_reproduce_every_unit_text():
    corpus = _corpus_or_skip()
    dumped = {
        (unit["source_key"], unit["corpus_file"], unit["raw_text"], tuple(unit.get("context", ())))
        for module in (_script("extract_jira"), _script("extract_confluence"))
        for unit in module.units(corpus)
    }
    missing = [
        row["uid"]
        for row in _all_rows()
        if (row["source_key"], row["corpus_file"], row["raw_text"], tuple(row["context"])) not in dumped
    ]
    assert missing == []


def test_given_the_jira_units_then_their_context_is_what_the_issue_says():
    rows = {row["uid"]: row for family in ("jira_description", "jira_comment") for row in _rows(family)}
    # AC-1216 is a Bug resolved as Invalid at 17:33:40; its comments were written at 06:09:03 and at 17:33:40
    ac1216 = "jira_comment:jira/tidev_appcelerator_jira/dev_batch_AC150/AC-1216.json#AC-1216#"
    assert rows[ac1216 + "342513"]["context"] == ["on:bug"]
    assert rows[ac1216 + "342560"]["context"] == ["on:bug", "resolving:declined"]
    bugs = [r for r in rows.values() if r["source_family"] == "jira_description" and r["context"] == ["issue:bug"]]
    resolving = [r for r in rows.values() if "resolving:declined" in r["context"]]
    assert len(bugs) >= 100 and len(resolving) >= 40
    assert all(r["context"][0].startswith("on:") for r in resolving)
