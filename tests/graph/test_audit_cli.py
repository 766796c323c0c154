"""`graphfeed search --known-at` and `graphfeed history` as a user runs them, against a graph in a private home: the
answers of the audit scenario (a correction and a late record), candidates for a misspelt subject, a clear usage error
for a bad moment."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectors.registry import fact_extractor
from graph.write.writer import GraphWriter
from tests.graph.audit_scenario import QUESTION, STEPS, Clock, ingest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def audit_home(graph_home, group_id):
    """Given the four nights of Acme's contact written into an embedded FalkorDB under a private home."""
    from tests.graph.conftest import graph_config

    async def write():
        clock = Clock(STEPS[0][3])
        async with GraphWriter(
            graph_config("falkordb-embedded", graph_home), clock=clock, extractor=fact_extractor()
        ) as writer:
            await ingest(writer, clock, group_id, [0, 1, 2, 3])

    asyncio.run(write())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHFEED_"))}
    env.update(GRAPHFEED_HOME=str(graph_home), GRAPHFEED_GROUP_ID=group_id, GRAPHITI_TELEMETRY_ENABLED="false")
    return env


def graphfeed(env, *args):
    return subprocess.run(
        [sys.executable, "-m", "pipelines.commands", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_known_at_and_history_from_the_command_line(audit_home):
    # when the auditor asks what the graph knew on 1 April about 15 April, and for the contact's history
    known = graphfeed(audit_home, "search", QUESTION, "--known-at", "2026-04-01", "--as-of", "2026-04-15", "--json")
    text = graphfeed(audit_home, "search", QUESTION, "--known-at", "2026-06-01T00:00:00Z", "--as-of", "2026-04-15")
    history = graphfeed(audit_home, "history", "org:acme.example", "--relation", "contact", "--json")
    listing = graphfeed(audit_home, "history", "Acme Corp")
    typo = graphfeed(audit_home, "history", "Acme Crop")
    bad = graphfeed(audit_home, "search", QUESTION, "--known-at", "last tuesday")
    # then each answers from the graph as it is now, with the interval as known then
    assert known.returncode == 0, known.stderr
    facts = [json.loads(line) for line in known.stdout.splitlines()]
    contact = [(f["object"], f["invalid_at"]) for f in facts if f["name"] == "HAS_CONTACT"]
    assert contact == [("Priya Nair", None)]
    assert "as the graph knew it at 2026-06-01T00:00:00+00:00" in text.stdout
    assert "Priya Nair is the primary contact of Acme Corp\n    valid 2026-03-10 .. 2026-05-20" in text.stdout
    values = json.loads(history.stdout)["values"]
    assert [v["value"] for v in values] == ["Dana Whitfield", "Priya Nair", "Lee Chen", "Dana Whitfield"]
    assert "Acme Corp (org:acme.example): 4 values" in listing.stdout
    assert "[HAS_CONTACT] Lee Chen   valid 2026-04-01T09:00:00+00:00 .. 2026-05-20T09:00:00+00:00" in listing.stdout
    assert "recorded 2026-06-20T02:00:00+00:00" in listing.stdout
    assert typo.returncode == 1 and "candidates: Acme Corp (org:acme.example)" in typo.stderr
    assert bad.returncode == 2 and "--known-at: not a date" in bad.stderr
