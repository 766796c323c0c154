"""Usage metering: tokens in/out per prompt name and per episode, embedding tokens, retries and failures, cost in USD.

The episode a call belongs to travels in a contextvar set around each episode's extraction, so graphiti's nested
gathers (many concurrent calls for one episode) are attributed correctly without threading ids through graphiti.
Graphiti's own TokenUsageTracker is fed as well, so `Graphiti.token_tracker` shows the same per-prompt numbers.
"""

import contextlib
import contextvars
import math
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from graph.llm.pricing import PriceTable

_EPISODE: contextvars.ContextVar[str | None] = contextvars.ContextVar("graphfeed_llm_episode", default=None)
_PROMPT: contextvars.ContextVar[str | None] = contextvars.ContextVar("graphfeed_llm_prompt", default=None)


def estimate_tokens(text: str) -> int:
    """~4 characters per token: the usual rule of thumb for English/German prose with BPE tokenizers."""
    return math.ceil(len(text) / 4) if text else 0


class PromptUsage(BaseModel):
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


# The counters of a Usage that add up (cost and per-prompt figures are added separately).
COUNTERS = (
    "calls",
    "tokens_in",
    "tokens_out",
    "embedding_tokens",
    "retries",
    "rate_limited",
    "timeouts",
    "malformed",
    "schema_invalid",
    "server_errors",
    "unparseable_dates",
    "truncated",
)


class Usage(BaseModel):
    calls: int = 0  # successful + failed HTTP attempts that returned usage
    tokens_in: int = 0
    tokens_out: int = 0
    embedding_tokens: int = 0
    cost_usd: float = 0.0
    retries: int = 0
    rate_limited: int = 0  # 429 answers
    timeouts: int = 0
    malformed: int = 0  # not JSON
    schema_invalid: int = 0  # JSON, but not the response model
    server_errors: int = 0
    unparseable_dates: int = 0  # valid_at/invalid_at strings from the model that are not ISO dates
    truncated: int = 0  # answers cut at max_tokens (finish_reason "length")
    # What the grounding guard (graph/llm/guard.py) dropped or cleared, by reason.
    guard: dict[str, int] = Field(default_factory=dict)
    by_prompt: dict[str, PromptUsage] = Field(default_factory=dict)

    def add(self, other: "Usage") -> "Usage":
        for name in COUNTERS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost_usd += other.cost_usd
        for prompt, p in other.by_prompt.items():
            mine = self.by_prompt.setdefault(prompt, PromptUsage())
            mine.calls += p.calls
            mine.tokens_in += p.tokens_in
            mine.tokens_out += p.tokens_out
        for reason, n in other.guard.items():
            self.guard[reason] = self.guard.get(reason, 0) + n
        return self

    def minus(self, before: "Usage") -> "Usage":
        """What was spent since a snapshot (`before` must be an earlier copy of the same counter)."""
        out = Usage()
        for name in COUNTERS:
            setattr(out, name, getattr(self, name) - getattr(before, name))
        out.cost_usd = self.cost_usd - before.cost_usd
        for prompt, p in self.by_prompt.items():
            b = before.by_prompt.get(prompt, PromptUsage())
            if p.calls - b.calls or p.tokens_in - b.tokens_in:
                out.by_prompt[prompt] = PromptUsage(
                    calls=p.calls - b.calls, tokens_in=p.tokens_in - b.tokens_in, tokens_out=p.tokens_out - b.tokens_out
                )
        for reason, n in self.guard.items():
            if n - before.guard.get(reason, 0):
                out.guard[reason] = n - before.guard.get(reason, 0)
        return out


class UsageMeter:
    """Totals plus per-episode Usage; one per writer (so per run)."""

    def __init__(self, prices: PriceTable, token_tracker: Any = None):
        self.prices = prices
        self.total = Usage()
        self.episodes: dict[str, Usage] = {}
        self.token_tracker = token_tracker

    @contextlib.contextmanager
    def episode(self, episode_id: str) -> Iterator[Usage]:
        token = _EPISODE.set(episode_id)
        try:
            yield self.episodes.setdefault(episode_id, Usage())
        finally:
            _EPISODE.reset(token)

    @contextlib.contextmanager
    def prompt(self, prompt_name: str | None) -> Iterator[None]:
        token = _PROMPT.set(prompt_name)
        try:
            yield
        finally:
            _PROMPT.reset(token)

    @staticmethod
    def current_prompt() -> str:
        return _PROMPT.get() or "unnamed"

    def _targets(self) -> list[Usage]:
        eid = _EPISODE.get()
        return [self.total] + ([self.episodes.setdefault(eid, Usage())] if eid else [])

    def record_call(self, model: str, tokens_in: int, tokens_out: int) -> float:
        prompt = self.current_prompt()
        cost = self.prices.cost(model, tokens_in, tokens_out)
        for u in self._targets():
            u.calls += 1
            u.tokens_in += tokens_in
            u.tokens_out += tokens_out
            u.cost_usd += cost
            p = u.by_prompt.setdefault(prompt, PromptUsage())
            p.calls += 1
            p.tokens_in += tokens_in
            p.tokens_out += tokens_out
        if self.token_tracker is not None:
            self.token_tracker.record(prompt, tokens_in, tokens_out)
        return cost

    def record_embedding(self, model: str, tokens: int) -> None:
        cost = self.prices.cost(model, tokens, 0)
        for u in self._targets():
            u.embedding_tokens += tokens
            u.cost_usd += cost

    def count(self, what: str, n: int = 1) -> None:
        for u in self._targets():
            setattr(u, what, getattr(u, what) + n)

    def count_guard(self, reason: str, n: int = 1) -> None:
        """One more thing the grounding guard dropped or cleared, for `reason` (see guard_reasons.REASONS)."""
        if n:
            for u in self._targets():
                u.guard[reason] = u.guard.get(reason, 0) + n

    def snapshot(self) -> Usage:
        return self.total.model_copy(deep=True)
