"""Search latency at 10k to 1M facts: graphfeed's indexed search against graphiti's search_ as graphfeed called
it before issue 13 (BM25 + brute-force cosine + BFS, RRF), on the same synthetic graph, per backend.

usage: python bench/search_bench.py [--sizes 10000,100000] [--backends falkordb-embedded,neo4j] [--queries 50]
                                    [--baseline-queries 10] [--baseline-timeout 10] [--warmup 50] [--neo4j-jit c2]
                                    [--vectorless] [--steps] [--slowest 5] [--keep DIR] [--ef-construction N]
                                    [--answers FILE] [--fulltext-exact] [--client read|writer] [--serial]
                                    [--no-gc-freeze]
Each graph is written once per run (bench/synthetic_graph.py: hubs, history, random MiniLM-dimension vectors) and
reused by both searches. --keep DIR: the graphs live in DIR (a graphfeed home per backend) and stay there, the
embedded FalkorDB server up for an hour; a later run with the same DIR and size asks its questions of the kept graph
without writing it again (1M facts take ~15 min to write and index), e.g. before and after a query fix.
--steps: the p50/p95/max of each search step (vector, full-text, entities, graph, relations, whole rows, episodes) and
of the question's embedding, per search the server's own time (FalkorDB's reply statistics), the number of queries,
the client's CPU and GC pauses, and the --slowest searches step by step; the steps of one search overlap (the
question's embedding beside the full-text queries; vector, full-text and entities + graph concurrently; --serial runs
them one after the other). Searches go through the CLI's read client (graph/resp.py; --client writer: the writer's
redis-py connections, as before 2026-12-07). 50 questions now + 50 as of a date (the query embedding is inside the
timing for both), after --warmup other questions (a server answers warm: Neo4j's C2 JIT needs ~100 searches to reach its speed). The
test Neo4j runs with the C2 JIT here (--neo4j-jit c1: the C1-only start-up setting of the test suites).
graphiti's search_ runs under a server-side default timeout (FalkorDB TIMEOUT_DEFAULT, Neo4j db.transaction.timeout)
so its unbounded BFS cannot hold the database; a query cut off there counts at the timeout. Prints p50/p95/max,
the ratio, degraded answers, which targets are met (p50 < 100 ms, p95 < 200 ms, max < 1 s at 100k) and machine load.
"""

import argparse
import asyncio
import datetime as dt
import gc
import json
import logging
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.search_timing import STEPS, SerialSteps, stats  # noqa: E402
from bench.synthetic_graph import SPAN_DAYS, START, answers, build_indexes, planned, write_synthetic, written_facts  # noqa: E402
from connectors.registry import fact_extractor  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.read import fulltext_ladder  # noqa: E402
from graph.read.reader import GraphReader  # noqa: E402
from graph.read.search import as_of_filter, candidates, search_config  # noqa: E402
from graph.write.writer import GraphWriter  # noqa: E402

LIMIT = 10
# issue 13's targets at 100k facts, issue 34's at 1M
TARGETS = {100_000: {"p50": 100.0, "p95": 200.0, "max": 1000.0}, 1_000_000: {"p50": 60.0, "p95": 150.0, "max": 400.0}}


def show(label: str, s: dict[str, float], extra: str = "") -> None:
    print(f"  {label:<34} n={s['n']:<3} p50 {s['p50']:8.1f} ms  p95 {s['p95']:8.1f} ms  max {s['max']:8.1f} ms{extra}")


def moments(n: int, seed: int = 3) -> list[dt.datetime]:
    rng = random.Random(seed)
    return [START + dt.timedelta(days=rng.randrange(30, SPAN_DAYS)) for _ in range(n)]


async def limit_baseline(writer: GraphWriter, group_id: str, seconds: int) -> None:
    """FalkorDB: a server-side default timeout for queries that set none (graphiti's). The test Neo4j (embedded
    DBMS) has no dbms.setConfigValue: there the baseline is cut off client-side (the server query may run on)."""
    if writer.config.backend != "neo4j":
        await writer.backend._falkor_client.config_set("TIMEOUT_DEFAULT", seconds * 1000)


ANSWERS: dict[str, list[str]] = {}  # "question @ date" -> the hits' uuids, best first (--answers)
SHAPES = {"answering": 0, "first": 0, "asked": 0}  # facts of the top LIMIT that answer the question (by shape)


async def graphfeed(reader: GraphReader, group_id: str, questions: list[str], at: list[dt.datetime | None]):
    ms, degraded = [], 0
    for question, moment in zip(questions, at):
        key = f"{group_id} {question} @ {moment.isoformat() if moment else 'now'}"
        STEPS.begin()
        t = time.perf_counter()
        hits = await reader.search_facts(question, group_id=group_id, as_of=moment, limit=LIMIT)
        ms.append((time.perf_counter() - t) * 1000)
        STEPS.end(ms[-1], key)
        degraded += bool(hits.degraded)
        ANSWERS[key] = [h.uuid for h in hits]
        right = [answers(question, h.fact) for h in hits]
        SHAPES["answering"] += sum(right)
        SHAPES["first"] += bool(right[:1] and right[0])
        SHAPES["asked"] += 1
    return ms, degraded


def compare_answers(path: Path, asked: dict[str, list[str]]) -> None:
    """Against the answers of an earlier run kept in `path` (same graph, other code): how many are the same."""
    earlier = json.loads(path.read_text())
    common = [key for key in asked if key in earlier]
    same = sum(asked[k] == earlier[k] for k in common)
    same_set = sum(set(asked[k]) == set(earlier[k]) for k in common)
    overlap = (
        statistics.mean(len(set(asked[k]) & set(earlier[k])) / max(len(earlier[k]), 1) for k in common)
        if common
        else 0.0
    )
    firsts = sum(asked[k][:1] == earlier[k][:1] for k in common)
    print(
        f"answers against {path}: {len(common)} questions, same list {same}, same set {same_set}, "
        f"same first hit {firsts}, mean top-{LIMIT} overlap {overlap:.1%}"
    )


async def baseline(
    writer: GraphWriter, group_id: str, questions: list[str], at: list[dt.datetime | None], timeout_s: int
):
    graphiti = await writer.graphiti(group_id)
    driver = await writer.backend.driver(group_id)
    ms, cut = [], 0
    for question, moment in zip(questions, at):
        t = time.perf_counter()
        try:
            await asyncio.wait_for(
                graphiti.search_(
                    question,
                    config=search_config(candidates(LIMIT)),
                    group_ids=[group_id],
                    search_filter=as_of_filter(moment) if moment else None,
                    driver=driver,
                ),
                timeout_s + 1,
            )
            ms.append((time.perf_counter() - t) * 1000)
        except Exception as exc:  # noqa: BLE001 - cut off by the server-side timeout: counted at the timeout
            if not isinstance(exc, asyncio.TimeoutError) and "time" not in str(exc).lower():
                raise
            cut += 1
            ms.append(max((time.perf_counter() - t) * 1000, timeout_s * 1000.0))
    return ms, cut


async def ask(
    reader: GraphReader,
    group_id: str,
    questions: list[str],
    dates: list[dt.datetime],
    warm: list[str],
    args: argparse.Namespace,
) -> tuple[list[float], int, list[float], int]:
    """The warm-up, then the questions now and as of their dates (step times with --steps).

    The bench process holds graphiti, the writer and the drivers: a full (generation 2) collection walks all of it and
    paused single searches by 0.2-0.4 s under load (--steps' "client GC"). A long-lived reader would freeze its
    start-up heap the same way (gc.freeze: later collections skip it); --no-gc-freeze shows the pauses."""
    t = time.perf_counter()
    gc.collect()
    print(
        f"  client heap: {len(gc.get_objects()):,} objects, a full collection {(time.perf_counter() - t) * 1000:.0f} ms"
    )
    if not args.no_gc_freeze:
        gc.freeze()
    await graphfeed(reader, group_id, warm, [None] * len(warm))
    await graphfeed(reader, group_id, warm, moments(len(warm), seed=99))
    ANSWERS.clear()  # the warm-up's
    SHAPES.update(answering=0, first=0, asked=0)
    STEPS.on = args.steps
    now, d_now = await graphfeed(reader, group_id, questions, [None] * len(questions))
    STEPS.show("now") if args.steps else None
    asof, d_asof = await graphfeed(reader, group_id, questions, dates)
    STEPS.show("as of a date") if args.steps else None
    STEPS.show_slowest(args.slowest) if args.steps else None
    STEPS.on = False
    return now, d_now, asof, d_asof


async def run_size(writer: GraphWriter, size: int, args: argparse.Namespace) -> dict:
    group_id = f"bench_{size}"
    t = time.perf_counter()
    kept = args.keep is not None and await written_facts(writer, group_id) == size
    if kept:
        print(f"\n{writer.config.backend} {size:,} facts: kept graph in {args.keep}")
        graph = planned(group_id, size)
        await build_indexes(writer, group_id, args.ef_construction)
    else:
        graph = await write_synthetic(writer, group_id, size, ef_construction=args.ef_construction)
    if (
        args.vectorless and not kept
    ):  # as the writer stores them since issue 34: envelope facts (SENT_TO here) without a vector
        from graph.write.to_graphiti import VECTORLESS_RELATIONS

        while (  # in slices: one transaction over 400k facts ran Neo4j out of a 4 GB heap
            await writer.backend.query(
                group_id,
                "MATCH ()-[e:RELATES_TO]->() WHERE e.name IN $names AND e.fact_embedding IS NOT NULL "
                "WITH e LIMIT 20000 SET e.fact_embedding = null RETURN count(e) AS n",
                names=sorted(VECTORLESS_RELATIONS),
            )
        )[0]["n"]:
            pass
    built = time.perf_counter() - t
    top = sorted(graph.hub_degree.items(), key=lambda kv: -kv[1])[:3]
    print(
        f"\n{writer.config.backend} {size:,} facts: {'ready' if kept else 'written'} in {built:.1f} s; hubs "
        + ", ".join(f"{name} ({n:,} facts)" for name, n in top)
    )
    questions = graph.questions(args.queries)
    dates = moments(args.queries)
    warm = graph.questions(args.warmup, seed=99)  # other questions: caches and JIT, not these answers
    if args.client == "read":  # the CLI's and MCP server's reader: its own connections (FalkorDB: graph/resp.py)
        async with GraphReader(writer.config, embedder=writer.embedder, clock=writer.clock) as reader:
            now, d_now, asof, d_asof = await ask(reader, group_id, questions, dates, warm, args)
    else:  # the writer's connections (FalkorDB: redis-py and the falkordb client, as before 2026-12-07)
        now, d_now, asof, d_asof = await ask(GraphReader.sharing(writer), group_id, questions, dates, warm, args)
    if args.answers:
        if args.answers.exists():
            compare_answers(args.answers, ANSWERS)
        else:
            args.answers.write_text(json.dumps(ANSWERS, indent=0))
            print(f"answers written to {args.answers}")
    print(
        f"  answers by shape: {SHAPES['answering']} answering facts in the top {LIMIT} of {SHAPES['asked']} questions, "
        f"right first hit {SHAPES['first']}"
    )
    ours = stats(now + asof)
    show("graphfeed search, now", stats(now), f"  degraded {d_now}")
    show("graphfeed search, as of a date", stats(asof), f"  degraded {d_asof}")
    show("graphfeed search, all", ours)
    if args.baseline_queries <= 0:
        return ours
    await limit_baseline(writer, group_id, args.baseline_timeout)
    n = args.baseline_queries
    b_now, c_now = await baseline(writer, group_id, questions[:n], [None] * n, args.baseline_timeout)
    b_asof, c_asof = await baseline(writer, group_id, questions[:n], dates[:n], args.baseline_timeout)
    theirs = stats(b_now + b_asof)
    show("graphiti search_, now", stats(b_now), f"  cut off at {args.baseline_timeout} s: {c_now}")
    show("graphiti search_, as of a date", stats(b_asof), f"  cut off at {args.baseline_timeout} s: {c_asof}")
    print(
        f"  ratio graphiti/graphfeed: p50 {theirs['p50'] / ours['p50']:.1f}x, p95 {theirs['p95'] / ours['p95']:.1f}x"
        f" (graphiti on the first {n} questions now and as of; graphfeed on {args.queries} each)"
    )
    await limit_baseline(writer, group_id, 0)
    return ours


async def run_backend(backend: str, args: argparse.Namespace, home: Path) -> dict[int, dict]:
    server = None
    if backend == "neo4j":
        from tests.servers.neo4j_server import start_neo4j

        memory = (args.neo4j_heap, args.neo4j_pagecache_mb) if args.neo4j_heap else None
        server = start_neo4j(home / "neo4j", peak=args.neo4j_jit == "c2", memory=memory, timeout=600)
        print(f"neo4j: JIT {args.neo4j_jit}, warm-up {args.warmup} questions now + {args.warmup} as of")
        config = GraphConfig(
            backend="neo4j", home=home, neo4j_uri=server.uri, neo4j_user=server.user, neo4j_password=server.password
        )
    else:  # a kept graph's server stays up between runs (a restart rebuilds every index)
        # and a restarted one loads its graph and rebuilds the indexes before it answers a PING (1M facts: minutes)
        config = GraphConfig(
            backend=backend,
            home=home,
            embedded_idle_timeout=3600 if args.keep else 0,
            embedded_start_timeout=3600 if args.keep else 20,
        )
    try:
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            if args.steps:
                STEPS.install(writer)
            return {size: await run_size(writer, size, args) for size in args.sizes}
    finally:
        if server is not None:
            server.stop()


def main() -> None:
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # graphiti reads properties we do not write
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[10_000, 100_000])
    parser.add_argument("--backends", type=lambda s: s.split(","), default=["falkordb-embedded", "neo4j"])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--baseline-queries", type=int, default=10)
    parser.add_argument("--baseline-timeout", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--neo4j-jit", choices=["c1", "c2"], default="c2")
    parser.add_argument("--neo4j-heap", default=None, help="test Neo4j heap for a large graph, e.g. 4g (default 1g)")
    parser.add_argument("--neo4j-pagecache-mb", type=int, default=4096, help="with --neo4j-heap: page cache MB")
    parser.add_argument("--vectorless", action="store_true", help="envelope facts (SENT_TO: 40 %%) without a vector")
    parser.add_argument("--ef-construction", type=int, default=None, help="FalkorDB HNSW build breadth (default 200)")
    parser.add_argument("--answers", type=Path, default=None, help="write the hits here, or compare with them")
    parser.add_argument("--fulltext-exact", action="store_true", help="FalkorDB full-text: every match scored")
    parser.add_argument("--steps", action="store_true", help="p50 per search step")
    parser.add_argument("--serial", action="store_true", help="a search's steps one after the other (no overlap)")
    parser.add_argument("--no-gc-freeze", action="store_true", help="leave the start-up heap to the collector")
    parser.add_argument("--slowest", type=int, default=5, help="with --steps: the slowest searches step by step")
    parser.add_argument(
        "--client",
        choices=["read", "writer"],
        default="read",
        help="search through the CLI's read client (default) or the writer's connections (before 2026-12-07)",
    )
    parser.add_argument("--keep", type=Path, default=None, help="graphs kept in (and reused from) this directory")
    args = parser.parse_args()
    if args.fulltext_exact:
        fulltext_ladder.FULLTEXT_SCAN = None
    if args.serial:
        import graph.read.search
        import graph.read.search_steps

        graph.read.search.asyncio = graph.read.search_steps.asyncio = SerialSteps()  # type: ignore[assignment]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    results = {}
    for backend in args.backends:
        home = args.keep / backend if args.keep else Path(tempfile.mkdtemp(prefix="gfsb-"))
        try:
            results[backend] = asyncio.run(run_backend(backend, args, home))
        finally:
            if not args.keep:
                shutil.rmtree(home, ignore_errors=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    print("targets at the largest size (graphfeed, now + as of):")
    for backend, by_size in results.items():
        size = max(by_size)
        s = by_size[size]
        targets = TARGETS[1_000_000 if size >= 1_000_000 else 100_000]
        met = ", ".join(
            f"{k} {s[k]:.0f} ms {'met' if s[k] < limit else 'NOT met'} (< {limit:.0f})" for k, limit in targets.items()
        )
        print(f"  {backend} {size:,} facts: {met}")


if __name__ == "__main__":
    main()
