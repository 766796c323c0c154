"""`graphfeed references eval`: the committed labelled reference set scored over the shared corpus (every kind gets
a line; what is scored is exactly what was labelled), and unusable arguments exit 2 naming what is wrong."""

from collections import Counter

import pytest

from pipelines.commands import EXIT_USAGE, main
from pipelines.commands.references import DEFAULT_LABELLED
from tests.corpus import corpus_dir
from transforms.reference_labels import LABEL_KINDS, load_labelled


@pytest.mark.slow
def test_given_the_committed_labels_when_references_eval_then_every_kind_is_scored_on_every_label(
    monkeypatch, tmp_path, capsys
):
    corpus = corpus_dir()
    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    labelled = load_labelled(DEFAULT_LABELLED)
    assert len(labelled) >= 50 and sum(len(unit.references) for unit in labelled) >= 300
    # The eval split (the default) only: half the build time, and every kind is labelled on it too.
    scored = [unit for unit in labelled if unit.split == "eval"]
    gold = Counter(ref.kind for unit in scored for ref in unit.references)

    assert main(["references", "eval", "--corpus", str(corpus), "--show", "2"]) == 0
    captured = capsys.readouterr()
    assert f"references eval (eval split): {len(scored)} episodes" in captured.out
    rows = {line.split()[0]: line.split() for line in captured.out.splitlines() if line.startswith("  ")}
    for kind in LABEL_KINDS:
        tp, fp, fn = map(int, rows[kind][-3:])
        assert tp + fn == gold[kind], kind
    assert "episodes missing from today's build: 0" in captured.out
    assert "text drift" not in captured.err


def test_given_unusable_arguments_when_references_eval_then_exit_2_names_the_problem(tmp_path, capsys):
    assert main(["references", "eval", "--corpus", str(tmp_path / "nowhere")]) == EXIT_USAGE
    assert "no corpus folder" in capsys.readouterr().err
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "jira.jsonl").write_text('{"uid": "x"}\n')
    assert main(["references", "eval", "--corpus", str(tmp_path), "--labelled", str(labels)]) == EXIT_USAGE
    assert "jira.jsonl:1: invalid labelled episode" in capsys.readouterr().err
    assert main(["references", "eval", "--corpus", str(tmp_path), "--labelled", str(tmp_path / "none")]) == EXIT_USAGE
    assert "no such labelled file or folder" in capsys.readouterr().err
    (labels / "jira.jsonl").write_text("")
    assert main(["references", "eval", "--corpus", str(tmp_path), "--labelled", str(labels)]) == EXIT_USAGE
    assert "no labelled episodes in split eval" in capsys.readouterr().err


def test_given_the_shipped_judgments_when_references_judged_then_both_splits_report_every_judged_kind(
    monkeypatch, tmp_path, capsys
):
    from pipelines.commands.references import DEFAULT_JUDGED
    from transforms.reference_judged import load_judged

    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    judged = load_judged(DEFAULT_JUDGED)
    assert len(judged) >= 400 and {j.split for j in judged} == {"tune", "test"}
    assert main(["references", "judged"]) == 0
    out = capsys.readouterr().out
    for split in ("test", "tune"):
        part = [j for j in judged if j.split == split]
        assert f"references judged ({split} split, held-out text): {len(part)} judgments" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and not line.startswith("  kind")]
    # every judgment is counted once: found (right or wrong) or no longer found (lost or fixed)
    counted = sum(int(r[-5]) + int(r[-4]) + int(r[-2]) + int(r[-1]) for r in rows)
    assert counted == len(judged)
