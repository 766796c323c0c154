"""The read side of the graph: facts and episodes, for the CLI and the MCP server. It never writes episodes or facts.

Separate from the writer so that readers (agents, `graphfeed search`) hold no write path at all. It checks, per group,
that the graph was written with the embedder this reader uses: vectors of another model would silently match nothing.
It talks to the database through the drivers only (connection.py): no graphiti_core, openai, dagster or spaCy is
imported on the read path (tests/graph/test_read_imports.py), so a question is answered in well under a second.
"""

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from graph.config import GraphConfig
from graph.connection import ReadBackend, utcnow
from graph.pins import check_pins
from graph.question_embedder import UsesEmbedder
from graph.read.episode_read import (
    EpisodeDetail,
    EpisodeFilters,
    EpisodePage,
    EpisodeSummary,
    get_episode,
    list_episodes,
    search_episodes,
)
from graph.read.history import SlotHistory
from ground.identity import validate_group_id


class GraphReader(UsesEmbedder):
    """`async with GraphReader(config) as r:` then search_facts / fact_history / search_episodes / get_episode /
    list_episodes. Every call first checks the group's stamp (pins.py): embedder, schema and graphiti-core versions."""

    def __init__(
        self,
        config: GraphConfig,
        *,
        embedder: Any = None,
        clock: Callable[[], dt.datetime] = utcnow,
        backend: Any = None,
    ):
        self.config = config.check()
        self._owns_backend = backend is None  # a shared backend is opened and closed by its owner
        self.backend = ReadBackend(config) if backend is None else backend
        self._embedder = embedder
        self.clock = clock
        self._checked: set[str] = set()

    @classmethod
    def sharing(cls, writer: Any) -> "GraphReader":
        """A reader over an open GraphWriter's connections and embedder (a write then its answers, in tests and
        benches): nothing to open or close, and it still checks each group's stamp before reading."""
        return cls(writer.config, embedder=writer.embedder, clock=writer.clock, backend=writer.backend)

    async def __aenter__(self) -> "GraphReader":
        if self._owns_backend:
            await self.backend.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._owns_backend:
            await self.backend.close()

    async def check_group(self, group_id: str) -> None:
        validate_group_id(group_id)
        if group_id in self._checked:
            return
        await check_pins(self.backend, group_id, embedder=self.embedder_name, dim=int(self.config.embedding_dim))
        self._checked.add(group_id)

    async def has_group(self, group_id: str) -> bool:
        """False when the store holds no graph for the group (a reader creates none); a writer's backend always has."""
        validate_group_id(group_id)
        has = getattr(self.backend, "has_group", None)
        return True if has is None else bool(await has(group_id))

    check_embedder = check_group  # the name search_facts calls on writers and readers alike

    async def search_facts(
        self,
        query: str,
        *,
        group_id: str,
        as_of: dt.datetime | None = None,
        known_at: dt.datetime | None = None,
        limit: int = 10,
        intents: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> list:
        """intents/sources: only facts that episodes with one of these intents / from one of these sources support."""
        from graph.read.search import FactHits, search_facts

        if not await self.has_group(group_id):
            return FactHits()  # nothing written to this group yet (FalkorDB: no graph to read)

        if intents or sources:
            from graph.read.fact_filters import search_facts_of_episodes

            await self.check_group(group_id)
            filters = EpisodeFilters(intents=list(intents), sources=list(sources))
            return await search_facts_of_episodes(
                self, query, group_id=group_id, filters=filters, as_of=as_of, known_at=known_at, limit=limit
            )
        return await search_facts(self, query, group_id=group_id, as_of=as_of, known_at=known_at, limit=limit)

    async def fact_history(self, subject: str, *, group_id: str, relation: str | None = None) -> SlotHistory:
        """Every value the subject's single-valued slots had (history.py); raises AmbiguousSubject with candidates."""
        from graph.read.history import fact_history

        await self.check_group(group_id)
        return await fact_history(self.backend, group_id, subject, relation)

    async def search_episodes(
        self, query: str, *, group_id: str, filters: EpisodeFilters | None = None, limit: int = 10
    ) -> list[EpisodeSummary]:
        await self.check_group(group_id)
        return await search_episodes(self.backend, group_id, query, filters, limit)

    async def list_episodes(
        self, *, group_id: str, filters: EpisodeFilters | None = None, cursor: str | None = None, limit: int = 20
    ) -> EpisodePage:
        await self.check_group(group_id)
        return await list_episodes(self.backend, group_id, filters, cursor, limit)

    async def get_episode(self, id_or_key: str, *, group_id: str) -> EpisodeDetail | None:
        await self.check_group(group_id)
        return await get_episode(self.backend, group_id, id_or_key)
