"""One graph writer process for bench/graph_ingest_bench.py --groups: n synthetic mails into one group of a home,
through GraphWriter.write_batches (default embedder: ONNX MiniLM with its per-run cache; pipelined batches).

usage: python bench/graph_write_worker.py <home> <group> <n> <batch> <seed> [--profile out.prof | --steps]
Prints one JSON line: group, n, wall seconds of the write, CPU seconds of this process during it (the shared FalkorDB
server's CPU is measured by the caller). Imports graphfeed from $GRAPHFEED_BENCH_TREE when set (main's checkout for
the baseline measured in the same run), else from this worktree.
"""

import asyncio
import cProfile
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

TREE = os.environ.get("GRAPHFEED_BENCH_TREE") or str(Path(__file__).resolve().parents[1])
sys.path[:0] = [TREE, str(Path(__file__).resolve().parent)]

from synthetic_mail import synthetic_episodes  # noqa: E402

if os.environ.get("GRAPHFEED_BENCH_ORT_THREADS"):  # --ort-threads: ONNX Runtime intra-op threads per writer
    import functools

    from transforms.minilm.onnx_pass import OnnxMiniLM

    OnnxMiniLM.__init__ = functools.partialmethod(  # type: ignore[method-assign]
        OnnxMiniLM.__init__, threads=int(os.environ["GRAPHFEED_BENCH_ORT_THREADS"])
    )

from connectors.registry import fact_extractor  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.write.writer import GraphWriter  # noqa: E402


class ThreadProfiles:
    """cProfile in every thread (the embedding runs in asyncio's executor threads), on each thread's CPU clock, so
    waiting (epoll, locks, the database) counts nothing and only CPU spent in Python and native calls is attributed."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._run = threading.Thread.run

    def new(self) -> cProfile.Profile:
        profile = cProfile.Profile(time.thread_time)
        self.profiles.append(profile)
        return profile

    def enable(self) -> None:
        original, new = self._run, self.new

        def run(thread: threading.Thread) -> None:
            profile = new()
            profile.enable()
            try:
                original(thread)
            finally:
                profile.disable()

        threading.Thread.run = run  # type: ignore[method-assign]
        self.main = self.new()
        self.main.enable()

    def dump(self, path: str) -> None:
        import pstats

        self.main.disable()
        threading.Thread.run = self._run  # type: ignore[method-assign]
        stats = pstats.Stats(self.main)
        for profile in self.profiles[1:]:
            try:
                stats.add(profile)
            except TypeError:  # a thread that never ran Python code under the profiler
                continue
        stats.dump_stats(path)


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


async def write(home: Path, group: str, n: int, batch: int, seed: int, profile: str | None) -> dict:
    episodes = synthetic_episodes(n, group, seed=seed)
    batches = [episodes[i : i + batch] for i in range(0, n, batch)]
    async with GraphWriter(GraphConfig(home=home), extractor=fact_extractor()) as writer:
        await writer.embedder.create_batch(["warm up"])  # the model loads outside the timing
        profiler = ThreadProfiles() if profile else None
        t, c = time.perf_counter(), cpu()
        if profiler:
            from concurrent.futures import ThreadPoolExecutor

            profiler.enable()
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor())  # new threads: profiled ones
        await writer.write_batches(batches)
        if profiler and profile:
            profiler.dump(profile)
        return {"group": group, "n": n, "wall": time.perf_counter() - t, "cpu": cpu() - c}


async def steps(home: Path, group: str, n: int, batch: int, seed: int) -> dict:
    """CPU per step without a profiler's distortion (cProfile inflates small recursive calls many times): extraction
    alone, embedding alone (every distinct text once, cold cache), the write with every vector already cached, the
    ledger's register + claim + mark for the same episodes. CPU of this process, ONNX Runtime's threads included."""
    from graph.ledger.ledger import Ledger

    episodes = synthetic_episodes(n, group, seed=seed)
    batches = [episodes[i : i + batch] for i in range(0, n, batch)]
    out: dict = {"group": group, "n": n}
    async with GraphWriter(GraphConfig(home=home), extractor=fact_extractor()) as writer:
        await writer.embedder.create_batch(["warm up"])
        c = cpu()
        texts = writer.texts_to_embed(episodes)
        out["extract"] = cpu() - c
        c = cpu()
        await writer.embedder.create_batch(sorted(set(texts)))
        out["embed"] = cpu() - c
        out["texts"], out["distinct_texts"] = len(texts), len(set(texts))
        c, t = cpu(), time.perf_counter()
        await writer.write_batches(batches)  # every vector cached: the write path alone
        out["write"], out["wall"] = cpu() - c, time.perf_counter() - t
    with Ledger(f"sqlite:///{home / 'ledger.sqlite'}") as book:
        c = cpu()
        book.register(episodes, partition="2026-01-01")
        while claimed := book.claim(batch, sources=["email"]):
            book.mark_ingested([e.id for e in claimed])
        out["ledger"] = cpu() - c
    out["cpu"] = sum(out[k] for k in ("extract", "embed", "write", "ledger"))
    return out


def main(argv: list[str]) -> None:
    home, group, n, batch, seed = Path(argv[0]), argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else None
    if "--steps" in argv:
        print(json.dumps(asyncio.run(steps(home, group, n, batch, seed))), flush=True)
        return
    print(json.dumps(asyncio.run(write(home, group, n, batch, seed, profile))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
