"""Fact search restricted to the facts of some episodes (by intent and/or source system), filtered inside the query.

The Episodic nodes carry the uuids of the facts they support (entity_edges); those uuids go into Graphiti's own
SearchFilters.edge_uuids, which every edge search method (BM25, cosine, BFS) applies in its WHERE clause on both
backends. So a filtered search ranks only matching facts instead of fetching more and throwing most away.
"""

import datetime as dt
from typing import Any

from graph.read.episode_read import EpisodeFilters
from graph.read.search import FactHits, search_facts


async def episode_edge_uuids(backend: Any, group_id: str, filters: EpisodeFilters) -> list[str]:
    """The facts supported by the episodes that match the filters (intent, source, actor, time)."""
    clauses, params = filters.where()
    where = " AND ".join(["e.group_id = $gid", *clauses])
    rows = await backend.query(
        group_id, f"MATCH (e:Episodic) WHERE {where} RETURN e.entity_edges AS edges", gid=group_id, **params
    )
    return sorted({uuid for row in rows for uuid in (row["edges"] or [])})


async def search_facts_of_episodes(
    writer: Any,
    query: str,
    *,
    group_id: str,
    filters: EpisodeFilters,
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    limit: int = 10,
) -> FactHits:
    """writer: a GraphWriter or GraphReader (search_facts reads backend, embedder, config and the embedder check)."""
    edges = await episode_edge_uuids(writer.backend, group_id, filters)
    if not edges:
        return FactHits()
    return await search_facts(
        writer, query, group_id=group_id, as_of=as_of, known_at=known_at, limit=limit, edge_uuids=edges
    )
