"""`graphfeed mcp` end to end with the official SDK's own client, over stdio and over streamable HTTP: the tools are
the four read-only ones, answers carry times and source episodes, bad inputs are clear errors, nothing is written."""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from connectors.registry import fact_extractor
from graph.write.writer import GraphWriter
from tests.graph.scenario import contact_change
from tests.graph.test_episode_read import episodes
from tests.servers._process import free_port, port_accepts

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"search_facts", "search_episodes", "get_episode", "list_episodes", "fact_history"}


@pytest.fixture(params=["falkordb-embedded", "neo4j"])
def served_graph(request, graph_home, group_id):
    """Given five mails in a graph (embedded FalkorDB under a home, or the session's Neo4j), the environment a
    `graphfeed mcp` process needs to read it."""
    from tests.graph.conftest import graph_config

    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHFEED_"))}
    env.update(GRAPHFEED_HOME=str(graph_home), GRAPHFEED_GROUP_ID=group_id, GRAPHITI_TELEMETRY_ENABLED="false")
    if request.param == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        config = graph_config("neo4j", graph_home, server)
        env.update(
            GRAPHFEED_GRAPH_BACKEND="neo4j",
            NEO4J_URI=server.uri,
            NEO4J_USER=server.user,
            NEO4J_PASSWORD=server.password,
        )
    else:
        config = graph_config("falkordb-embedded", graph_home)

    async def write():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch(episodes(group_id))
            for episode, facts in contact_change(group_id):  # Acme's contact: Dana from March, Priya from June
                await writer.write_batch([episode], {group_id: facts})

    asyncio.run(write())
    return env


async def exercise(client: Client) -> dict:
    """The questions an agent asks, and the mistakes it makes."""
    tools = (await client.list_tools()).tools
    out = {"tools": {t.name: t for t in tools}}
    out["risks"] = await client.call_tool(
        "search_episodes", {"query": "warehouse migration", "intent": ["escalate_risk"]}
    )
    out["episode"] = await client.call_tool("get_episode", {"id_or_source_key": "<e3@acme.example>"})
    out["facts"] = await client.call_tool(
        "search_facts", {"query": "Who sent the warehouse migration budget?", "limit": 3}
    )
    out["page"] = await client.call_tool("list_episodes", {"actor": "tom.berger@globex.example", "limit": 1})
    out["bad_intent"] = await client.call_tool("search_episodes", {"query": "x", "intent": ["gossip"]})
    out["bad_date"] = await client.call_tool("search_facts", {"query": "budget", "as_of": "last tuesday"})
    out["known_before"] = await client.call_tool(
        "search_facts", {"query": "Who sent the warehouse migration budget?", "known_at": "2000-01-01"}
    )
    out["known_later"] = await client.call_tool(
        "search_facts", {"query": "Who sent the warehouse migration budget?", "known_at": "2999-01-01", "limit": 3}
    )
    out["history"] = await client.call_tool("fact_history", {"subject": "org:acme.example", "relation": "contact"})
    out["history_typo"] = await client.call_tool("fact_history", {"subject": "acme.exmple"})
    out["bad_limit"] = await client.call_tool("list_episodes", {"limit": 0})
    out["missing"] = await client.call_tool("get_episode", {"id_or_source_key": "<nope@x>"})
    return out


def payload(result) -> object:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) and set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def error_text(result) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def check_answers(out: dict) -> None:
    assert set(out["tools"]) == TOOLS
    assert all(t.annotations is not None and t.annotations.read_only_hint for t in out["tools"].values())
    assert [e["source_key"] for e in payload(out["risks"])] == ["<e1@acme.example>"]
    episode = payload(out["episode"])
    assert episode["intent"] == "decision" and episode["actor_name"] == "Dana Whitfield"
    assert episode["valid_at"].startswith("2026-05-09") and "we agreed on the numbers" in episode["content"]
    facts = payload(out["facts"])
    sent = [f for f in facts if f["name"] == "SENT" and "Warehouse migration budget" in f["fact"]]
    assert sent and sent[0]["valid_at"].startswith("2026-05-09") and sent[0]["invalid_at"] is None
    assert [e["name"] for e in sent[0]["episodes"]] == ["<e3@acme.example>"]
    page = payload(out["page"])
    assert [e["source_key"] for e in page["episodes"]] == ["<e4@acme.example>"] and page["next_cursor"]
    assert "unknown intent gossip" in error_text(out["bad_intent"])
    assert "as_of: not a date" in error_text(out["bad_date"])
    assert "limit must be a positive integer" in error_text(out["bad_limit"])
    assert payload(out["known_before"]) == []  # nothing was recorded in 2000
    later = payload(out["known_later"])
    assert later and all(f["known_at"].startswith("2999-01-01") and f["interval_exact"] for f in later)
    history = payload(out["history"])
    assert [(v["value"], v["valid_at"][:10], (v["invalid_at"] or "")[:10]) for v in history["values"]] == [
        ("Dana Whitfield", "2026-03-02", "2026-06-15"),
        ("Priya Nair", "2026-06-15", ""),
    ]
    assert history["values"][0]["episodes"][0]["source_key"] == "acct-001/hist-1"
    assert "(org:acme.example)" in error_text(out["history_typo"])
    assert "no episode" in error_text(out["missing"])


def test_stdio_client_reads_the_graph(served_graph):
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pipelines.commands", "mcp"], env=served_graph, cwd=str(ROOT)
    )

    async def go():
        async with Client(params) as client:
            return await exercise(client)

    check_answers(asyncio.run(go()))


def test_http_client_reads_the_graph(served_graph, tmp_path):
    port = free_port()
    log = (tmp_path / "mcp.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipelines.commands", "mcp", "--http", f"127.0.0.1:{port}"],
        env=served_graph,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 120
        while not port_accepts("127.0.0.1", port):
            assert proc.poll() is None, (tmp_path / "mcp.log").read_text(errors="replace")[-2000:]
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(
                    "graphfeed mcp --http did not listen within 120 s:\n"
                    + (tmp_path / "mcp.log").read_text(errors="replace")[-3000:]
                )
            time.sleep(0.3)

        async def go():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await exercise(client)

        check_answers(asyncio.run(go()))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
