"""The read side of the graph: facts and episodes, for the CLI and the MCP server. It never writes episodes or facts.

Separate from the writer so that readers (agents, `graphfeed search`) hold no write path at all. It checks, per group,
that the graph was written with the embedder this reader uses: vectors of another model would silently match nothing.
"""

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from connectors.graph.backend import GraphBackend, utcnow
from connectors.graph.config import GraphConfig
from connectors.graph.embedders import UsesEmbedder, local_graphiti
from connectors.graph.episode_read import (
    EpisodeDetail,
    EpisodeFilters,
    EpisodePage,
    EpisodeSummary,
    get_episode,
    list_episodes,
    search_episodes,
)
from connectors.graph.history import SlotHistory
from connectors.graph.pins import check_pins
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
        backend: GraphBackend | None = None,
    ):
        self.config = config.check()
        self._owns_backend = backend is None  # a shared backend is opened and closed by its owner
        self.backend = GraphBackend(config) if backend is None else backend
        self._embedder = embedder
        self.clock = clock
        self._graphiti: dict[str, Any] = {}
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
        self._graphiti.clear()
        if self._owns_backend:
            await self.backend.close()

    async def graphiti(self, group_id: str) -> Any:
        await self.check_group(group_id)
        if group_id not in self._graphiti:
            self._graphiti[group_id] = local_graphiti(await self.backend.driver(group_id), self.embedder)
        return self._graphiti[group_id]

    async def check_group(self, group_id: str) -> None:
        validate_group_id(group_id)
        if group_id in self._checked:
            return
        await check_pins(self.backend, group_id, embedder=self.embedder_name, dim=int(self.config.embedding_dim))
        self._checked.add(group_id)

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
        from connectors.graph.search import search_facts

        if intents or sources:
            from connectors.graph.fact_filters import search_facts_of_episodes

            await self.check_group(group_id)
            filters = EpisodeFilters(intents=list(intents), sources=list(sources))
            return await search_facts_of_episodes(
                self, query, group_id=group_id, filters=filters, as_of=as_of, known_at=known_at, limit=limit
            )
        return await search_facts(self, query, group_id=group_id, as_of=as_of, known_at=known_at, limit=limit)

    async def fact_history(self, subject: str, *, group_id: str, relation: str | None = None) -> SlotHistory:
        """Every value the subject's single-valued slots had (history.py); raises AmbiguousSubject with candidates."""
        from connectors.graph.history import fact_history

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
