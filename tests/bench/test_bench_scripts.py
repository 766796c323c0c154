"""The bench scripts run end to end on tiny inputs: a figure nobody can print is no figure (the search bench once
failed on its own baseline filter and nothing noticed). Only exit status and the shape of the output are checked,
never a time."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str, timeout: int = 600) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.mark.slow
def test_the_search_bench_prints_both_searches_and_the_targets_on_a_small_graph():
    # given a 300-fact synthetic graph on embedded FalkorDB, when the bench runs a few questions
    out = run_bench(
        "search_bench.py",
        "--sizes",
        "300",
        "--backends",
        "falkordb-embedded",
        "--queries",
        "3",
        "--baseline-queries",
        "1",
        "--warmup",
        "2",
    )
    # then it prints graphfeed's and graphiti's figures, now and as of a date, and the target lines
    for line in (
        "graphfeed search, now",
        "graphfeed search, as of a date",
        "graphiti search_, now",
        "graphiti search_, as of a date",
        "targets at the largest size",
        "falkordb-embedded 300 facts",
    ):
        assert line in out, out


def test_the_intent_agreement_bench_reports_the_second_pass_on_every_split():
    # when the agreement bench runs (no model), then both splits are scored against the second annotation
    out = run_bench("intent_agreement.py")
    assert "second pass vs the labels, eval" in out and "second pass vs the labels, train" in out, out
    assert "not in the second pass 0" in out, out


@pytest.mark.slow
def test_the_csv_bench_prints_the_contract_inputs_against_the_stated_rate():
    # when the contract mode runs on 1 % of the slow tier's inputs
    out = run_bench("csv_bench.py", "--contract", "--scale", "0.01")
    # then each input has a row with its rate against docs/capacity.md's and the guard's
    rows = {
        line.split()[0]: line for line in out.splitlines() if line.split()[:1] in (["salesforce"], ["jira"], ["email"])
    }
    assert set(rows) == {"salesforce", "jira", "email"}, out
    assert all(line.count("x") >= 3 for line in rows.values()) and "x stated" in out, out
