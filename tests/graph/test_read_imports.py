"""The read path imports only what reading needs (issue 29): each read command, run for real in a fresh interpreter on
a written graph, leaves neither graphiti_core, openai, dagster nor spaCy in sys.modules. Importing them cost ~2 s of
every `graphfeed search`. On FalkorDB (the embedded default here) neither redis-py nor the falkordb client either: the
read side speaks RESP itself (graph/resp.py); they cost ~0.2 s of CPU per command."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from connectors.registry import fact_extractor
from graph.config import GraphConfig
from graph.sync_facade import SyncGraphWriter
from tests.graph.scenario import MARCH, email_episode

FORBIDDEN = ("graphiti_core", "openai", "dagster", "spacy", "redis", "falkordb")

# Runs each command in turn and records, after each, the forbidden modules it brought in (first one to blame).
PROBE = textwrap.dedent(
    """
    import json, sys
    from pipelines.commands import main
    forbidden = tuple(sys.argv[1].split(","))
    commands = json.loads(sys.argv[2])
    seen, blamed = set(), {}
    for argv in commands:
        code = main(argv)
        loaded = {m.split(".")[0] for m in sys.modules} & set(forbidden)
        blamed[" ".join(argv)] = {"exit": code, "new": sorted(loaded - seen)}
        seen |= loaded
    import pipelines.mcp_server  # the MCP server's tools run the same reader
    blamed["import pipelines.mcp_server"] = {"exit": 0, "new": sorted(({m.split(".")[0] for m in sys.modules} & set(forbidden)) - seen)}
    print(json.dumps(blamed))
    """
)


@pytest.fixture
def written_home(graph_home):
    config = GraphConfig(home=graph_home)
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        writer.write_batch([email_episode("graphfeed", "<imports@acme>", MARCH)])
    return graph_home


def test_given_a_written_graph_when_each_read_command_runs_then_it_imports_no_graphiti_openai_dagster_spacy_or_redis(
    written_home,
):
    commands = [
        ["search", "budget approval", "--group", "graphfeed"],
        ["search", "budget", "--group", "graphfeed", "--source", "email", "--as-of", "2026-03-20"],
        ["history", "Acme Corp", "--group", "graphfeed"],
        ["episodes", "search", "budget", "--group", "graphfeed"],
        ["episodes", "get", "<imports@acme>", "--group", "graphfeed"],
        ["episodes", "list", "--group", "graphfeed"],
        ["ledger"],
    ]
    env = {**os.environ, "GRAPHFEED_HOME": str(written_home), "GRAPHFEED_FALKOR_IDLE_SECONDS": "0"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(FORBIDDEN), json.dumps(commands)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    blamed = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(blamed) == {" ".join(c) for c in commands} | {"import pipelines.mcp_server"}
    assert {cmd: r["new"] for cmd, r in blamed.items() if r["new"]} == {}
    assert all(r["exit"] in (0, 1) for r in blamed.values()), blamed  # 1: history's "ambiguous subject" answer


def test_given_the_probe_when_a_forbidden_module_is_imported_then_it_is_named():
    """The probe itself can fail: the writer side does import graphiti_core."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys, graph.write.writer; print('graphiti_core' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "True"


def test_given_the_question_cues_when_compared_with_the_fact_builders_then_each_cued_relation_is_one_they_write():
    """The cues live apart from the rules (transforms/question_cues.py, so that search does not import the fact
    builders): a relation renamed there and not here would silently stop being ranked first."""
    from transforms.intent_facts import FACT_KINDS
    from transforms.question_cues import EVENT_CUES, SLOT_CUES

    assert set(EVENT_CUES) <= {r for r, kind in FACT_KINDS.items() if kind in ("intent", "text_date")}
    assert set(SLOT_CUES) == {r for r, kind in FACT_KINDS.items() if kind == "text_slot"}


def test_given_a_fresh_interpreter_when_search_is_imported_then_the_fact_builders_are_not():
    probe = "import sys, graph.read.search; print(sorted(m for m in sys.modules if m.endswith('_facts')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_given_a_read_command_as_a_process_then_its_whole_output_and_exit_code_arrive(written_home):
    """`graphfeed` (cli()) ends a read command without the interpreter's teardown: the output must still be whole."""
    env = {**os.environ, "GRAPHFEED_HOME": str(written_home), "GRAPHFEED_FALKOR_IDLE_SECONDS": "0"}
    graphfeed = [sys.executable, "-m", "pipelines.commands"]
    argv = ["episodes", "list", "--group", "graphfeed", "--json"]
    in_process = subprocess.run(
        [sys.executable, "-c", f"import sys; from pipelines.commands import main; sys.exit(main({argv!r}))"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # when the same read runs as the console script, its output goes through a pipe
    piped = subprocess.run([*graphfeed, *argv], env=env, capture_output=True, text=True, timeout=120)
    # then every byte and the exit code arrive as main() gives them
    assert piped.returncode == in_process.returncode == 0
    assert piped.stdout == in_process.stdout and "<imports@acme>" in piped.stdout
    # and an answer that is a "no" keeps its exit code and message
    missing = subprocess.run(
        [*graphfeed, "history", "Nobody Here", "--group", "graphfeed"], env=env, capture_output=True, text=True
    )
    assert missing.returncode == 1 and "Nobody Here" in missing.stderr
