"""Episode search, get and list on real graphs (embedded FalkorDB and Neo4j): filters return exactly the matching
episodes, alone and combined, and paging visits every episode once."""

import asyncio
import datetime as dt

import pytest

from connectors.registry import fact_extractor
from graph.read.episode_read import EpisodeFilters
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from ground.records import Actor
from tests.graph.scenario import DANA, TOM, email_episode

pytestmark = pytest.mark.slow
UTC = dt.UTC
TOM_ACTOR = Actor(type="human", id=TOM.id, name=TOM.name, email=TOM.email)

# key, day of May 2026, actor, intent, title
MAILS = [
    ("<e1@acme.example>", 4, DANA, "escalate_risk", "Warehouse migration at risk"),
    ("<e2@acme.example>", 6, TOM_ACTOR, "confirm_date", "Warehouse migration delivery date"),
    ("<e3@acme.example>", 9, DANA, "decision", "Warehouse migration budget"),
    ("<e4@acme.example>", 12, TOM_ACTOR, "escalate_risk", "Invoice export broken"),
    ("<e5@acme.example>", 15, DANA, "other", "Thanks for the lunch"),
]


def episodes(group_id):
    return [
        email_episode(group_id, key, dt.datetime(2026, 5, day, 9, tzinfo=UTC), actor=actor, intent=intent, title=title)
        for key, day, actor, intent, title in MAILS
    ]


@pytest.fixture
def written(backend_config, group_id):
    """Given five mails written to the graph, returns a function running a coroutine against a reader."""
    config = backend_config(domain_orgs={"acme.example": "Acme Corp"})

    async def write():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch(episodes(group_id))

    asyncio.run(write())

    def read(fn):
        async def go():
            async with GraphReader(config) as reader:
                return await fn(reader)

        return asyncio.run(go())

    return read


def keys(found) -> set[str]:
    return {e.source_key for e in found}


def test_search_finds_by_words_and_each_filter_alone_and_combined(written, group_id):
    def search(filters=None, query="warehouse migration"):
        return written(lambda r: r.search_episodes(query, group_id=group_id, filters=filters, limit=50))

    assert keys(search()) == {"<e1@acme.example>", "<e2@acme.example>", "<e3@acme.example>"}
    assert keys(search(EpisodeFilters(intents=["escalate_risk"]))) == {"<e1@acme.example>"}
    assert keys(search(EpisodeFilters(actor="tom.berger@globex.example"))) == {"<e2@acme.example>"}
    assert keys(search(EpisodeFilters(actor="dana"))) == {"<e1@acme.example>", "<e3@acme.example>"}
    assert keys(search(EpisodeFilters(sources=["jira"]))) == set()
    assert keys(
        search(EpisodeFilters(since=dt.datetime(2026, 5, 6, tzinfo=UTC), until=dt.datetime(2026, 5, 9, 9, tzinfo=UTC)))
    ) == {"<e2@acme.example>"}
    combined = EpisodeFilters(
        intents=["escalate_risk", "decision"],
        actor="dana",
        sources=["email"],
        since=dt.datetime(2026, 5, 5, tzinfo=UTC),
    )
    assert keys(search(combined)) == {"<e3@acme.example>"}
    assert keys(search(EpisodeFilters(intents=["escalate_risk"]), query="invoice export")) == {"<e4@acme.example>"}


def test_search_hits_carry_what_an_agent_cites(written, group_id):
    [hit] = written(lambda r: r.search_episodes("invoice export", group_id=group_id, limit=5))
    assert (hit.source, hit.source_key, hit.intent, hit.actor_name, hit.actor_email) == (
        "email",
        "<e4@acme.example>",
        "escalate_risk",
        "Tom Berger",
        "tom.berger@globex.example",
    )
    assert hit.valid_at == dt.datetime(2026, 5, 12, 9, tzinfo=UTC)
    assert hit.created_at is not None and "Invoice export broken" in hit.snippet and hit.score > 0


def test_list_pages_newest_first_through_every_matching_episode_once(written, group_id):
    seen, cursor = [], None
    while True:
        page = written(lambda r, c=cursor: r.list_episodes(group_id=group_id, cursor=c, limit=2))
        seen.extend(e.source_key for e in page.episodes)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [key for key, *_ in reversed(MAILS)]
    risky = written(lambda r: r.list_episodes(group_id=group_id, filters=EpisodeFilters(intents=["escalate_risk"])))
    assert [e.source_key for e in risky.episodes] == ["<e4@acme.example>", "<e1@acme.example>"]
    assert risky.next_cursor is None


def test_get_by_id_or_source_key_returns_content_and_supported_facts(written, group_id):
    by_key = written(lambda r: r.get_episode("<e3@acme.example>", group_id=group_id))
    assert by_key is not None and by_key.intent == "decision" and "we agreed on the numbers" in by_key.content
    by_id = written(lambda r: r.get_episode(by_key.uuid, group_id=group_id))
    assert by_id.uuid == by_key.uuid
    facts = {(f.name, f.fact) for f in by_key.facts}
    assert ("SENT", "Dana Whitfield sent the email 'Warehouse migration budget' on 2026-05-09") in facts
    assert ("SENT_TO", "Dana Whitfield emailed Tom Berger about 'Warehouse migration budget' on 2026-05-09") in facts
    assert all(f.valid_at is not None for f in by_key.facts if f.name.startswith("SENT"))
    assert written(lambda r: r.get_episode("<nope@acme.example>", group_id=group_id)) is None
