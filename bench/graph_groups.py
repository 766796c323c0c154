"""`graph_ingest_bench.py --groups`: one writer per group against one writer, and main's code in the same run.

Rows: main (GRAPHFEED_BENCH_TREE=<main checkout>) writing n mails into one group; this tree writing the same; this tree
writing n mails into each of two groups at once, two writer processes on one shared embedded FalkorDB (what two
sources' graph steps in parallel do). CPU-ms per episode counts the writers and the FalkorDB server; the 2-group
throughput ratio is (2n / wall of both) / (n / wall of one). `--profile` adds the CPU of one writer per step, each
measured apart (cProfile inflated the many small calls of the write path several times over;
graph_write_worker.py --profile still writes one, every thread on its CPU clock, for a closer look).
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

WORKER = Path(__file__).resolve().parent / "graph_write_worker.py"
TREE = Path(__file__).resolve().parents[1]


def _server(home: Path) -> int:
    """Start the home's embedded FalkorDB (it outlives this call for its idle timeout) and return its pid."""
    from graph.backend import GraphBackend
    from graph.config import GraphConfig
    from graph.embedded_falkor import EmbeddedFalkor

    backend = GraphBackend(GraphConfig(home=home))

    async def touch() -> None:
        await backend.open()
        await backend.close()

    asyncio.run(touch())
    pid = EmbeddedFalkor(home / "falkordb").running_pid()
    assert pid, "the embedded FalkorDB did not start"
    return pid


def _cpu(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def measure(tree: Path, home: Path, jobs: list[tuple[str, int]], n: int, batch: int, profile: str = "") -> dict:
    """Writers (group, seed) at once on a fresh home; wall of the slowest, CPU of all writers + the server."""
    pid = _server(home)
    env = {**os.environ, "GRAPHFEED_BENCH_TREE": str(tree), "PYTHONPATH": str(tree)}
    server_before, load_before = _cpu(pid), os.getloadavg()[0]
    t = time.perf_counter()
    extra = ["--profile", profile] if profile else []
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(home), group, str(n), str(batch), str(seed), *extra],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for group, seed in jobs
    ]
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    wall = time.perf_counter() - t
    server = _cpu(pid) - server_before
    os.kill(pid, signal.SIGTERM)  # the server this call started
    episodes = sum(o["n"] for o in outs)
    writers = sum(o["cpu"] for o in outs)
    return {
        "episodes": episodes,
        "wall": max(o["wall"] for o in outs),
        "process_wall": wall,
        "cpu_ms": 1000 * (writers + server) / episodes,
        "server_ms": 1000 * server / episodes,
        "load": (load_before, os.getloadavg()[0]),
    }


def run(n: int, batch: int, root: Path, main_tree: Path | None, profile: bool, two: bool = True) -> None:
    print(f"writers per group: {n} synthetic mails per group (bench/synthetic_mail.py), batch {batch}")
    rows = []
    if main_tree:
        rows.append(("main, one group", measure(main_tree, root / "main1", [("g1", 7)], n, batch)))
    rows.append(("this tree, one group", measure(TREE, root / "one", [("g1", 7)], n, batch)))
    if two:
        rows.append(("this tree, two groups at once", measure(TREE, root / "two", [("g1", 7), ("g2", 8)], n, batch)))
    one = rows[-2 if two else -1][1]
    for title, r in rows:
        rate = r["episodes"] / r["wall"]
        print(
            f"  {title:<32}: {r['episodes']:>6} episodes in {r['wall']:6.1f} s = {rate:6.1f} episodes/s wall, "
            f"{r['cpu_ms']:5.1f} CPU-ms/episode (FalkorDB {r['server_ms']:4.1f}); "
            f"load {r['load'][0]:.1f} -> {r['load'][1]:.1f}"
        )
    if two:
        both = rows[-1][1]
        ratio = (both["episodes"] / both["wall"]) / (one["episodes"] / one["wall"])
        print(f"  two groups / one group, wall-clock throughput: {ratio:.2f}x (target >= 1.7x on 2 cores)")
    if main_tree:
        base = rows[0][1]
        print(f"  one group, this tree / main: {base['cpu_ms'] / one['cpu_ms']:.2f}x less CPU per episode")
    if profile:
        print_steps(root / "steps", n, batch)


def print_steps(home: Path, n: int, batch: int) -> None:
    """CPU per step of one writer (graph_write_worker.py --steps) and the FalkorDB server's share."""
    pid = _server(home)
    env = {**os.environ, "GRAPHFEED_BENCH_TREE": str(TREE), "PYTHONPATH": str(TREE)}
    before = _cpu(pid)
    done = subprocess.run(
        [sys.executable, str(WORKER), str(home), "g1", str(n), str(batch), "7", "--steps"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    server = _cpu(pid) - before
    os.kill(pid, signal.SIGTERM)
    r = json.loads(done.stdout.strip().splitlines()[-1])
    rows = [
        ("facts from episodes (extractors)", r["extract"]),
        (f"embedding ({r['texts'] / n:.1f} texts/mail, {r['distinct_texts'] / n:.1f} distinct)", r["embed"]),
        ("write with every vector cached (merge, graphiti, client)", r["write"]),
        ("ledger (register + claim + mark, SQLite)", r["ledger"]),
        ("FalkorDB server", server),
    ]
    total = sum(seconds for _, seconds in rows)
    print(f"CPU per step of one writer, {n} mails, measured apart (no profiler); load {os.getloadavg()[0]:.1f}:")
    for name, seconds in rows:
        print(f"  {name:<58}: {1000 * seconds / n:6.2f} CPU-ms/episode ({seconds / total:4.0%})")
    print(f"  {'total':<58}: {1000 * total / n:6.2f} CPU-ms/episode")
    print(  # the pipelined write extracts once (its prefetch), inside the write step: the facts row counts it twice
        f"  {'total without the facts row (the write extracts once)':<58}: {1000 * (total - r['extract']) / n:6.2f}"
        " CPU-ms/episode"
    )
