"""The read queries of fact search, one per step, for FalkorDB and Neo4j, each under a timeout (server and client).

Every MATCH names its label and an indexed key; index calls come back as ranked candidate lists; a step that times out
or fails in the database is recorded as degraded and yields nothing, so the search answers from the other steps.
"""

import asyncio
import datetime as dt
import re
from collections.abc import Awaitable
from typing import Any

from graph.connection import group_filter, is_neo4j
from graph.read import fulltext_ladder
from graph.read.search_edge import Edge
from graph.read.search_errors import DatabaseStepError, database_errors, step_failure
from graph.search_indexes import NEO4J_EDGE_FULLTEXT, NEO4J_NODE_FULLTEXT, neo4j_vector_index

# Edges a graph step may scan around its origins (hubs hold thousands of facts: the cap bounds the step).
LOCAL_SCAN = 3000
# Widening the index pool for as-of searches stops here (the index answers top-k; older facts sit further down).
MAX_POOL = 400

EDGE_COLUMNS = (
    "e.uuid AS uuid, e.fact AS fact, e.name AS name, s.uuid AS source_node_uuid, s.name AS subject, "
    "o.uuid AS target_node_uuid, o.name AS object, e.valid_at AS valid_at, e.invalid_at AS invalid_at, "
    "e.created_at AS created_at, e.expired_at AS expired_at, e.episodes AS episodes, "
    "e.source_invalid_at AS source_invalid_at, e.revisions AS revisions"
)
HOLDS = "((e.valid_at IS NULL OR e.valid_at <= $at) AND (e.invalid_at IS NULL OR e.invalid_at > $at))"
# What ranking reads of a candidate (RRF, relation first, current first: `held` at the as-of date or now). The whole
# row is read for the final top-k only: the Neo4j driver builds every DateTime in Python (~0.1 ms apiece), which
# made a 400-row candidate list cost 2-3x its uuids alone.
RANK_COLUMNS = (
    "e.uuid AS uuid, e.fact AS fact, e.name AS name, s.uuid AS source_node_uuid, o.uuid AS target_node_uuid, "
    "e.episodes AS episodes"
)
HELD = HOLDS.replace("$at", "$now")


class SearchSteps:
    """The step queries for one group on one backend; `degraded` collects what failed, as 'step: reason'."""

    def __init__(
        self,
        driver: Any,
        group_id: str,
        timeout_ms: int,
        only: list[str] | None = None,
        names: list[str] | None = None,
        degraded: list[str] | None = None,
        *,
        full: bool = False,
        now: dt.datetime | None = None,
    ):
        """only: edge uuids the search may return; names: relation names it may return (both inside the queries);
        full: candidates carry whole rows (known_at reads their dates), else what ranking reads; now: `held` at."""
        self.driver = driver
        self.group_id = group_id
        self.timeout_ms = max(1, int(timeout_ms))
        self.neo4j = is_neo4j(driver)
        self.only = only
        self.names = names
        self.degraded: list[str] = degraded if degraded is not None else []
        self.full = full
        self.now = now if now is not None else dt.datetime.now(dt.UTC)
        self.columns = f"{EDGE_COLUMNS if full else RANK_COLUMNS}, {HELD} AS held"

    def narrowed(self, names: list[str]) -> "SearchSteps":
        """The same steps limited to these relations; what degrades is reported in the same list."""
        return SearchSteps(
            self.driver,
            self.group_id,
            self.timeout_ms,
            only=self.only,
            names=names,
            degraded=self.degraded,
            full=self.full,
            now=self.now,
        )

    # ------------------------------------------------------------------ plumbing

    def at(self, moment: dt.datetime) -> Any:
        """FalkorDB stores ISO strings (graphiti's format; range indexes on them are dropped), Neo4j DateTime."""
        return moment if self.neo4j else moment.astimezone(dt.UTC).isoformat()

    async def rows(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        if "$only" in cypher:
            params["only"] = self.only
        if "$names" in cypher:
            params["names"] = self.names
        if "$now" in cypher:
            params["now"] = self.at(self.now)
        try:
            if self.neo4j:
                from neo4j import Query, RoutingControl

                # Neo4j checks transaction timeouts only every db.transaction.monitor.check.interval (2 s by
                # default), so the client holds the same deadline; dropping the connection ends the server's work.
                result = await asyncio.wait_for(
                    self.driver.client.execute_query(
                        Query(cypher, timeout=self.timeout_ms / 1000),
                        parameters_=params,
                        database_=self.driver._database,
                        routing_=RoutingControl.READ,
                    ),
                    self.timeout_ms / 1000,
                )
                return [dict(r) for r in result.records]
            graph = self.driver.client.select_graph(self.group_id)
            result = await graph.ro_query(cypher, params, timeout=self.timeout_ms)
            header = [h[1] for h in result.header]
            return [dict(zip(header, row)) for row in result.result_set]
        except TimeoutError as exc:
            raise DatabaseStepError("timeout") from exc
        except database_errors() as exc:
            raise DatabaseStepError(step_failure(exc)) from exc

    async def step(self, name: str, coro: Any) -> list[Any]:
        try:
            return await coro
        except DatabaseStepError as exc:
            self.degraded.append(f"{name}: {exc}")
            return []

    def _cosine(self, prop: str, var: str) -> tuple[str, str]:
        """(expression, sort order) of the similarity to $vec, best first."""
        if self.neo4j:
            return f"vector.similarity.cosine({var}.{prop}, $vec)", "DESC"
        return f"vec.cosineDistance({var}.{prop}, vecf32($vec))", "ASC"

    def _fact_score(self) -> tuple[str, str]:
        """The graph step's score of a fact e (s)->(o) around $origins: its own vector's similarity, or for a fact
        written without one (to_graphiti.VECTORLESS_RELATIONS) that of the name of its endpoint which is not an
        origin (the message a sender sent, the person mailed): what the fact adds to the entity asked about. Never
        null (Neo4j sorts null first in DESC): a missing vector ranks last."""
        fact, order = self._cosine("fact_embedding", "e")
        obj, subj = self._cosine("name_embedding", "o")[0], self._cosine("name_embedding", "s")[0]
        worst = -1 if self.neo4j else 2
        return (
            f"coalesce(CASE WHEN e.fact_embedding IS NOT NULL THEN {fact} WHEN s.uuid IN $origins THEN {obj} "
            f"ELSE {subj} END, {worst})"
        ), order

    def _group(self, var: str) -> str:
        return group_filter(var, self.driver)

    def _edges(self, var: str) -> str:
        """The facts this search may return: the group's, narrowed to `only` uuids and `names` relations if set."""
        cond = self._group(var)
        if self.only is not None:
            cond += f" AND {var}.uuid IN $only"
        if self.names is not None:
            cond += f" AND {var}.name IN $names"
        return cond

    async def any_edge(self) -> bool:
        """Whether the search may return any fact at all (a narrowed search for relations the group never wrote
        is skipped: its index calls would read every match to find none; the relation name is range-indexed)."""
        rows = await self.rows(
            f"MATCH ()-[e:RELATES_TO]->() WHERE {self._edges('e')} RETURN 1 LIMIT 1", g=self.group_id
        )
        return bool(rows)

    # ------------------------------------------------------------------ edge candidates

    async def _widening(
        self, call: str, order: str, pool: int, moment: dt.datetime | None, **params: Any
    ) -> list[Edge]:
        """Top-k from an index call, k widened (bounded) until `pool` edges of the group hold at `moment`.

        Widening also covers FalkorDB 4.16's vector index, which counts superseded versions of an updated
        embedding towards k (it answered k/2 for edges set twice, 0 of 5 for entities updated often). On Neo4j the
        filter runs in the query and the kept edges come back as one record (see `_packed`).
        """
        holds = HOLDS if moment is not None else "true"
        extra = {"at": self.at(moment)} if moment is not None else {}
        if self.neo4j:
            cypher = (
                f"{call} WITH e, score ORDER BY score {order} "
                f"WITH collect(CASE WHEN {self._edges('e')} AND {holds} THEN e END) AS kept, count(*) AS seen "
                f"RETURN seen, [e IN kept[..$most] | {_packed(self.columns)}] AS rows"
            )
            rows = await self._widen(cypher, pool, None, g=self.group_id, most=pool, **extra, **params)
            return None if rows is None else [Edge.from_row(r) for r in rows]
        cypher = (
            f"{call} WITH e, score, startNode(e) AS s, endNode(e) AS o "
            f"RETURN {self.columns}, ({self._edges('e')} AND {holds}) AS keep ORDER BY score {order}"
        )
        rows = await self._widen(cypher, pool, lambda r: r["keep"], g=self.group_id, **extra, **params)
        return None if rows is None else [Edge.from_row(r) for r in rows]

    async def _widen(self, cypher: str, want: int, keep: Any, **params: Any) -> list[dict[str, Any]] | None:
        """Ask an index call ($k) for more until `want` rows pass `keep` or the answer stops growing; the next k is
        sized from the share that passed. keep None: the query filters and answers one record (seen, rows). On Neo4j
        None when MAX_POOL is reached with too few (a small group in a large database): the caller scans the group."""
        k, seen = max(want, 10) * 2, -1
        while True:
            rows = await self.rows(cypher, k=k, **params)
            if keep is None:
                kept, total = [dict(r) for r in rows[0]["rows"]], rows[0]["seen"]
            else:
                kept, total = [r for r in rows if keep(r)], len(rows)
            if len(kept) >= want or total <= seen:
                return kept[:want]
            if k >= MAX_POOL:
                return kept if len(kept) >= max(want // 5, 1) or not self.neo4j else None
            share = max(len(kept), 1) / max(total, 1)
            seen, k = total, min(max(k * 2, int(want / share * 1.5)), MAX_POOL)

    async def edge_vector(self, vec: list[float], pool: int, moment: dt.datetime | None) -> list[Edge]:
        """Index top-k. On Neo4j (one index over every group) past MAX_POOL with too few of the group's edges, the
        group's own edges are scanned instead, under the same timeout; on FalkorDB the graph is the group."""
        if self.neo4j:
            call = (
                f"CALL db.index.vector.queryRelationships('{neo4j_vector_index('fact_embedding', len(vec))}', "
                "$k, $vec) YIELD relationship AS e, score"
            )
            found = await self._widening(call, "DESC", pool, moment, vec=vec)
        else:
            call = (
                "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($vec)) "
                "YIELD relationship AS e, score"
            )
            found = await self._widening(call, "ASC", pool, moment, vec=vec)
        return await self.edge_vector_exact(vec, pool, moment) if found is None else found

    async def edge_vector_exact(self, vec: list[float], pool: int, moment: dt.datetime | None) -> list[Edge]:
        """The brute-force scan graphiti does (every embedding compared): the reference the index must match."""
        cosine, order = self._cosine("fact_embedding", "e")
        holds = HOLDS if moment is not None else "true"
        extra = {"at": self.at(moment)} if moment is not None else {}
        rows = await self.rows(
            f"MATCH (s:Entity)-[e:RELATES_TO]->(o:Entity) WHERE {self._edges('e')} AND {holds} "
            "AND e.fact_embedding IS NOT NULL "
            f"WITH e, s, o, {cosine} AS score ORDER BY score {order} LIMIT $k RETURN {self.columns}",
            k=pool,
            vec=vec,
            g=self.group_id,
            **extra,
        )
        return [Edge.from_row(r) for r in rows]

    async def edge_fulltext(self, text: str, pool: int, moment: dt.datetime | None) -> list[Edge]:
        if not text:
            return []
        if self.neo4j:
            call = (
                f"CALL db.index.fulltext.queryRelationships('{NEO4J_EDGE_FULLTEXT}', $q, {{limit: $k}}) "
                "YIELD relationship AS e, score"
            )
            found = await self._widening(call, "DESC", pool, moment, q=text)
            return found or []  # the Lucene query filters the group: past MAX_POOL, what was found is the answer
        # FalkorDB yields every match (no top-k): a large group's hub words are read in stages (fulltext_ladder)
        return await fulltext_ladder.edge_fulltext(self, text, pool, moment, HOLDS if moment is not None else "true")

    # ------------------------------------------------------------------ graph step

    async def entity_origins(
        self, text: str, vec: list[float] | Awaitable[list[float]], count: int, exact: bool = False
    ) -> list[list[str]]:
        """Entities the question names: ranked uuid lists from the name full-text index and the name vectors, asked
        concurrently (the full-text one does not wait for the question's embedding when `vec` is still coming)."""
        by_name, by_vector = await asyncio.gather(
            self.entity_names(text, count), self.entity_vectors(vec, count, exact)
        )
        return ([by_name] if text else []) + by_vector

    async def entity_names(self, text: str, count: int) -> list[str]:
        if not text:
            return []
        if self.neo4j:
            cypher = (
                f"CALL db.index.fulltext.queryNodes('{NEO4J_NODE_FULLTEXT}', $q, {{limit: $k}}) "
                "YIELD node, score WITH node, score WHERE node:Entity "
                "RETURN node.uuid AS uuid ORDER BY score DESC"
            )
        else:
            cypher = (
                "CALL db.idx.fulltext.queryNodes('Entity', $q) YIELD node, score "
                "RETURN node.uuid AS uuid ORDER BY score DESC LIMIT $k"
            )
        return [r["uuid"] for r in await self.rows(cypher, q=text, k=count)]

    async def entity_vectors(
        self, vec: list[float] | Awaitable[list[float]], count: int, exact: bool = False
    ) -> list[list[str]]:
        """[the name-vector list]: the index top-k; exact, or on Neo4j past MAX_POOL with too few of the group's
        entities, a scan of the group's names."""
        vec = vec if isinstance(vec, list) else await vec
        cosine, order = self._cosine("name_embedding", "node")
        if exact:
            cypher = (
                f"MATCH (node:Entity) WHERE {self._group('node')} WITH node, {cosine} AS score "
                f"ORDER BY score {order} LIMIT $k RETURN node.uuid AS uuid"
            )
            return [[r["uuid"] for r in await self.rows(cypher, vec=vec, k=count, g=self.group_id)]]
        if self.neo4j:
            cypher = (
                f"CALL db.index.vector.queryNodes('{neo4j_vector_index('name_embedding', len(vec))}', $k, "
                "$vec) YIELD node, score RETURN node.uuid AS uuid, node.group_id = $g AS keep "
                "ORDER BY score DESC"
            )
        else:
            cypher = (
                "CALL db.idx.vector.queryNodes('Entity', 'name_embedding', $k, vecf32($vec)) YIELD node, score "
                "RETURN node.uuid AS uuid, true AS keep ORDER BY score ASC"
            )
        found = await self._widen(cypher, count, lambda r: r["keep"], vec=vec, g=self.group_id)
        if found is None:
            return await self.entity_vectors(vec, count, exact=True)
        return [[r["uuid"] for r in found]]

    async def around(self, origins: list[str], vec: list[float], pool: int, moment: dt.datetime | None) -> list[Edge]:
        """Facts touching the origin entities, closest to the question first: depth 1, at most LOCAL_SCAN edges."""
        if not origins:
            return []
        cosine, order = self._fact_score()
        holds = HOLDS if moment is not None else "true"
        extra = {"at": self.at(moment)} if moment is not None else {}
        returned = f"collect({_packed(self.columns)}) AS rows" if self.neo4j else self.columns
        rows = await self.rows(
            "UNWIND $origins AS u MATCH (n:Entity {uuid: u})-[e:RELATES_TO]-(:Entity) "
            f"WHERE {self._edges('e')} AND {holds} WITH DISTINCT e LIMIT $scan "
            "WITH e, startNode(e) AS s, endNode(e) AS o "
            f"WITH e, s, o, {cosine} AS score ORDER BY score {order} LIMIT $k "
            f"RETURN {returned}",
            origins=origins,
            vec=vec,
            scan=LOCAL_SCAN,
            k=pool,
            g=self.group_id,
            **extra,
        )
        if self.neo4j:
            rows = [dict(r) for r in rows[0]["rows"]]
        return [Edge.from_row(r) for r in rows]

    # ------------------------------------------------------------------ the hits

    async def full_rows(self, edges: list[Edge]) -> list[Edge]:
        """The whole rows of the final hits, in their order (candidates carry only what ranking reads). Endpoint
        labels unnamed: FalkorDB would scan every Entity per uuid (95 ms at 10k facts) instead of the uuid index."""
        if self.full or not edges:
            return edges
        rows = await self.rows(
            "UNWIND $uuids AS u MATCH ()-[e:RELATES_TO]->() WHERE e.uuid = u AND "
            f"{self._group('e')} WITH e, startNode(e) AS s, endNode(e) AS o RETURN {EDGE_COLUMNS}",
            uuids=[e.uuid for e in edges],
            g=self.group_id,
        )
        found = {r["uuid"]: Edge.from_row(r) for r in rows}
        return [found[e.uuid] for e in edges if e.uuid in found]

    async def episode_refs(self, uuids: list[str]) -> list[dict[str, Any]]:
        return await self.rows(
            "UNWIND $uuids AS u MATCH (n:Episodic {uuid: u}) RETURN n.uuid AS uuid, n.name AS name, "
            "n.source_system AS source, n.source_description AS source_description",
            uuids=uuids,
        )


def _packed(columns: str) -> str:
    """Neo4j: the columns as one map per edge `e`, so that a list of edges comes back as one record. The Python driver
    spends ~0.05 ms of CPU per record (message framing, asyncio); 400 candidate rows cost 25 ms, packed 4 ms."""
    pairs = [column.rsplit(" AS ", 1) for column in columns.split(", ")]
    ends = [(_START.sub("startNode(e).", _END.sub("endNode(e).", expr)), alias) for expr, alias in pairs]
    return "{" + ", ".join(f"{alias}: {expr}" for expr, alias in ends) + "}"


_START, _END = re.compile(r"\bs\."), re.compile(r"\bo\.")
