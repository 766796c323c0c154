"""`graphfeed run` says on stdout, in one line, which step failed and why (issue 14)."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from flow.settings import REPO_ROOT


@pytest.mark.slow
def test_a_failed_step_is_one_line_on_stdout_naming_the_step_and_the_error(tmp_path: Path):
    # given a Jira export that is nothing but one unreadable file (failure rate 100%: the blocking check fails)
    exports = tmp_path / "jira"
    exports.mkdir()
    (exports / "bad.json").write_text("not json at all {")
    home = Path(tempfile.mkdtemp(prefix="gfh-"))  # short: the embedded FalkorDB socket lives under it
    env = {**os.environ, "GRAPHFEED_HOME": str(home), "GRAPHFEED_JIRA_EXPORTS": str(exports)}
    env.pop("DAGSTER_HOME", None)
    try:
        # when the night runs for Jira
        done = subprocess.run(
            [sys.executable, "-m", "pipelines.commands", "run", "--source", "jira", "--date", "2026-05-04"],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    # then it exits 1 and stdout holds one line naming the failed step and the check that failed it
    assert done.returncode == 1, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("step ")]
    assert lines == [lines[0]] and lines[0].startswith("step jira__episodes FAILED: ")
    assert "failure_rate_below_bound" in lines[0]
