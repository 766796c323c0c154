"""Intent classifier: reproducible training, API contract, thresholds, user data errors, golden sentences."""

import hashlib
import json
from pathlib import Path

import pytest

from transforms.intent import (
    CODE_VERSION,
    DEFAULT_LEXICON,
    DEFAULT_TAXONOMY,
    DEFAULT_TRAIN,
    IntentClassifier,
    IntentDataError,
    Lexicon,
    data_version,
    ensure_model,
    load_taxonomy,
    train,
)

WEIGHT_FILES = ("textcat/model", "textcat_cues/model", "graphfeed_intent_features/cues.json", "config.cfg", "meta.json")


def weights_hash(model_dir: Path) -> str:
    h = hashlib.sha256()
    for rel in WEIGHT_FILES:
        h.update((model_dir / rel).read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    return train(DEFAULT_TRAIN, DEFAULT_TAXONOMY, tmp_path_factory.mktemp("intent") / "model", seed=0)


@pytest.fixture(scope="module")
def clf(model_dir) -> IntentClassifier:
    return IntentClassifier.load(model_dir)


GOLDEN = [
    ("Could you please send me the invoice for order 4411?", "en", "request_info"),
    ("Do you have the contact details of their finance team?", "en", "request_info"),
    ("Please confirm the kickoff on Monday 10 June at 9am.", "en", "confirm_date"),
    ("Can we postpone tomorrow's meeting to Thursday afternoon?", "en", "confirm_date"),
    ("We decided to use Azure for the new data platform.", "en", "decision"),
    ("The steering committee approved the phase 2 budget.", "en", "decision"),
    ("Sorry, this feature request is out of scope and has been rejected.", "en", "reject_requirement"),
    ("We cannot support Oracle 9 and will not add it.", "en", "reject_requirement"),
    ("Critical: production is down and the customer is threatening to cancel.", "en", "escalate_risk"),
    ("There is a high risk we miss the go-live, escalating to management.", "en", "escalate_risk"),
    ("Great news, Globex signed the contract and the deal is closed!", "en", "close_deal"),
    ("We received the purchase order for 300 licences, opportunity closed won.", "en", "close_deal"),
    ("The migration is complete and deployed to production.", "en", "status_update"),
    ("Status: 80% of the test cases are done, on track for Friday's release.", "en", "status_update"),
    ("Thanks so much, have a great weekend!", "en", "other"),
    ("I am on vacation until Monday.", "en", "other"),
    ("Können Sie mir bitte die Unterlagen zum Angebot schicken?", "de", "request_info"),
    ("Der Vertrag ist unterschrieben, der Auftrag ist gewonnen!", "de", "close_deal"),
    ("Wir haben beschlossen, auf Kubernetes umzusteigen.", "de", "decision"),
    ("请把合同的扫描件发给我。", "zh", "request_info"),
    ("客户已经签约，订单已收到。", "zh", "close_deal"),
    ("生产环境宕机了，风险很高，需要上报。", "zh", "escalate_risk"),
]


def test_given_same_seed_when_trained_twice_then_weights_and_predictions_are_identical(model_dir, clf, tmp_path):
    again = train(DEFAULT_TRAIN, DEFAULT_TAXONOMY, tmp_path / "again", seed=0)
    assert weights_hash(again) == weights_hash(model_dir)
    texts = [t for t, _, _ in GOLDEN]
    langs = [lg for _, lg, _ in GOLDEN]
    assert IntentClassifier.load(again).predict(texts, langs, threshold=0.0) == clf.predict(texts, langs, threshold=0.0)


def test_given_a_model_when_predicting_then_labels_come_from_the_taxonomy_with_confidence_in_unit_range(clf):
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY).names
    assert clf.labels == taxonomy
    out = clf.predict(["Quick question about the renewal", "ok", "Bitte um Rückruf", "收到，谢谢"], None)
    assert len(out) == 4
    for label, conf in out:
        assert label in taxonomy
        assert 0.0 <= conf <= 1.0


@pytest.mark.parametrize("text,lang,expected", GOLDEN)
def test_golden_sentences_are_classified(clf, text, lang, expected):
    assert clf.predict([text], [lang], threshold=0.0)[0][0] == expected


def test_given_a_high_threshold_then_low_confidence_becomes_other_with_the_same_confidence(clf):
    text = "Could you send me the latest SOW?"
    label, conf = clf.predict([text], ["en"], threshold=0.0)[0]
    assert label == "request_info" and conf < 1.0
    assert clf.predict([text], ["en"], threshold=min(1.0, conf + 1e-6)) == [("other", conf)]
    assert clf.predict([text], ["en"], threshold=conf) == [("request_info", conf)]


def test_given_blank_or_non_text_input_then_other_with_zero_confidence(clf):
    assert clf.predict(["", "   ", None], ["en", "de", None]) == [("other", 0.0)] * 3
    assert clf.predict([]) == []


def test_given_a_label_missing_from_the_taxonomy_then_the_error_names_file_line_and_label(tmp_path):
    bad = tmp_path / "labels.jsonl"
    bad.write_text(
        json.dumps({"text": "Please send the report", "label": "request_info"})
        + "\n"
        + json.dumps({"text": "Ship it", "label": "ship_it"})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(IntentDataError, match=r"labels\.jsonl:2: label 'ship_it' is not in the taxonomy"):
        train(bad, DEFAULT_TAXONOMY, tmp_path / "m")


def test_given_a_malformed_line_then_the_error_names_file_and_line(tmp_path):
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"text": "hello", "label": "other"}\n{"text": ""\n', encoding="utf-8")
    with pytest.raises(IntentDataError, match=r"labels\.jsonl:2: invalid labelled example"):
        train(bad, DEFAULT_TAXONOMY, tmp_path / "m")


def test_given_a_taxonomy_without_other_then_training_refuses(tmp_path):
    tax = tmp_path / "taxonomy.json"
    tax.write_text(json.dumps({"labels": [{"name": "a"}, {"name": "b"}]}), encoding="utf-8")
    with pytest.raises(IntentDataError, match="must contain the label 'other'"):
        train(DEFAULT_TRAIN, tax, tmp_path / "m")


def test_given_own_labels_and_taxonomy_then_the_model_uses_them(tmp_path):
    tax = tmp_path / "taxonomy.json"
    tax.write_text(json.dumps({"labels": [{"name": "billing"}, {"name": "other"}]}), encoding="utf-8")
    rows = [
        ("Invoice 12 is wrong", "billing"),
        ("Please refund the overcharge", "billing"),
        ("The payment failed twice", "billing"),
        ("Hello team", "other"),
        ("Thanks a lot", "other"),
        ("See you tomorrow", "other"),
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in rows), encoding="utf-8")
    own = IntentClassifier.load(train(labels, tax, tmp_path / "m"))
    assert own.labels == ["billing", "other"]
    assert own.predict(["The invoice amount is wrong"], ["en"], threshold=0.0)[0][0] == "billing"


def test_ensure_model_trains_once_into_a_content_keyed_directory(tmp_path):
    first = ensure_model(tmp_path)
    assert first.parent == tmp_path / "models" / "intent"
    assert first.name == f"{CODE_VERSION}-{data_version(DEFAULT_TRAIN, DEFAULT_TAXONOMY, DEFAULT_LEXICON)}"
    stamp = (first / "textcat" / "model").stat().st_mtime_ns
    assert ensure_model(tmp_path) == first
    assert (first / "textcat" / "model").stat().st_mtime_ns == stamp
    assert [p.name for p in first.parent.iterdir()] == [first.name]  # no temp dirs left behind


def test_data_version_changes_with_any_input(tmp_path):
    lex = tmp_path / "cues.json"
    lex.write_bytes(DEFAULT_LEXICON.read_bytes())
    base = data_version(DEFAULT_TRAIN, DEFAULT_TAXONOMY, lex)
    assert base == data_version(DEFAULT_TRAIN, DEFAULT_TAXONOMY, DEFAULT_LEXICON)
    lex.write_bytes(DEFAULT_LEXICON.read_bytes() + b"\n")
    assert data_version(DEFAULT_TRAIN, DEFAULT_TAXONOMY, lex) != base


@pytest.mark.parametrize(
    "text,lang",
    [
        ("Can we push the review back a week?", "en"),
        ("Wir müssen den Termin verschieben.", "de"),
        ("会议推迟到下周。", "zh"),
    ],
)
def test_cue_lexicon_maps_paraphrases_across_languages_to_one_concept(text, lang):
    assert "RESCHEDULE" in Lexicon.from_path(DEFAULT_LEXICON).concepts(text, lang)


def test_cue_lexicon_marks_negated_concepts():
    concepts = Lexicon.from_path(DEFAULT_LEXICON).concepts("Weekly status: no blockers this week.", "en")
    assert "NOT_RISK" in concepts and "RISK" not in concepts
