"""Given the bundled sample company (all four sources, read, cleansed and classified by the real pipeline parts) in a
graph, when the questions people ask most are put through `graphfeed search`'s function and through the MCP client,
then the intent and date facts answer them with the right person, date and source episode, on FalkorDB and Neo4j."""

import asyncio
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from assets.resources import IntentModelResource, SourceApisResource
from connectors.registry import fact_extractor, source_traits
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from ground.records import RecordFailure
from tests.graph.conftest import graph_config
from tests.graph.test_mcp_server import payload
from transforms.build import EpisodeSettings, build_episodes
from transforms.references import ReferenceConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]  # trains the intent model, writes ~110 episodes
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample" / "exports"
ORGS = {"acme.example": "Acme Corp", "northwind.example": "Northwind Analytics"}
DELIVERY = "<20260423.0905.markus@datenwerk.example>"  # Markus Vogel's German confirmation
BUDGET = "<20260316.1520.dana@acme.example>"  # Acme's phase 1 budget decision

QUESTIONS = {
    "escalated": "Who escalated the risk?",
    "confirmed": "Who confirmed the delivery date, and which date?",
    "decided": "What did Acme decide about the budget?",
}


# Questions that ask for a slot's value: (question, relation, subject, value) of the expected FIRST hit, above the
# REPORTED_STATUS / CONFIRMED_DATE events on the same issue or page (2 of these 6 were first before issue 28's ranking).
SLOT_QUESTIONS = [
    ("What is the status of NW-101 now?", "HAS_STATUS", "NW-101", "Done"),
    ("Wie ist der Status von ACME-12?", "HAS_STATUS", "ACME-12", "Done"),
    ("Who owns the Project Charter page?", "OWNED_BY", "Project Charter", "Priya Raman"),
    ("Who is ACME-12 assigned to?", "ASSIGNED_TO", "ACME-12", "李娜"),
    ("When is the go-live of ACME-18?", "HAS_GO_LIVE_DATE", "ACME-18", "2026-07-15"),
    ("What is the go-live date in the Project Charter?", "HAS_GO_LIVE_DATE", "Project Charter", "2026-07-15"),
]


@pytest.fixture(scope="module")
def sample_episodes(tmp_path_factory):
    """Every sample record of every source as an episode, with the trained intent model (no graph yet)."""
    classifier = IntentModelResource(cache_dir=str(tmp_path_factory.mktemp("models"))).classifier(ROOT)
    settings = EpisodeSettings(
        references=ReferenceConfig(jira_project_keys=["NW", "ACME"]), source_traits=source_traits()
    )
    apis, episodes = SourceApisResource(), {}
    for source in ("email", "jira", "confluence", "salesforce"):
        records = (
            r for r in apis.export_reader(source, [str(SAMPLE / source)]).read(None) if not isinstance(r, RecordFailure)
        )
        for episode in build_episodes(records, classifier, settings, on_failure=lambda failure: None):
            episodes.setdefault(episode.id, episode)  # a mail's duplicate copies are one episode
    return list(episodes.values())


@pytest.fixture(params=["falkordb-embedded", "neo4j"])
def sample_graph(request, sample_episodes, graph_home):
    """The sample written to a fresh graph; returns its GraphConfig and the environment `graphfeed mcp` needs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHFEED_"))}
    env.update(GRAPHFEED_HOME=str(graph_home), GRAPHITI_TELEMETRY_ENABLED="false")
    if request.param == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        config = graph_config("neo4j", graph_home, server, domain_orgs=ORGS)
        env.update(
            GRAPHFEED_GRAPH_BACKEND="neo4j",
            NEO4J_URI=server.uri,
            NEO4J_USER=server.user,
            NEO4J_PASSWORD=server.password,
        )
    else:
        config = graph_config("falkordb-embedded", graph_home, domain_orgs=ORGS)
    group = "t_" + os.urandom(6).hex()  # the Neo4j server is shared by the session
    env["GRAPHFEED_GROUP_ID"] = group
    episodes = [e.model_copy(update={"group_id": group}) for e in sample_episodes]

    async def write():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            for start in range(0, len(episodes), 50):
                await writer.write_batch(episodes[start : start + 50])

    asyncio.run(write())
    return config, env, group


def brief(hits: list[dict]) -> list[tuple]:
    return [(h["name"], h["subject"], h["fact"][:90], [e["name"] for e in h["episodes"]]) for h in hits]


def check(answers: dict[str, list[dict]]) -> None:
    """Each question's first hit: the relation, the person, the date, and the episode it came from."""
    escalations = [h for h in answers["escalated"][:3] if h["name"] == "ESCALATED_RISK"]
    assert escalations and "ACME-12" in escalations[0]["fact"], brief(answers["escalated"])
    # The intent model labels Dana's reply to Michael's risk mail ("8 May works. Please include ...") an escalation
    # too (a classifier error, issue 15), so Michael's escalation may rank second behind it: he must be in the top 3.
    escalated = next((h for h in escalations if h["subject"] == "Michael Chen"), None)
    assert escalated is not None, brief(answers["escalated"])
    # Michael flagged the ACME-12 delay in several records (mails of 05-14 and 05-19, the Go-Live Runbook page, Jira
    # comments); which of his escalations ranks first differs by backend (expected.json names the 05-19 mail), the
    # person and the intent of the cited episode do not.
    (source,) = escalated["episodes"]
    assert "intent=escalate_risk" in source["source_description"], brief(answers["escalated"])
    who = answers["confirmed"][0]  # who: the confirmation (intent or date fact) ...
    assert who["name"].startswith("CONFIRMED_DATE") and who["subject"] == "Markus Vogel", brief(answers["confirmed"])
    # ... which date: the confirmation names it, from the German mail of 2026-04-23 ("26.05.2026")
    assert "2026-05-26" in who["fact"] and who["valid_at"].startswith("2026-04-23"), brief(answers["confirmed"])
    assert [e["name"] for e in who["episodes"]] == [DELIVERY]
    decided = answers["decided"][0]
    assert (decided["name"], decided["subject"]) == ("DECIDED", "Dana Whitfield"), brief(answers["decided"])
    assert "Acme Corp" in decided["fact"] and "budget" in decided["fact"].lower()
    assert [e["name"] for e in decided["episodes"]] == [BUDGET]


def test_search_and_the_mcp_client_answer_who_escalated_confirmed_and_decided_and_filters_work(sample_graph):
    config, env, group = sample_graph

    async def search():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            reader = GraphReader.sharing(writer)
            return {
                key: [h.model_dump(mode="json") for h in await reader.search_facts(q, group_id=group, limit=5)]
                for key, q in QUESTIONS.items()
            }

    check(asyncio.run(search()))
    check_slot_questions(config, group)

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pipelines.commands", "mcp"], env=env, cwd=str(ROOT)
    )

    async def ask():
        async with Client(params) as client:
            return {
                key: payload(await client.call_tool("search_facts", {"query": q, "limit": 5}))
                for key, q in QUESTIONS.items()
            }

    check(asyncio.run(ask()))
    check_filters(config, group)


def check_slot_questions(config, group: str) -> None:
    """Each slot question's first hit is the slot's own fact: relation, subject and value."""

    async def answers():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            reader = GraphReader.sharing(writer)
            return [await reader.search_facts(q, group_id=group, limit=3) for q, *_ in SLOT_QUESTIONS]

    got = [(hits[0].name, hits[0].subject, hits[0].object) if hits else None for hits in asyncio.run(answers())]
    assert got == [tuple(expected) for _, *expected in SLOT_QUESTIONS]


def check_filters(config, group: str) -> None:
    """--intent/--source: only facts that a matching episode supports, filtered inside the query."""

    async def search(**filters):
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            reader = GraphReader.sharing(writer)
            return await reader.search_facts("Acme data migration", group_id=group, limit=10, **filters)

    def supported(hit, source=None, intent=None) -> bool:
        return any(
            (source is None or e.source == source)
            and (intent is None or f"intent={intent}" in (e.source_description or ""))
            for e in hit.episodes
        )

    risks = asyncio.run(search(intents=["escalate_risk"]))
    jira_risks = asyncio.run(search(intents=["escalate_risk"], sources=["jira"]))
    mail = asyncio.run(search(sources=["email"]))
    assert risks and all(supported(h, intent="escalate_risk") for h in risks)
    assert jira_risks and all(supported(h, "jira", "escalate_risk") for h in jira_risks)
    assert mail and all(supported(h, "email") for h in mail)
    unfiltered = asyncio.run(search())
    assert not all(supported(h, intent="escalate_risk") for h in unfiltered)  # the filter did something
    assert asyncio.run(search(intents=["close_deal"], sources=["confluence"])) == []
