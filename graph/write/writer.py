"""GraphWriter: episodes -> Graphiti graph, one batch = one unit, idempotent on rerun. It composes the parts:

- structured_writes.py: the exact system-of-record facts, per group ONE write transaction (Neo4j commits it
  atomically; FalkorDB has no multi-statement transactions, so there a failed batch is repaired by rerunning it: every
  id is deterministic);
- llm_extraction.py: sources in "llm"/"both" mode through Graphiti's add_episode, within the call's budget;
- tombstones.py: episodes deleted upstream end the facts only they support.
The helpers take a WriteContext (write_context.py) built here, never the writer: they import nothing from this module.
The facts extractor is the caller's (connectors.registry.fact_extractor in production): the sink knows no source.

Per batch: check the recorded embedder of every touched group (before writing anything), extract FactSets, write. Both
clocks survive reruns and backfills: created_at is the first recording, every change of an edge's end or expiry
appends a revision (known_at.py reads the interval as known at any moment), and an edge whose records were deleted
upstream keeps its tombstone when a backfill brings the record again. sync_facade.py is the blocking GraphSink over it;
reading (search) goes through reader.py.
"""

import asyncio
import datetime as dt
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graph.backend import GraphBackend, utcnow
from graph.config import GraphConfig
from graph.embedders import UsesEmbedder
from graph.pins import check_stamp, read_stamp
from graph.write.group_locks import group_locks
from graph.write.llm_extraction import write_llm
from graph.write.sink import BatchResult
from graph.write.structured_writes import write_group
from graph.write.to_graphiti import wants_name_vector, wants_vector
from graph.write.tombstones import invalidate_episodes
from graph.write.write_context import WriteContext
from ground.episode import Episode
from ground.errors import ConfigError
from ground.fact_model import FactSet, merge_factsets
from ground.identity import validate_group_id

if TYPE_CHECKING:
    from graph.llm.runtime import LLMRuntime

log = logging.getLogger(__name__)

# episode, domain orgs -> its FactSet. The caller passes it in (connectors.registry.fact_extractor over every
# registered source, or a test's own): the graph sink knows no source.
Extractor = Callable[[Episode, Mapping[str, str]], FactSet]


async def check_embedder_of(backend: GraphBackend, group_id: str, embedder_name: str, dim: int) -> None:
    """Raise EmbedderMismatch if the group was written with another embedder or dimension, SchemaMismatch if with
    another schema major (writers; readers use pins.check_pins, which also warns)."""
    stamp = await read_stamp(backend, group_id)
    if stamp is not None:
        check_stamp(stamp, group_id, embedder=embedder_name, dim=dim)


class GraphWriter(UsesEmbedder):
    """Async writer; use `async with GraphWriter(config, extractor=...) as w:` or open()/close()."""

    def __init__(
        self,
        config: GraphConfig,
        *,
        extractor: Extractor,
        embedder: Any = None,
        clock: Callable[[], dt.datetime] = utcnow,
    ):
        self.config = config.check()
        self.backend = GraphBackend(config)
        self.extractor = extractor
        self._embedder = embedder
        self.clock = clock
        self._graphiti: dict[str, Any] = {}
        self._llm: LLMRuntime | None = None
        lock_url = self.config.write_lock_url.get_secret_value() if self.config.write_lock_url else None
        self.locks = group_locks(self.config.home, lock_url)  # one writer per group at a time
        self.session_id = uuid.uuid4().hex  # groups this writer's LLM spend rows (one per run)
        # facts prefetch extracted for a coming batch, taken once by its write (episode id -> episode, facts, seconds)
        self._ahead: dict[str, tuple[Episode, FactSet, float]] = {}

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> "GraphWriter":
        await self.backend.open()
        return self

    async def close(self) -> None:
        self._graphiti.clear()
        if self._llm is not None:
            await self._llm.close()
            self._llm = None
        await self.backend.close()

    @property
    def uses_llm(self) -> bool:
        return self.config.uses_llm()

    @property
    def llm(self) -> "LLMRuntime":
        """The LLM parts (client, limiter, meter, store), built on first use; only when a source uses llm/both."""
        if self._llm is None:
            from graph.llm.runtime import LLMRuntime

            self._llm = LLMRuntime(self.context())
        return self._llm

    def context(self, *, with_llm: bool = False) -> WriteContext:
        """What the write helpers use of this writer (write_context.py); the LLM parts only when asked for."""
        return WriteContext(
            config=self.config,
            backend=self.backend,
            clock=self.clock,
            embedder=self.embedder,
            embedder_name=self.embedder_name,
            session_id=self.session_id,
            llm=self.llm if with_llm else None,
        )

    async def __aenter__(self) -> "GraphWriter":
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def graphiti(self, group_id: str) -> Any:
        """A Graphiti bound to the group's driver with local clients only (never builds OpenAI clients)."""
        if group_id not in self._graphiti:
            from graph.embedders import local_graphiti

            self._graphiti[group_id] = local_graphiti(await self.backend.driver(group_id), self.embedder)
        return self._graphiti[group_id]

    # ------------------------------------------------------------------ embedder guard

    async def check_embedder(self, group_id: str) -> None:
        """Raise EmbedderMismatch if the group was written with another embedder or dimension."""
        await check_embedder_of(self.backend, group_id, self.embedder_name, int(self.config.embedding_dim))

    # ------------------------------------------------------------------ write

    async def write_batch(
        self,
        episodes: Sequence[Episode],
        extra_facts: Mapping[str, FactSet] | None = None,
        *,
        max_cost_usd: float | None = None,
    ) -> BatchResult:
        """Write episodes (+ facts that come without content of their own, keyed by group id).

        Sources in "llm"/"both" mode also go through Graphiti's add_episode, one episode at a time, until
        max_cost_usd (this call) or the source's nightly cap is reached: the rest is deferred. An episode whose LLM
        extraction fails is a failed outcome (a typed Failure) instead of failing the whole batch.
        """
        started = time.perf_counter()
        groups: dict[str, list[Episode]] = defaultdict(list)
        llm_items: list[tuple[Episode, str]] = []
        for episode in episodes:
            validate_group_id(episode.group_id)
            mode = self.config.extraction_mode(episode.source)
            if mode != "structured":
                if self.config.llm is None or not self.config.llm.enabled:
                    raise ConfigError(f"extraction mode {mode!r} (source {episode.source!r}) needs an LLM endpoint")
                llm_items.append((episode, mode))
            if mode != "llm":
                groups[episode.group_id].append(episode)
        for group_id in extra_facts or {}:
            validate_group_id(group_id)
            groups.setdefault(group_id, [])
        checked = list(dict.fromkeys(list(groups) + [e.group_id for e, _ in llm_items]))
        result = BatchResult(llm_metered=self.uses_llm)
        extract_seconds: dict[str, float] = {}
        extracted: dict[str, tuple[FactSet, dict[str, list[str]]]] = {}
        for group_id, group_episodes in groups.items():  # pure work: before the lock, so it overlaps other writes
            parts = []
            mentions: dict[str, list[str]] = {}
            for episode in group_episodes:
                part, extract_seconds[episode.id] = self._extract(episode)
                parts.append(part)
                mentions[episode.id] = list(part.mentions)
            if extra_facts and group_id in extra_facts:
                parts.append(extra_facts[group_id])
            extracted[group_id] = (merge_factsets(parts), mentions)
        waited = time.perf_counter()
        async with self.locks.hold(checked):  # writes within a group never overlap; other groups go on meanwhile
            result.lock_wait_seconds = time.perf_counter() - waited
            result.held_from = time.time()
            for group_id in checked:  # all checks before any write
                await self.check_embedder(group_id)
            for group_id, group_episodes in groups.items():
                facts, mentions = extracted[group_id]
                await write_group(self.context(), group_id, group_episodes, facts, mentions, result)
            if llm_items:  # the LLM parts are built on first use, after the structured writes
                await write_llm(self.context(with_llm=True), llm_items, result, max_cost_usd, extract_seconds)
            result.held_until = time.time()

        shared = time.perf_counter() - started - sum(extract_seconds.values()) - result.lock_wait_seconds
        share = shared / len(episodes) if episodes else 0.0
        result.per_episode_seconds = [extract_seconds.get(e.id, 0.0) + share for e in episodes]
        result.settle(episodes)
        return result

    def _extract(self, episode: Episode, keep: bool = False) -> tuple[FactSet, float]:
        """The episode's facts and the seconds their extraction took, taken from a prefetch when it did the work (the
        write of that batch would extract the same again: ~1 CPU-ms per mail, issue 34); `keep` leaves them for it."""
        ahead = self._ahead.pop(episode.id, None)  # the nightly loop claims the batch again: equal, not the same
        if ahead is not None and (ahead[0] is episode or ahead[0] == episode):
            return ahead[1], ahead[2]
        t = time.perf_counter()
        part = self.extractor(episode, self.config.domain_orgs)
        seconds = time.perf_counter() - t
        if keep:
            self._ahead[episode.id] = (episode, part, seconds)
        return part, seconds

    def texts_to_embed(self, episodes: Sequence[Episode], keep: bool = False) -> list[str]:
        """Entity names and fact texts the structured write of these episodes embeds (stored better names aside);
        `keep`: their facts stay for that write (prefetch)."""
        texts: list[str] = []
        for episode in episodes:
            if self.config.extraction_mode(episode.source) == "llm":
                continue
            part = self._extract(episode, keep)[0]
            texts += [e.name for e in part.entities if wants_name_vector(e, e.name)]
            texts += [f.fact for f in part.facts if wants_vector(f)]
        return texts

    async def prefetch(self, episodes: Sequence[Episode]) -> None:
        """Embed a coming batch into the embedder's cache, best effort: the write embeds whatever is still missing.

        Only for embedders with a cache (`warm`); extraction and embedding run off the event loop, so a write in
        flight (which mostly waits on the database) proceeds meanwhile.
        """
        warm = getattr(self.embedder, "warm", None)
        if warm is None or not episodes:
            return
        texts = await asyncio.to_thread(self.texts_to_embed, episodes, True)
        await warm(texts)

    async def write_ahead(
        self, batch: Sequence[Episode], upcoming: Sequence[Episode] = (), **kwargs: Any
    ) -> BatchResult:
        """write_batch(batch) while the upcoming batch is embedded (prefetch): the pipelining of write_batches and of
        the nightly loop (flow/ingest.write_backlog through SyncGraphWriter), in one place. A failed prefetch is only
        logged: the write embeds whatever is missing."""
        ahead = asyncio.create_task(self.prefetch(upcoming)) if upcoming else None
        try:
            return await self.write_batch(batch, **kwargs)
        finally:
            if ahead is not None:
                for error in await asyncio.gather(ahead, return_exceptions=True):
                    if isinstance(error, Exception):
                        log.warning("embedding the next batch ahead failed: %s", error)
            upcoming_ids = {e.id for e in upcoming}  # facts kept for anything else were not taken: drop them
            for key in [k for k in self._ahead if k not in upcoming_ids]:
                del self._ahead[key]

    async def write_batches(self, batches: Sequence[Sequence[Episode]]) -> list[BatchResult]:
        """write_batch over batches in order, embedding batch i+1 while batch i is written (structured mode)."""
        results: list[BatchResult] = []
        if batches:
            await self.prefetch(batches[0])
        for i, batch in enumerate(batches):
            results.append(await self.write_ahead(batch, batches[i + 1] if i + 1 < len(batches) else ()))
        return results

    # ------------------------------------------------------------------ tombstones

    async def invalidate_episodes(
        self, episode_ids: Sequence[str], at: dt.datetime, group_id: str | None = None
    ) -> int:
        """Episodes deleted upstream: facts that only they support end at `at` (tombstones.py). Returns how many.
        Holds the group's write lock (every group's when none is named: tombstones then look in each)."""
        groups = [group_id] if group_id else await self.backend.group_ids()
        async with self.locks.hold(groups):
            return await invalidate_episodes(self.backend, self.clock, episode_ids, at, group_id)
