"""The LLM intent cascade where episodes are built (flow/episodes.py) and in `graphfeed intent eval --llm`, against
the scripted OpenAI-compatible server."""

import datetime as dt
import json
from pathlib import Path

import pytest

from connectors.registry import source_traits
from flow.episodes import stage_episodes
from flow.staging import EPISODES, RAW, Staging
from graph.llm.intent import LLMIntentCascade
from graph.llm.settings import intent_cascade_settings
from graph.llm.store import LLMStore
from ground.records import Actor, SourceRecord
from pipelines.commands import main
from pipelines.commands.intent_eval import evaluate_file
from tests.llm.conftest import llm_settings
from transforms.build import EpisodeSettings
from transforms.fingerprint import fingerprint
from transforms.intent import llm_prompt as lp
from transforms.intent.data import load_taxonomy
from transforms.intent.training import DEFAULT_TAXONOMY
from transforms.references import ReferenceConfig

WHEN = dt.datetime(2026, 4, 1, 9, 0, tzinfo=dt.UTC)
DAY = "2026-04-01"
LABELS = load_taxonomy(DEFAULT_TAXONOMY).names


class UnsureOfVotes:
    """A local model that is confident about everything but the units that say 'option'."""

    labels = LABELS
    threshold = 0.25

    def predict(self, texts, languages=None, threshold=None, subjects=None, **inputs):
        return [("other", 0.1) if "option" in t else ("status_update", 0.9) for t in texts]


def mail(key: str, body: str) -> SourceRecord:
    return SourceRecord(
        source="email",
        kind="email",
        source_key=key,
        title="Cache design",
        body=body,
        actor=Actor(id="dana@acme.example"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )


def cascade(server, tmp_path: Path) -> LLMIntentCascade:
    store = LLMStore(f"sqlite:///{tmp_path / 'llm.db'}")
    return LLMIntentCascade(llm_settings(server), load_taxonomy(DEFAULT_TAXONOMY), store, threshold=0.25)


def staged(tmp_path: Path, server=None) -> tuple[dict[str, dict], dict]:
    staging = Staging(str(tmp_path / "staging"))
    staging.write_all(
        "email",
        RAW,
        DAY,
        [mail("<a@x>", "Fixed on main, released in 1.2.3."), mail("<b@x>", "Let's go with option B for the cache.")],
    )
    settings = EpisodeSettings(references=ReferenceConfig(ner=False), source_traits=source_traits())
    if server is None:
        stats = stage_episodes(staging, "email", [DAY], UnsureOfVotes(), settings)
    else:
        with cascade(server, tmp_path) as c:
            stats = stage_episodes(staging, "email", [DAY], UnsureOfVotes(), settings, intent_cascade=c)
    rows = {row["metadata"]["source_key"]: row for row in staging.rows("email", EPISODES, DAY)}
    return rows, stats.intent_llm


def test_the_episodes_step_relabels_only_the_unsure_episode_and_says_where_each_label_came_from(llm_server, tmp_path):
    # given a local model unsure of one of two mails, and an LLM that calls it a decision
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    # when the episodes are staged with the cascade on
    rows, figures = staged(tmp_path, llm_server)
    # then the unsure episode carries the LLM's label, its source and the local label; the other stays local
    unsure, sure = rows["<b@x>"], rows["<a@x>"]
    assert (unsure["intent"], unsure["metadata"]["intent_source"], unsure["metadata"]["intent_local"]) == (
        "decision",
        "llm",
        "other",
    )
    assert (sure["intent"], sure["metadata"]["intent_source"]) == ("status_update", "local")
    # and the fingerprint is still the local label's (the dedup and cache key), one call was made and metered
    assert unsure["fingerprint"] == fingerprint("other", unsure["content"], "dana@acme.example")
    assert len(llm_server.requests) == 1
    assert figures["calls"] == 1 and figures["llm_labels"] == 1 and figures["cost_usd"] > 0


def test_without_the_cascade_the_staged_episodes_carry_no_llm_metadata(tmp_path):
    # given the same mails, staged with the cascade off
    rows, figures = staged(tmp_path)
    # then the unsure one keeps the local label and nothing about an LLM is recorded
    assert rows["<b@x>"]["intent"] == "other"
    assert "intent_source" not in rows["<b@x>"]["metadata"] and figures == {}


def test_intent_eval_with_llm_prints_local_and_cascade_macro_f1_calls_tokens_and_usd(llm_server, tmp_path):
    # given two labelled units, one the local model gets wrong and is unsure of
    labels = tmp_path / "units.jsonl"
    units = [
        {"uid": "u1", "source_family": "mail", "raw_text": "Fixed on main.", "label": "status_update", "split": "eval"},
        {
            "uid": "u2",
            "source_family": "mail",
            "raw_text": "Let's go with option B.",
            "label": "decision",
            "split": "eval",
        },
    ]
    labels.write_text("\n".join(json.dumps(u) for u in units) + "\n")
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    # when the eval runs with the cascade
    out = evaluate_file(labels, UnsureOfVotes, split="eval", cascade=lambda model: cascade(llm_server, tmp_path))
    # then both figures are printed with what the cascade cost
    assert "macro-F1 local 0.500 -> cascade 1.000" in out
    assert "below threshold 1 (50.0%)" in out
    assert "calls 1 (retries 0)" in out and "USD 0." in out


def test_intent_eval_with_llm_and_no_endpoint_fails_with_a_clear_message(monkeypatch, tmp_path, capsys):
    # given no LLM endpoint configured
    monkeypatch.delenv("GRAPHFEED_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    labels = tmp_path / "units.jsonl"
    labels.write_text(json.dumps({"raw_text": "Thanks!", "label": "other", "source_key": "a"}) + "\n")
    # when `graphfeed intent eval --llm` runs, then it is a usage error naming the variable to set
    assert main(["intent", "eval", "--labels", str(labels), "--llm"]) == 2
    assert "GRAPHFEED_LLM_BASE_URL" in capsys.readouterr().err


def test_the_cascade_switched_on_without_an_endpoint_is_a_configuration_error():
    # given GRAPHFEED_LLM_INTENT=cascade, with and without an endpoint
    on = {"GRAPHFEED_LLM_INTENT": "cascade"}
    # then without one it is an error, with one the settings carry it, and off means no cascade
    with pytest.raises(ValueError, match="GRAPHFEED_LLM_BASE_URL"):
        intent_cascade_settings(on)
    settings = intent_cascade_settings({**on, "GRAPHFEED_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert settings is not None and settings.intent_cascade and settings.intent_max_cost_usd == 1.0
    assert intent_cascade_settings({"GRAPHFEED_LLM_BASE_URL": "http://127.0.0.1:9/v1"}) is None
