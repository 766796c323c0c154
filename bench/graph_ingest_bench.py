"""Structured-mode ingest speed into the embedded FalkorDB: GraphWriter (batched embeddings + graphiti bulk writer)
against a naive loop of graphiti `.save()` calls over the same kind of episodes, measured in the same run.

usage: python bench/graph_ingest_bench.py [--n 10000] [--batch 500] [--baseline-n 200]
Prints episodes/second for both, their ratio (target >= 10x), and peak RSS (this process and the FalkorDB child),
twice: end to end (the local MiniLM embeds inside the timing; on CPU it is most of the cost for both paths), and for
the write path alone (every vector already computed, the same cache for both), which is what bulk writing changes.
"""

import argparse
import asyncio
import datetime as dt
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from connectors.graph.config import GraphConfig  # noqa: E402
from connectors.graph.embedders import NumpyMiniLMEmbedder  # noqa: E402
from connectors.graph.to_graphiti import entity_edge, entity_node, episodic_node, mention_edge  # noqa: E402
from connectors.graph.writer import GraphWriter  # noqa: E402
from connectors.records import Actor, Participant  # noqa: E402
from transforms.episode import Episode, EpisodeActor, EpisodeMetadata, episode_id  # noqa: E402
from transforms.fact_extractors import episode_facts  # noqa: E402

UTC = dt.timezone.utc
FIRST = ["Dana", "Tom", "Priya", "Lee", "Ana", "Omar", "Mei", "Jonas", "Sara", "Ravi", "Ines", "Kofi"]
LAST = ["Whitfield", "Berger", "Nair", "Park", "Silva", "Haddad", "Chen", "Vogel", "Ruiz", "Iyer"]
DOMAINS = ["acme.example", "globex.example", "initech.example", "umbrella.example"]
TOPICS = ["Q2 budget", "release plan", "renewal terms", "incident review", "hiring", "roadmap", "pricing", "audit"]


def synthetic_episodes(n: int, group_id: str, seed: int = 7) -> list[Episode]:
    rng = random.Random(seed)
    people = [(f"{f} {last}", f"{f.lower()}.{last.lower()}@{rng.choice(DOMAINS)}") for f in FIRST for last in LAST]
    start = dt.datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        name, email = rng.choice(people)
        to = rng.sample(people, rng.randint(1, 3))
        when = start + dt.timedelta(minutes=37 * i)
        topic = rng.choice(TOPICS)
        key = f"<bench-{i}@{email.split('@')[1]}>"
        out.append(Episode(
            id=episode_id("email", key, "1"), group_id=group_id, timestamp=when, source="email",
            actor=EpisodeActor(type="human", id=email, name=name, email=email), intent="fyi", intent_confidence=0.5,
            content=f"{topic}: update {i} from {name}.", fingerprint=f"fp-{i}",
            references=[f"jira:PHX-{rng.randint(1, 300)}"] if rng.random() < 0.3 else [],
            metadata=EpisodeMetadata(
                source_key=key, kind="email", version="1", title=topic, occurred_at=when, updated_at=when,
                parent_key=f"<bench-{i - 1}@x>" if i and rng.random() < 0.4 else None,
                participants=[Participant(role="to", actor=Actor(id=e, name=nm, email=e)) for nm, e in to])))
    return out


async def bulk_run(home: Path, episodes: list[Episode], batch: int, embedder: NumpyMiniLMEmbedder
                   ) -> tuple[float, float]:
    async with GraphWriter(GraphConfig(home=home), embedder=embedder) as writer:
        t = time.perf_counter()
        for i in range(0, len(episodes), batch):
            await writer.write_batch(episodes[i:i + batch])
        elapsed = time.perf_counter() - t
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
    async with GraphWriter(GraphConfig(home=home), embedder=embedder) as writer:
        embedder = writer.embedder
        driver = await writer.backend.driver(episodes[0].group_id)
        now = dt.datetime.now(UTC)
        t = time.perf_counter()
        for episode in episodes:
            facts = episode_facts(episode)
            await episodic_node(episode, created_at=now, entity_edges=[f.uuid for f in facts.facts]).save(driver)
            for spec in facts.entities:
                node = entity_node(spec, episode.group_id, name=spec.name, created_at=now, embedding=None)
                await node.generate_name_embedding(embedder)
                await node.save(driver)
            for fact in facts.facts:
                edge = entity_edge(fact, episode.group_id, episodes=fact.episode_ids, valid_at=fact.valid_at,
                                   invalid_at=None, expired_at=None, created_at=now, embedding=None)
                await edge.generate_embedding(embedder)
                await edge.save(driver)
            for uuid_ in facts.mentions:
                await mention_edge(episode.id, uuid_, episode.group_id, now).save(driver)
        return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="episodes for the bulk path (default 10000)")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--baseline-n", type=int, default=200, help="episodes for the naive .save() loop")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="gfb-"))
    try:
        NumpyMiniLMEmbedder()                                  # load weights outside every timing
        episodes = synthetic_episodes(args.n, "bench")
        baseline = synthetic_episodes(min(args.baseline_n, args.n), "bench", seed=11)
        naive_embedder, bulk_embedder = (NumpyMiniLMEmbedder(cache_limit=10**9) for _ in range(2))
        naive_s = asyncio.run(naive_run(root / "naive", baseline, naive_embedder))
        bulk_s, falkor_rss = asyncio.run(bulk_run(root / "bulk", episodes, args.batch, bulk_embedder))
        # the same episodes into fresh graphs, every vector now in each embedder's cache
        naive_w = asyncio.run(naive_run(root / "naive-w", baseline, naive_embedder))
        bulk_w, _ = asyncio.run(bulk_run(root / "bulk-w", episodes, args.batch, bulk_embedder))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for title, naive, bulk in (("end to end (local MiniLM embedding included)", naive_s, bulk_s),
                                   ("write path (vectors precomputed for both)", naive_w, bulk_w)):
            naive_rate, bulk_rate = len(baseline) / naive, len(episodes) / bulk
            print(title)
            print(f"  naive .save() loop : {len(baseline):>6} episodes in {naive:7.1f} s = {naive_rate:8.1f} episodes/s")
            print(f"  GraphWriter bulk   : {len(episodes):>6} episodes in {bulk:7.1f} s = {bulk_rate:8.1f} episodes/s "
                  f"(batch {args.batch})")
            print(f"  ratio bulk/naive   : {bulk_rate / naive_rate:.1f}x (target >= 10x)")
        print(f"peak RSS: python {peak:.0f} MB (both embedders' caches included), FalkorDB {falkor_rss:.0f} MB at end")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
