"""The LLM intent cascade against the scripted OpenAI-compatible server (real HTTP through the real openai client):
it parses, retries, meters, stops at the budget, falls back to the local label with a reason, never calls for units
above the threshold, and answers a rerun from its cache by fingerprint."""

import datetime as dt
from pathlib import Path

import pytest

from graph.llm.intent import CascadeUnit, LLMIntentCascade
from graph.llm.store import LLMStore
from tests.llm.conftest import llm_settings
from transforms.intent import llm_prompt as lp
from transforms.intent.data import load_taxonomy
from transforms.intent.training import DEFAULT_TAXONOMY
from transforms.intent.units import ClassifierInput

NOW = dt.datetime(2026, 4, 1, 22, 0, tzinfo=dt.UTC)
THRESHOLD = 0.25


def unit(n: int, confidence: float = 0.1, label: str = "other", text: str | None = None) -> CascadeUnit:
    body = text or f"Let's go with option B for the cache, agreed in the call ({n})."
    return CascadeUnit(
        f"fp-{n}", f"ep-{n}", "email", ClassifierInput(body, "Cache design", "mail", "en"), label, confidence
    )


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'llm.db'}"


def cascade(server, url: str, **overrides) -> LLMIntentCascade:
    settings = llm_settings(server, **overrides)
    return LLMIntentCascade(
        settings, load_taxonomy(DEFAULT_TAXONOMY), LLMStore(url), threshold=THRESHOLD, clock=lambda: NOW
    )


def test_a_unit_below_the_threshold_takes_the_llm_label_metered_from_the_answers_usage(llm_server, store_url):
    # given a server that answers "decision" in json_schema mode
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    # when one unit the local model is unsure of goes through the cascade
    with cascade(llm_server, store_url) as c:
        [decision] = c.run([unit(1)])
        usage = c.stats.usage
        night = c.store.spent_on_night("email", NOW.date())
    # then the LLM label stands, one json_schema call went to the small model, and tokens and USD come from its usage
    assert decision == ("decision", "llm", None)
    [request] = llm_server.requests
    assert (request["model"], request["json_mode"]) == ("scripted-small", "json_schema")
    assert usage.calls == 1 and usage.tokens_in == request["prompt_tokens"] and usage.tokens_out > 0
    expected = (usage.tokens_in * 100.0 + usage.tokens_out * 400.0) / 1_000_000  # scripted-small's price
    assert usage.cost_usd == pytest.approx(expected)
    assert night == pytest.approx(expected)  # counted in the source's nightly budget
    assert c.stats.changed == 1 and c.stats.llm_labels == 1


def test_a_json_object_server_is_shown_the_schema_and_its_answer_parses(llm_server, store_url):
    # given a server without json_schema support, answering with upper-case and spaces
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": " Status_Update "}
    # when the cascade runs in json_object mode
    with cascade(llm_server, store_url, structured_output="json_object") as c:
        [decision] = c.run([unit(1)])
    # then the schema travelled in the prompt (the server found its name there) and the label is normalised
    assert llm_server.requests[0]["json_mode"] == "json_object"
    assert llm_server.schemas() == [lp.ANSWER_SCHEMA]
    assert decision.label == "status_update" and decision.source == "llm"


def test_a_5xx_and_a_429_are_retried_per_the_clients_policy(llm_server, store_url):
    # given a server that fails once with 500 and once with 429 before answering
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "request_info"}
    llm_server.fault("500")
    llm_server.fault("429", retry_after=0)
    # when one unit goes through the cascade
    with cascade(llm_server, store_url) as c:
        [decision] = c.run([unit(1)])
        retries = c.stats.usage.retries
    # then it was retried twice and the third attempt's label stands
    assert [r["status"] for r in llm_server.requests] == [500, 429, 200]
    assert retries == 2
    assert decision == ("request_info", "llm", None)


def test_the_budget_stops_the_calls_and_the_rest_keep_their_local_label_with_the_reason(llm_server, store_url):
    # given a run budget that one call already exceeds, and three units below the threshold
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    units = [unit(1), unit(2), unit(3)]
    # when they go through the cascade one call at a time
    with cascade(llm_server, store_url, intent_max_cost_usd=1e-9, concurrency=1) as c:
        decisions = c.run(units)
        stats = c.stats
    # then the first is labelled, the other two keep "other" with the budget reason; none is dropped
    assert len(decisions) == 3 and len(llm_server.requests) == 1
    assert decisions[0].label == "decision"
    assert [d.label for d in decisions[1:]] == ["other", "other"]
    assert {d.source for d in decisions[1:]} == {"local (llm: budget exhausted)"}
    assert stats.fallbacks == {lp.BUDGET: 2} and stats.stopped_by == "max_cost"
    assert stats.metrics()["fallback/budget exhausted"] == 2


def test_a_spent_nightly_cap_of_the_source_stops_the_cascade_before_any_call(llm_server, store_url):
    # given the source's nightly cap is already used up (by extraction or the cascade, one budget)
    with cascade(llm_server, store_url, max_cost_per_source_night_usd={"email": 0.0}) as c:
        decisions = c.run([unit(1), unit(2)])
        stopped_by = c.stats.stopped_by
    # then no call is made and both keep their local label with the reason
    assert llm_server.requests == []
    assert [d.source for d in decisions] == ["local (llm: budget exhausted)"] * 2
    assert stopped_by == "max_cost_source_night"


def test_a_label_outside_the_taxonomy_falls_back_to_the_local_label_without_a_retry(llm_server, store_url):
    # given a model that answers a label the taxonomy does not have
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "maybe_later"}
    # when the cascade asks it
    with cascade(llm_server, store_url) as c:
        [decision] = c.run([unit(1, label="other")])
        stats = c.stats
    # then the local label stands with the reason, after one (paid, metered) call, and nothing is cached
    assert decision == ("other", "local (llm: invalid answer)", lp.INVALID)
    assert len(llm_server.requests) == 1 and stats.usage.calls == 1
    assert stats.fallbacks == {lp.INVALID: 1}
    assert c.store.cached_intents(["fp-1"], c.model, c.version) == {}


def test_broken_json_falls_back_to_the_local_label_with_a_reason(llm_server, store_url):
    # given a model that cuts its JSON in half on every attempt
    llm_server.fault("malformed", times=10)
    # when the cascade asks it (one retry allowed)
    with cascade(llm_server, store_url, max_retries=1) as c:
        [decision] = c.run([unit(1, label="status_update")])
        malformed = c.stats.usage.malformed
    # then the unit keeps its local label with the reason, and the bad answers were counted
    assert decision.label == "status_update" and decision.source == "local (llm: invalid answer)"
    assert malformed >= 1


def test_a_timeout_falls_back_to_the_local_label_with_a_reason(llm_server, store_url):
    # given a model slower than the client's timeout
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    llm_server.fault("slow", delay=1.0)
    # when the cascade asks it without retries
    with cascade(llm_server, store_url, timeout_s=0.2, max_retries=0) as c:
        [decision] = c.run([unit(1)])
    # then the local label stands with the timeout reason
    assert decision == ("other", "local (llm: timeout)", lp.TIMEOUT)


def test_units_above_the_threshold_and_blank_units_never_call_the_llm(llm_server, store_url):
    # given a confident unit and a blank one
    units = [
        unit(1, confidence=0.9, label="escalate_risk"),
        unit(2, text=" ")._replace(item=ClassifierInput("", "", "mail", "en")),
    ]
    # when they go through the cascade
    with cascade(llm_server, store_url) as c:
        decisions = c.run(units)
        below = c.stats.below_threshold
    # then both keep their local label as "local" and no request was made
    assert decisions == [("escalate_risk", "local", None), ("other", "local", None)]
    assert llm_server.requests == [] and below == 0


def test_a_rerun_over_the_same_episodes_makes_no_call_and_costs_nothing(llm_server, store_url):
    # given a first run that labelled two units (and a duplicate fingerprint of the first, asked once)
    llm_server.answers[lp.ANSWER_SCHEMA] = {"label": "decision"}
    units = [unit(1), unit(2), unit(1)._replace(episode_id="ep-1-copy")]
    with cascade(llm_server, store_url) as first:
        labelled = first.run(units)
    assert len(llm_server.requests) == 2
    # when a new cascade (a new run, same store) sees the same episodes
    with cascade(llm_server, store_url) as second:
        again = second.run(units)
        stats = second.stats
    # then every label comes from the cache: no request, $0
    assert len(llm_server.requests) == 2
    assert again == labelled and [d.label for d in again] == ["decision"] * 3
    assert stats.cached == 3 and stats.usage.calls == 0 and stats.usage.cost_usd == 0.0
