"""Dry-run cost estimate: expected LLM calls, tokens and USD for a set of episodes, before spending anything.

How: each episode is chunked exactly as extraction will chunk it. Per chunk,
  tokens_in  = calls x PROMPT_OVERHEAD           (graphiti's prompt templates + response schema, per call)
             + CONTENT_PASSES x content tokens   (the chunk appears in the node, dedupe and edge prompts)
             + CONTEXT_PASSES x previous-episode tokens (add_episode sends up to 10 earlier episodes of the group)
  tokens_out = calls x OUTPUT_PER_CALL + OUTPUT_PER_CONTENT x content tokens
with content tokens = chars / 4. The defaults come from the scripted-server measurements (bench/llm_tokens_bench.py on
the sample email corpus: 5.1 calls and ~1,400 prompt tokens per call for short emails - extract_nodes, dedupe_nodes,
extract_edges, extract_timestamps, resolve_edge, summaries; notes/graphiti.md §5 measured 3-5 calls). Once the source has >= 5 measured episodes in the spend log, calls per chunk and the two input
coefficients are refitted from them (least squares of tokens_in on chunks and content chars), and the cost per token
comes from what was actually paid. All tokens are priced at the main model without history (an upper bound: graphiti
sends timestamp/dedupe prompts to the cheaper small model).
"""

from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel

from graph.llm.chunking import split_text
from graph.llm.meter import estimate_tokens
from graph.llm.settings import LLMSettings
from ground.episode import Episode

CALLS_PER_CHUNK = 5.0
PROMPT_OVERHEAD = 1350  # tokens of template per call
CONTENT_PASSES = 3.0
CONTEXT_PASSES = 2.0
PREVIOUS_EPISODES = 10  # graphiti RELEVANT_SCHEMA_LIMIT
OUTPUT_PER_CALL = 30
OUTPUT_PER_CONTENT = 0.1
EMBEDDING_PASSES = 1.5  # names + facts embedded, roughly the chunk's size again and a half
MIN_HISTORY = 5


class CallProfile(BaseModel):
    calls_per_chunk: float = CALLS_PER_CHUNK
    tokens_in_per_chunk: float = CALLS_PER_CHUNK * PROMPT_OVERHEAD
    tokens_in_per_content_token: float = CONTENT_PASSES
    context_passes: float = CONTEXT_PASSES
    tokens_out_per_chunk: float = CALLS_PER_CHUNK * OUTPUT_PER_CALL
    tokens_out_per_content_token: float = OUTPUT_PER_CONTENT
    usd_per_token_in: float | None = None  # from history; None = price table, main model
    usd_per_token_out: float | None = None
    method: str = "default profile (no measured history)"


class Estimate(BaseModel):
    source: str
    episodes: int = 0
    skipped: int = 0  # no free text, or an intent in skip_intents: no model call
    chunks: int = 0
    content_chars: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    embedding_tokens: int = 0
    cost_usd: float = 0.0
    method: str = ""
    model: str = ""


def fit_profile(rows: list[tuple[int, int, int, int, int, float]]) -> CallProfile | None:
    """rows: (chunks, content_chars, calls, tokens_in, tokens_out, cost_usd) of measured successful episodes."""
    rows = [r for r in rows if r[0] > 0]
    if len(rows) < MIN_HISTORY:
        return None
    a = np.array([[r[0], estimate_tokens("x" * r[1])] for r in rows], dtype=float)
    tin = np.array([r[3] for r in rows], dtype=float)
    tout = np.array([r[4] for r in rows], dtype=float)
    (c_in, k_in), *_ = np.linalg.lstsq(a, tin, rcond=None)
    (c_out, k_out), *_ = np.linalg.lstsq(a, tout, rcond=None)
    chunks = sum(r[0] for r in rows)
    if c_in < 0 or k_in < 0:  # degenerate history (all same size): proportional model instead
        c_in, k_in = tin.sum() / chunks, 0.0
    if c_out < 0 or k_out < 0:
        c_out, k_out = tout.sum() / chunks, 0.0
    total_in, total_out, cost = tin.sum(), tout.sum(), sum(r[5] for r in rows)
    # split the measured USD between in and out in the proportion of the tokens (prices differ, history is mixed)
    per_token = cost / (total_in + total_out) if total_in + total_out else 0.0
    return CallProfile(
        calls_per_chunk=sum(r[2] for r in rows) / chunks,
        tokens_in_per_chunk=float(c_in),
        tokens_in_per_content_token=float(k_in),
        context_passes=0.0,
        tokens_out_per_chunk=float(c_out),
        tokens_out_per_content_token=float(k_out),
        usd_per_token_in=per_token,
        usd_per_token_out=per_token,
        method=f"fitted on {len(rows)} measured episodes of this source",
    )


def estimate_episodes(
    episodes: Iterable[Episode],
    settings: LLMSettings,
    *,
    source: str,
    profile: CallProfile | None = None,
    embedding_model: str | None = None,
) -> Estimate:
    profile = profile or CallProfile()
    prices = settings.price_table()
    out = Estimate(source=source, method=profile.method, model=settings.model)
    previous: dict[str, list[int]] = {}
    thread = settings.context == "thread"
    window = settings.context_episodes if thread else PREVIOUS_EPISODES
    tin = tout = emb = calls = 0.0
    for episode in sorted(episodes, key=lambda e: e.timestamp):
        if not settings.worth_a_call(episode):
            out.skipped += 1
            continue
        out.episodes += 1
        out.content_chars += len(episode.content)
        meta = episode.metadata
        key = (
            f"{episode.group_id}:{meta.thread_key or meta.parent_key or meta.source_key}"
            if thread
            else episode.group_id
        )
        history = previous.setdefault(key, [])
        for piece in split_text(episode.content or " ", settings.chunk_chars, settings.chunk_overlap_chars):
            c = estimate_tokens(piece)
            context = sum(history[-window:]) if window else 0
            out.chunks += 1
            calls += profile.calls_per_chunk
            tin += (
                profile.tokens_in_per_chunk + profile.tokens_in_per_content_token * c + profile.context_passes * context
            )
            tout += profile.tokens_out_per_chunk + profile.tokens_out_per_content_token * c
            emb += EMBEDDING_PASSES * c
            history.append(c)
    out.calls, out.tokens_in, out.tokens_out, out.embedding_tokens = round(calls), round(tin), round(tout), round(emb)
    if profile.usd_per_token_in is not None:
        cost = out.tokens_in * profile.usd_per_token_in + out.tokens_out * (profile.usd_per_token_out or 0.0)
    else:
        cost = prices.cost(settings.model, out.tokens_in, out.tokens_out)
    if embedding_model:
        cost += prices.cost(embedding_model, out.embedding_tokens)
    out.cost_usd = round(cost, 6)
    return out
