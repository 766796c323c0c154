"""Structured writes: the exact system-of-record facts of a batch, in ONE write transaction per group.

Per group: read what is stored for the touched entities/edges/slots, merge (episode lists union, earliest valid_at,
original created_at), recompute every touched single-valued slot, embed in batches what is new or renamed, then write
graphiti's add_nodes_and_edges_bulk_tx for new entities and facts, only the changes of stored ones (stored_rows.py:
changed properties, new episode ids appended on the server, vectors of changed texts), our extra Episodic properties,
slot updates and the meta node.
"""

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, cast

from graphiti_core.driver.driver import GraphProvider
from pydantic import BaseModel, Field

from graph.backend import META_LABEL, GraphBackend, as_datetime
from graph.config import EmbedderMismatch
from graph.known_at import format_revision, next_revisions
from graph.pins import SCHEMA_VERSION, graphiti_version
from graph.timeline import SlotEdge, absence_end, recompute_slot
from graph.write.bulk_statements import NO_VECTOR, FalkorBulkTx, Neo4jBulkTx
from graph.write.sink import BatchResult
from graph.write.stored_rows import (
    EDGE_KEPT,
    NODE_KEPT,
    PATCH_EDGES,
    PATCH_ENTITIES,
    SET_FACT_VECTORS,
    SET_NAME_VECTORS,
    STORED_EDGES,
    STORED_ENTITIES,
    edge_patches,
    entity_patches,
    stored_props,
    vector_action,
)
from graph.write.to_graphiti import (
    entity_edge,
    entity_node,
    episode_properties,
    episodic_node,
    mention_edge,
    wants_name_vector,
    wants_vector,
)
from graph.write.write_context import WriteContext
from ground.episode import Episode
from ground.fact_model import FactSet, FactSpec, name_rank
from transforms.intent_facts import FACT_KINDS

SET_EPISODE_PROPS = """
UNWIND $rows AS row
MATCH (n:Episodic {uuid: row.uuid})
SET n.intent = row.intent, n.intent_confidence = row.intent_confidence, n.references = row.references,
    n.source_system = row.source_system, n.kind = row.kind, n.fingerprint = row.fingerprint, n.title = row.title,
    n.actor_id = row.actor_id, n.actor_name = row.actor_name, n.actor_email = row.actor_email,
    n.thread_key = row.thread_key, n.url = row.url
"""
SET_EDGE_TIMES = """
UNWIND $rows AS row
MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->()
SET e.invalid_at = row.invalid_at, e.expired_at = row.expired_at, e.revisions = coalesce(e.revisions, []) + [row.revision]
"""
MERGE_META = f"""
MERGE (m:{META_LABEL} {{group_id: $group_id}})
ON CREATE SET m.embedder = $embedder, m.embedding_dim = $dim, m.created_at = $now,
    m.created_schema_version = $schema_version, m.created_graphiti_version = $graphiti_version
SET m.updated_at = $now, m.schema_version = $schema_version, m.graphiti_version = $graphiti_version
"""


def count_facts(result: BatchResult, facts: Sequence[FactSpec]) -> None:
    for fact in facts:
        kind = FACT_KINDS.get(fact.predicate, "structured")
        result.facts_by_relation[fact.predicate] = result.facts_by_relation.get(fact.predicate, 0) + 1
        result.facts_by_kind[kind] = result.facts_by_kind.get(kind, 0) + 1


class _Stored(BaseModel):
    """What the graph already holds for the uuids a batch touches."""

    entities: dict[str, dict[str, Any]] = Field(default_factory=dict)  # uuid -> properties but the vector
    entity_labels: dict[str, set[str]] = Field(default_factory=dict)
    episode_created: dict[str, dt.datetime] = Field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = Field(default_factory=dict)  # uuid -> properties but episodes and vector
    has_vector: set[str] = Field(default_factory=set)  # stored entities and facts with a vector
    slot_edges: dict[str, list[SlotEdge]] = Field(default_factory=dict)
    # slot family -> (valid_at, slots stated) of each stored fact of the family; slot -> its family
    family_statements: dict[str, list[tuple[dt.datetime | None, frozenset[str]]]] = Field(default_factory=dict)
    slot_family: dict[str, str] = Field(default_factory=dict)

    def created(self, uuid: str) -> dt.datetime | None:
        """A stored entity's created_at."""
        return as_datetime(self.entities.get(uuid, {}).get("created_at"))


# The edges of single-valued slots, as SlotEdge needs them (the writer's merge and the tombstones both read them).
SLOT_EDGE_FIELDS = (
    "e.uuid AS uuid, e.slot AS slot, o.uuid AS object, e.valid_at AS valid_at, "
    "e.source_invalid_at AS source_invalid_at, e.invalid_at AS invalid_at, "
    "e.expired_at AS expired_at, e.tombstoned_at AS tombstoned_at"
)
SLOT_EDGES = f"MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.slot IN $slots RETURN {SLOT_EDGE_FIELDS}"
FAMILY_EDGES = (
    "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.slot_family IN $families "
    f"RETURN {SLOT_EDGE_FIELDS}, e.slot_family AS family, e.family_slots AS family_slots"
)


def slot_edge(row: Mapping[str, Any], tombstoned_at: dt.datetime | None = None) -> SlotEdge:
    """A SlotEdge from a SLOT_EDGES / FAMILY_EDGES row (tombstoned_at: override the stored one)."""
    return SlotEdge(
        uuid=row["uuid"],
        object=row["object"],
        valid_at=as_datetime(row["valid_at"]),
        source_invalid_at=as_datetime(row["source_invalid_at"]),
        invalid_at=as_datetime(row["invalid_at"]),
        expired_at=as_datetime(row["expired_at"]),
        tombstoned_at=tombstoned_at or as_datetime(row["tombstoned_at"]),
    )


async def read_slot_edges(backend: GraphBackend, group_id: str, slots: Sequence[str]) -> list[dict[str, Any]]:
    return list(await backend.query(group_id, SLOT_EDGES, g=group_id, slots=list(slots)))


async def read_stored(ctx: WriteContext, group_id: str, episodes: list[Episode], facts: FactSet) -> _Stored:
    stored = _Stored()
    q = ctx.backend.query
    if facts.entities:
        rows = await q(group_id, STORED_ENTITIES, uuids=[e.uuid for e in facts.entities], kept=list(NODE_KEPT))
        for r in rows:
            stored.entities[r["uuid"]] = stored_props(r)
            stored.entity_labels[r["uuid"]] = set(r["labels"] or [])
            if r["has_vector"]:
                stored.has_vector.add(r["uuid"])
    if episodes:
        rows = await q(
            group_id,
            "MATCH (n:Episodic) WHERE n.uuid IN $uuids RETURN n.uuid AS uuid, n.created_at AS c",
            uuids=[e.id for e in episodes],
        )
        stored.episode_created = {r["uuid"]: as_datetime(r["c"]) or ctx.clock() for r in rows}
    if facts.facts:
        rows = await q(group_id, STORED_EDGES, uuids=[f.uuid for f in facts.facts], kept=list(EDGE_KEPT))
        stored.edges = {r["uuid"]: stored_props(r) for r in rows}
        stored.has_vector |= {r["uuid"] for r in rows if r["has_vector"]}
    slots = sorted({f.single_valued for f in facts.facts if f.single_valued})
    families = sorted({str(f.attributes["slot_family"]) for f in facts.facts if f.attributes.get("slot_family")})
    slot_rows: list[dict[str, Any]] = []
    if slots:
        slot_rows = await read_slot_edges(ctx.backend, group_id, slots)
    if families:  # every slot of a touched family: a removed key ends there (timeline)
        family_rows = await q(group_id, FAMILY_EDGES, g=group_id, families=families)
        seen = {r["uuid"] for r in slot_rows}
        for r in family_rows:
            stored.slot_family[r["slot"]] = r["family"]
            if r["tombstoned_at"] is None:
                stored.family_statements.setdefault(r["family"], []).append(
                    (as_datetime(r["valid_at"]), frozenset(r["family_slots"] or []))
                )
        slot_rows = list(slot_rows) + [r for r in family_rows if r["uuid"] not in seen]
    for r in slot_rows:
        stored.slot_edges.setdefault(r["slot"], []).append(slot_edge(r))
    return stored


async def write_group(
    ctx: WriteContext,
    group_id: str,
    episodes: list[Episode],
    facts: FactSet,
    mentions: Mapping[str, list[str]],
    result: BatchResult,
) -> None:
    now = ctx.clock()
    driver = await ctx.backend.driver(group_id)
    stored = await read_stored(ctx, group_id, episodes, facts)
    episode_ids = {e.id for e in episodes}

    # ---- merge facts with what is stored
    merged: dict[str, tuple[FactSpec, list[str], dt.datetime | None, dt.datetime]] = {}
    for fact in facts.facts:
        old = stored.edges.get(fact.uuid)
        episodes_of = set(fact.episode_ids)  # a stored fact's ids are appended to on the server (stored_rows.py)
        valid_at = fact.valid_at
        created_at = now
        if old is not None:
            old_valid = as_datetime(old.get("valid_at"))
            if old_valid is not None and (valid_at is None or old_valid < valid_at):
                valid_at = old_valid
            created_at = as_datetime(old.get("created_at")) or now
        merged[fact.uuid] = (fact, sorted(episodes_of), valid_at, created_at)

    # ---- single-valued slots: recompute each touched chain from everything stored + this batch
    times: dict[str, tuple[dt.datetime | None, dt.datetime | None]] = {}
    updates: list[dict[str, Any]] = []
    invalidated = 0
    by_slot: dict[str, dict[str, SlotEdge]] = defaultdict(dict)
    for slot, edges in stored.slot_edges.items():
        for edge in edges:
            by_slot[slot][edge.uuid] = edge
    statements = {family: list(told) for family, told in stored.family_statements.items()}
    for uuid_, (fact, _, valid_at, _) in merged.items():
        if not fact.single_valued:
            continue
        before = by_slot[fact.single_valued].get(uuid_)
        by_slot[fact.single_valued][uuid_] = SlotEdge(
            uuid=uuid_,
            object=fact.object,
            valid_at=valid_at,
            source_invalid_at=fact.invalid_at,
            invalid_at=before.invalid_at if before else None,
            expired_at=before.expired_at if before else None,
            tombstoned_at=before.tombstoned_at if before else None,
        )  # a rerun never revives a deleted record
        family = fact.attributes.get("slot_family")
        if family:
            stored.slot_family[fact.single_valued] = str(family)
            statements.setdefault(str(family), []).append(
                (valid_at, frozenset(cast(list[str], fact.attributes.get("family_slots") or [])))
            )
    for slot, family in stored.slot_family.items():  # a row a later version removed ends there
        for uuid_, edge in list(by_slot.get(slot, {}).items()):
            gone = absence_end(slot, edge.valid_at, statements.get(family, []))
            if gone is not None:
                by_slot[slot][uuid_] = edge.model_copy(update={"removed_at": gone})
    for chain in by_slot.values():
        for uuid_, new in recompute_slot(list(chain.values()), now).items():
            edge = chain[uuid_]
            if new.invalid_at is not None and new.invalid_at != edge.invalid_at:
                invalidated += 1
            if uuid_ in merged:
                times[uuid_] = (new.invalid_at, new.expired_at)
            elif new.differs(edge):
                updates.append(
                    {
                        "uuid": uuid_,
                        "invalid_at": new.invalid_at,
                        "expired_at": new.expired_at,
                        "revision": format_revision(now, new.invalid_at, new.expired_at),
                    }
                )
    result.facts_invalidated += invalidated

    # ---- entities: keep the better name (a real name beats an address) whatever the arrival order
    names: dict[str, str] = {}
    for spec in facts.entities:
        old_name = stored.entities.get(spec.uuid, {}).get("name")
        names[spec.uuid] = old_name if old_name and name_rank(old_name) > name_rank(spec.name) else spec.name

    # ---- embeddings, batched: names and facts new to the graph or changed (a stored vector stays: stored_rows.py)
    embedder = ctx.embedder
    stored_entities = {  # rewritten by our statement; a new label needs graphiti's (labels are no parameters)
        e.uuid: stored.entities[e.uuid]
        for e in facts.entities
        if e.uuid in stored.entities and {e.label, "Entity"} <= stored.entity_labels[e.uuid]
    }
    name_acts = [
        vector_action(
            stored_entities.get(e.uuid),
            "name",
            names[e.uuid],
            wants_name_vector(e, names[e.uuid]),
            e.uuid in stored.has_vector,
        )
        for e in facts.entities
    ]
    wanted = [names[e.uuid] for e, act in zip(facts.entities, name_acts) if act == "embed"]
    vecs = iter(await embedder.create_batch(wanted) if wanted else [])
    name_vecs = [next(vecs) if act == "embed" else None for act in name_acts]
    fact_list = list(merged.values())
    fact_acts = [
        vector_action(stored.edges.get(f.uuid), "fact", f.fact, wants_vector(f), f.uuid in stored.has_vector)
        for f, *_ in fact_list
    ]
    embedded = [f.fact for (f, *_), act in zip(fact_list, fact_acts) if act == "embed"]
    vecs = iter(await embedder.create_batch(embedded) if embedded else [])
    fact_vecs = [next(vecs) if act == "embed" else None for act in fact_acts]
    for vec in [v for v in name_vecs if v is not None][:1] + [v for v in fact_vecs if v is not None][:1]:
        if len(vec) != ctx.config.embedding_dim:
            raise EmbedderMismatch(
                f"embedder {ctx.embedder_name} returned {len(vec)}-d vectors, "
                f"configured embedding_dim is {ctx.config.embedding_dim}"
            )

    entity_nodes = [  # a stored entity keeps its first created_at
        entity_node(spec, group_id, name=names[spec.uuid], created_at=stored.created(spec.uuid) or now, embedding=vec)
        for spec, vec in zip(facts.entities, name_vecs)
    ]
    entity_edges = []
    for (fact, eps, valid_at, created_at), vec in zip(fact_list, fact_vecs):
        old = stored.edges.get(fact.uuid)
        tombstoned_at = as_datetime(old.get("tombstoned_at")) if old else None
        if fact.uuid in times:
            invalid_at, expired_at = times[fact.uuid]
        elif old is not None and tombstoned_at is not None:
            # its records were deleted upstream: a backfill does not un-expire it
            invalid_at, expired_at = as_datetime(old.get("invalid_at")), as_datetime(old.get("expired_at"))
        else:
            invalid_at, expired_at = fact.invalid_at, None
        revisions = next_revisions(
            old.get("revisions") if old else None,
            now=now,
            invalid_at=invalid_at,
            expired_at=expired_at,
            created=old is None,
        )
        entity_edges.append(
            entity_edge(
                fact,
                group_id,
                episodes=eps,
                valid_at=valid_at,
                invalid_at=invalid_at,
                expired_at=expired_at,
                created_at=created_at,
                embedding=vec,
                revisions=revisions,
                tombstoned_at=tombstoned_at,
            )
        )

    # ---- episodes and their MENTIONS
    known_entities = {e.uuid for e in facts.entities}
    edges_of: dict[str, list[str]] = defaultdict(list)
    mentioned: dict[str, list[str]] = {
        e.id: [m for m in mentions.get(e.id, []) if m in known_entities] for e in episodes
    }
    for fact, eps, *_ in fact_list:
        for ep in eps:
            if ep in episode_ids:
                edges_of[ep].append(fact.uuid)
                for node in (fact.subject, fact.object):
                    if node in known_entities and node not in mentioned[ep]:
                        mentioned[ep].append(node)
    episodic_nodes, mention_edges = [], []
    for episode in episodes:
        created = stored.episode_created.get(episode.id, now)
        episodic_nodes.append(episodic_node(episode, created_at=created, entity_edges=sorted(edges_of[episode.id])))
        for node in mentioned[episode.id]:
            mention_edges.append(mention_edge(episode.id, node, group_id, created))
    extra_props = [episode_properties(e) for e in episodes]
    neo4j = driver.provider == GraphProvider.NEO4J
    new_nodes = [n for n in entity_nodes if n.uuid not in stored_entities]
    node_rows, name_vector_rows = entity_patches(entity_nodes, name_acts, stored_entities, neo4j=neo4j)
    new_edges = [e for e in entity_edges if e.uuid not in stored.edges]
    edge_rows, fact_vector_rows = edge_patches(entity_edges, fact_acts, stored.edges)
    ours = "neo4j" if neo4j else "falkordb"

    from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk_tx

    meta = {
        "group_id": group_id,
        "embedder": ctx.embedder_name,
        "dim": int(ctx.config.embedding_dim),
        "now": now,
        "schema_version": SCHEMA_VERSION,
        "graphiti_version": graphiti_version(),
    }

    async def unit(tx: Any) -> None:
        bulk_tx: Any = Neo4jBulkTx(tx) if neo4j else FalkorBulkTx(tx)
        await add_nodes_and_edges_bulk_tx(
            bulk_tx, episodic_nodes, mention_edges, new_nodes, new_edges, NO_VECTOR, driver=driver
        )
        run = tx.run if neo4j else bulk_tx.run  # our statements: rendered once on FalkorDB, as they are on Neo4j
        for statement, rows in (
            (PATCH_ENTITIES, node_rows),
            (SET_NAME_VECTORS[ours], name_vector_rows),
            (PATCH_EDGES, edge_rows),
            (SET_FACT_VECTORS[ours], fact_vector_rows),
        ):
            if rows:
                await run(statement, rows=rows)
        if extra_props:
            await tx.run(SET_EPISODE_PROPS, rows=extra_props)
        if updates:
            await tx.run(SET_EDGE_TIMES, rows=updates)
        await tx.run(MERGE_META, **meta)

    session: Any = driver.session()  # graphiti's session methods are untyped
    try:
        await session.execute_write(unit)
    finally:
        await session.close()

    result.episodes_written += len(episodic_nodes)
    result.entities_written += len(entity_nodes)
    result.facts_written += len(entity_edges)
    count_facts(result, [fact for fact, *_ in fact_list])
    result.episodes_new += sum(1 for e in episodes if e.id not in stored.episode_created)
    result.entities_new += sum(1 for e in facts.entities if e.uuid not in stored.entities)
    result.facts_new += sum(1 for f in facts.facts if f.uuid not in stored.edges)
