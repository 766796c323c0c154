"""The read side's connection: the database drivers only (our RESP client for FalkorDB, the neo4j driver), no
graphiti_core, no redis-py.

Readers build their own Cypher (search_steps.py, episode_read.py, history.py, known_at.py) and never write, so they
need neither graphiti's drivers nor its index builder: importing graphiti_core costs ~2 s per process (it pulls the
openai client in), which made every `graphfeed search` a batch job (issue 29); redis-py and the falkordb client cost
another ~0.2 s, so FalkorDB is read through resp.py. The writer keeps graphiti's drivers (backend.py); both hand search
the same shape: `.client` (with `select_graph(g).ro_query`), `.provider`, `._database` and `build_fulltext_query`.
"""

import asyncio
import datetime as dt
import enum
import logging
import sys
import time
from typing import Any, Protocol

from graph.config import ConfigError, GraphConfig
from graph.fulltext import falkor_fulltext_query, lucene_fulltext_query
from ground.identity import validate_group_id

log = logging.getLogger(__name__)

META_LABEL = "GraphfeedMeta"
INDEX_WAIT_S = 120.0  # how long a read waits for indexes FalkorDB rebuilds after a boot


class Provider(enum.Enum):
    """The same values as graphiti's GraphProvider: compare through `is_neo4j`, which accepts either."""

    NEO4J = "neo4j"
    FALKORDB = "falkordb"


def is_neo4j(driver_or_provider: Any) -> bool:
    """True for a Neo4j driver (graphiti's or ours) or provider value."""
    provider = getattr(driver_or_provider, "provider", driver_or_provider)
    return getattr(provider, "value", provider) == Provider.NEO4J.value


def group_filter(var: str, driver_or_provider: Any, param: str = "g") -> str:
    """The Cypher condition that keeps a query inside its group. Neo4j holds every group in one database; on FalkorDB
    the graph is the group, and the condition would only cost: it makes FalkorDB walk the group_id range index over
    every edge (the hub mailbox's slot-subject scan: 185 ms with it, 11 ms without)."""
    return f"{var}.group_id = ${param}" if is_neo4j(driver_or_provider) else "true"


def fulltext_query(query: str, group_ids: list[str] | None, driver: Any) -> str:
    """graphiti's search_utils.fulltext_query for the two backends graphfeed runs on."""
    if is_neo4j(driver):
        return lucene_fulltext_query(query, group_ids)
    return falkor_fulltext_query(query, group_ids)


def as_datetime(value: Any) -> dt.datetime | None:
    """A datetime read back from either store (FalkorDB: ISO string; Neo4j: neo4j.time.DateTime), tz-aware UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        parsed = dt.datetime.fromisoformat(value)
    elif hasattr(value, "to_native"):  # neo4j.time.DateTime
        parsed = value.to_native()
    else:
        parsed = value
    if not isinstance(parsed, dt.datetime):
        return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=dt.UTC)
    return parsed.astimezone(dt.UTC)


def utcnow() -> dt.datetime:
    """The system clock of the graph (created_at / expired_at): UTC, injectable in writers and readers."""
    return dt.datetime.now(dt.UTC)


def falkor_params(value: Any) -> Any:
    """Parameters as graphiti's FalkorDriver sends them: datetimes as UTC ISO strings (how it stores them), no NUL
    bytes in strings (FalkorDB's parameter header is text)."""
    if isinstance(value, dt.datetime):
        moment = value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
        return moment.isoformat()
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {key: falkor_params(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(falkor_params(item) for item in value)
    return value


class GraphReads(Protocol):
    """What the read modules need of a backend: ReadBackend (driver-only) or the writer's GraphBackend."""

    config: GraphConfig

    @property
    def provider(self) -> Any: ...

    async def driver(self, group_id: str) -> Any: ...

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]: ...


class ReadDriver:
    """What search reads of a driver, over the plain database client of one group's graph."""

    def __init__(self, provider: Provider, client: Any, database: str = ""):
        self.provider = provider
        self.client = client
        self._database = database

    def build_fulltext_query(self, query: str, group_ids: list[str] | None = None) -> str:
        return falkor_fulltext_query(query, group_ids)


class ReadBackend:
    """Opens the configured store with its driver only; `driver(group)` / `query(group, ...)` as GraphBackend offers
    them. On the embedded backend it attaches to the home's shared FalkorDB (embedded_falkor.py), starting it if none
    runs, and holds it in use until closed."""

    def __init__(self, config: GraphConfig):
        self.config = config
        self.embedded: Any = None
        self._falkor: Any = None
        self._neo4j: Any = None
        self._existing: set[str] = set()

    @property
    def provider(self) -> Provider:
        return Provider.NEO4J if self.config.backend == "neo4j" else Provider.FALKORDB

    async def open(self) -> None:
        backend = self.config.backend
        if backend == "neo4j":
            from neo4j import AsyncGraphDatabase

            if self.config.neo4j_password is None:
                raise ConfigError("backend neo4j needs neo4j_password")
            self._neo4j = AsyncGraphDatabase.driver(
                self.config.neo4j_uri, auth=(self.config.neo4j_user, self.config.neo4j_password.get_secret_value())
            )
            return
        from graph.resp import FalkorReadClient

        if backend == "falkordb-embedded":
            from graph.embedded_falkor import attach

            self.embedded = await attach(self.config)
            self._falkor = FalkorReadClient(unix_socket_path=str(self.embedded.socket))
        elif backend == "falkordb":
            password = self.config.falkor_password.get_secret_value() if self.config.falkor_password else None
            self._falkor = FalkorReadClient(
                host=self.config.falkor_host, port=self.config.falkor_port, password=password
            )
        else:  # pragma: no cover - pydantic Literal guards this
            raise ConfigError(f"unknown graph backend {backend!r}")

    async def close(self) -> None:
        if self._neo4j is not None:
            await self._neo4j.close()
            self._neo4j = None
        if self._falkor is not None:
            try:
                await self._falkor.aclose()
            except Exception:  # connection already gone (server crashed): nothing to close
                log.debug("closing the FalkorDB client failed", exc_info=True)
            self._falkor = None
        if self.embedded is not None:
            self.embedded.release()
            self.embedded = None

    async def driver(self, group_id: str) -> ReadDriver:
        validate_group_id(group_id)
        if self._neo4j is not None:
            return ReadDriver(Provider.NEO4J, self._neo4j, self.config.neo4j_database)
        if self._falkor is None:
            raise RuntimeError("ReadBackend.open() first")
        return ReadDriver(Provider.FALKORDB, self._falkor)

    async def has_group(self, group_id: str) -> bool:
        """Whether the group's graph exists (FalkorDB: a graph per group; reading a missing one is an error there).
        Neo4j holds every group in one database: always True."""
        if self._neo4j is not None or group_id in self._existing:
            return True
        if self._falkor is None:
            raise RuntimeError("ReadBackend.open() first")
        if await self._falkor.exists(group_id):
            await self._indexes_ready(group_id)
            self._existing.add(group_id)
            return True
        return False

    async def _indexes_ready(self, group_id: str) -> None:
        """After a boot FalkorDB rebuilds a graph's indexes in the background, and until then the vector procedures
        answer "Invalid arguments" (the first search after a boot came back degraded): wait for them, saying so on
        stderr, up to INDEX_WAIT_S (then the search degrades as before). One ~1 ms query when they are ready."""
        graph = self._falkor.select_graph(group_id)
        started, noted = time.monotonic(), False
        while True:
            rows = (await graph.ro_query("CALL db.indexes() YIELD status RETURN status")).result_set
            building = sum(1 for (status,) in rows if status != "OPERATIONAL")
            if not building or time.monotonic() - started > INDEX_WAIT_S:
                break
            if not noted:
                noted = True
                print(
                    f"graphfeed: {building} index(es) of graph {group_id!r} still building after a boot; waiting up "
                    f"to {INDEX_WAIT_S:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            await asyncio.sleep(0.1)
        if noted:
            print(f"graphfeed: indexes built, waited {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run one parameterised read query, rows as dicts, on the group's graph."""
        if self._neo4j is not None:
            from neo4j import RoutingControl

            result = await self._neo4j.execute_query(
                cypher, parameters_=params, database_=self.config.neo4j_database, routing_=RoutingControl.READ
            )
            return [dict(r) for r in result.records]
        if not await self.has_group(group_id):
            return []
        result = await self._falkor.select_graph(group_id).ro_query(cypher, falkor_params(params))
        header = [h[1] for h in result.header]
        return [dict(zip(header, row)) for row in result.result_set]
