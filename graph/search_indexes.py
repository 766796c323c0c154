"""The indexes graphfeed's search reads: vector indexes on the embeddings it writes, plus graphiti's full-text indexes.

graphiti 0.31.2 creates full-text indexes (BM25) on both backends but no vector index, so its cosine step scans every
embedding. These are created idempotently with the dimension the embedder guard recorded for the group (meta node):
on FalkorDB per graph (a group id is its own graph), on Neo4j once per database with the dimension in the index name
(a second dimension gets its own index instead of silently mismatching).
"""

import logging
from typing import Any

from graph.connection import is_neo4j

log = logging.getLogger(__name__)

# FalkorDB: label/type, property; Neo4j: same plus the index name prefix.
VECTOR_TARGETS = [("()-[e:RELATES_TO]-()", "e", "fact_embedding"), ("(n:Entity)", "n", "name_embedding")]
# graphiti's full-text indexes the search reads (created by build_indices_and_constraints).
NEO4J_EDGE_FULLTEXT = "edge_name_and_fact"
NEO4J_NODE_FULLTEXT = "node_name_and_summary"
# HNSW search breadth: FalkorDB's default efRuntime (10) loses recall at the candidate pool sizes search asks for.
FALKOR_EF_RUNTIME = 100
# How long opening a Neo4j backend waits for the indexes to come online (an empty graph's: instantly).
NEO4J_AWAIT_S = 60


def neo4j_vector_index(prop: str, dim: int) -> str:
    return f"graphfeed_{prop}_{int(dim)}"


def _falkor_statement(pattern: str, var: str, prop: str, dim: int) -> str:
    return (
        f"CREATE VECTOR INDEX FOR {pattern} ON ({var}.{prop}) OPTIONS {{dimension: {int(dim)}, "
        f"similarityFunction: 'cosine', efRuntime: {FALKOR_EF_RUNTIME}}}"
    )


def _neo4j_statement(pattern: str, var: str, prop: str, dim: int) -> str:
    return (
        f"CREATE VECTOR INDEX {neo4j_vector_index(prop, dim)} IF NOT EXISTS FOR {pattern} ON ({var}.{prop}) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dim)}, `vector.similarity_function`: 'cosine'}}}}"
    )


async def ensure_vector_indexes(driver: Any, group_id: str, dim: int) -> list[str]:
    """Create the vector indexes if missing; returns the statements that created something (empty when all exist)."""
    created = []
    if is_neo4j(driver):
        from neo4j.exceptions import Neo4jError  # here: a FalkorDB reader does not load the neo4j driver

        for pattern, var, prop in VECTOR_TARGETS:
            statement = _neo4j_statement(pattern, var, prop, dim)
            await driver.client.execute_query(statement, database_=driver._database)
        try:
            await driver.client.execute_query(f"CALL db.awaitIndexes({NEO4J_AWAIT_S})", database_=driver._database)
        except Neo4jError as exc:
            # A large existing graph populates a new HNSW index for minutes: the run goes on, the vector step
            # degrades (reported in FactHits.degraded) until the index is online.
            log.warning("vector indexes still populating after %d s: %s", NEO4J_AWAIT_S, exc.code)
        return [neo4j_vector_index(prop, dim) for _, _, prop in VECTOR_TARGETS]
    graph = driver.client.select_graph(group_id)
    for pattern, var, prop in VECTOR_TARGETS:
        try:
            await graph.query(_falkor_statement(pattern, var, prop, dim))
            created.append(prop)
        except Exception as exc:  # FalkorDB answers a repeat with a plain ResponseError
            if "already indexed" not in str(exc).lower():
                raise
    return created


async def drop_vector_indexes(driver: Any, group_id: str, dim: int) -> None:
    """For bulk loads (a backfill, the benches): building the HNSW graph once after the load is ~3x cheaper than
    keeping it up per write. Idempotent: an index already gone is fine (FalkorDB: "... no such index")."""
    for pattern, var, prop in VECTOR_TARGETS:
        if is_neo4j(driver):
            await driver.client.execute_query(
                f"DROP INDEX {neo4j_vector_index(prop, dim)} IF EXISTS", database_=driver._database
            )
            continue
        try:
            await driver.client.select_graph(group_id).query(f"DROP VECTOR INDEX FOR {pattern} ON ({var}.{prop})")
        except Exception as exc:  # already gone
            text = str(exc).lower()
            if "no such index" not in text and "not" not in text:
                raise


async def await_indexes(driver: Any, group_id: str, timeout_s: float = 3600) -> None:
    """Until every index of the group is queryable (FalkorDB builds a new index in the background)."""
    import asyncio
    import time

    if is_neo4j(driver):
        await driver.client.execute_query(f"CALL db.awaitIndexes({int(timeout_s)})", database_=driver._database)
        return
    graph = driver.client.select_graph(group_id)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = await graph.ro_query("CALL db.indexes() YIELD status RETURN status")
        if all(status == "OPERATIONAL" for (status,) in rows.result_set):
            return
        await asyncio.sleep(0.2)
    raise TimeoutError(f"indexes of graph {group_id!r} still building after {timeout_s:.0f} s")


async def vector_indexes(driver: Any, group_id: str) -> dict[str, int]:
    """{property: dimension} of the vector indexes the search can use for the group."""
    if is_neo4j(driver):
        result = await driver.client.execute_query(
            "SHOW VECTOR INDEXES YIELD name, properties, options, state WHERE state = 'ONLINE' "
            "RETURN name, properties, options",
            database_=driver._database,
        )
        found = {}
        for record in result.records:
            if str(record["name"]).startswith("graphfeed_"):
                dim = record["options"]["indexConfig"]["vector.dimensions"]
                found[record["properties"][0]] = int(dim)
        return found
    rows = await driver.client.select_graph(group_id).ro_query("CALL db.indexes()")
    found = {}
    for row in rows.result_set:
        types, options = row[2], row[3]
        for prop, kinds in types.items():
            if "VECTOR" in kinds:
                found[prop] = int(options[prop]["dimension"])
    return found


async def fulltext_indexes(driver: Any, group_id: str) -> set[str]:
    """Labels/types (FalkorDB) or index names (Neo4j) with a full-text index, as graphiti created them."""
    if is_neo4j(driver):
        result = await driver.client.execute_query(
            "SHOW FULLTEXT INDEXES YIELD name RETURN name", database_=driver._database
        )
        return {r["name"] for r in result.records}
    rows = await driver.client.select_graph(group_id).ro_query("CALL db.indexes()")
    return {row[0] for row in rows.result_set if any("FULLTEXT" in kinds for kinds in row[2].values())}
