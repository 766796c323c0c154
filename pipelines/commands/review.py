"""`graphfeed estimate` and `graphfeed review list|show|approve|reject` as plain functions for pipelines/commands/.

Each takes explicit arguments, prints to `out`, and returns a process exit code (0 ok, 1 nothing done/not found,
2 usage). None of them calls a model.
"""

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from graph.llm.estimate import Estimate, estimate_episodes, fit_profile
from graph.llm.store import LLMStore, ReviewItem, measured_rows
from ground.episode import Episode

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


def _episodes_from_jsonl(path: Path) -> list[Episode]:
    with open(path, encoding="utf-8") as fh:
        return [Episode.model_validate_json(line) for line in fh if line.strip()]


def _episodes_from_staging(staging_root: Path, source: str, partition: str) -> list[Episode]:
    from flow.staging import EPISODES, Staging

    return [Episode.model_validate(row) for row in Staging(str(staging_root)).rows(source, EPISODES, partition)]


def _not_yet_ingested(episodes: list[Episode], ledger_url: str | None) -> tuple[list[Episode], int]:
    """Leave out what the ledger already ingested or holds as a duplicate: those will not be sent again."""
    if not ledger_url:
        return episodes, 0
    from graph.ledger.ledger import Ledger

    keep, skipped = [], 0
    with Ledger(ledger_url) as book:
        for e in episodes:
            row = book.get(e.id)
            if row is not None and row.status.value in ("ingested", "duplicate", "tombstoned"):
                skipped += 1
            else:
                keep.append(e)
    return keep, skipped


def print_estimate(est: Estimate, out: TextIO, *, max_cost_usd: float | None = None, skipped: int = 0) -> None:
    per = est.episodes or 1
    print(f"estimate for source {est.source} (model {est.model}); nothing was sent to a model", file=out)
    print(
        f"  episodes        {est.episodes}"
        + (f"  ({skipped} already ingested, left out)" if skipped else "")
        + (f"  ({est.skipped} skipped by intent: structured facts only)" if est.skipped else ""),
        file=out,
    )
    print(f"  chunks          {est.chunks}  ({est.content_chars} content chars)", file=out)
    print(f"  LLM calls       {est.calls}  ({est.calls / per:.1f} per episode)", file=out)
    print(f"  tokens in/out   {est.tokens_in} / {est.tokens_out}  ({est.tokens_in / per:.0f} in per episode)", file=out)
    print(f"  embedding tok.  {est.embedding_tokens}", file=out)
    print(f"  cost            ${est.cost_usd:.4f}", file=out)
    if max_cost_usd is not None:
        verdict = "fits" if est.cost_usd <= max_cost_usd else "EXCEEDS"
        print(f"  run budget      ${max_cost_usd:.2f} -> {verdict}; what a budget leaves out stays pending", file=out)
    print(f"  method          {est.method}", file=out)


def estimate(
    graph_config: Any,
    source: str,
    partition: str | None = None,
    *,
    staging_root: Path | None = None,
    episodes_path: Path | None = None,
    ledger_url: str | None = None,
    store_url: str | None = None,
    max_cost_usd: float | None = None,
    as_json: bool = False,
    out: TextIO | None = None,
) -> int:
    """Expected calls, tokens and USD for a staged partition (or a `graphfeed preview` JSONL file)."""
    out = out or sys.stdout
    settings = graph_config.llm
    if settings is None or not settings.enabled:
        print(
            "graphfeed estimate: no LLM endpoint configured (GRAPHFEED_LLM_BASE_URL); nothing would be spent", file=out
        )
        return EXIT_NOTHING
    if graph_config.extraction_mode(source) == "structured":
        print(f"graphfeed estimate: source {source!r} is in structured mode: no LLM calls, $0", file=out)
        return EXIT_OK
    if episodes_path is not None:
        episodes = _episodes_from_jsonl(Path(episodes_path))
    elif staging_root is not None and partition:
        try:
            episodes = _episodes_from_staging(Path(staging_root), source, partition)
        except FileNotFoundError as exc:
            print(f"graphfeed estimate: {exc}", file=out)
            return EXIT_NOTHING
    else:
        print("graphfeed estimate: give a partition (with the staging root) or an episodes JSONL file", file=out)
        return EXIT_USAGE
    episodes = [e for e in episodes if e.source == source]
    episodes, skipped = _not_yet_ingested(episodes, ledger_url)
    profile = None
    if store_url:
        store = LLMStore(store_url)
        try:
            profile = fit_profile(measured_rows(store, source))
        finally:
            store.close()
    est = estimate_episodes(
        episodes, settings, source=source, profile=profile, embedding_model=graph_config.embedder_model
    )
    if as_json:
        print(json.dumps(est.model_dump()), file=out)
    else:
        print_estimate(est, out, max_cost_usd=max_cost_usd, skipped=skipped)
    return EXIT_OK


# ---- review queue ---------------------------------------------------------------------------------------------------


def review_list(
    store_url: str,
    *,
    status: str | None = "pending",
    source: str | None = None,
    limit: int = 50,
    out: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    store = LLMStore(store_url)
    try:
        items = store.reviews(status=status, source=source, limit=limit)
        counts = store.counts()
    finally:
        store.close()
    print(
        f"review queue: {counts['pending']} pending, {counts['approved']} approved, {counts['rejected']} rejected",
        file=out,
    )
    for item in items:
        print(
            f"  {item.chunk_uuid}  {item.status:<8} {item.source:<10} {item.created_at:%Y-%m-%d}  "
            f"{item.nodes} nodes, {item.edges} facts  {item.title[:50]}",
            file=out,
        )
    return EXIT_OK


def _print_item(item: ReviewItem, out: TextIO) -> None:
    print(f"{item.chunk_uuid}  ({item.status})  source {item.source}  group {item.group_id}", file=out)
    print(f"  episode {item.episode_id}  {item.title}", file=out)
    print(
        f"  held {item.created_at:%Y-%m-%d %H:%M}Z"
        + (f", decided {item.decided_at:%Y-%m-%d %H:%M}Z" if item.decided_at else "")
        + (f" ({item.note})" if item.note else ""),
        file=out,
    )
    payload = item.payload or {}
    names = [n.get("name", "?") for n in payload.get("nodes", [])]
    print(f"  entities ({len(names)}): {', '.join(names)}", file=out)
    print(f"  facts ({len(item.facts)}):", file=out)
    for line in item.facts:
        print(f"    - {line}", file=out)


def review_show(store_url: str, key: str, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    store = LLMStore(store_url)
    try:
        item = store.review(key)
    finally:
        store.close()
    if item is None:
        print(f"no held extraction {key!r}", file=out)
        return EXIT_NOTHING
    _print_item(item, out)
    return EXIT_OK


def _pending(store: LLMStore, keys: Sequence[str] | None, source: str | None) -> list[ReviewItem]:
    if not keys:
        return [store.review(i.chunk_uuid) for i in store.reviews(status="pending", source=source, limit=100_000)]
    found: list[ReviewItem] = []
    for key in keys:
        items = store.reviews_of_episode(key) or [i for i in [store.review(key)] if i is not None]
        found += [i for i in items if i.status == "pending"]
    return sorted({i.chunk_uuid: i for i in found}.values(), key=lambda i: (i.created_at, i.chunk_uuid))


def approve_items(writer: Any, store: LLMStore, items: Iterable[ReviewItem]) -> int:
    """Write held extractions through an open SyncGraphWriter, oldest first; each is marked approved once written."""
    from graph.llm.extraction import apply_review

    inner = writer.writer

    async def apply(item: ReviewItem) -> None:
        async with inner.locks.hold([item.group_id]):  # one writer per group, as the nightly writes hold it
            await inner.check_embedder(item.group_id)
            await apply_review(inner.backend, item.group_id, inner.embedder, item.payload or {})

    done = 0
    for item in items:
        writer.run(apply(item))
        done += store.decide([item.chunk_uuid], "approved")
    return done


def review_approve(
    graph_config: Any,
    store_url: str,
    keys: Sequence[str] | None = None,
    *,
    source: str | None = None,
    out: TextIO | None = None,
) -> int:
    """Approve the given chunk uuids / episode ids (all pending ones, optionally of one source, when none given)."""
    out = out or sys.stdout
    from connectors.registry import fact_extractor
    from graph.sync_facade import SyncGraphWriter

    store = LLMStore(store_url)
    try:
        items = _pending(store, keys, source)
        if not items:
            print("nothing pending to approve", file=out)
            return EXIT_NOTHING
        if store_url.startswith("postgresql"):  # the nightly writers' locks are the ledger's advisory locks
            from pydantic import SecretStr

            graph_config = graph_config.model_copy(update={"write_lock_url": SecretStr(store_url)})
        with SyncGraphWriter(graph_config, extractor=fact_extractor(graph_config.intent_fact_threshold)) as writer:
            done = approve_items(writer, store, items)
    finally:
        store.close()
    print(
        f"approved and wrote {done} held extraction(s) "
        f"({sum(i.edges for i in items)} facts, {sum(i.nodes for i in items)} entities)",
        file=out,
    )
    return EXIT_OK


def review_reject(store_url: str, keys: Sequence[str], *, note: str | None = None, out: TextIO | None = None) -> int:
    """Rejected extractions are never written; the episode itself stays ingested (its record is in the graph)."""
    out = out or sys.stdout
    if not keys:
        print("give the chunk uuids or episode ids to reject", file=out)
        return EXIT_USAGE
    store = LLMStore(store_url)
    try:
        items = _pending(store, keys, None)
        done = store.decide([i.chunk_uuid for i in items], "rejected", note) if items else 0
    finally:
        store.close()
    print(f"rejected {done} held extraction(s); nothing was written", file=out)
    return EXIT_OK if done else EXIT_NOTHING
