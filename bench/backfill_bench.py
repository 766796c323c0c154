"""The backfill path end to end against the nightly path, on synthetic mails (bench/synthetic_mail.py) in the embedded
FalkorDB: ledger register -> flow/ingest's loop -> SyncGraphWriter, each mode in a fresh home, one process.

usage: python bench/backfill_bench.py [--n 100000] [--slice 3000] [--batch 250] [--onnx-threads 0]
       python bench/backfill_bench.py --only nightly --n 20000    # the --n row alone, through one path

Rows, in this order and in the same run (so under the same machine load):
- nightly, not pipelined: the loop before issue 34 (the sink announces no next batch), vector indexes in place;
- nightly, pipelined: write_backlog now (batch i+1 embedded while batch i is written), vector indexes in place;
- backfill on the same slice: `graphfeed run --backfill`'s path (indexes dropped, built once at the end);
- backfill of --n episodes, with a progress line every --every episodes (the rate as the graph grows).
Per row: wall, episodes/s, CPU-ms per episode of each step (ledger register; the graph write in this process:
extraction, MiniLM on ONNX Runtime, statements, ledger claim/mark; the FalkorDB server; the index build), index build
wall. CPU is process time (this process + the FalkorDB child), robust to other work on a shared machine; wall is not.
"""

import argparse
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from synthetic_mail import synthetic_episodes  # noqa: E402

from connectors.registry import fact_extractor  # noqa: E402
from flow.ingest import IngestLimits, IngestStats, write_backlog  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.ledger.ledger import Ledger, ledger_url_for_home  # noqa: E402
from graph.sync_facade import SyncGraphWriter  # noqa: E402

GROUP = "bench"
REGISTER_CHUNK = 5000


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu(writer: SyncGraphWriter) -> float:
    import psutil

    embedded = writer.writer.backend.embedded
    if embedded is None or embedded.pid is None:
        return 0.0
    times = psutil.Process(embedded.pid).cpu_times()
    return times.user + times.system


class Progress:
    """The real sink; prints the rate every `every` episodes. `announce` False hides the look-ahead (no pipelining)."""

    def __init__(self, sink: SyncGraphWriter, every: int, announce: bool = True):
        self.sink, self.every, self.done, self.mark = sink, every, 0, 0
        self.t, self.cpu, self.server = time.perf_counter(), own_cpu(), server_cpu(sink)
        if announce:
            self.coming = sink.coming

    def write(self, batch, budget):
        result = self.sink.write(batch, budget)
        self.done += len(batch)
        if self.every and self.done - self.mark >= self.every:
            t, cpu, server = time.perf_counter(), own_cpu(), server_cpu(self.sink)
            n = self.done - self.mark
            print(
                f"    {self.done:>7,} written: last {n:,} at {n / (t - self.t):6.1f} episodes/s, "
                f"{(cpu - self.cpu) * 1000 / n:5.1f} + FalkorDB {(server - self.server) * 1000 / n:4.1f} CPU-ms/episode"
                f", load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            self.t, self.cpu, self.server, self.mark = t, cpu, server, self.done
        return result

    def invalidate_episodes(self, episode_ids, at, group_id=None):
        return self.sink.invalidate_episodes(episode_ids, at, group_id)

    def build_vector_indexes(self) -> dict[str, float]:
        return self.sink.build_vector_indexes()


def run(title: str, n: int, batch: int, backfill: bool, announce: bool, every: int, threads: int) -> dict:
    home = Path(tempfile.mkdtemp(prefix="gfbf-"))
    config = GraphConfig(
        home=home, embedded_idle_timeout=0, onnx_threads=threads, defer_vector_indexes=backfill
    )  # the server stops with its last user
    episodes = synthetic_episodes(n, GROUP)
    load0 = os.getloadavg()[0]
    row: dict = {"title": title, "n": n}
    try:
        with Ledger(ledger_url_for_home(home)) as book:
            t, c = time.perf_counter(), own_cpu()
            for i in range(0, n, REGISTER_CHUNK):
                book.register(episodes[i : i + REGISTER_CHUNK], partition="2026-01-01")
            row["register_cpu"] = own_cpu() - c
            row["register_wall"] = time.perf_counter() - t
            del episodes
            with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
                writer.write_batch([])  # open the embedder before timing (model load is not per episode)
                sink = Progress(writer, every, announce)
                stats = IngestStats()
                limits = IngestLimits(batch_size=batch, max_episodes=10**9, max_cost_usd=1.0)
                t, c, s = time.perf_counter(), own_cpu(), server_cpu(writer)
                if backfill:
                    # flow.ingest.backfill_backlog's two steps, timed apart
                    write_backlog(book, sink, "email", limits, stats)
                    t1, c1, s1 = time.perf_counter(), own_cpu(), server_cpu(writer)
                    stats.index_build_seconds = sum(sink.build_vector_indexes().values())
                else:
                    write_backlog(book, sink, "email", limits, stats)
                    t1, c1, s1 = time.perf_counter(), own_cpu(), server_cpu(writer)
                t2, c2, s2 = time.perf_counter(), own_cpu(), server_cpu(writer)
                assert stats.ingested == n and book.counts("email")["pending"] == 0, stats
                row.update(
                    write_wall=t1 - t,
                    write_cpu=c1 - c,
                    server_cpu=s1 - s,
                    build_wall=t2 - t1,
                    build_cpu=(c2 - c1) + (s2 - s1),
                    facts=stats.facts_written,
                )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    row["load"] = f"{load0:.1f} -> {os.getloadavg()[0]:.1f}"
    return row


def show(row: dict) -> None:
    n = row["n"]
    wall = row["write_wall"] + row["build_wall"]
    per = {k: row[k] * 1000 / n for k in ("register_cpu", "write_cpu", "server_cpu", "build_cpu")}
    print(
        f"{row['title']:<34} {n:>7,} episodes  wall {wall:8.1f} s ({n / wall:6.1f} episodes/s; write "
        f"{row['write_wall']:.1f} s + index build {row['build_wall']:.1f} s)  CPU-ms/episode: register "
        f"{per['register_cpu']:.2f}, write {per['write_cpu']:.1f}, FalkorDB {per['server_cpu']:.1f}, index build "
        f"{per['build_cpu']:.2f} = {sum(per.values()):.1f}  (facts {row['facts']:,}; load {row['load']})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="episodes of the full backfill")
    parser.add_argument("--slice", type=int, default=3000, help="episodes of the nightly/backfill comparison")
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--every", type=int, default=5000, help="progress line every this many episodes")
    parser.add_argument("--onnx-threads", type=int, default=0, help="GraphConfig.onnx_threads (0: one per core)")
    parser.add_argument(
        "--only", choices=["nightly", "backfill"], help="only the --n row, through this path (no slice rows)"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally blocks run: temp homes removed
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; batch {args.batch}", flush=True)
    if args.only:
        show(run(args.only, args.n, args.batch, args.only == "backfill", True, args.every, args.onnx_threads))
        return
    rows = []
    for title, backfill, announce in (
        ("nightly, not pipelined (before)", False, False),
        ("nightly, pipelined (now)", False, True),
        ("backfill, same slice", True, True),
    ):
        rows.append(run(title, args.slice, args.batch, backfill, announce, 0, args.onnx_threads))
        show(rows[-1])
    rows.append(run("backfill", args.n, args.batch, True, True, args.every, args.onnx_threads))
    show(rows[-1])
    before, now, bulk = rows[0], rows[1], rows[2]

    def rate(r: dict) -> float:
        return r["n"] / (r["write_wall"] + r["build_wall"])

    def cpu(r: dict) -> float:
        return (r["write_cpu"] + r["server_cpu"] + r["build_cpu"]) / r["n"]

    print(
        f"ratios on the slice: pipelined / not, wall throughput {rate(now) / rate(before):.2f}x, CPU per episode "
        f"{cpu(now) / cpu(before):.2f}x; backfill / nightly pipelined, wall throughput {rate(bulk) / rate(now):.2f}x, "
        f"CPU per episode {cpu(bulk) / cpu(now):.2f}x",
        flush=True,
    )


if __name__ == "__main__":
    main()
