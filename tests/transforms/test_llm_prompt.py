"""The LLM intent cascade's prompt and answer parsing (pure): the guide's definitions in the prompt, an enum schema of
the taxonomy's names, exactly one label accepted, and a cache key that changes with the prompt."""

import pytest

from transforms.intent import llm_prompt as lp
from transforms.intent.data import load_taxonomy
from transforms.intent.training import DEFAULT_TAXONOMY
from transforms.intent.units import ClassifierInput

TAXONOMY = load_taxonomy(DEFAULT_TAXONOMY)


def test_the_system_prompt_carries_every_label_definition_and_the_labelling_guide():
    # given the default taxonomy and the shipped guide
    guide = lp.load_guide()
    # when the system prompt is built
    system = lp.system_prompt(TAXONOMY, guide)
    # then it defines every label, carries the guide's precedence and rules, and names the allowed answers
    for label in TAXONOMY.labels:
        assert f"- {label.name}: {label.description}" in system
    assert "reject_requirement > escalate_risk > decision" in system
    assert "A bug report" in system and guide in system
    assert system.endswith(f"one of: {', '.join(TAXONOMY.names)}. Nothing else.")


def test_the_answer_schema_is_an_enum_of_the_taxonomys_names():
    # when the response model is made for the taxonomy
    schema = lp.answer_model(tuple(TAXONOMY.names)).model_json_schema()
    # then its one required field is an enum of exactly those names, under the name servers see
    assert schema["title"] == lp.ANSWER_SCHEMA
    assert schema["required"] == ["label"]
    assert schema["properties"]["label"]["enum"] == TAXONOMY.names


@pytest.mark.parametrize(
    ("payload", "expected"), [({"label": "decision"}, "decision"), ({"label": " Escalate_Risk\n"}, "escalate_risk")]
)
def test_an_answer_with_one_taxonomy_label_parses(payload, expected):
    assert lp.parse_answer(payload, TAXONOMY.names) == expected


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        ({"label": "maybe_later"}, "not in the taxonomy"),
        ({"labels": ["decision"]}, "no string field 'label'"),
        ({"label": ["decision", "other"]}, "no string field 'label'"),
        (["decision"], "expected a JSON object"),
    ],
)
def test_an_answer_that_is_not_exactly_one_label_is_invalid_with_the_reason(payload, why):
    with pytest.raises(lp.InvalidAnswer, match=why):
        lp.parse_answer(payload, TAXONOMY.names)


def test_the_user_prompt_carries_the_unit_as_the_local_model_reads_it_with_a_long_text_cut():
    # given a long unit with a subject and record context
    item = ClassifierInput("word " * 2_000, "Re: crash on start", "jira_comment", "de", ("on:bug",))
    # when its prompt is built
    prompt = lp.user_prompt(item, max_chars=100)
    # then family, language, subject and context are there and the text is cut to its head
    assert "Source: jira_comment\nLanguage: de\nSubject: Re: crash on start\nRecord context: on:bug" in prompt
    assert prompt.endswith("[...]\n>>>") and len(prompt) < 300


def test_the_prompt_version_changes_with_the_guide_and_the_labels():
    base = lp.prompt_version(lp.system_prompt(TAXONOMY, "guide A"), TAXONOMY.names)
    assert base == lp.prompt_version(lp.system_prompt(TAXONOMY, "guide A"), TAXONOMY.names)
    assert base != lp.prompt_version(lp.system_prompt(TAXONOMY, "guide B"), TAXONOMY.names)
    assert base != lp.prompt_version(lp.system_prompt(TAXONOMY, "guide A"), TAXONOMY.names[:-1])


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("timed out after 60.0s", lp.TIMEOUT),
        ("429 rate limited (retry-after=None)", lp.RATE_LIMITED),
        ("malformed JSON (Expecting value at 3)", lp.INVALID),
        ("response does not match IntentAnswer: Field required", lp.INVALID),
        ("truncated answer (finish_reason=length)", lp.INVALID),
        ("HTTP 503", lp.SERVER_ERROR),
        ("HTTP 401: Incorrect API key provided", lp.FAILED),
    ],
)
def test_a_failed_calls_reason_becomes_a_category_never_the_raw_message(message, reason):
    assert lp.failure_reason(message) == reason
