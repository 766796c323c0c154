"""GraphWriter on a real embedded FalkorDB (and Neo4j where the backend fixture says so)."""

import asyncio
import datetime as dt

import pytest

from connectors.registry import fact_extractor
from graph.config import ConfigError, EmbedderMismatch, GraphConfig
from graph.sync_facade import SyncGraphReader, SyncGraphWriter
from graph.write.writer import GraphWriter
from ground.episode import Episode
from ground.records import Actor
from tests.graph.scenario import ATTACHMENT, DANA, JUNE, LEE, MARCH, PRIYA, TOM, contact_change, email_episode
from transforms.facts import entity_uuid

pytestmark = pytest.mark.slow
UTC = dt.UTC


async def counts(writer: GraphWriter, group_id: str) -> dict[str, int]:
    q = writer.backend.query
    nodes = await q(group_id, "MATCH (n) WHERE n.group_id = $g RETURN count(n) AS c", g=group_id)
    rels = await q(group_id, "MATCH ()-[e]->() WHERE e.group_id = $g RETURN count(e) AS c", g=group_id)
    return {"nodes": nodes[0]["c"], "edges": rels[0]["c"]}


def mail_batch(group_id: str) -> list[Episode]:
    first = email_episode(
        group_id, "<m1@acme.example>", MARCH, cc=(LEE,), refs=["jira:PHX-42"], attachments=[ATTACHMENT]
    )
    reply_actor = Actor(type="human", id=TOM.id, name=TOM.name, email=TOM.email)
    dana = type(TOM)(id=DANA.id, name=DANA.name, email=DANA.email)
    reply = email_episode(
        group_id,
        "<m2@globex.example>",
        MARCH + dt.timedelta(hours=3),
        actor=reply_actor,
        to=(dana,),
        title="Re: Q2 budget",
        parent="<m1@acme.example>",
    )
    return [first, reply]


def test_rerun_of_the_same_batch_writes_nothing_new(backend_config, group_id):
    async def go():
        async with GraphWriter(
            backend_config(domain_orgs={"acme.example": "Acme Corp"}), extractor=fact_extractor()
        ) as writer:
            first = await writer.write_batch(mail_batch(group_id))
            before = await counts(writer, group_id)
            again = await writer.write_batch(mail_batch(group_id))
            after = await counts(writer, group_id)
            return first, before, again, after

    first, before, again, after = asyncio.run(go())
    assert first.episodes_written == 2 and first.facts_new == first.facts_written > 0
    assert before == after
    assert (again.episodes_new, again.entities_new, again.facts_new, again.facts_invalidated) == (0, 0, 0, 0)
    assert again.facts_written == first.facts_written and len(again.per_episode_seconds) == 2
    # per kind and relation (graph metadata): both mails are decisions, each one DECIDED event
    assert first.facts_by_kind["intent"] == first.facts_by_relation["DECIDED"] == 2
    assert sum(first.facts_by_kind.values()) == sum(first.facts_by_relation.values()) == first.facts_written
    assert first.facts_by_relation["SENT"] == 2 and set(first.facts_by_kind) == {"structured", "intent"}


def test_email_episodes_person_dedup_by_email_and_graphiti_can_read_them(backend_config, group_id):
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    episodes = mail_batch(group_id)

    async def go():
        async with GraphWriter(
            backend_config(domain_orgs={"acme.example": "Acme Corp"}), extractor=fact_extractor()
        ) as writer:
            await writer.write_batch(episodes)
            driver = await writer.backend.driver(group_id)
            people = await writer.backend.query(
                group_id,
                "MATCH (n:Entity:Person) WHERE n.group_id = $g RETURN n.name AS name, n.email AS email",
                g=group_id,
            )
            episode = await EpisodicNode.get_by_uuid(driver, episodes[0].id)  # graphiti's own reader
            props = await writer.backend.query(
                group_id,
                "MATCH (n:Episodic {uuid: $u}) RETURN n.intent AS intent, n.references AS refs, "
                "n.source_system AS source, n.kind AS kind, n.fingerprint AS fp, "
                "n.intent_confidence AS conf",
                u=episodes[0].id,
            )
            edges = await EntityEdge.get_by_uuids(driver, episode.entity_edges)
            dana = await EntityNode.get_by_uuid(driver, entity_uuid(group_id, "person:dana.whitfield@acme.example"))
            decisions = await writer.backend.query(
                group_id,
                "MATCH (n:Episodic) WHERE n.group_id = $g AND n.intent = 'decision' AND n.valid_at <= $d "
                "RETURN count(n) AS c",
                g=group_id,
                d=MARCH + dt.timedelta(hours=1),
            )
            return people, episode, props[0], edges, dana, decisions[0]["c"]

    people, episode, props, edges, dana, decisions = asyncio.run(go())
    emails = sorted(p["email"] for p in people)
    assert emails == sorted({"dana.whitfield@acme.example", "tom.berger@globex.example", "lee@acme.example"})
    assert episode.name == "<m1@acme.example>" and episode.source_description == "email/email intent=decision"
    assert episode.valid_at == MARCH and episode.group_id == group_id
    assert props == {
        "intent": "decision",
        "refs": ["jira:PHX-42"],
        "source": "email",
        "kind": "email",
        "fp": "fp-<m1@acme.example>",
        "conf": pytest.approx(0.87),
    }
    predicates = sorted(e.name for e in edges)
    assert {"SENT", "SENT_TO", "CC", "HAS_ATTACHMENT", "MENTIONS_ISSUE", "WORKS_AT"} <= set(predicates)
    assert dana.name == "Dana Whitfield" and "Person" in dana.labels
    assert decisions == 1  # filter by intent and time on the Episodic node
    assert any(e.fact == "Dana Whitfield emailed Tom Berger about 'Q2 budget' on 2026-03-02" for e in edges)


def test_embedder_mismatch_stops_before_writing(graph_home):
    group = "acme"
    config = GraphConfig(home=graph_home)
    other = GraphConfig(
        home=graph_home,
        embedder="openai",
        embedder_model="text-embedding-3-small",
        embedder_api_key="sk-never-used",
        embedder_base_url="http://127.0.0.1:9/v1",
        embedding_dim=384,
    )

    async def go():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch([email_episode(group, "<a@acme.example>", MARCH)])
            before = await counts(writer, group)
        async with GraphWriter(other, extractor=fact_extractor()) as writer:
            with pytest.raises(EmbedderMismatch, match="minilm-local"):
                await writer.write_batch([email_episode(group, "<b@acme.example>", JUNE)])
            after = await counts(writer, group)
        return before, after

    before, after = asyncio.run(go())
    assert before == after


def test_bad_group_id_and_llm_mode_are_clear_config_errors(graph_home):
    with pytest.raises(ConfigError, match="letters, digits and '_'"):
        from ground.identity import validate_group_id

        validate_group_id("acme-prod")
    with pytest.raises(ConfigError, match="needs an LLM endpoint"):
        GraphWriter(GraphConfig(home=graph_home, extraction={"email": "llm"}), extractor=fact_extractor())

    async def go():
        async with GraphWriter(GraphConfig(home=graph_home), extractor=fact_extractor()) as writer:
            with pytest.raises(ConfigError):
                await writer.write_batch([email_episode("acme-prod", "<c@acme.example>", MARCH)])

    asyncio.run(go())


def test_tombstone_invalidates_only_facts_of_that_episode_and_restores_the_predecessor(graph_home):
    group = "acme"
    steps = contact_change(group)
    at = dt.datetime(2026, 8, 1, tzinfo=UTC)
    with SyncGraphWriter(GraphConfig(home=graph_home), extractor=fact_extractor()) as writer:
        reader = SyncGraphReader(writer)
        for episode, facts in steps:
            writer.write_batch([episode], {group: facts})
        invalidated = writer.invalidate_episodes([steps[1][0].id], at)  # June record deleted upstream
        hits = reader.search("Who is the primary contact of Acme Corp?", group_id=group)
    assert invalidated == 1
    current = [h for h in hits if h.holds_at(dt.datetime(2026, 9, 1, tzinfo=UTC))]
    assert [h.object for h in current if h.name == "HAS_CONTACT"] == ["Dana Whitfield"]
    priya = next(h for h in hits if h.object == "Priya Nair")
    assert priya.invalid_at == at and priya.expired_at is not None


def test_search_without_an_llm_never_calls_one(graph_home):
    with SyncGraphWriter(GraphConfig(home=graph_home), extractor=fact_extractor()) as writer:
        reader = SyncGraphReader(writer)
        writer.write_batch(mail_batch("acme"))
        hits = reader.search("Who replied about the budget?", group_id="acme", limit=5)
        llm = writer._run(writer.writer.graphiti("acme")).llm_client
    assert hits and llm.calls == 0
    assert any(h.name == "REPLIED_TO" for h in hits) or any("Re: Q2 budget" in h.fact for h in hits)


def test_pipelined_batches_write_the_same_graph_with_every_text_embedded_ahead(graph_home, group_id):
    # given two batches of mails, written once one by one and once pipelined into another group
    other = group_id + "_pipelined"
    first, second = mail_batch(group_id), []
    second = [email_episode(group_id, "<m3@acme.example>", JUNE, to=(PRIYA,), title="Renewal terms")]

    def regroup(episodes: list[Episode]) -> list[Episode]:
        return [e.model_copy(update={"group_id": other}) for e in episodes]

    async def go():
        async with GraphWriter(GraphConfig(home=graph_home), extractor=fact_extractor()) as writer:
            for batch in (first, second):
                await writer.write_batch(batch)
            sequential = await counts(writer, group_id)
            # when the same batches are written with write_batches (batch 2 embeds while batch 1 writes)
            writer.embedder._cache.clear()
            results = await writer.write_batches([regroup(first), regroup(second)])
            pipelined = await counts(writer, other)
            wanted = set(writer.texts_to_embed(regroup(first) + regroup(second)))
            return sequential, pipelined, results, wanted, set(writer.embedder._cache)

    sequential, pipelined, results, wanted, cached = asyncio.run(go())
    # then the graph has the same shape, each batch has its result, and every text was embedded (once, cached)
    assert pipelined == sequential and pipelined["edges"] > 0
    assert [r.episodes_written for r in results] == [2, 1]
    assert wanted and wanted <= cached


def test_the_write_helpers_need_only_a_write_context_never_the_writer(graph_home, group_id):
    """Issue 30: structured_writes and tombstones take a WriteContext (or its backend and clock), so they run with
    parts assembled without any GraphWriter."""
    from graph.backend import GraphBackend
    from graph.embedders import make_embedder
    from graph.write.sink import BatchResult
    from graph.write.structured_writes import write_group
    from graph.write.tombstones import invalidate_episodes
    from graph.write.write_context import WriteContext
    from ground.fact_model import merge_factsets

    # given a mail and its reply, their facts, and a context built from plain parts
    config = GraphConfig(home=graph_home)
    episodes = mail_batch(group_id)
    parts = [fact_extractor()(e, {}) for e in episodes]
    facts = merge_factsets(parts)
    mentions = {e.id: list(p.mentions) for e, p in zip(episodes, parts)}

    async def go():
        backend = GraphBackend(config)
        await backend.open()
        try:
            context = WriteContext(
                config=config,
                backend=backend,
                clock=lambda: JUNE,
                embedder=make_embedder(config),
                embedder_name=config.embedder_identity(),
                session_id="no-writer",
            )
            # when the batch is written and the reply is deleted upstream
            result = BatchResult()
            await write_group(context, group_id, episodes, facts, mentions, result)
            ended = await invalidate_episodes(backend, context.clock, [episodes[1].id], JUNE, group_id)
            return result, ended
        finally:
            await backend.close()

    result, ended = asyncio.run(go())
    # then both episodes and every fact are written, and the facts only the reply supported end
    assert result.episodes_written == 2
    assert result.facts_written == len(facts.facts) > 0
    assert ended > 0
