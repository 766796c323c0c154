"""The blocking facade over GraphWriter, used by Dagster assets and the CLI: the async drivers stay on one private
event loop (a daemon thread) across sync calls. It is the GraphSink the ingest loop (flow/ingest.py) writes through."""

import asyncio
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from graph.config import GraphConfig
from graph.read.reader import GraphReader
from graph.write.sink import BatchResult, Budget
from graph.write.writer import GraphWriter
from ground.episode import Episode
from ground.fact_model import FactSet


class _LoopThread:
    """A private event loop in a daemon thread: the async drivers stay on one loop across sync calls."""

    def __init__(self) -> None:
        import threading

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="graphfeed-graph-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class SyncGraphWriter:
    """Blocking facade over GraphWriter for Dagster ops/assets and the CLI."""

    def __init__(self, config: GraphConfig, **kwargs: Any):
        self._writer = GraphWriter(config, **kwargs)
        self._loop: _LoopThread | None = None
        self._upcoming: list[Episode] = []

    @property
    def writer(self) -> GraphWriter:
        return self._writer

    def open(self) -> "SyncGraphWriter":
        self._loop = _LoopThread()
        try:
            self._loop.run(self._writer.open())
        except BaseException:
            self._loop.stop()
            self._loop = None
            raise
        return self

    def close(self) -> None:
        if self._loop is None:
            return
        try:
            self._loop.run(self._writer.close())
        finally:
            self._loop.stop()
            self._loop = None

    def _run(self, coro: Any) -> Any:
        if self._loop is None:
            raise RuntimeError("SyncGraphWriter.open() first (or use it as a context manager)")
        return self._loop.run(coro)

    @property
    def uses_llm(self) -> bool:
        return self._writer.uses_llm

    def write_batch(
        self, episodes: Sequence[Episode], extra_facts: Mapping[str, FactSet] | None = None, **kwargs: Any
    ) -> BatchResult:
        return self._run(self._writer.write_batch(episodes, extra_facts, **kwargs))

    def write(self, batch: Sequence[Episode], budget: Budget) -> BatchResult:
        """GraphSink.write: write_batch within the budget; the result's outcomes say what became of each episode.
        The batch announced by `coming` (if any) is embedded meanwhile (GraphWriter.write_ahead)."""
        upcoming, self._upcoming = self._upcoming, []
        return self._run(self._writer.write_ahead(batch, upcoming, max_cost_usd=budget.max_cost_usd))

    def coming(self, batch: Sequence[Episode]) -> None:
        """The batch the ingest loop will write after the next `write`: embedded while that one is written."""
        self._upcoming = list(batch)

    def build_vector_indexes(self) -> dict[str, float]:
        """After a backfill (config.defer_vector_indexes): build the vector indexes once; seconds per group."""
        took: dict[str, float] = self._run(self._writer.backend.build_vector_indexes())
        return took

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the writer's loop (the review queue's approve uses the writer's drivers)."""
        return self._run(coro)

    def invalidate_episodes(self, episode_ids: Sequence[str], at: dt.datetime, group_id: str | None = None) -> int:
        return self._run(self._writer.invalidate_episodes(episode_ids, at, group_id))

    def __enter__(self) -> "SyncGraphWriter":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


class SyncGraphReader:
    """Blocking fact search over an open SyncGraphWriter's connections, on its loop: the read side's API
    (GraphReader.search_facts), for code that writes and then reads its answers (tests, benches)."""

    def __init__(self, writer: SyncGraphWriter):
        self._writer = writer

    def search(
        self,
        query: str,
        *,
        group_id: str,
        as_of: dt.datetime | None = None,
        known_at: dt.datetime | None = None,
        limit: int = 10,
        intents: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> Any:
        reader = GraphReader.sharing(self._writer.writer)
        return self._writer.run(
            reader.search_facts(
                query, group_id=group_id, as_of=as_of, known_at=known_at, limit=limit, intents=intents, sources=sources
            )
        )
