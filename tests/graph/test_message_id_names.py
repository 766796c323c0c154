"""A message known only by its message id (a reply to a mail outside the export) is written without a name vector
(to_graphiti.wants_name_vector, issue 34 part 3), on every backend; the reply is still found, and once the message
itself arrives its subject becomes the name and carries a vector."""

import asyncio
import datetime as dt

import pytest

from connectors.registry import fact_extractor
from graph.read.search import search_facts
from graph.write.writer import GraphWriter
from tests.graph.scenario import JUNE, MARCH, PRIYA, TOM, email_episode

pytestmark = pytest.mark.slow

PARENT = "<outside-1@globex.example>"


async def message_vectors(writer: GraphWriter, group_id: str) -> dict[str, bool]:
    rows = await writer.backend.query(
        group_id,
        "MATCH (n:Message) WHERE n.group_id = $g RETURN n.name AS name, n.name_embedding IS NOT NULL AS has",
        g=group_id,
    )
    return {row["name"]: bool(row["has"]) for row in rows}


def test_a_message_known_by_its_id_has_no_name_vector_until_it_arrives(backend_config, group_id):
    config = backend_config()

    async def run() -> None:
        async with GraphWriter(config, clock=lambda: JUNE, extractor=fact_extractor()) as writer:
            # given a reply to a mail the export does not hold, and the texts the pipelined write embeds
            reply = email_episode(group_id, "<r1@acme.example>", MARCH, title="Renewal terms", to=(TOM,), parent=PARENT)
            writer.embedder._cache.clear()
            await writer.write_batches([[reply]])
            # then the reply is named by its subject with a vector, the parent by its id without one
            assert await message_vectors(writer, group_id) == {"Renewal terms": True, PARENT: False}
            assert PARENT not in writer.embedder._cache
            # and the reply is found by what it is about, without a degraded step
            hits = await search_facts(writer, "Who replied about the renewal terms?", group_id=group_id, limit=8)
            assert hits.degraded == []
            assert any(h.name == "REPLIED_TO" for h in hits), [(h.name, h.fact) for h in hits]
            # when the parent itself arrives later
            parent = email_episode(group_id, PARENT, MARCH - dt.timedelta(days=1), title="Renewal draft", to=(PRIYA,))
            await writer.write_batch([parent])
            # then it is named by its subject and carries a vector
            assert await message_vectors(writer, group_id) == {"Renewal terms": True, "Renewal draft": True}

    asyncio.run(run())
