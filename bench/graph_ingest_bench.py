"""Structured-mode ingest speed into the embedded FalkorDB: GraphWriter (batched embeddings + graphiti bulk writer)
against a naive loop of graphiti `.save()` calls over the same kind of episodes, measured in the same run.

usage: python bench/graph_ingest_bench.py [--n 10000] [--batch 500] [--baseline-n 200] [--sample 2000] [--new-only]
       python bench/graph_ingest_bench.py --groups --n 2000 --batch 500 [--main-tree ../main] [--profile] [--ort-threads 1]
                                          [--one-group]
Prints episodes/second for both, their ratio (target >= 10x), and peak RSS (this process and the FalkorDB child),
twice: end to end (the local MiniLM embeds inside the timing; on CPU it is most of the cost for both paths), and for
the write path alone (every vector already computed, the same cache for both), which is what bulk writing changes.
Before those, the embedding levers one by one: repeated texts, what search reads, runtime (numpy vs ONNX Runtime) and
batch size; end to end then adds them one at a time (today's path, ONNX, batch 128, pipelined writes).
"""

import argparse
import asyncio
import datetime as dt
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from synthetic_mail import synthetic_episodes  # noqa: E402

from connectors.registry import episode_facts, fact_extractor  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.embedders import NumpyMiniLMEmbedder  # noqa: E402
from graph.write.to_graphiti import entity_edge, entity_node, episodic_node, mention_edge  # noqa: E402
from graph.write.writer import GraphWriter  # noqa: E402
from ground.episode import Episode  # noqa: E402
from transforms.minilm import shared_minilm  # noqa: E402

UTC = dt.UTC
CPU: dict[str, float] = {}  # title -> CPU seconds (this process + the FalkorDB child) of the last timed run


def cpu_seconds(writer: GraphWriter) -> float:
    """CPU time of this process and the FalkorDB child: robust to other work on a shared machine, unlike wall time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    try:
        import psutil

        child = psutil.Process(writer.backend.embedded.pid).cpu_times()
        theirs = child.user + child.system
    except Exception:
        theirs = 0.0
    return own.ru_utime + own.ru_stime + theirs


async def bulk_run(
    home: Path, episodes: list[Episode], batch: int, embedder: NumpyMiniLMEmbedder, pipelined: bool = False
) -> tuple[float, float]:
    async with GraphWriter(GraphConfig(home=home), embedder=embedder, extractor=fact_extractor()) as writer:
        t, c = time.perf_counter(), cpu_seconds(writer)
        batches = [episodes[i : i + batch] for i in range(0, len(episodes), batch)]
        if pipelined:
            await writer.write_batches(batches)
        else:
            for b in batches:
                await writer.write_batch(b)
        elapsed = time.perf_counter() - t
        CPU["last"] = cpu_seconds(writer) - c
        rss = child_rss_mb(writer)
    return elapsed, rss


def child_rss_mb(writer: GraphWriter) -> float:
    try:
        import psutil

        return psutil.Process(writer.backend.embedded.pid).memory_info().rss / 2**20
    except Exception:
        return float("nan")


async def naive_run(home: Path, episodes: list[Episode], embedder: NumpyMiniLMEmbedder) -> float:
    """One object at a time: embed each, save each (graphiti's per-object .save())."""
    async with GraphWriter(GraphConfig(home=home), embedder=embedder, extractor=fact_extractor()) as writer:
        embedder = writer.embedder
        driver = await writer.backend.driver(episodes[0].group_id)
        now = dt.datetime.now(UTC)
        t, c = time.perf_counter(), cpu_seconds(writer)
        for episode in episodes:
            facts = episode_facts(episode)
            await episodic_node(episode, created_at=now, entity_edges=[f.uuid for f in facts.facts]).save(driver)
            for spec in facts.entities:
                node = entity_node(spec, episode.group_id, name=spec.name, created_at=now, embedding=None)
                await node.generate_name_embedding(embedder)
                await node.save(driver)
            for fact in facts.facts:
                edge = entity_edge(
                    fact,
                    episode.group_id,
                    episodes=fact.episode_ids,
                    valid_at=fact.valid_at,
                    invalid_at=None,
                    expired_at=None,
                    created_at=now,
                    embedding=None,
                )
                await edge.generate_embedding(embedder)
                await edge.save(driver)
            for uuid_ in facts.mentions:
                await mention_edge(episode.id, uuid_, episode.group_id, now).save(driver)
        CPU["last"] = cpu_seconds(writer) - c
        return time.perf_counter() - t


def embed_levers(episodes: list[Episode], sample: int) -> None:
    """Levers 1-4 on the texts these episodes embed: repeats, what search reads, runtime, batch size."""
    writer = GraphWriter(GraphConfig(home=Path(tempfile.gettempdir())), extractor=fact_extractor())
    names = [e.name for ep in episodes for e in writer.extractor(ep, {}).entities]
    facts = [f.fact for ep in episodes for f in writer.extractor(ep, {}).facts]
    total, distinct = len(names) + len(facts), len(set(names) | set(facts))
    print(f"texts to embed for {len(episodes)} mails: {total} ({total / len(episodes):.1f}/mail), {distinct} distinct")
    print(
        f"  (1) embed each distinct text once per run : {total / distinct:.1f}x fewer forward passes "
        "(the embedder's text->vector cache, already in place before this change)"
    )
    print(
        f"  (2) search reads fact embeddings only      : {len(set(facts))} distinct fact texts, "
        f"{len(set(names))} distinct names ({len(set(names)) / distinct:.0%} of the work; kept: graphiti node "
        "search and the Entity.name_embedding vector index read them)"
    )
    texts = sorted(set(facts) | set(names))[:sample]
    ref = NumpyMiniLMEmbedder(shared_minilm("numpy"), cache_limit=0)
    runs = [("numpy, batch 32 (today)", ref)] + [
        (f"onnx,  batch {b}", NumpyMiniLMEmbedder(shared_minilm("onnx"), cache_limit=0, batch=b)) for b in (32, 128)
    ]
    base, want = None, None
    for title, emb in runs:
        t = time.perf_counter()
        vecs = np.asarray(asyncio.run(emb.create_batch(texts)))
        rate = len(texts) / (time.perf_counter() - t)
        base = base or rate
        want = vecs if want is None else want
        cos = float((vecs * want).sum(1).min())
        print(f"  (3)/(4) {title:<24}: {rate:7.0f} texts/s = {rate / base:4.1f}x, min cosine vs today {cos:.6f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="episodes for the bulk path (default 10000)")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--baseline-n", type=int, default=200, help="episodes for the naive .save() loop")
    parser.add_argument("--sample", type=int, default=2000, help="distinct texts for the embedding levers")
    parser.add_argument("--new-only", action="store_true", help="bulk path only as now (onnx, batch 128, pipelined)")
    parser.add_argument("--groups", action="store_true", help="one writer per group: 1 vs 2 groups, and main's code")
    parser.add_argument("--main-tree", default="", help="with --groups: a checkout of main measured in the same run")
    parser.add_argument("--profile", action="store_true", help="with --groups: CPU of one writer, per step")
    parser.add_argument("--ort-threads", type=int, default=0, help="with --groups: ONNX Runtime threads per writer")
    parser.add_argument("--one-group", action="store_true", help="with --groups: skip the two-groups row (CPU only)")
    args = parser.parse_args()
    if args.ort_threads:
        os.environ["GRAPHFEED_BENCH_ORT_THREADS"] = str(args.ort_threads)
    if args.groups:
        from graph_groups import run

        root = Path(tempfile.mkdtemp(prefix="gfg-"))
        try:
            main_tree = Path(args.main_tree) if args.main_tree else None
            run(args.n, args.batch, root, main_tree, args.profile, two=not args.one_group)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return

    root = Path(tempfile.mkdtemp(prefix="gfb-"))
    try:
        numpy_model, onnx_model = shared_minilm("numpy"), shared_minilm("onnx")  # load outside every timing
        episodes = synthetic_episodes(args.n, "bench")
        baseline = synthetic_episodes(min(args.baseline_n, args.n), "bench", seed=11)
        print(f"load: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start")
        embed_levers(episodes, args.sample)

        def emb(model: object, batch: int = 32) -> NumpyMiniLMEmbedder:
            return NumpyMiniLMEmbedder(model, cache_limit=10**9, batch=batch)

        naive_embedder = emb(numpy_model)
        naive_s = asyncio.run(naive_run(root / "naive", baseline, naive_embedder))
        naive_cpu = CPU["last"]
        runs = (
            []
            if args.new_only
            else [
                ("today: numpy, batch 32, sequential", emb(numpy_model), False),
                ("(3) onnx, batch 32, sequential", emb(onnx_model), False),
                ("(4) onnx, batch 128, sequential", emb(onnx_model, 128), False),
            ]
        )
        runs += [("(5) onnx, batch 128, pipelined (new default)", emb(onnx_model, 128), True)]
        rows = []
        for i, (title, embedder, pipelined) in enumerate(runs):
            took, falkor_rss = asyncio.run(bulk_run(root / f"bulk{i}", episodes, args.batch, embedder, pipelined))
            rows.append((title, took, CPU["last"]))
        # the same episodes into fresh graphs, every vector now in each embedder's cache
        naive_w = asyncio.run(naive_run(root / "naive-w", baseline, naive_embedder))
        bulk_w, _ = asyncio.run(bulk_run(root / "bulk-w", episodes, args.batch, runs[-1][1]))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        naive_rate, naive_cpu_rate = len(baseline) / naive_s, len(baseline) / naive_cpu
        print("end to end (local MiniLM embedding included); wall and CPU (python + FalkorDB) episodes/s, ratios")
        print(
            f"  {'naive .save() loop (numpy, today)':<46}: {len(baseline):>6} episodes in {naive_s:7.1f} s = "
            f"{naive_rate:7.1f}/s wall, {naive_cpu_rate:7.1f}/s per CPU-second"
        )
        for title, took, cpu in rows:
            rate, cpu_rate = len(episodes) / took, len(episodes) / cpu
            ratio = cpu_rate / naive_cpu_rate
            print(
                f"  {title:<46}: {len(episodes):>6} episodes in {took:7.1f} s = {rate:7.1f}/s wall "
                f"({rate / naive_rate:5.1f}x), {cpu_rate:7.1f}/s per CPU-second ({ratio:5.1f}x; "
                f"target >= 10x: {'met' if ratio >= 10 else 'NOT met'}); {rate / (len(episodes) / rows[0][1]):.1f}x "
                "the first row"
            )
        naive_wr, bulk_wr = len(baseline) / naive_w, len(episodes) / bulk_w
        print("write path (vectors precomputed for both)")
        print(f"  naive .save() loop : {len(baseline):>6} episodes in {naive_w:7.1f} s = {naive_wr:8.1f} episodes/s")
        print(
            f"  GraphWriter bulk   : {len(episodes):>6} episodes in {bulk_w:7.1f} s = {bulk_wr:8.1f} episodes/s "
            f"(batch {args.batch}) = {bulk_wr / naive_wr:.1f}x"
        )
        print(
            f"peak RSS: python {peak:.0f} MB (every embedder's cache included), FalkorDB {falkor_rss:.0f} MB at end; "
            f"load {os.getloadavg()[0]:.1f} at end"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
