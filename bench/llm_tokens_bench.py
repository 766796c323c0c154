"""LLM calls and prompt tokens per episode on the bundled sample corpus: graphfeed's LLM path against a naive loop,
both in this run, both against the scripted local OpenAI-compatible server (tests/llm/scripted_server.py).

graphfeed: `graphfeed preview --source S sample/exports/S` for each source (cleaned, quote-stripped, deduplicated
episodes) -> one ledger (which also deduplicates across sources) -> the real ingest loop (write_backlog) ->
GraphWriter with every source in "both" mode (structured facts + Graphiti add_episode per chunk, metered).
naive: Graphiti add_episode for every record the readers yield, raw title + body, no dedup, no structured facts,
through the same metered client (so only the pipeline differs).

usage: python bench/llm_tokens_bench.py [--sources email,jira,confluence,salesforce] [--chunk-chars 6000]
Prints records/episodes, LLM calls, prompt tokens (total and per record), the estimate for the graphfeed side, and
the ratio graphfeed/naive (target <= 0.5x prompt tokens).
"""

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.nodes import EpisodeType  # noqa: E402

import graph  # noqa: E402,F401 - telemetry off before graphiti_core is first imported
from connectors.registry import export_reader, fact_extractor  # noqa: E402
from flow.ingest import IngestLimits, IngestStats, write_backlog  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.embedders import EmbeddingReranker, NumpyMiniLMEmbedder  # noqa: E402
from graph.ledger.ledger import Ledger, ledger_url_for_home  # noqa: E402
from graph.llm.client import MeteredLLMClient  # noqa: E402
from graph.llm.estimate import estimate_episodes  # noqa: E402
from graph.llm.meter import UsageMeter  # noqa: E402
from graph.llm.pricing import DEFAULT_PRICES, ModelPrice  # noqa: E402
from graph.llm.settings import LLMSettings  # noqa: E402
from graph.sync_facade import SyncGraphWriter  # noqa: E402
from graph.write.writer import GraphWriter  # noqa: E402
from ground.episode import Episode  # noqa: E402
from ground.records import RecordFailure  # noqa: E402
from tests.llm.scripted_server import ScriptedOpenAI  # noqa: E402

SAMPLE = REPO / "sample" / "exports"
SOURCES = ("email", "jira", "confluence", "salesforce")


def settings(server: ScriptedOpenAI, chunk_chars: int, skip_intents: list[str] | None = None) -> LLMSettings:
    prices = dict(DEFAULT_PRICES)
    prices["bench-model"] = ModelPrice(input_per_mtok=0.40, output_per_mtok=1.60)
    prices["bench-small"] = ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40)
    return LLMSettings(
        base_url=server.base_url,
        api_key="bench",
        model="bench-model",
        small_model="bench-small",
        requests_per_minute=None,
        tokens_per_minute=None,
        concurrency=4,
        chunk_chars=chunk_chars,
        backoff_base_s=0.01,
        prices=prices,
        skip_intents=skip_intents or [],
    )


def preview_episodes(home: Path, source: str) -> tuple[list[Episode], str]:
    env = dict(os.environ, GRAPHFEED_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.commands", "preview", "--source", source, str(SAMPLE / source)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    episodes = [Episode.model_validate_json(line) for line in done.stdout.splitlines() if line.strip()]
    return episodes, f"{source}: " + done.stderr.strip().splitlines()[-1].removeprefix("graphfeed preview: ")


def graphfeed_side(
    home: Path, server: ScriptedOpenAI, episodes: list[Episode], chunk_chars: int, skip_intents: list[str] | None = None
) -> tuple[IngestStats, int]:
    """-> (stats, episodes sent: registered minus cross-source duplicates)."""
    sources = sorted({e.source for e in episodes})
    config = GraphConfig(
        home=home, extraction={s: "both" for s in sources}, llm=settings(server, chunk_chars, skip_intents)
    )
    ledger = Ledger(ledger_url_for_home(home))
    registered = ledger.register(sorted(episodes, key=lambda e: e.timestamp), partition="bench")
    stats = IngestStats()  # write_backlog adds each source's figures to it
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        for source in sources:
            write_backlog(ledger, writer, source, IngestLimits(max_cost_usd=1000.0, backoff_seconds=0), stats)
    return stats, len(episodes) - registered.duplicates


async def naive_side(
    home: Path, server: ScriptedOpenAI, chunk_chars: int, sources: list[str]
) -> tuple[int, UsageMeter]:
    config = GraphConfig(home=home)
    s = settings(server, chunk_chars)
    meter = UsageMeter(s.price_table())
    client = MeteredLLMClient(s, meter=meter)
    records = [
        r
        for source in sources
        for r in export_reader(source, [str(SAMPLE / source)]).read(None)
        if not isinstance(r, RecordFailure)
    ]
    async with GraphWriter(config, extractor=fact_extractor()) as writer:
        driver = await writer.backend.driver("naive")
        embedder = NumpyMiniLMEmbedder()
        graphiti = Graphiti(
            graph_driver=driver,
            llm_client=client,
            embedder=embedder,
            cross_encoder=EmbeddingReranker(embedder),
            max_coroutines=4,
        )
        for record in sorted(records, key=lambda r: r.occurred_at):
            await graphiti.add_episode(
                name=record.title or record.source_key,
                episode_body=f"{record.title}\n\n{record.body}",
                source_description=f"{record.source} {record.kind}",
                reference_time=record.occurred_at,
                source=EpisodeType.message,
                group_id="naive",
            )
    await client.client.close()
    return len(records), meter


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", default=",".join(SOURCES), help="comma list of sample sources (default: all)")
    parser.add_argument("--chunk-chars", type=int, default=6000)
    parser.add_argument(
        "--skip-intents",
        default="other",
        help="second graphfeed run with these intents gated out (comma list; '' to skip that run)",
    )
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="gflb-"))
    try:
        with ScriptedOpenAI() as server:
            sources = [s for s in args.sources.split(",") if s]
            episodes = []
            for source in sources:
                found, preview_line = preview_episodes(scratch / "preview", source)
                episodes += found
                print(f"preview {preview_line}")
            est = estimate_episodes(episodes, settings(server, args.chunk_chars), source=",".join(sources))
            ours, sent = graphfeed_side(scratch / "gf", server, episodes, args.chunk_chars)
            ours_requests = len(server.requests)
            n_records, naive = asyncio.run(naive_side(scratch / "nv", server, args.chunk_chars, sources))
            naive_requests = len(server.requests) - ours_requests
            skip = [s for s in args.skip_intents.split(",") if s]
            gated = graphfeed_side(scratch / "gf2", server, episodes, args.chunk_chars, skip)[0] if skip else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    n = naive.total
    print(f"{'':<34}{'graphfeed':>12}{'naive':>12}")
    print(f"{'records in / episodes sent':<34}{sent:>12}{n_records:>12}")
    print(f"{'LLM calls':<34}{ours.llm_calls:>12}{n.calls:>12}")
    print(f"{'HTTP requests seen by the server':<34}{ours_requests:>12}{naive_requests:>12}")
    print(f"{'prompt tokens':<34}{ours.tokens_in:>12}{n.tokens_in:>12}")
    print(f"{'completion tokens':<34}{ours.tokens_out:>12}{n.tokens_out:>12}")
    print(f"{'prompt tokens per record':<34}{ours.tokens_in / n_records:>12.0f}{n.tokens_in / n_records:>12.0f}")
    print(f"{'calls per episode sent':<34}{ours.llm_calls / max(1, sent):>12.2f}{n.calls / max(1, n_records):>12.2f}")
    print(f"{'cost USD (bench prices)':<34}{ours.cost_usd:>12.4f}{n.cost_usd:>12.4f}")
    print(
        f"graphfeed estimate before the run: {est.calls} calls, {est.tokens_in} prompt tokens, "
        f"${est.cost_usd:.4f} (measured {ours.llm_calls} / {ours.tokens_in} / ${ours.cost_usd:.4f})"
    )
    print("prompt tokens by prompt name (graphfeed | naive):")
    for prompt in sorted(set(ours.llm_tokens_by_prompt) | set(n.by_prompt)):
        a = ours.llm_tokens_by_prompt.get(prompt, {"calls": 0, "tokens_in": 0})
        b = n.by_prompt.get(prompt)
        print(
            f"  {prompt:<40} {a['calls']:>4} calls {a['tokens_in']:>8} | {b.calls if b else 0:>4} calls "
            f"{b.tokens_in if b else 0:>8}"
        )
    ratio = ours.tokens_in / n.tokens_in if n.tokens_in else float("nan")
    print(
        f"ratio graphfeed/naive prompt tokens: {ratio:.2f}x (target <= 0.5x) "
        f"calls: {ours.llm_calls / max(1, n.calls):.2f}x -> {'OK' if ratio <= 0.5 else 'ABOVE TARGET'}"
    )
    if gated is not None:
        g = gated.tokens_in / n.tokens_in if n.tokens_in else float("nan")
        print(
            f"with skip_intents={skip}: {gated.llm_skipped} episodes structured-only, {gated.llm_calls} calls, "
            f"{gated.tokens_in} prompt tokens, ${gated.cost_usd:.4f} -> ratio {g:.2f}x "
            f"calls {gated.llm_calls / max(1, n.calls):.2f}x -> {'OK' if g <= 0.5 else 'ABOVE TARGET'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
