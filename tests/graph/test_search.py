"""Search through the indexes (issue 13), on every backend: writing a group leaves vector indexes (with the recorded
dimension) and the full-text indexes; the indexed search answers exactly what a scan of every embedding answers and
goes through the index; a step that outlives the server-side timeout is reported as degraded, never raised."""

import asyncio
import datetime as dt
import functools

import pytest

from bench.synthetic_graph import write_synthetic
from connectors.registry import fact_extractor
from graph.read.reader import GraphReader
from graph.search_indexes import fulltext_indexes, vector_indexes
from graph.write.writer import GraphWriter
from tests.graph.scenario import JUNE, MARCH, PRIYA, TOM, contact_change, email_episode

pytestmark = pytest.mark.slow

UTC = dt.UTC
QUESTIONS = [
    "Who is the primary contact of Acme Corp?",
    "Who got the mail about the Q2 budget?",
    "Who works with Tom Berger?",
    "release plan",
]
MOMENTS = [None, dt.datetime(2026, 5, 1, tzinfo=UTC), dt.datetime(2026, 7, 1, tzinfo=UTC)]


def synchronously(test):
    """The graph drivers are async; each test runs on its own event loop."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return run


async def write_small_company(writer: GraphWriter, group_id: str) -> None:
    for episode, facts in contact_change(group_id):
        await writer.write_batch([episode], {group_id: facts})
    mails = [
        email_episode(
            group_id,
            f"<m{i}@acme.example>",
            MARCH + dt.timedelta(days=9 * i),
            title=title,
            to=(TOM, PRIYA) if i % 2 else (TOM,),
        )
        for i, title in enumerate(["Q2 budget", "release plan", "renewal terms", "incident review", "hiring"])
    ]
    await writer.write_batch(mails)


@synchronously
async def test_writing_a_group_leaves_vector_and_fulltext_indexes(backend_config, group_id):
    # given a fresh store, when a group is written
    async with GraphWriter(backend_config(), extractor=fact_extractor()) as writer:
        await write_small_company(writer, group_id)
        driver = await writer.backend.driver(group_id)
        # then both embeddings have a vector index of the recorded dimension, and graphiti's full-text indexes exist
        assert await vector_indexes(driver, group_id) == {"fact_embedding": 384, "name_embedding": 384}
        expected = (
            {"edge_name_and_fact", "node_name_and_summary"}
            if backend_config().backend == "neo4j"
            else {"RELATES_TO", "Entity"}
        )
        assert expected <= await fulltext_indexes(driver, group_id)
        # and preparing the group again (a later run) is idempotent
        writer.backend._drivers.clear()
        await writer.backend.driver(group_id)
        assert await vector_indexes(driver, group_id) == {"fact_embedding": 384, "name_embedding": 384}


@synchronously
async def test_indexed_search_answers_what_the_full_scan_answers(backend_config, group_id):
    from graph.read.search import search_facts

    async with GraphWriter(
        backend_config(), clock=lambda: JUNE + dt.timedelta(days=30), extractor=fact_extractor()
    ) as writer:
        await write_small_company(writer, group_id)
        for question in QUESTIONS:
            for moment in MOMENTS:
                # when the same question is asked through the indexes and by scanning every embedding
                indexed = await search_facts(writer, question, group_id=group_id, as_of=moment, limit=10)
                scanned = await search_facts(writer, question, group_id=group_id, as_of=moment, limit=10, exact=True)
                # then the answers agree: the head identically, the tail as an approximate index allows (Neo4j's
                # one HNSW index holds every test group of the session, so a near-tie late in the list may swap)
                head = 5
                assert [h.model_dump() for h in indexed[:head]] == [h.model_dump() for h in scanned[:head]], (
                    question,
                    moment,
                )
                assert len({h.uuid for h in indexed} & {h.uuid for h in scanned}) >= len(scanned) - 2, (
                    question,
                    moment,
                )
                assert indexed and indexed.degraded == [] and scanned.degraded == []
        now = await search_facts(writer, QUESTIONS[0], group_id=group_id)
        assert now[0].name == "HAS_CONTACT" and "Priya Nair" in now[0].fact


@synchronously
async def test_search_goes_through_the_vector_index(graph_home, group_id):
    from tests.graph.conftest import graph_config

    async with GraphWriter(graph_config("falkordb-embedded", graph_home), extractor=fact_extractor()) as writer:
        reader = GraphReader.sharing(writer)
        await write_small_company(writer, group_id)
        assert (await reader.search_facts(QUESTIONS[0], group_id=group_id)).degraded == []
        # given the fact vector index is gone (FalkorDB: the group's own graph)
        graph = writer.backend._falkor_client.select_graph(group_id)
        await graph.query("DROP VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)")
        # when searching, then the vector step fails and says so, and the other steps still answer
        hits = await reader.search_facts(QUESTIONS[0], group_id=group_id)
        assert [d.split(":")[0] for d in hits.degraded] == ["vector"]
        assert hits and hits[0].name == "HAS_CONTACT"


@synchronously
async def test_a_step_over_the_server_side_timeout_degrades_the_search(backend_config, group_id):
    from graph.read.search import search_facts

    # given a graph of ten thousand facts (the exact scan of 3,000 sometimes finished inside 1 ms) and a 1 ms timeout
    async with GraphWriter(backend_config(), extractor=fact_extractor()) as writer:
        # Neo4j's step has a client deadline too; its shared test server keeps every group, so no more than needed
        graph = await write_synthetic(writer, group_id, 3000 if writer.config.backend == "neo4j" else 10_000)
        question = graph.questions(1)[0]
        writer.config.search_timeout_ms = 1
        # when the slowest step (the full embedding scan) runs, then it is cut off and reported, not raised
        hits = await search_facts(writer, question, group_id=group_id, exact=True)
        assert "vector: timeout" in hits.degraded
        # and with time enough the same search is complete
        writer.config.search_timeout_ms = 120_000
        hits = await search_facts(writer, question, group_id=group_id, exact=True)
        assert hits.degraded == [] and hits


@synchronously
async def test_given_mails_both_ways_when_asked_who_emailed_a_person_then_facts_with_them_as_recipient_first(
    backend_config, group_id
):
    from graph.read.search import search_facts

    # given: Dana mails Tom twice, Tom mails Priya four times (Tom is the source of most facts that name him)
    mails = [
        email_episode(group_id, f"<d{i}@acme.example>", MARCH + dt.timedelta(days=i), title=t)
        for i, t in enumerate(["Q2 budget", "release plan"])
    ]
    mails += [
        email_episode(
            group_id, f"<t{i}@globex.example>", MARCH + dt.timedelta(days=5 + i), actor=TOM, to=(PRIYA,), title=t
        )
        for i, t in enumerate(["renewal terms", "incident review", "hiring", "pricing"])
    ]
    async with GraphWriter(backend_config(), extractor=fact_extractor()) as writer:
        await writer.write_batch(mails)
        # when the question asks for the sender, then Tom is the recipient of the first facts
        senders = await search_facts(writer, "Who emailed Tom Berger?", group_id=group_id, limit=5)
        # when it asks for the recipient, then Tom is the sender of the first facts
        recipients = await search_facts(writer, "Whom did Tom Berger email?", group_id=group_id, limit=5)
    assert [h.name for h in senders[:2]] == ["SENT_TO", "SENT_TO"]
    assert all("emailed Tom Berger" in h.fact for h in senders[:2]), [h.fact for h in senders]
    assert all(h.fact.startswith("Tom Berger ") for h in recipients[:4]), [h.fact for h in recipients]
