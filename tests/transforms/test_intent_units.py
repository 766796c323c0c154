"""The shipped intent model on labelled units: trained from the train split only, reproducible, versioned by its data,
a calibrated `other` threshold, and `graphfeed intent eval` printing the figures for any labelled file."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from pipelines.commands import main
from transforms.intent import shipped
from transforms.intent.data import IntentDataError
from transforms.intent.embed_model import EmbedIntentClassifier
from transforms.intent.real_training import model_dir, train, train_units, training_files
from transforms.intent.units import load_units, prepare

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "intent"
TRAIN = FIXTURES / "units_train.jsonl"
EVAL = FIXTURES / "units_eval.jsonl"


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    return train([TRAIN], tmp_path_factory.mktemp("embed") / "model")


def test_given_units_with_an_eval_split_when_training_then_eval_units_are_left_out():
    units = train_units([TRAIN])
    assert len(units) == 18
    assert all("NEVER BE TRAINED" not in (u.raw_text or "") for u in units)


def test_given_a_unit_file_when_prepared_then_the_classifier_reads_the_author_text_and_the_subject_apart():
    unit = load_units([TRAIN])[1]
    prepared = prepare(unit)
    assert prepared.text == "+1, checked the signatures."
    assert prepared.subject == "[VOTE] Release Bar 2.0"
    assert prepared.family == "mail"


def test_given_the_same_data_when_trained_twice_then_weights_and_predictions_are_identical(trained, tmp_path):
    again = train([TRAIN], tmp_path / "again")
    a, b = EmbedIntentClassifier.load(trained / "embed"), EmbedIntentClassifier.load(again / "embed")
    assert np.array_equal(a.w, b.w) and np.array_equal(a.b, b.b)
    texts = ["+1", "Could you send the logs?", "Won't fix."]
    assert shipped.load(trained).predict(texts) == shipped.load(again).predict(texts)


def test_given_the_embedding_head_alone_when_trained_then_its_other_threshold_is_calibrated_by_cv(tmp_path):
    path = train([TRAIN], tmp_path / "embed", kind="embed")
    meta = json.loads((path / "meta.json").read_text())
    assert meta["kind"] == "embed" and 0.0 <= meta["threshold"] <= 0.6 and meta["cv_macro_f1"] is not None


def test_given_the_trained_model_when_predicting_then_labels_come_from_the_taxonomy(trained):
    model = shipped.load(trained)
    out = model.predict(
        ["+1 (binding)", "", "Is there a way to do this?"],
        ["en", "en", "en"],
        subjects=["[VOTE] x", "", ""],
        families=["mail", "mail", "mail"],
    )
    assert out[1] == ("other", 0.0)
    assert all(label in model.labels and 0.0 <= conf <= 1.0 for label, conf in out)


def test_given_a_changed_training_file_when_versioned_then_the_model_directory_and_version_change(tmp_path):
    copy = tmp_path / "units.jsonl"
    shutil.copy(TRAIN, copy)
    before = (model_dir(tmp_path, [copy]), shipped.version(copy))
    with copy.open("a") as f:
        f.write(json.dumps({"raw_text": "Release moved to 14 June.", "label": "confirm_date", "thread": "n"}) + "\n")
    after = (model_dir(tmp_path, [copy]), shipped.version(copy))
    assert before[0] != after[0] and before[1] != after[1]
    assert training_files(copy) == [copy]


def test_given_a_bad_unit_line_when_loading_then_the_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"raw_text": "x", "label": "other"}\n{"label": "other"}\n')
    with pytest.raises(IntentDataError, match=r"bad.jsonl:2: .*raw_text"):
        load_units([bad])


def test_given_a_labels_file_when_intent_eval_then_figures_are_printed(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHFEED_INTENT_TRAIN", str(TRAIN))
    assert main(["intent", "eval", "--labels", str(EVAL), "--errors", "6"]) == 0
    out = capsys.readouterr().out
    assert "units 6  macro-F1 " in out
    for label in ("decision", "request_info", "status_update", "reject_requirement", "escalate_risk", "other"):
        assert f"  {label:<20}" in out
    assert "per source family (macro-F1, n): jira_comment" in out and "mail " in out
    assert "confusion (rows gold, columns predicted):" in out
    rows = [line for line in out.splitlines() if line.startswith("  decision ") and len(line.split()) == 9]
    assert len(rows) == 1 and sum(map(int, rows[0].split()[1:])) == 1  # one decision unit, one row of counts


def test_given_a_bad_labels_file_when_intent_eval_then_usage_error_names_the_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"raw_text": "x", "label": "no_such_label", "source_key": "a"}\n')
    monkeypatch.setenv("GRAPHFEED_INTENT_TRAIN", str(TRAIN))
    assert main(["intent", "eval", "--labels", str(bad)]) == 2
    assert "no_such_label" in capsys.readouterr().err
    assert main(["intent", "eval", "--labels", str(tmp_path / "missing.jsonl")]) == 2
