"""A fact repeated by many mails (a person's WORKS_AT) collects every mail's episode id once, on every backend, while
its write stops shipping what the graph already holds (issue 34, part 4): the stored id list is appended to on the
server, and an unchanged fact text or entity name is neither embedded nor sent again."""

import asyncio
import datetime as dt

import pytest

from connectors.registry import fact_extractor
from graph.backend import as_datetime
from graph.write.writer import GraphWriter
from ground.episode import Actor
from tests.graph.scenario import DANA, LEE, MARCH, TOM, email_episode

pytestmark = pytest.mark.slow

WORKS_AT = "Dana Whitfield works at acme.example"
TITLES = ["Q2 budget", "release plan", "renewal terms", "incident review"]


async def works_at(writer: GraphWriter, group_id: str) -> dict:
    rows = await writer.backend.query(
        group_id,
        "MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g AND e.fact = $fact "
        "RETURN e.episodes AS episodes, e.valid_at AS valid_at, e.created_at AS created_at, "
        "e.fact_embedding IS NOT NULL AS has_vector",
        g=group_id,
        fact=WORKS_AT,
    )
    assert len(rows) == 1, rows
    return rows[0]


def test_a_fact_repeated_in_n_batches_holds_the_n_episode_ids_once_each(backend_config, group_id):
    config = backend_config()
    # the last mail is the earliest: valid_at must still move back to it
    days = [10, 20, 30, 0]
    mails = [
        email_episode(group_id, f"<r{i}@acme.example>", MARCH + dt.timedelta(days=d), actor=DANA, title=title)
        for i, (d, title) in enumerate(zip(days, TITLES))
    ]
    clock = iter([MARCH + dt.timedelta(days=100 + i) for i in range(10)])

    async def run() -> None:
        async with GraphWriter(config, clock=lambda: next(clock), extractor=fact_extractor()) as writer:
            # given the first mail written
            await writer.write_batch([mails[0]])
            first = await works_at(writer, group_id)
            assert first["episodes"] == [mails[0].id] and first["has_vector"]
            # when each later mail comes in a batch of its own, the embedder's cache emptied before each
            for mail in mails[1:]:
                writer.embedder._cache.clear()
                await writer.write_batch([mail])
                embedded = set(writer.embedder._cache)
                # then the repeated fact and the known person are not embedded again; the new mail's facts are
                assert WORKS_AT not in embedded and "Dana Whitfield" not in embedded, embedded
                assert any(mail.metadata.title in text for text in embedded), embedded
            # and a rerun of a batch adds nothing
            await writer.write_batch([mails[1]])
            edge = await works_at(writer, group_id)
            # then the fact holds every mail's episode id exactly once
            assert sorted(edge["episodes"]) == sorted(m.id for m in mails)
            assert len(edge["episodes"]) == len(mails)
            # and its times are those of a merge: valid from the earliest mail, recorded at the first write
            assert as_datetime(edge["valid_at"]) == MARCH
            assert as_datetime(edge["created_at"]) == as_datetime(first["created_at"])
            # and it keeps the vector it was written with
            assert edge["has_vector"]

    asyncio.run(run())


def test_a_renamed_entity_and_its_changed_fact_get_the_new_vectors(backend_config, group_id):
    config = backend_config()
    named = Actor(id=LEE.id, name="Lee Park", email=LEE.email)

    async def run() -> None:
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            # given Lee known by address only, then a mail from him with his name
            await writer.write_batch([email_episode(group_id, "<l1@acme.example>", MARCH, to=(LEE,))])
            await writer.write_batch([email_episode(group_id, "<l2@acme.example>", MARCH, actor=named, to=(TOM,))])
            # when the stored vectors are read
            rows = await writer.backend.query(
                group_id,
                "MATCH (p:Entity)-[e:RELATES_TO]->() WHERE p.group_id = $g AND p.name = 'Lee Park' "
                "AND e.name = 'WORKS_AT' RETURN p.name_embedding AS name_vector, e.fact AS fact, "
                "e.fact_embedding AS fact_vector",
                g=group_id,
            )
            # then both are those of the new texts: the stored ones were replaced, not kept
            assert len(rows) == 1 and rows[0]["fact"] == "Lee Park works at acme.example", rows
            expected = await writer.embedder.create_batch(["Lee Park", "Lee Park works at acme.example"])
            for stored, vector in zip((rows[0]["name_vector"], rows[0]["fact_vector"]), expected):
                assert stored is not None and max(abs(a - b) for a, b in zip(stored, vector)) < 1e-5

    asyncio.run(run())
