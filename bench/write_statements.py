"""What each statement of the structured write ships and costs the FalkorDB server, per batch, as the graph grows
(issue 34, part 4): n synthetic mails (bench/synthetic_mail.py) into one group of a fresh embedded FalkorDB through
GraphWriter.write_batch, every vector cached before (the embedding is not what is measured).

usage: python bench/write_statements.py [--n 4000] [--batch 200] [--windows 0:1000,2000:4000]
Per statement kind and window of mails: bytes of statement text sent per mail (parameters included, as falkordb-py
sends them), the server's own execution ms per mail (FalkorDB's "internal execution time"), and the writer's CPU-ms
per mail. Imports graphfeed from $GRAPHFEED_BENCH_TREE when set (main's checkout, for the same figures before).
"""

import argparse
import asyncio
import os
import re
import resource
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

TREE = os.environ.get("GRAPHFEED_BENCH_TREE") or str(Path(__file__).resolve().parents[1])
sys.path[:0] = [TREE, str(Path(__file__).resolve().parent)]

from falkordb.asyncio.graph import AsyncGraph  # noqa: E402
from synthetic_mail import synthetic_episodes  # noqa: E402

from connectors.registry import fact_extractor  # noqa: E402
from graph.config import GraphConfig  # noqa: E402
from graph.write.writer import GraphWriter  # noqa: E402

SEEN: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # kind -> [bytes, server ms, statements]


def kind(query: str) -> str:
    """A short name for a statement: its first clauses, labels and relationship types."""
    words = re.findall(r"\b(?:UNWIND|MATCH|MERGE|SET|CREATE|RETURN)\b|:[A-Z_][A-Za-z_]+|\$\w+", query)
    return " ".join(dict.fromkeys(words))[:90]


def patch() -> None:
    original = AsyncGraph._query

    async def query(self: AsyncGraph, q: str, params: dict | None = None, **kw: object) -> object:
        sent = len((self._build_params_header(params) if params else "") + q)
        result = await original(self, q, params=params, **kw)
        row = SEEN[kind(q)]
        row[0] += sent
        row[1] += float(getattr(result, "run_time_ms", 0.0) or 0.0)
        row[2] += 1
        return result

    AsyncGraph._query = query  # type: ignore[method-assign]


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


async def run(n: int, batch: int, windows: list[tuple[int, int]]) -> None:
    episodes = synthetic_episodes(n, "stmts", seed=7)
    home = Path(tempfile.mkdtemp(prefix="gfs-"))
    async with GraphWriter(GraphConfig(home=home), extractor=fact_extractor()) as writer:
        await writer.embedder.create_batch(sorted(set(writer.texts_to_embed(episodes))))  # vectors cached first
        patch()
        results: dict[tuple[int, int], dict[str, list[float]]] = {}
        cpus: dict[tuple[int, int], float] = {}
        for start in range(0, n, batch):
            window = next((w for w in windows if w[0] <= start < w[1]), None)
            SEEN.clear()
            c = cpu()
            await writer.write_batch(episodes[start : start + batch])
            if window is None:
                continue
            cpus[window] = cpus.get(window, 0.0) + cpu() - c
            into = results.setdefault(window, defaultdict(lambda: [0.0, 0.0, 0.0]))
            for k, (b, ms, count) in SEEN.items():
                into[k][0] += b
                into[k][1] += ms
                into[k][2] += count
    print(f"tree {TREE}: {n} synthetic mails, batch {batch}, vectors cached; load {os.getloadavg()[0]:.1f}")
    for window, rows in results.items():
        mails = min(window[1], n) - window[0]
        total_b = sum(r[0] for r in rows.values())
        total_ms = sum(r[1] for r in rows.values())
        print(
            f"mails {window[0]}-{min(window[1], n)}: {total_b / mails:8.0f} bytes/mail, server {total_ms / mails:.3f}"
            f" ms/mail, writer {1000 * cpus[window] / mails:.2f} CPU-ms/mail"
        )
        for k, (b, ms, _count) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
            print(f"  {b / mails:8.0f} B/mail {ms / mails:7.3f} ms/mail  {k}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--windows", default="0:1000,2000:4000", help="mail ranges to report, start:end,...")
    args = parser.parse_args()
    windows = [(int(a), int(b)) for a, b in (w.split(":") for w in args.windows.split(","))]
    asyncio.run(run(args.n, args.batch, windows))


if __name__ == "__main__":
    main()
