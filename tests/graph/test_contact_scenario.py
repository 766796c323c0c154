"""Contact-person change as single-valued facts (March: Dana is Acme's contact, June: Priya), in order and out of order,
on every backend: the old edge ends at the change time and is expired, the new one is current, both orders give the
same edges, and search answers now -> Priya (with her source episode), as of 2026-05-01 -> Dana."""

import asyncio
import datetime as dt

import pytest

from connectors.registry import fact_extractor
from graph.read.reader import GraphReader
from graph.write.writer import GraphWriter
from tests.graph.scenario import JUNE, MARCH, contact_change

pytestmark = pytest.mark.slow

UTC = dt.UTC
QUESTION = "Who is the primary contact of Acme Corp?"


async def edge_state(writer: GraphWriter, group_id: str) -> dict[str, dict]:
    rows = await writer.backend.query(
        group_id,
        "MATCH (s:Entity)-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g RETURN e.uuid AS uuid, "
        "e.name AS name, e.fact AS fact, s.name AS subject, o.name AS object, e.valid_at AS valid_at, "
        "e.invalid_at AS invalid_at, e.expired_at AS expired_at, e.episodes AS episodes",
        g=group_id,
    )
    from graph.backend import as_datetime

    return {
        r["uuid"]: {
            **r,
            "valid_at": as_datetime(r["valid_at"]),
            "invalid_at": as_datetime(r["invalid_at"]),
            "expired_at": as_datetime(r["expired_at"]),
            "episodes": sorted(r["episodes"]),
        }
        for r in rows
    }


async def run_scenario(config, group_id: str, order: list[int], ingest_times: list[dt.datetime]):
    steps = contact_change(group_id)
    clock_values = iter(ingest_times)
    current = {"t": ingest_times[0]}

    def clock():
        return current["t"]

    async with GraphWriter(config, clock=clock, extractor=fact_extractor()) as writer:
        reader = GraphReader.sharing(writer)
        results = []
        for i in order:
            current["t"] = next(clock_values)
            episode, facts = steps[i]
            results.append(await writer.write_batch([episode], {group_id: facts}))
        state = await edge_state(writer, group_id)
        now_hits = await reader.search_facts(QUESTION, group_id=group_id, limit=5)
        asof_hits = await reader.search_facts(
            QUESTION, group_id=group_id, as_of=dt.datetime(2026, 5, 1, tzinfo=UTC), limit=5
        )
    return steps, results, state, now_hits, asof_hits


def check_state(state: dict, ingested_second: dt.datetime) -> None:
    by_object = {e["object"]: e for e in state.values() if e["name"] == "HAS_CONTACT"}
    assert set(by_object) == {"Dana Whitfield", "Priya Nair"}
    dana, priya = by_object["Dana Whitfield"], by_object["Priya Nair"]
    assert dana["valid_at"] == MARCH
    assert dana["invalid_at"] == JUNE  # ended at the change time
    assert dana["expired_at"] == ingested_second  # superseded in the graph when June/March met
    assert priya["valid_at"] == JUNE
    assert priya["invalid_at"] is None and priya["expired_at"] is None


def shape(state: dict) -> set:
    return {
        (
            e["name"],
            e["fact"],
            e["subject"],
            e["object"],
            e["valid_at"],
            e["invalid_at"],
            e["expired_at"],
            len(e["episodes"]),
        )
        for e in state.values()
    }


def test_contact_change_in_order_and_out_of_order_give_the_same_graph(backend_config, group_id, tmp_path):
    t1, t2 = dt.datetime(2026, 7, 1, 2, tzinfo=UTC), dt.datetime(2026, 7, 2, 2, tzinfo=UTC)
    config = backend_config()
    steps, results, in_order, now_hits, asof_hits = asyncio.run(run_scenario(config, group_id, [0, 1], [t1, t2]))
    check_state(in_order, t2)
    assert results[1].facts_invalidated == 1

    # search now: Priya first, with her source episode
    assert now_hits, "search found nothing"
    top = now_hits[0]
    assert top.object == "Priya Nair" and top.name == "HAS_CONTACT" and top.invalid_at is None
    june_episode = steps[1][0]
    assert [e.uuid for e in top.episodes] == [june_episode.id]
    assert top.episodes[0].name == june_episode.metadata.source_key and top.episodes[0].source == "salesforce"
    # history comes after: Dana is listed but flagged as ended
    dana_hits = [h for h in now_hits if h.object == "Dana Whitfield"]
    assert dana_hits and dana_hits[0].invalid_at == JUNE and now_hits.index(dana_hits[0]) > 0
    # as of 2026-05-01: Dana, and Priya is not valid yet
    contacts = [h.object for h in asof_hits if h.name == "HAS_CONTACT"]
    assert contacts == ["Dana Whitfield"]

    # the same scenario out of order (June first) in a fresh group gives identical edges
    other = group_id + "_ooo"
    _, results_ooo, out_of_order, now_ooo, asof_ooo = asyncio.run(run_scenario(config, other, [1, 0], [t1, t2]))
    check_state(out_of_order, t2)
    assert results_ooo[1].facts_invalidated == 1  # March arrived already superseded
    # uuids include the group id, so compare everything but the uuid
    assert shape(in_order) == shape(out_of_order)
    assert now_ooo[0].object == "Priya Nair"
    assert [h.object for h in asof_ooo if h.name == "HAS_CONTACT"] == ["Dana Whitfield"]


def test_same_group_out_of_order_rerun_is_stable(backend_config, group_id):
    """Writing both orders into ONE group (June, March, then June, March again) converges to one identical state."""
    t = [dt.datetime(2026, 7, d, tzinfo=UTC) for d in (1, 2, 3, 4)]
    config = backend_config()
    *_, first, _, _ = asyncio.run(run_scenario(config, group_id, [1, 0], t[:2]))
    *_, again, _, _ = asyncio.run(run_scenario(config, group_id, [0, 1], t[2:]))
    assert first == again  # nothing moved, expired_at kept its first value
