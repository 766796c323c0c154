"""`graphfeed search --intent/--source`: an unknown intent is a usage error naming the known ones, before any graph
is opened (the filtered search itself is tested on both backends in test_text_facts_answers.py)."""

import pytest

from pipelines.commands import EXIT_USAGE, main


def test_given_an_unknown_intent_when_searching_then_a_usage_error_names_the_known_intents(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path))
    assert main(["search", "who escalated?", "--intent", "gossip"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown intent gossip" in err and "escalate_risk" in err
    assert not any(tmp_path.iterdir())  # nothing opened, nothing written


def test_given_an_unknown_source_then_argparse_refuses_it(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["search", "x", "--source", "slack"])
    assert exit_.value.code == 2 and "invalid choice: 'slack'" in capsys.readouterr().err
