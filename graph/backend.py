"""The writer's connections to the graph store: embedded FalkorDB, a FalkorDB server, or Neo4j, through graphiti's
drivers (the read side uses the database drivers alone: connection.py).

On FalkorDB a group id is its own graph, so there is one FalkorDriver(database=group_id) per group, prepared once:
graphiti's indexes are built, then the datetime range indexes are dropped (FalkorDB ignores the upper bound of `<`/`<=`
on indexed strings, which breaks as-of filters; notes/graphiti.md §7.2), and search's vector indexes are created.
"""

import asyncio
import logging
import time
from typing import Any

from graphiti_core.driver.driver import GraphDriver, GraphProvider

from graph.config import ConfigError, GraphConfig
from graph.connection import META_LABEL, as_datetime, utcnow
from graph.embedded_falkor import EmbeddedFalkor, attach
from graph.search_indexes import await_indexes, drop_vector_indexes, ensure_vector_indexes
from ground.identity import validate_group_id

log = logging.getLogger(__name__)

# (label pattern, property) of the range indexes graphiti creates on datetime strings; dropped on FalkorDB.
FALKOR_DATETIME_INDEXES = [
    ("()-[e:RELATES_TO]-()", "e", "valid_at"),
    ("()-[e:RELATES_TO]-()", "e", "invalid_at"),
    ("()-[e:RELATES_TO]-()", "e", "created_at"),
    ("()-[e:RELATES_TO]-()", "e", "expired_at"),
    ("(n:Episodic)", "n", "created_at"),
    ("(n:Episodic)", "n", "valid_at"),
    ("(n:Entity)", "n", "created_at"),
]
__all__ = ["META_LABEL", "GraphBackend", "as_datetime", "drop_falkor_datetime_indexes", "utcnow"]


async def drop_falkor_datetime_indexes(driver: Any, graph_name: str) -> list[str]:
    """Idempotent: an index that is already gone is fine. Returns what was dropped."""
    graph = driver.client.select_graph(graph_name)
    dropped = []
    for pattern, var, prop in FALKOR_DATETIME_INDEXES:
        try:
            await graph.query(f"DROP INDEX FOR {pattern} ON ({var}.{prop})")
            dropped.append(f"{pattern}.{prop}")
        except Exception as exc:  # FalkorDB raises a plain ResponseError
            text = str(exc).lower()
            if "not found" in text or "unable to drop" in text or "does not exist" in text or "no such" in text:
                continue
            raise
    return dropped


class GraphBackend:
    """Owns the connection(s); hands out one prepared graphiti driver per group id."""

    def __init__(self, config: GraphConfig):
        self.config = config
        self.embedded: EmbeddedFalkor | None = None
        self._falkor_client: Any = None
        self._neo4j: GraphDriver | None = None
        self._drivers: dict[str, GraphDriver] = {}
        self._lock = asyncio.Lock()

    @property
    def provider(self) -> GraphProvider:
        return GraphProvider.NEO4J if self.config.backend == "neo4j" else GraphProvider.FALKORDB

    async def open(self) -> None:
        backend = self.config.backend
        if backend == "falkordb-embedded":
            from falkordb.asyncio import FalkorDB

            self.embedded = await attach(self.config)
            self._falkor_client = FalkorDB(unix_socket_path=str(self.embedded.socket))
        elif backend == "falkordb":
            from falkordb.asyncio import FalkorDB

            password = self.config.falkor_password.get_secret_value() if self.config.falkor_password else None
            self._falkor_client = FalkorDB(
                host=self.config.falkor_host, port=self.config.falkor_port, password=password
            )
        elif backend == "neo4j":
            from graphiti_core.driver.neo4j_driver import Neo4jDriver

            if self.config.neo4j_password is None:
                raise ConfigError("backend neo4j needs neo4j_password")
            self._neo4j = Neo4jDriver(
                self.config.neo4j_uri,
                self.config.neo4j_user,
                self.config.neo4j_password.get_secret_value(),
                database=self.config.neo4j_database,
            )
            await self._await_init(self._neo4j)
            if self.config.defer_vector_indexes:  # Neo4j's two vector indexes serve every group of the database
                log.info("backfill on Neo4j: the vector indexes stay in place (they serve every group)")
            await _neo4j_schema(self._neo4j, self.config.embedding_dim)
        else:  # pragma: no cover - pydantic Literal guards this
            raise ConfigError(f"unknown graph backend {backend!r}")

    async def close(self) -> None:
        for driver in list(self._drivers.values()):
            await self._await_init(driver)
        self._drivers.clear()
        if self._neo4j is not None:
            await self._neo4j.close()
            self._neo4j = None
        if self._falkor_client is not None:
            try:
                await self._falkor_client.aclose()
            except Exception:  # connection already gone (server crashed): nothing to close
                log.debug("closing the FalkorDB client failed", exc_info=True)
            self._falkor_client = None
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.release)  # the server stays up for other users (idle timeout)
            self.embedded = None

    @staticmethod
    async def _await_init(driver: Any) -> None:
        """graphiti drivers built inside a running loop schedule build_indices as a background task: finish it."""
        task = getattr(driver, "_init_task", None)
        if task is not None and not task.done():
            try:
                await task
            except Exception:
                log.debug("graphiti's background index build failed", exc_info=True)

    async def driver(self, group_id: str) -> GraphDriver:
        validate_group_id(group_id)
        if self.provider == GraphProvider.NEO4J:
            assert self._neo4j is not None, "GraphBackend.open() first"
            return self._neo4j
        async with self._lock:
            if group_id in self._drivers:
                return self._drivers[group_id]
            if self._falkor_client is None:
                raise RuntimeError("GraphBackend.open() first")
            if self.embedded is not None:
                await asyncio.to_thread(self.embedded.ensure_alive)
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            driver = FalkorDriver(falkor_db=self._falkor_client, database=group_id)
            await self._await_init(driver)
            await driver.build_indices_and_constraints()
            await drop_falkor_datetime_indexes(driver, group_id)
            if self.config.defer_vector_indexes:  # a bulk load: built once at the end (build_vector_indexes)
                await drop_vector_indexes(driver, group_id, await self._recorded_dim(group_id))
            else:
                await ensure_vector_indexes(driver, group_id, await self._recorded_dim(group_id))
            self._drivers[group_id] = driver
            return driver

    async def build_vector_indexes(self) -> dict[str, float]:
        """After a bulk load: the vector indexes of every group this backend opened (on Neo4j the database's), built
        and awaited until queryable; seconds per group. Idempotent: existing indexes are only awaited."""
        took: dict[str, float] = {}
        if self.provider == GraphProvider.NEO4J:
            assert self._neo4j is not None, "GraphBackend.open() first"
            t = time.perf_counter()
            await ensure_vector_indexes(self._neo4j, "", int(self.config.embedding_dim))
            await await_indexes(self._neo4j, "")
            return {"": time.perf_counter() - t}
        for group_id, driver in list(self._drivers.items()):
            t = time.perf_counter()
            await ensure_vector_indexes(driver, group_id, await self._recorded_dim(group_id))
            await await_indexes(driver, group_id)
            took[group_id] = time.perf_counter() - t
        return took

    async def _recorded_dim(self, group_id: str) -> int:
        """The dimension the embedder guard recorded for the group's graph; the configured one for a new group."""
        rows = await self._falkor_client.select_graph(group_id).ro_query(
            f"MATCH (m:{META_LABEL} {{group_id: $g}}) RETURN m.embedding_dim", {"g": group_id}
        )
        return int(rows.result_set[0][0]) if rows.result_set else int(self.config.embedding_dim)

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run one parameterised query, rows as dicts, on the group's graph."""
        driver = await self.driver(group_id)
        if self.provider == GraphProvider.NEO4J:
            result = await driver.execute_query(cypher, params=params)
            records = result.records if hasattr(result, "records") else result[0]
            return [dict(r) for r in records]
        result = await driver.execute_query(cypher, **params)
        if result is None:
            return []
        return [dict(r) for r in result[0]]

    async def group_ids(self) -> list[str]:
        """Groups graphfeed has written (those with a meta node)."""
        if self.provider == GraphProvider.NEO4J:
            assert self._neo4j is not None
            result = await self._neo4j.execute_query(f"MATCH (m:{META_LABEL}) RETURN m.group_id AS g", params={})
            return sorted(r["g"] for r in result.records)
        graphs = await self._falkor_client.list_graphs()
        found = []
        for name in graphs:
            name = name.decode() if isinstance(name, bytes) else str(name)
            try:
                validate_group_id(name)
            except ConfigError:
                continue
            rows = await self._falkor_client.select_graph(name).ro_query(f"MATCH (m:{META_LABEL}) RETURN count(m)")
            if rows.result_set and rows.result_set[0][0]:
                found.append(name)
        return sorted(found)


async def _neo4j_schema(driver: Any, dim: int, attempts: int = 3) -> None:
    """Indexes and constraints, idempotent. Two writers opening a fresh server at once (one per group, in parallel)
    can both pass `IF NOT EXISTS` and one is told EquivalentSchemaRuleAlreadyExists: then the rule exists, and the
    next attempt finds it."""
    from neo4j.exceptions import ClientError

    for attempt in range(attempts):
        try:
            await driver.build_indices_and_constraints()
            await ensure_vector_indexes(driver, "", dim)
            return
        except ClientError as exc:
            if "AlreadyExists" not in (exc.code or "") or attempt == attempts - 1:
                raise
