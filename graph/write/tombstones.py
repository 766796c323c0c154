"""Tombstones: episodes deleted upstream end the facts that only they support (expired now); nothing is deleted.

Slots they took part in are recomputed, so a predecessor they had superseded holds again.
"""

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from graph.backend import GraphBackend, as_datetime
from graph.known_at import format_revision
from graph.timeline import SlotEdge, recompute_slot
from graph.write.structured_writes import SET_EDGE_TIMES, read_slot_edges, slot_edge
from ground.identity import validate_group_id


async def invalidate_episodes(
    backend: GraphBackend,
    clock: Callable[[], dt.datetime],
    episode_ids: Sequence[str],
    at: dt.datetime,
    group_id: str | None = None,
) -> int:
    """Episodes deleted upstream: facts that only they support end at `at` (expired now); nothing is deleted.

    Slots they took part in are recomputed, so a predecessor they had superseded holds again.
    Returns the number of facts invalidated.
    """
    from ground.records import as_utc

    at = as_utc(at)
    now = clock()
    ids = sorted(set(episode_ids))
    if not ids:
        return 0
    groups = [validate_group_id(group_id)] if group_id else await backend.group_ids()
    total = 0
    for g in groups:
        rows = await backend.query(
            g,
            "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND any(x IN e.episodes WHERE x IN $ids) "
            "RETURN e.uuid AS uuid, e.episodes AS episodes, e.slot AS slot, e.invalid_at AS invalid_at",
            g=g,
            ids=ids,
        )
        doomed = [r for r in rows if set(r["episodes"] or []) <= set(ids)]
        if not doomed:
            continue
        updates = []
        for r in doomed:
            old = as_datetime(r["invalid_at"])
            invalid_at = min(old, at) if old is not None else at
            updates.append(
                {
                    "uuid": r["uuid"],
                    "invalid_at": invalid_at,
                    "expired_at": now,
                    "tombstoned_at": at,
                    "revision": format_revision(now, invalid_at, now),
                }
            )
        total += len(updates)
        slots = sorted({r["slot"] for r in doomed if r["slot"]})
        slot_updates = []
        if slots:
            doomed_ids = {u["uuid"] for u in updates}
            by_slot: dict[str, list[SlotEdge]] = defaultdict(list)
            for r in await read_slot_edges(backend, g, slots):
                by_slot[r["slot"]].append(slot_edge(r, tombstoned_at=at if r["uuid"] in doomed_ids else None))
            for edges in by_slot.values():
                current = {e.uuid: e for e in edges}
                for uuid_, new in recompute_slot(edges, now).items():
                    if uuid_ not in doomed_ids and new.differs(current[uuid_]):
                        slot_updates.append(
                            {
                                "uuid": uuid_,
                                "invalid_at": new.invalid_at,
                                "expired_at": new.expired_at,
                                "revision": format_revision(now, new.invalid_at, new.expired_at),
                            }
                        )
        driver = await backend.driver(g)

        async def unit(
            tx: Any, updates: list[dict[str, Any]] = updates, slot_updates: list[dict[str, Any]] = slot_updates
        ) -> None:
            await tx.run(
                "UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
                "SET e.invalid_at = row.invalid_at, e.expired_at = row.expired_at, "
                "e.tombstoned_at = row.tombstoned_at, "
                "e.revisions = coalesce(e.revisions, []) + [row.revision]",
                rows=updates,
            )
            await tx.run("UNWIND $ids AS id MATCH (n:Episodic {uuid: id}) SET n.tombstoned_at = $at", ids=ids, at=at)
            if slot_updates:
                await tx.run(SET_EDGE_TIMES, rows=slot_updates)

        session: Any = driver.session()  # graphiti's session methods are untyped
        try:
            await session.execute_write(unit)
        finally:
            await session.close()
    return total
