"""Fact search: vector and full-text indexes, a bounded graph step, reciprocal-rank fusion, bi-temporal filter.

as_of=d keeps facts valid at d (valid_at <= d and (invalid_at is null or invalid_at > d)), pushed into every query;
without as_of the facts true now come first, then history. Each hit names its source episode(s) so an answer can be
traced to the record. Candidates come from index calls (top-k), never from a scan of every embedding: graphiti's own
search_ compares the question with every fact and its BFS can run unbounded from hub entities (issue 13). A step that
times out (server-side timeout on every query) is dropped and named in `FactHits.degraded`.
"""

import asyncio
import datetime as dt
import functools
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from graph.connection import as_datetime, fulltext_query, is_neo4j
from graph.read.search_edge import Edge
from graph.read.search_steps import SearchSteps
from ground.identity import validate_group_id
from ground.records import as_utc
from transforms.question_cues import EVENT_CUES, SLOT_CUES

# History can outrank current facts in RRF; fetch more candidates than asked so "current first" has material.
CANDIDATE_FACTOR = 3
# Entities the graph step starts from (the best name matches), and graphiti's RRF rank constant.
ORIGINS = 3
RRF_RANK_CONST = 1


class EpisodeRef(BaseModel):
    uuid: str
    name: str  # = source_key
    source: str | None = None  # source system (email, jira, ...)
    source_description: str | None = None


class FactHit(BaseModel):
    uuid: str
    fact: str
    name: str  # relation (HAS_CONTACT, SENT_TO, ...)
    subject: str | None = None  # entity names
    object: str | None = None
    valid_at: dt.datetime | None = None
    invalid_at: dt.datetime | None = None
    created_at: dt.datetime | None = None
    expired_at: dt.datetime | None = None
    episodes: list[EpisodeRef] = Field(default_factory=list)
    known_at: dt.datetime | None = None  # set by known_at searches: invalid_at/expired_at are as known then
    interval_exact: bool | None = None  # False: recorded before revisions were kept (known_at.py)

    def holds_at(self, moment: dt.datetime) -> bool:
        return (self.valid_at is None or self.valid_at <= moment) and (
            self.invalid_at is None or self.invalid_at > moment
        )


def search_config(limit: int) -> Any:
    """graphiti's search_ as graphfeed called it before issue 13 (BM25 + cosine + BFS, RRF): bench/search_bench.py's
    baseline. Our own config object per call: Graphiti.search mutates its shared recipe's limit (notes §7.8).
    graphiti is imported here only: the read path does not load it."""
    from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig

    return SearchConfig(
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity, EdgeSearchMethod.bfs],
            reranker=EdgeReranker.rrf,
        ),
        limit=limit,
    )


def candidates(limit: int) -> int:
    """Hybrid search returns more than we show: the relation and current-first ordering pick from a wider pool."""
    return max(limit * CANDIDATE_FACTOR, 50)


def as_of_filter(moment: dt.datetime) -> Any:
    """The baseline's as-of filter. Outer lists are OR, inner lists AND (graphiti SearchFilters)."""
    from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

    return SearchFilters(
        valid_at=[[DateFilter(date=moment, comparison_operator=ComparisonOperator.less_than_equal)]],
        invalid_at=[
            [DateFilter(date=moment, comparison_operator=ComparisonOperator.greater_than)],
            [DateFilter(comparison_operator=ComparisonOperator.is_null)],
        ],
    )


class FactHits(list):
    """The hits, best first, plus the steps that timed out or failed (empty when the answer is complete)."""

    def __init__(self, hits: Any = (), degraded: list[str] | None = None):
        super().__init__(hits)
        self.degraded: list[str] = list(degraded or [])


async def search_facts(
    writer: Any,
    query: str,
    *,
    group_id: str,
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    limit: int = 10,
    exact: bool = False,
    edge_uuids: list[str] | None = None,
) -> FactHits:
    """exact=True replaces the vector index calls by a scan of every embedding (the reference for tests).
    edge_uuids: search only these facts, inside every step's query (graph/read/fact_filters.py: the facts of
    the episodes that match an intent/source filter). A question that asks for an event ("who escalated", "what did
    they decide") is also searched among those event relations, and their hits lead.

    known_at=t: the facts the graph held at t of its own history, each interval as known then (graph/
    known_at.py); with as_of, what the graph at t said held on that date. The interval as known at t is not what is
    stored now, so the as-of filter is applied after the index calls over a wider pool, not pushed into them.
    """
    validate_group_id(group_id)
    await writer.check_embedder(group_id)  # vectors of another model cannot be compared
    driver = await writer.backend.driver(group_id)
    moment = as_utc(as_of) if as_of is not None else None
    pushed = moment if known_at is None else None  # the as-of filter inside the queries
    # the question is embedded (in a thread) while the steps that need no vector already ask the database
    vec = asyncio.ensure_future(writer.embedder.create(query))
    try:
        pool = candidates(limit)
        if known_at is not None:
            from graph.known_at import KNOWN_AT_WIDEN

            pool *= KNOWN_AT_WIDEN
        text = _fulltext(query, group_id, driver)
        steps = SearchSteps(
            driver,
            group_id,
            writer.config.search_timeout_ms,
            only=edge_uuids,
            full=known_at is not None,  # known_edges reads each candidate's dates and revisions
            now=pushed if pushed is not None else writer.clock(),  # `held` at the as-of date, else now
        )
        # events the question asks for lead, then the text date slots it asks for (each also searched among its own
        # relations, so a few are not drowned by the many facts that share the question's nouns), then the rest;
        # the narrowed searches run beside the whole one
        named = [names for names in (named_slots(query), named_events(query)) if names]
        rank = functools.partial(_ranked, query=query, text=text, vec=vec, pool=pool, moment=pushed, exact=exact)
        ranked, *narrowed = await asyncio.gather(rank(steps), *(_narrowed(steps.narrowed(n), rank) for n in named))
        await vec  # an embedding that failed fails the search, even when no step waited for it
    finally:
        vec.cancel()  # a failed step: the embedding's result is not wanted (no-op once done)
    for found in narrowed:
        first = {e.uuid for e in found}
        ranked = found + [e for e in ranked if e.uuid not in first]
    if known_at is not None:
        from graph.known_at import as_known, known_edges

        seen = as_utc(known_at)
        known = known_edges(ranked, seen, moment)[:limit]
        hits = await _to_hits(steps, [edge for edge, _ in known])
        return FactHits([as_known(hit, version, seen) for hit, (_, version) in zip(hits, known)], steps.degraded)
    if moment is not None:  # `held` is computed in the queries, at the as-of date or now
        edges = [e for e in ranked if e.held]
    else:
        edges = [e for e in ranked if e.held] + [e for e in ranked if not e.held]
    return FactHits(await _to_hits(steps, edges[:limit]), steps.degraded)


async def _ranked(
    steps: SearchSteps,
    query: str,
    text: str,
    vec: Awaitable[list[float]],
    pool: int,
    moment: dt.datetime | None,
    exact: bool,
) -> list[Edge]:
    """Vector top-k, full-text top-k and the graph step around the entities the question names, fused (RRF); the
    three lists run concurrently, and the full-text queries do not wait for the question's embedding (`vec`)."""
    vector = steps.edge_vector_exact if exact else steps.edge_vector

    async def vector_step() -> list[Edge]:
        return await steps.step("vector", vector(await vec, pool, moment))

    async def graph_step() -> tuple[list[str], list[Edge]]:
        origins = fuse(await steps.step("entities", steps.entity_origins(text, vec, ORIGINS, exact)))[:ORIGINS]
        return origins, await steps.step("graph", steps.around(origins, await vec, pool, moment))

    found_vector, found_text, (origins, found_near) = await asyncio.gather(
        vector_step(), steps.step("fulltext", steps.edge_fulltext(text, pool, moment)), graph_step()
    )
    lists = [found_vector, found_text, found_near]
    by_uuid = {e.uuid: e for found in lists for e in found}
    return _prefer(query, origins[:1], [by_uuid[u] for u in fuse([[e.uuid for e in found] for found in lists])])


async def _narrowed(steps: SearchSteps, rank: Callable[[SearchSteps], Awaitable[list[Edge]]]) -> list[Edge]:
    """`rank` among the named relations' facts (`steps` is narrowed), skipped when the group holds none: the index
    calls cannot filter by relation, so they would widen to their bounds (FalkorDB's full-text ladder read every match
    of the question's hub words: 0.1-0.2 s at 100k facts, the >1 s outliers at 1M)."""
    if not await steps.step("relations", steps.any_edge()):
        return []
    return await rank(steps)


def fuse(ranked_lists: list[list[str]]) -> list[str]:
    """Reciprocal-rank fusion as graphiti's rrf (1 / (rank + 1)); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranked in ranked_lists:
        for i, uuid in enumerate(dict.fromkeys(ranked)):
            scores[uuid] = scores.get(uuid, 0.0) + 1.0 / (i + RRF_RANK_CONST)
    return sorted(scores, key=lambda u: -scores[u])


def _fulltext(query: str, group_id: str, driver: Any) -> str:
    """graphiti's own query builders: RediSearch terms OR-ed (no group filter: the graph is the group) / Lucene."""
    if is_neo4j(driver):
        return fulltext_query(query, [group_id], driver)
    return fulltext_query(query, None, driver).strip()


_STOP = {"has", "is", "in", "on", "of", "to", "by", "the", "a", "at", "for"}


@functools.lru_cache(maxsize=1024)
def _relation_words(name: str) -> frozenset[str]:
    return frozenset(w for w in name.lower().split("_") if w and w not in _STOP)


def names_relation(edge: Any, query: str) -> bool:
    """The question names the relation ("contact" ~ HAS_CONTACT, "owns"/"owner" ~ OWNED_BY, "assignee" ~ ASSIGNED_TO).

    Hybrid search scores the words of fact sentences; many event facts share a question's nouns, so the fact whose
    relation the question asks about is moved to the front, keeping the hybrid order otherwise.
    """
    return _names(edge.name or "", query)


# Ranking asks these of the question and of each candidate's relation and fact several times per search (~30 % of a
# search's client CPU at 100k facts before they were kept): pure functions of their strings, kept per string.
@functools.lru_cache(maxsize=4096)
def _stems(query: str) -> frozenset[str]:
    """Stems of the words, a hyphenated word also as its parts ("go-live" -> go-live, go, live)."""
    words = {w.strip("?.,!:;()'\"").lower() for w in query.replace("'s", " ").split()}
    words |= {part for w in words if "-" in w for part in w.split("-") if part}
    return frozenset(_stem(w) for w in words if w not in _STOP)


@functools.lru_cache(maxsize=1024)
def _names(relation: str, query: str) -> bool:
    stems = _stems(query)
    return any(_stem(r) in stems for r in _relation_words(relation)) or relation in named_slots(query)


def named_slots(query: str) -> list[str]:
    """Date slots stated in text that the question asks for ("when is the go-live of X", "wann ist die Frist")."""
    return _cued(SLOT_CUES, query)


def _cued(cues: Mapping[str, tuple[frozenset[str], ...]], query: str) -> list[str]:
    """The relations one of whose cue sets the question says whole (cue words stemmed as the question's)."""
    stems = _stems(query)
    return [relation for relation, sets in cues.items() if any({_stem(w) for w in cue} <= stems for cue in sets)]


def named_events(query: str) -> list[str]:
    """Event relations from text the question asks about ("who escalated", "what did they decide"): searched among
    those edges too, so a few events are not drowned by the many mail facts that share the question's nouns."""
    return _cued(EVENT_CUES, query)


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "er", "ee", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word[:-1] if word.endswith("e") and len(word) >= 5 else word  # decide ~ decided, escalate ~ escalated


_ASKS_SUBJECT = re.compile(r"(?i)^\s*who\s+(?!(?:is|was|are|were|did|does|do|has|had|have|will|would|can|could)\b)\w+")
_ASKS_OBJECT = re.compile(r"(?i)^\s*(?:who|whom|what|which(?:\s+\w+)?)\s+(?:did|does|do|has|had|have)\s+\S")


def asked_side(query: str) -> int | None:
    """Which end of a fact the entity the question names should be: "Who emailed Tom?" asks for the sender, so Tom is
    the target (1); "Whom did Tom email?", "What did Tom send?" ask for the object, so Tom is the source (0); None when
    the question does not say (graph facts run subject -> object: "X emailed Y", "X works at Y")."""
    if _ASKS_OBJECT.match(query):
        return 0
    return 1 if _ASKS_SUBJECT.match(query) else None


def _prefer(query: str, centers: list[str], edges: list[Any]) -> list[Any]:
    """Facts whose relation the question names first; among those, a slot's own facts ("what is the status of NW-7"
    ~ HAS_STATUS) before events that only share a word of it (REPORTED_STATUS) unless the question asks for the event
    ("who reported status"); then the facts that say more of the question's words (many alike: "X confirmed a date
    on ...", "The go-live date of <subject> is ..." of several subjects), then the facts of the entity it names best (the
    first graph-step origin: graphiti's node-distance idea at distance 0), on the end the question asks for first
    ("Who emailed Tom?": Tom as the recipient, asked_side); the fused order otherwise."""
    stems = _stems(query)
    asked = set(named_events(query))
    side = asked_side(query)

    def key(edge: Any) -> tuple[bool, bool, int, int]:
        named = names_relation(edge, query)
        event = _is_event(edge.name or "")
        said = len(stems & _stems(edge.fact or "")) if named else 0
        ends = (edge.source_node_uuid in centers, edge.target_node_uuid in centers)
        touches = 0 if side is not None and ends[side] else 1 if any(ends) else 2
        return not named, event and edge.name not in asked, -said, touches

    return sorted(edges, key=key)


def _is_event(relation: str) -> bool:
    return relation in EVENT_CUES


async def _to_hits(steps: SearchSteps, edges: list[Edge]) -> list[FactHit]:
    """The whole rows of the hits and their episodes, read concurrently (a failed read keeps what ranking had)."""
    if not edges:
        return []
    episode_ids = sorted({ep for e in edges for ep in e.episodes})

    async def refs() -> list[Any]:
        return await steps.step("episodes", steps.episode_refs(episode_ids)) if episode_ids else []

    full, rows = await asyncio.gather(steps.step("facts", steps.full_rows(edges)), refs())
    edges = full or edges
    episodes = {r["uuid"]: EpisodeRef(**r) for r in rows}
    return [
        FactHit(
            uuid=e.uuid,
            fact=e.fact,
            name=e.name,
            subject=e.subject,
            object=e.object,
            valid_at=as_datetime(e.valid_at),
            invalid_at=as_datetime(e.invalid_at),
            created_at=as_datetime(e.created_at),
            expired_at=as_datetime(e.expired_at),
            episodes=[episodes.get(ep) or EpisodeRef(uuid=ep, name="") for ep in e.episodes],
        )
        for e in edges
    ]
