"""search_bench.py's clock: each step of each search, the server's own time, the client's CPU and GC pauses, and
--serial's gather that runs a search's steps one after the other (bench only: the search modules are wrapped)."""

import asyncio
import gc
import statistics
import time

from graph.falkor_read import ReadGraph
from graph.read.search_steps import SearchSteps
from graph.write.writer import GraphWriter


def stats(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50": statistics.median(ordered), "p95": p95, "max": ordered[-1], "n": len(ordered)}


class StepTimes:
    """Wall time of each search step, per search (bench only: SearchSteps.step and the embedder wrapped), and per
    search the server's own execution time (FalkorDB's reply statistics) and the client's GC pauses: --slowest N
    prints the N slowest searches step by step (which question, which step: the >1 s outliers of issue 34)."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = {}
        self.on = False
        self.search: dict[str, float] = {}  # this search's steps (ms; a step run twice adds up)
        self.searches: list[tuple[float, str, dict[str, float]]] = []  # (total ms, question @ date, steps)
        self.gc_ms = 0.0
        self._gc_t = 0.0
        self._cpu = 0.0
        self._shown = 0  # searches already summed by show()

    def add(self, name: str, t: float) -> None:
        if self.on:
            ms = (time.perf_counter() - t) * 1000
            self.ms.setdefault(name, []).append(ms)
            self.search[name] = self.search.get(name, 0.0) + ms

    def _gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_t = time.perf_counter()
        else:
            self.gc_ms += (time.perf_counter() - self._gc_t) * 1000

    def begin(self) -> None:
        self.search = {}
        self.gc_ms = 0.0
        self._cpu = time.process_time()

    def end(self, total_ms: float, label: str) -> None:
        if self.on:
            self.search["client GC"] = self.gc_ms
            self.search["client CPU"] = (time.process_time() - self._cpu) * 1000  # every thread: embedding too
            self.searches.append((total_ms, label, self.search))

    def install(self, writer: GraphWriter) -> None:
        step, create, times = SearchSteps.step, writer.embedder.create, self

        async def timed_step(steps: SearchSteps, name: str, coro: object) -> list:
            t = time.perf_counter()
            try:
                return await step(steps, name, coro)
            finally:
                times.add(name, t)

        async def timed_create(*args: object, **kwargs: object) -> object:
            t = time.perf_counter()
            try:
                return await create(*args, **kwargs)
            finally:
                times.add("question embedding", t)

        SearchSteps.step = timed_step  # type: ignore[method-assign]
        writer.embedder.create = timed_create  # type: ignore[method-assign]
        ro_query = ReadGraph.ro_query

        async def timed_ro_query(graph: ReadGraph, *args: object, **kwargs: object) -> object:
            result = await ro_query(graph, *args, **kwargs)
            for line in result.statistics or []:  # "Query internal execution time: 1.2 milliseconds"
                if times.on and str(line).startswith("Query internal execution time"):
                    ms = float(str(line).split(":")[1].split()[0])
                    times.search["server (sum)"] = times.search.get("server (sum)", 0.0) + ms
                    times.search["queries"] = times.search.get("queries", 0.0) + 1
            return result

        ReadGraph.ro_query = timed_ro_query  # type: ignore[method-assign]
        gc.callbacks.append(self._gc)

    def show(self, label: str) -> None:
        print(f"  steps, {label} (p50 / p95 / max ms, n):")
        for name, ms in self.ms.items():
            s = stats(ms)
            print(f"    {name:<20} {s['p50']:7.1f} / {s['p95']:7.1f} / {s['max']:7.1f}  n={s['n']}")
        for key in ("server (sum)", "queries", "client CPU", "client GC"):
            values = [steps.get(key, 0.0) for _, _, steps in self.searches[self._shown :]]
            if values:
                s = stats(values)
                print(f"    {key:<20} {s['p50']:7.1f} / {s['p95']:7.1f} / {s['max']:7.1f}  per search")
        self.ms = {}
        self._shown = len(self.searches)

    def show_slowest(self, n: int) -> None:
        for total, label, steps in sorted(self.searches, key=lambda x: -x[0])[:n]:
            parts = ", ".join(f"{k} {v:.1f}" for k, v in steps.items())
            print(f"  slow: {total:7.1f} ms  {label}: {parts}")
        self.searches, self._shown = [], 0


STEPS = StepTimes()


class SerialSteps:
    """--serial: the search modules' asyncio with gather running its awaitables one after the other (the steps of a
    search then add up instead of overlapping): what the concurrency of the steps buys, on this machine's cores."""

    def __getattr__(self, name: str) -> object:
        return getattr(asyncio, name)

    @staticmethod
    async def gather(*awaitables: object) -> list:
        return [await a for a in awaitables]  # type: ignore[misc]
