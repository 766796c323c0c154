"""Shared material for the audit tests: Acme's primary contact over five nights, with a correction and a late record.

Valid time (world)          ingested (the writer's clock)
  Dana   from 2026-01-05    night 1, 2026-01-06 02:00
  Priya  from 2026-03-10    night 2, 2026-03-11 02:00   (Dana ends)
  Dana   from 2026-05-20    night 3, 2026-05-21 02:00   (changed back: Priya ends 05-20)
  Lee    from 2026-04-01    night 4, 2026-06-20 02:00   (late: a backfill of April; Priya now ends 04-01)
"""

import datetime as dt

from ground.records import Actor
from tests.graph.scenario import DANA, PRIYA, contact_episode, contact_facts

UTC = dt.UTC
QUESTION = "Who is the primary contact of Acme Corp?"
DANA_ACTOR = Actor(id=DANA.id, name=DANA.name, email=DANA.email)
LEE = Actor(id="lee.chen@acme.example", name="Lee Chen", email="lee.chen@acme.example")


def at(day: str, hour: int = 0) -> dt.datetime:
    return dt.datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


STEPS = [  # (record key, valid from, contact, night it was ingested)
    ("acct-001/hist-1", at("2026-01-05", 9), DANA_ACTOR, at("2026-01-06", 2)),
    ("acct-001/hist-2", at("2026-03-10", 9), PRIYA, at("2026-03-11", 2)),
    ("acct-001/hist-3", at("2026-05-20", 9), DANA_ACTOR, at("2026-05-21", 2)),
    ("acct-001/hist-4", at("2026-04-01", 9), LEE, at("2026-06-20", 2)),
]


def step(group_id: str, i: int):
    key, valid, person, _ = STEPS[i]
    episode = contact_episode(group_id, key, valid, person.name)
    return episode, contact_facts(episode, person)


class Clock:
    """The writer's clock, moved by the test from night to night."""

    def __init__(self, start: dt.datetime):
        self.now = start

    def __call__(self) -> dt.datetime:
        return self.now


async def ingest(writer, clock: Clock, group_id: str, steps: list[int], *, night: dt.datetime | None = None) -> None:
    for i in steps:
        clock.now = night or STEPS[i][3]
        episode, facts = step(group_id, i)
        await writer.write_batch([episode], {group_id: facts})


async def edge_times(backend, group_id: str) -> dict[str, tuple]:
    """(object, valid_at) -> (created_at, invalid_at, expired_at) for every HAS_CONTACT edge."""
    from graph.backend import as_datetime

    rows = await backend.query(
        group_id,
        "MATCH (:Entity)-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.name = 'HAS_CONTACT' "
        "RETURN o.name AS object, e.valid_at AS v, e.created_at AS c, e.invalid_at AS i, e.expired_at AS x",
        g=group_id,
    )
    return {
        (r["object"], as_datetime(r["v"])): (as_datetime(r["c"]), as_datetime(r["i"]), as_datetime(r["x"]))
        for r in rows
    }
