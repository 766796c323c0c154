"""Fact search through Graphiti's own hybrid search (BM25 + cosine + BFS, RRF), with bi-temporal as-of filtering.

as_of=d keeps facts valid at d (valid_at <= d and (invalid_at is null or invalid_at > d)); without as_of the facts true
now come first, then history. Each hit names its source episode(s) so an answer can be traced to the record.
"""

import datetime as dt
from typing import Any

from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters
from pydantic import BaseModel, Field

from connectors.graph.backend import as_datetime
from connectors.graph.config import validate_group_id
from connectors.records import as_utc
from transforms.intent_facts import EVENT_CUES

# History can outrank current facts in RRF; fetch more candidates than asked so "current first" has material.
CANDIDATE_FACTOR = 3


class EpisodeRef(BaseModel):
    uuid: str
    name: str                      # = source_key
    source: str | None = None      # source system (email, jira, ...)
    source_description: str | None = None


class FactHit(BaseModel):
    uuid: str
    fact: str
    name: str                      # relation (HAS_CONTACT, SENT_TO, ...)
    subject: str | None = None     # entity names
    object: str | None = None
    valid_at: dt.datetime | None = None
    invalid_at: dt.datetime | None = None
    created_at: dt.datetime | None = None
    expired_at: dt.datetime | None = None
    episodes: list[EpisodeRef] = Field(default_factory=list)

    def holds_at(self, moment: dt.datetime) -> bool:
        return (self.valid_at is None or self.valid_at <= moment) and (self.invalid_at is None or self.invalid_at > moment)


def search_config(limit: int) -> SearchConfig:
    """Our own config object per call: Graphiti.search mutates its shared recipe's limit (notes §7.8)."""
    return SearchConfig(edge_config=EdgeSearchConfig(
        search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity, EdgeSearchMethod.bfs],
        reranker=EdgeReranker.rrf), limit=limit)


def candidates(limit: int) -> int:
    """Hybrid search returns more than we show: the relation and current-first ordering pick from a wider pool."""
    return max(limit * CANDIDATE_FACTOR, 50)


def as_of_filter(moment: dt.datetime, edge_uuids: list[str] | None = None) -> SearchFilters:
    """Outer lists are OR, inner lists AND (graphiti SearchFilters). edge_uuids: only these facts."""
    return SearchFilters(
        valid_at=[[DateFilter(date=moment, comparison_operator=ComparisonOperator.less_than_equal)]],
        invalid_at=[[DateFilter(date=moment, comparison_operator=ComparisonOperator.greater_than)],
                    [DateFilter(comparison_operator=ComparisonOperator.is_null)]], edge_uuids=edge_uuids)


async def search_facts(writer: Any, query: str, *, group_id: str, as_of: dt.datetime | None = None,
                       limit: int = 10, edge_uuids: list[str] | None = None) -> list[FactHit]:
    """edge_uuids: search only these facts (connectors/graph/fact_filters.py: the facts of matching episodes)."""
    validate_group_id(group_id)
    graphiti = await writer.graphiti(group_id)
    driver = await writer.backend.driver(group_id)

    async def run(search_filter: SearchFilters | None) -> list[Any]:
        found = list((await graphiti.search_(query, config=search_config(candidates(limit)), group_ids=[group_id],
                                             search_filter=search_filter, driver=driver)).edges)
        named = named_events(query)
        if named:
            narrowed = (search_filter or SearchFilters()).model_copy(update={"edge_types": named})
            events = list((await graphiti.search_(query, config=search_config(candidates(limit)),
                                                  group_ids=[group_id], search_filter=narrowed, driver=driver)).edges)
            seen = {e.uuid for e in events}
            found = events + [e for e in found if e.uuid not in seen]
        return found

    if as_of is not None:
        moment = as_utc(as_of)
        results = await run(as_of_filter(moment, edge_uuids))
        edges = _prefer_relation([e for e in results if _holds(e, moment)], query)   # holds: index quirks
    else:
        now = writer.clock()
        results = await run(SearchFilters(edge_uuids=edge_uuids) if edge_uuids is not None else None)
        ranked = _prefer_relation(results, query)
        edges = [e for e in ranked if _holds(e, now)] + [e for e in ranked if not _holds(e, now)]
    edges = edges[:limit]
    return await _to_hits(writer, group_id, edges)


_STOP = {"has", "is", "in", "on", "of", "to", "by", "the", "a", "at", "for"}


def _relation_words(name: str) -> set[str]:
    return {w for w in name.lower().split("_") if w and w not in _STOP}


def names_relation(edge: Any, query: str) -> bool:
    """The question names the relation ("contact" ~ HAS_CONTACT, "owns"/"owner" ~ OWNED_BY, "assignee" ~ ASSIGNED_TO).

    Hybrid search scores the words of fact sentences; many event facts share a question's nouns, so the fact whose
    relation the question asks about is moved to the front, keeping the hybrid order otherwise.
    """
    return _names(edge.name or "", query)


def _stems(query: str) -> set[str]:
    words = {w.strip("?.,!'\"").lower() for w in query.replace("'s", " ").split()}
    return {_stem(w) for w in words if w not in _STOP}


def _names(relation: str, query: str) -> bool:
    stems = _stems(query)
    return any(_stem(r) in stems for r in _relation_words(relation))


def named_events(query: str) -> list[str]:
    """Event relations from text the question asks about ("who escalated", "what did they decide"): searched among
    those edges too, so a few events are not drowned by the many mail facts that share the question's nouns."""
    stems = _stems(query)
    return [relation for relation, cues in EVENT_CUES.items() if any(cue <= stems for cue in cues)]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "er", "ee", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word[:-1] if word.endswith("e") and len(word) >= 5 else word      # decide ~ decided, escalate ~ escalated


def _prefer_relation(edges: list[Any], query: str) -> list[Any]:
    return [e for e in edges if names_relation(e, query)] + [e for e in edges if not names_relation(e, query)]


def _holds(edge: Any, moment: dt.datetime) -> bool:
    valid_at, invalid_at = as_datetime(edge.valid_at), as_datetime(edge.invalid_at)
    return (valid_at is None or valid_at <= moment) and (invalid_at is None or invalid_at > moment)


async def _to_hits(writer: Any, group_id: str, edges: list[Any]) -> list[FactHit]:
    if not edges:
        return []
    episode_ids = sorted({ep for e in edges for ep in (e.episodes or [])})
    node_ids = sorted({u for e in edges for u in (e.source_node_uuid, e.target_node_uuid)})
    episodes: dict[str, EpisodeRef] = {}
    if episode_ids:
        rows = await writer.backend.query(
            group_id, "MATCH (n:Episodic) WHERE n.uuid IN $uuids RETURN n.uuid AS uuid, n.name AS name, "
                      "n.source_system AS source, n.source_description AS source_description", uuids=episode_ids)
        episodes = {r["uuid"]: EpisodeRef(**r) for r in rows}
    rows = await writer.backend.query(group_id, "MATCH (n:Entity) WHERE n.uuid IN $uuids RETURN n.uuid AS uuid, "
                                                "n.name AS name", uuids=node_ids)
    names = {r["uuid"]: r["name"] for r in rows}
    return [FactHit(uuid=e.uuid, fact=e.fact, name=e.name, subject=names.get(e.source_node_uuid),
                    object=names.get(e.target_node_uuid), valid_at=as_datetime(e.valid_at),
                    invalid_at=as_datetime(e.invalid_at), created_at=as_datetime(e.created_at),
                    expired_at=as_datetime(e.expired_at),
                    episodes=[episodes.get(ep) or EpisodeRef(uuid=ep, name="") for ep in (e.episodes or [])])
            for e in edges]
