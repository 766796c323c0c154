"""Graphiti add_episode for one graphfeed Episode: chunked, with the episode's own time and deterministic uuids,
metered per episode, and either written or held for review.

HoldingGraphiti overrides the one method where add_episode writes (`_process_episode_data`): extraction and entity/
edge resolution still read the real graph, but for a source under review the result is captured instead of written.
It also keeps the episode's existing entity_edges (structured facts in "both" mode) instead of replacing them, and
runs the grounding guard (guard.py) on what graphiti is about to save, in that same step: for held extractions too.
"""

import contextlib
import contextvars
import datetime as dt
from collections.abc import Iterator
from typing import Any

from graphiti_core import Graphiti
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodicNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from graphiti_core.utils.maintenance.edge_operations import build_episodic_edges
from pydantic import BaseModel, ConfigDict, Field

from graph.llm.chunking import Chunk, chunk_episode
from graph.llm.guard import GuardReport, guard_extraction
from graph.llm.meter import Usage, UsageMeter
from graph.llm.settings import LLMSettings
from graph.llm.store import LLMStore, ReviewItem
from graph.write.to_graphiti import episode_properties, episode_type, source_description
from ground.episode import Episode
from transforms.grounding import episode_aliases, fold

_HOLD: contextvars.ContextVar[bool] = contextvars.ContextVar("graphfeed_llm_hold", default=False)
_CAPTURE: contextvars.ContextVar[list | None] = contextvars.ContextVar("graphfeed_llm_capture", default=None)
_GUARD: contextvars.ContextVar["GuardContext | None"] = contextvars.ContextVar("graphfeed_llm_guard", default=None)

# graphiti's Episodic save does `SET n = {...}`, which drops our extra properties: put them back after every write.
SET_CHUNK_PROPS = """
UNWIND $rows AS row
MATCH (n:Episodic {uuid: row.uuid})
SET n.intent = row.intent, n.intent_confidence = row.intent_confidence, n.references = row.references,
    n.source_system = row.source_system, n.kind = row.kind, n.fingerprint = row.fingerprint, n.title = row.title,
    n.parent_episode = row.parent_episode, n.chunk_index = row.chunk_index, n.chunk_count = row.chunk_count,
    n.extraction = row.extraction, n.thread = row.thread
"""
# Earlier LLM-extracted episodes of the same thread: the context a reply needs (valid_at is an ISO string on FalkorDB
# and a DateTime on Neo4j; both compare correctly with a parameter of the same kind).
THREAD_CONTEXT = """
MATCH (e:Episodic) WHERE e.thread = $thread AND e.valid_at <= $before AND NOT e.uuid IN $exclude
RETURN e.uuid AS uuid ORDER BY e.valid_at DESC, e.uuid DESC LIMIT $n
"""


class Extracted(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    episode: EpisodicNode
    nodes: list[EntityNode]
    edges: list[EntityEdge]
    episodic_edges: list[EpisodicEdge]


class GuardContext(BaseModel):
    """What the guard checks one episode's extraction against, set around its add_episode calls."""

    record_time: dt.datetime
    folded_text: str
    aliases: set[str]
    meter: Any = None
    reports: list[GuardReport] = Field(default_factory=list)

    @classmethod
    def of(cls, episode: Episode, meter: Any = None) -> "GuardContext":
        text = f"{episode.metadata.title}\n{episode.content}"
        return cls(record_time=episode.timestamp, folded_text=fold(text), aliases=episode_aliases(episode), meter=meter)


@contextlib.contextmanager
def guarding(context: GuardContext) -> Iterator[GuardContext]:
    token = _GUARD.set(context)
    try:
        yield context
    finally:
        _GUARD.reset(token)


class EpisodeExtraction(BaseModel):
    """What one episode's LLM extraction did."""

    episode_id: str
    chunks: int = 0
    entities: int = 0
    facts: int = 0
    facts_invalidated: int = 0
    held_chunks: int = 0
    usage: Usage = Field(default_factory=Usage)
    guard: list[GuardReport] = Field(default_factory=list)  # one per chunk


@contextlib.contextmanager
def capturing(hold: bool) -> Iterator[list[Extracted]]:
    captured: list[Extracted] = []
    t1, t2 = _HOLD.set(hold), _CAPTURE.set(captured)
    try:
        yield captured
    finally:
        _HOLD.reset(t1)
        _CAPTURE.reset(t2)


class HoldingGraphiti(Graphiti):
    async def _process_episode_data(
        self,
        episode: Any,
        nodes: list[EntityNode],
        entity_edges: list[EntityEdge],
        now: dt.datetime,
        group_id: str,
        saga: Any = None,
        saga_previous_episode_uuid: str | None = None,
        node_episode_index_map: dict[str, list[int]] | None = None,
        clients: Any = None,
    ) -> tuple[list[EpisodicEdge], EpisodicNode]:
        if saga is not None or isinstance(episode, list):
            return await super()._process_episode_data(
                episode,
                nodes,
                entity_edges,
                now,
                group_id,
                saga,
                saga_previous_episode_uuid,
                node_episode_index_map,
                clients=clients,
            )
        clients = clients or self.clients
        context = _GUARD.get()
        if context is not None:
            nodes, entity_edges, report = guard_extraction(
                episode_uuid=episode.uuid,
                record_time=context.record_time,
                folded_text=context.folded_text,
                aliases=context.aliases,
                nodes=nodes,
                edges=entity_edges,
            )
            context.reports.append(report)
            if context.meter is not None:
                for reason, n in report.counts().items():
                    context.meter.count_guard(reason, n)
        episodic_edges = build_episodic_edges(nodes, [episode.uuid], now, node_episode_index_map)
        for edge in entity_edges:
            # The source's time wins: a new fact the model gave no date gets the episode's own timestamp.
            if edge.valid_at is None and episode.uuid in (edge.episodes or []):
                edge.valid_at = episode.valid_at
        kept = list(episode.entity_edges or [])
        episode.entity_edges = kept + [e.uuid for e in entity_edges if e.uuid not in set(kept)]
        captured = _CAPTURE.get()
        if captured is not None:
            captured.append(Extracted(episode=episode, nodes=nodes, edges=entity_edges, episodic_edges=episodic_edges))
        if not _HOLD.get():
            await add_nodes_and_edges_bulk(
                clients.driver, [episode], episodic_edges, nodes, entity_edges, clients.embedder
            )
        return episodic_edges, episode


def thread_of(episode: Episode) -> str:
    """The conversation an episode belongs to: thread key, else the record it answers, else itself."""
    meta = episode.metadata
    return f"{episode.source}:{meta.thread_key or meta.parent_key or meta.source_key}"


def chunk_props(episode: Episode, chunk: Chunk, mode: str) -> dict[str, Any]:
    row = episode_properties(episode)
    row.update(
        uuid=chunk.uuid,
        parent_episode=episode.id,
        chunk_index=chunk.index,
        chunk_count=chunk.count,
        extraction=mode,
        thread=thread_of(episode),
    )
    return row


def serialise(extracted: Extracted, props: dict[str, Any]) -> dict[str, Any]:
    """JSON-safe; embeddings left out (recomputed on approval, and they would dominate the row)."""
    return {
        "episode": extracted.episode.model_dump(mode="json"),
        "nodes": [n.model_dump(mode="json", exclude={"name_embedding"}) for n in extracted.nodes],
        "edges": [e.model_dump(mode="json", exclude={"fact_embedding"}) for e in extracted.edges],
        "episodic_edges": [e.model_dump(mode="json") for e in extracted.episodic_edges],
        "props": props,
    }


def deserialise(payload: dict[str, Any]) -> Extracted:
    return Extracted(
        episode=EpisodicNode.model_validate(payload["episode"]),
        nodes=[EntityNode.model_validate(n) for n in payload["nodes"]],
        edges=[EntityEdge.model_validate(e) for e in payload["edges"]],
        episodic_edges=[EpisodicEdge.model_validate(e) for e in payload["episodic_edges"]],
    )


def fact_lines(extracted: Extracted, chunk_uuid: str) -> list[str]:
    lines = []
    for edge in extracted.edges:
        new = chunk_uuid in (edge.episodes or [])
        when = f" [valid {edge.valid_at.date().isoformat()}]" if edge.valid_at else ""
        if edge.invalid_at is not None and not new:
            lines.append(f"INVALIDATES ({edge.invalid_at.date().isoformat()}): {edge.fact}")
        else:
            lines.append(f"{edge.name}: {edge.fact}{when}")
    return lines


class LLMExtractor:
    """One per writer. `graphiti_for(group_id)` is supplied by the writer (it owns drivers and the embedder)."""

    def __init__(
        self, settings: LLMSettings, meter: UsageMeter, store: LLMStore, graphiti_for: Any, backend: Any, clock: Any
    ):
        self.settings = settings
        self.meter = meter
        self.store = store
        self.graphiti_for = graphiti_for
        self.backend = backend
        self.clock = clock

    async def extract(self, episode: Episode, *, mode: str) -> EpisodeExtraction:
        """Run add_episode per chunk. Usage is metered even when this raises (the tokens were spent)."""
        hold = self.settings.holds_for_review(episode.source)
        chunks = chunk_episode(
            episode.id, episode.content, self.settings.chunk_chars, self.settings.chunk_overlap_chars
        )
        out = EpisodeExtraction(episode_id=episode.id, chunks=len(chunks))
        graphiti = await self.graphiti_for(episode.group_id)
        driver = await self.backend.driver(episode.group_id)
        with self.meter.episode(episode.id) as usage:
            out.usage = usage
            for chunk in chunks:
                props = chunk_props(episode, chunk, mode)
                if chunk.count > 1:
                    node = EpisodicNode(
                        uuid=chunk.uuid,
                        name=f"{episode.metadata.source_key} [{chunk.index + 1}/{chunk.count}]",
                        group_id=episode.group_id,
                        source=episode_type(episode),
                        source_description=source_description(episode),
                        content=chunk.text,
                        valid_at=episode.timestamp,
                        created_at=self.clock(),
                        entity_edges=[],
                    )
                    await node.save(driver)
                    await self.backend.query(episode.group_id, SET_CHUNK_PROPS, rows=[props])
                previous = await self._context(episode, chunk, chunks)
                with capturing(hold) as captured, guarding(GuardContext.of(episode, self.meter)) as guard:
                    # reference_time is the source's own timestamp: never a time the model infers.
                    await graphiti.add_episode(
                        name=episode.metadata.title or episode.metadata.source_key,
                        episode_body=chunk.text,
                        source_description=source_description(episode),
                        reference_time=episode.timestamp,
                        source=episode_type(episode),
                        group_id=episode.group_id,
                        uuid=chunk.uuid,
                        previous_episode_uuids=previous,
                    )
                # What was (or, held, will be) saved: after the guard, not graphiti's own return value.
                extracted = captured[-1]
                out.guard += guard.reports
                new_edges = [e for e in extracted.edges if chunk.uuid in (e.episodes or [])]
                out.entities += len(extracted.nodes)
                out.facts += len(new_edges)
                out.facts_invalidated += sum(
                    1 for e in extracted.edges if e.invalid_at is not None and chunk.uuid not in (e.episodes or [])
                )
                if hold:
                    self.store.hold(
                        ReviewItem(
                            chunk_uuid=chunk.uuid,
                            episode_id=episode.id,
                            group_id=episode.group_id,
                            source=episode.source,
                            title=episode.metadata.title,
                            status="pending",
                            nodes=len(extracted.nodes),
                            edges=len(extracted.edges),
                            facts=fact_lines(extracted, chunk.uuid),
                            payload=serialise(extracted, props),
                            created_at=self.clock(),
                        )
                    )
                    out.held_chunks += 1
                else:
                    await self.backend.query(episode.group_id, SET_CHUNK_PROPS, rows=[props])
        return out

    async def _context(self, episode: Episode, chunk: Chunk, chunks: list[Chunk]) -> list[str] | None:
        """None lets graphiti pick its default context; a list (possibly empty) is used as is."""
        if self.settings.context == "recent":
            return None
        n = max(0, self.settings.context_episodes)
        earlier_chunks = [c.uuid for c in chunks[: chunk.index]][-n:] if n else []
        if len(earlier_chunks) >= n:
            return earlier_chunks
        rows = await self.backend.query(
            episode.group_id,
            THREAD_CONTEXT,
            thread=thread_of(episode),
            before=episode.timestamp,
            exclude=[c.uuid for c in chunks],
            n=n - len(earlier_chunks),
        )
        return [r["uuid"] for r in reversed(rows)] + earlier_chunks


async def apply_review(backend: Any, group_id: str, embedder: Any, payload: dict[str, Any]) -> Extracted:
    """Write a held extraction as add_episode would have (embeddings recomputed), then restore our properties."""
    extracted = deserialise(payload)
    driver = await backend.driver(group_id)
    await add_nodes_and_edges_bulk(
        driver, [extracted.episode], extracted.episodic_edges, extracted.nodes, extracted.edges, embedder
    )
    await backend.query(group_id, SET_CHUNK_PROPS, rows=[payload["props"]])
    return extracted
