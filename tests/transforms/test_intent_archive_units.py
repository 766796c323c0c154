"""Labelled Jira units from the public tidev/jira-archive (data/intent/labelled/jira_archive.jsonl).

Why: they widen the Jira eval data beyond the corpus; a unit whose text or context the saved issue does not hold, a
unit trained on, or an issue of the evaluation set kept outside the repository would skew every intent figure.
"""

import csv
import importlib.util
import json
from pathlib import Path

from tests.corpus import corpus_dir
from transforms.intent.data import load_taxonomy
from transforms.intent.units import load_units

ROOT = Path(__file__).resolve().parents[2]
LABELLED = ROOT / "data" / "intent" / "labelled"


def _builder():
    spec = importlib.util.spec_from_file_location(
        "build_archive", ROOT / "scripts" / "intent_units" / "build_archive.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_given_the_saved_issues_and_the_labels_then_the_labelled_file_is_rebuilt_byte_for_byte():
    builder = _builder()
    assert builder.render(builder.rows()) == builder.OUT.read_text(encoding="utf-8")


def test_given_the_archive_units_then_they_are_held_out_and_share_no_thread_with_the_corpus_units():
    taxonomy = load_taxonomy(ROOT / "data" / "intent" / "taxonomy.json")
    archive = load_units([LABELLED / "jira_archive.jsonl"], taxonomy)
    assert len(archive) >= 100
    assert {u.source_family for u in archive} == {"jira_description", "jira_comment"}
    assert {u.split for u in archive} == {"eval"}  # never trained on (build_archive.py says why)
    others = load_units([p for p in LABELLED.glob("jira_*.jsonl") if p.name != "jira_archive.jsonl"], taxonomy)
    assert not {u.thread for u in archive} & {u.thread for u in others}


def test_given_the_resolution_table_then_no_archive_issue_belongs_to_the_evaluation_set_kept_outside():
    table = corpus_dir("intent", "jira_resolution_labels") / "tidev_jira_resolution_labels.csv"
    with table.open(encoding="utf-8", newline="") as f:
        listed = {row["key"] for row in csv.DictReader(f)}
    saved = [json.loads(line)["key"] for line in _builder().SOURCES.read_text(encoding="utf-8").splitlines()]
    assert saved and set(saved) <= listed
