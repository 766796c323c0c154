"""`graphfeed preview` and the nightly run build their episode settings and intent model through the same functions, so
for one environment a preview shows what the run would stage."""

import pytest

from pipelines.commands import parser
from pipelines.commands.preview import preview_config
from pipelines.resources import default_resources

ENV = {
    "GRAPHFEED_GROUP_ID": "acme_graph",
    "GRAPHFEED_INTENT_THRESHOLD": "0.42",
    "GRAPHFEED_JIRA_PROJECT_KEYS": "NW,ACME",
    "GRAPHFEED_JIRA_BASE_URLS": "https://jira.acme.example",
    "GRAPHFEED_CONFLUENCE_BASE_URLS": "https://wiki.acme.example",
    "GRAPHFEED_MAX_TEXT_CHARS": "12345",
    "GRAPHFEED_NER_STOP_NAMES": "/tmp/stop_a.txt",
    "GRAPHFEED_NER_MIN_CONFIDENCE": "0.6",
    "GRAPHFEED_NER_ENTITY_CONFIDENCE": "0.9",
    "GRAPHFEED_INTENT_TRAIN": "/tmp/train.jsonl",
    "GRAPHFEED_INTENT_TAXONOMY": "/tmp/taxonomy.json",
}


@pytest.mark.parametrize("env", [{}, ENV], ids=["defaults", "configured"])
def test_preview_and_the_nightly_resources_yield_equal_settings_for_the_same_environment(monkeypatch, env):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    nightly = default_resources()
    args = parser().parse_args(["preview", "--source", "email", "sample/exports/email"])

    assert preview_config(args).episode_settings() == nightly["episode_config"].episode_settings()

    from pipelines.resources import intent_model

    assert intent_model() == nightly["intent_model"]


def test_preview_flags_override_the_environment(monkeypatch):
    monkeypatch.setenv("GRAPHFEED_GROUP_ID", "from_env")
    args = parser().parse_args(["preview", "--source", "email", "--group-id", "from_flag", "--threshold", "0.3", "x"])
    settings = preview_config(args).episode_settings()
    assert (settings.group_id, settings.intent_threshold) == ("from_flag", 0.3)
