"""What the graph knew when, on every backend: Acme's contact changes and changes back, and a late record (valid in
April, ingested in June) re-times a fact; --known-at, --as-of, both together and history answer from the graph as it is
now. A backfill over older partitions moves no created_at backwards, un-expires nothing, leaves newer facts alone."""

import asyncio

import pytest

from connectors.registry import fact_extractor
from graph.read.history import AmbiguousSubject
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from tests.graph.audit_scenario import QUESTION, STEPS, Clock, at, edge_times, ingest

NIGHTS = [s[3] for s in STEPS]


def contacts(hits) -> list[tuple]:
    return [(h.object, h.valid_at, h.invalid_at) for h in hits if h.name == "HAS_CONTACT"]


async def written(config, group_id: str) -> None:
    clock = Clock(NIGHTS[0])
    async with GraphWriter(config, clock=clock, extractor=fact_extractor()) as writer:
        await ingest(writer, clock, group_id, [0, 1, 2, 3])


def test_known_at_as_of_and_history_after_a_correction_and_a_late_record(backend_config, group_id):
    # given the four nights written, and a reader of the graph as it is now
    config = backend_config()
    asyncio.run(written(config, group_id))

    async def ask():
        async with GraphReader(config) as reader:

            async def q(**kw):
                return contacts(await reader.search_facts(QUESTION, group_id=group_id, limit=10, **kw))

            return {
                "feb": await q(known_at=at("2026-02-01")),
                "apr": await q(known_at=at("2026-04-01")),
                "apr_asof_feb": await q(known_at=at("2026-04-01"), as_of=at("2026-02-01")),
                "apr_asof_apr15": await q(known_at=at("2026-04-01"), as_of=at("2026-04-15")),
                "may_asof_apr15": await q(known_at=at("2026-05-01"), as_of=at("2026-04-15")),
                "jun_asof_apr15": await q(known_at=at("2026-06-01"), as_of=at("2026-04-15")),
                "jul_asof_apr15": await q(known_at=at("2026-07-01"), as_of=at("2026-04-15")),
                "now_asof_apr15": await q(as_of=at("2026-04-15")),
                "jul": await q(known_at=at("2026-07-01")),
                "before": await q(known_at=at("2026-01-01")),
                "history": await reader.fact_history("Acme Corp", group_id=group_id),
                "by_key": await reader.fact_history("org:acme.example", group_id=group_id, relation="contact"),
                "hits": await reader.search_facts(
                    QUESTION, group_id=group_id, known_at=at("2026-04-01"), as_of=at("2026-04-15")
                ),
            }

    got = asyncio.run(ask())
    dana1, priya, dana2, lee = (s[1] for s in STEPS)
    # then known-at alone: the facts the graph held then (recorded, not yet superseded), the end as known then
    assert got["before"] == []
    assert got["feb"] == [("Dana Whitfield", dana1, None)]
    assert got["apr"] == [("Priya Nair", priya, None)]
    assert got["jul"] == [("Dana Whitfield", dana2, None)]
    # and both together: what the graph at t said held at d — closed facts included, their end as known at t
    assert got["apr_asof_feb"] == [("Dana Whitfield", dana1, priya)]
    assert got["apr_asof_apr15"] == [("Priya Nair", priya, None)]  # open as known on 1 April
    assert got["may_asof_apr15"] == [("Priya Nair", priya, None)]  # Lee's record not yet ingested
    assert got["jun_asof_apr15"] == [("Priya Nair", priya, dana2)]  # ended by the change back
    assert got["jul_asof_apr15"] == [("Lee Chen", lee, dana2)]  # the late record, once known
    assert got["now_asof_apr15"] == got["jul_asof_apr15"]
    hit = next(h for h in got["hits"] if h.name == "HAS_CONTACT")
    assert hit.interval_exact is True and hit.known_at == at("2026-04-01")
    assert [e.name for e in hit.episodes] == ["acct-001/hist-2"]
    # and history: every value in valid-time order with both clocks and its source
    values = got["history"].values
    assert [(v.value, v.valid_at, v.invalid_at) for v in values] == [
        ("Dana Whitfield", dana1, priya),
        ("Priya Nair", priya, lee),
        ("Lee Chen", lee, dana2),
        ("Dana Whitfield", dana2, None),
    ]
    assert [(v.created_at, v.expired_at) for v in values] == [
        (NIGHTS[0], NIGHTS[1]),
        (NIGHTS[1], NIGHTS[3]),
        (NIGHTS[3], NIGHTS[3]),
        (NIGHTS[2], None),
    ]
    assert [(r.at, r.invalid_at) for r in values[1].revisions] == [
        (NIGHTS[1], None),
        (NIGHTS[2], dana2),
        (NIGHTS[3], lee),
    ]  # when the graph learned each end
    assert [e.source_key for e in values[2].episodes] == ["acct-001/hist-4"]
    assert got["by_key"].subject.name == "Acme Corp" and len(got["by_key"].values) == 4


def test_history_lists_candidates_when_the_subject_is_ambiguous_or_misspelt(backend_config, group_id):
    config = backend_config()
    asyncio.run(written(config, group_id))

    async def ask(subject, relation=None):
        async with GraphReader(config) as reader:
            return await reader.fact_history(subject, group_id=group_id, relation=relation)

    with pytest.raises(AmbiguousSubject, match=r"Acme Corp \(org:acme.example\)") as caught:
        asyncio.run(ask("Acme Crop"))
    assert [c.name for c in caught.value.candidates] == ["Acme Corp"]
    with pytest.raises(AmbiguousSubject, match="--relation assignee"):
        asyncio.run(ask("Acme", "assignee"))


def test_backfill_of_older_partitions_keeps_both_clocks(backend_config, group_id):
    # given nights 1-3 written, and the state of every contact fact
    config = backend_config()
    clock = Clock(NIGHTS[0])

    async def go():
        async with GraphWriter(config, clock=clock, extractor=fact_extractor()) as writer:
            await ingest(writer, clock, group_id, [0, 1, 2])
            before = await edge_times(writer.backend, group_id)
            # when the older partitions are backfilled again on a later night (a rerun), then the late April record
            await ingest(writer, clock, group_id, [0, 1], night=at("2026-06-19", 2))
            rerun = await edge_times(writer.backend, group_id)
            await ingest(writer, clock, group_id, [3])
            after = await edge_times(writer.backend, group_id)
        return before, rerun, after

    before, rerun, after = asyncio.run(go())
    # then the rerun changes nothing at all
    assert rerun == before
    # and the April record leaves the newer fact (Dana from May) exactly as it was
    newer = ("Dana Whitfield", STEPS[2][1])
    assert after[newer] == before[newer]
    # and no created_at moved, nothing expired was un-expired, no expiry moved backwards
    for key, (created, _, expired) in before.items():
        assert after[key][0] == created
        if expired is not None:
            assert after[key][2] is not None and after[key][2] >= expired
    assert after[("Lee Chen", STEPS[3][1])][0] == NIGHTS[3]  # recorded when it arrived


def test_backfill_does_not_revive_a_record_deleted_upstream(backend_config, group_id):
    # given the four nights, then Lee's April record deleted upstream (its facts end, Priya holds until May again)
    from tests.graph.audit_scenario import step

    config = backend_config()
    clock = Clock(NIGHTS[0])
    lee_episode = step(group_id, 3)[0].id

    async def go():
        async with GraphWriter(config, clock=clock, extractor=fact_extractor()) as writer:
            await ingest(writer, clock, group_id, [0, 1, 2, 3])
            clock.now = at("2026-06-26", 2)
            await writer.invalidate_episodes([lee_episode], at("2026-06-25"), group_id)
            before = await edge_times(writer.backend, group_id)
            # when a backfill of April brings the same record again
            await ingest(writer, clock, group_id, [3], night=at("2026-06-27", 2))
            after = await edge_times(writer.backend, group_id)
            rows = await writer.backend.query(
                group_id,
                "MATCH ()-[e:RELATES_TO]->(o:Entity {name: 'Lee Chen'}) "
                "WHERE e.group_id = $g RETURN e.tombstoned_at AS t",
                g=group_id,
            )
        return before, after, rows

    before, after, rows = asyncio.run(go())
    # then nothing changes: the deleted record stays ended and Priya's restored end stays
    assert after == before
    assert before[("Priya Nair", STEPS[1][1])][1] == STEPS[2][1]
    assert len(rows) == 1 and rows[0]["t"] is not None
