"""The opt-in LLM intent cascade: units the local model is unsure of are labelled by an LLM through the same metered
client, rate limiter, budgets and spend store as LLM extraction; every other unit keeps its local label.

Nothing is lost on the way: a budget stop, a timeout, an answer outside the taxonomy or broken JSON leaves the local
label standing, with the reason as a category (transforms.intent.llm_prompt) on the decision and in the stats.
Answers are cached in the LLM store by episode fingerprint, model and prompt version, so a rerun costs nothing; the
same fingerprint twice in one batch is asked once. Prompt and parsing are pure (transforms.intent.llm_prompt).
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from graphiti_core.llm_client.config import ModelSize
from graphiti_core.prompts.models import Message
from pydantic import BaseModel, Field

from graph.llm.budget import stop_reason
from graph.llm.client import LLMCallFailed, MeteredLLMClient
from graph.llm.meter import Usage, UsageMeter
from graph.llm.rate_limit import RateLimiter
from graph.llm.runtime import store_url
from graph.llm.settings import LLMSettings
from graph.llm.store import LLMStore
from transforms.intent import llm_prompt as lp
from transforms.intent.data import Taxonomy
from transforms.intent.units import ClassifierInput

log = logging.getLogger(__name__)


class CascadeUnit(NamedTuple):
    key: str  # the episode fingerprint: the cache key
    episode_id: str
    source: str  # for the per-source nightly budget
    item: ClassifierInput  # what the local model read
    label: str  # the local label
    confidence: float  # the local confidence


class Decision(NamedTuple):
    label: str
    source: str  # metadata intent_source: "local", "llm" or "local (llm: <reason>)"
    reason: str | None = None  # the fallback category, None when nothing went wrong


class CascadeStats(BaseModel):
    units: int = 0
    below_threshold: int = 0  # sent to the LLM or answered from its cache
    cached: int = 0  # answered from the cache (no call)
    asked: int = 0  # distinct fingerprints sent to the model
    llm_labels: int = 0  # units labelled by the LLM (cached or asked)
    changed: int = 0  # ... whose label differs from the local one
    fallbacks: dict[str, int] = Field(default_factory=dict)  # reason -> units whose local label stood
    stopped_by: str | None = None  # the budget that stopped the calls
    usage: Usage = Field(default_factory=Usage)

    def metrics(self) -> dict[str, Any]:
        """Flat figures for the run's metadata (asset metadata, `intent eval --llm`)."""
        u = self.usage
        out: dict[str, Any] = {
            "units": self.units,
            "below_threshold": self.below_threshold,
            "cached": self.cached,
            "llm_labels": self.llm_labels,
            "changed": self.changed,
            "calls": u.calls,
            "retries": u.retries,
            "tokens_in": u.tokens_in,
            "tokens_out": u.tokens_out,
            "cost_usd": round(u.cost_usd, 6),
        }
        out.update({f"fallback/{reason}": n for reason, n in sorted(self.fallbacks.items())})
        if self.stopped_by:
            out["stopped_by"] = self.stopped_by
        return out


class LLMIntentCascade:
    def __init__(
        self,
        settings: LLMSettings,
        taxonomy: Taxonomy,
        store: LLMStore,
        *,
        threshold: float,
        guide: str | None = None,
        clock: Callable[[], dt.datetime] | None = None,
    ):
        self.settings = settings
        self.labels = tuple(taxonomy.names)
        self.threshold = threshold
        self.system = lp.system_prompt(taxonomy, guide if guide is not None else lp.load_guide(_guide(settings)))
        self.version = lp.prompt_version(self.system, self.labels)
        self.answer = lp.answer_model(self.labels)
        self.model = settings.intent_model()
        self.store = store
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.meter = UsageMeter(settings.price_table())
        limiter = RateLimiter(settings.requests_per_minute, settings.tokens_per_minute)
        self.client = MeteredLLMClient(settings, meter=self.meter, limiter=limiter)
        self.stats = CascadeStats()
        self._loop = asyncio.new_event_loop()

    # ---- sync entry points (the episodes step and the CLI are not async) ------------------------------------------

    def run(self, units: Sequence[CascadeUnit]) -> list[Decision]:
        return self._loop.run_until_complete(self.classify(units))

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self.client.client.close())
        finally:
            self._loop.close()
            self.store.close()

    def __enter__(self) -> "LLMIntentCascade":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- the cascade ----------------------------------------------------------------------------------------------

    async def classify(self, units: Sequence[CascadeUnit]) -> list[Decision]:
        decisions: list[Decision | None] = [None] * len(units)
        below: list[int] = []
        for i, unit in enumerate(units):
            self.stats.units += 1
            if lp.below_threshold(unit.confidence, self.threshold) and lp.has_text(unit.item):
                below.append(i)
            else:
                decisions[i] = Decision(unit.label, lp.SOURCE_LOCAL)
        self.stats.below_threshold += len(below)
        cached = self.store.cached_intents(sorted({units[i].key for i in below}), self.model, self.version)
        todo: dict[str, list[int]] = {}
        for i in below:
            label = cached.get(units[i].key)
            if label in self.labels:
                self.stats.cached += 1
                decisions[i] = self._labelled(units[i], label)
            else:
                todo.setdefault(units[i].key, []).append(i)
        keys = list(todo)
        step = max(1, self.settings.concurrency)  # the budget is checked per wave: overshoot <= one wave's calls
        for start in range(0, len(keys), step):
            wave = keys[start : start + step]
            answers = await asyncio.gather(*(self._ask(units[todo[key][0]]) for key in wave))
            for key, (label, reason) in zip(wave, answers):
                for i in todo[key]:
                    decisions[i] = self._labelled(units[i], label) if label else self._fallback(units[i], reason)
        return [d for d in decisions if d is not None]

    def _labelled(self, unit: CascadeUnit, label: str) -> Decision:
        self.stats.llm_labels += 1
        self.stats.changed += label != unit.label
        return Decision(label, lp.SOURCE_LLM)

    def _fallback(self, unit: CascadeUnit, reason: str | None) -> Decision:
        reason = reason or lp.FAILED
        self.stats.fallbacks[reason] = self.stats.fallbacks.get(reason, 0) + 1
        return Decision(unit.label, lp.fallback_source(reason), reason)

    def _budget_stop(self, unit: CascadeUnit) -> str | None:
        return stop_reason(
            source=unit.source,
            spent_this_call=self.meter.total.cost_usd,
            max_cost_usd=self.settings.intent_max_cost_usd,
            night_caps=self.settings.max_cost_per_source_night_usd,
            store=self.store,
            now=self.clock(),
        )

    async def _ask(self, unit: CascadeUnit) -> tuple[str | None, str | None]:
        """(label, None) or (None, reason); the spend of the attempt is recorded either way (it was paid for)."""
        stopped = self._budget_stop(unit)
        if stopped:
            self.stats.stopped_by = stopped
            return None, lp.BUDGET
        self.stats.asked += 1
        messages = [
            Message(role="system", content=self.system),
            Message(role="user", content=lp.user_prompt(unit.item)),
        ]
        label: str | None = None
        reason: str | None = None
        with self.meter.episode(f"intent:{unit.episode_id}") as spent:
            before = spent.model_copy(deep=True)
            try:
                payload = await self.client.generate_response(
                    messages,
                    response_model=self.answer,
                    max_tokens=lp.MAX_ANSWER_TOKENS,
                    model_size=ModelSize.small,
                    prompt_name=lp.PROMPT_NAME,
                )
                label = lp.parse_answer(payload, self.labels)
            except lp.InvalidAnswer as exc:
                reason = lp.INVALID
                log.info("intent cascade: episode %s: %s; the local label stands", unit.episode_id, exc)
            except LLMCallFailed as exc:
                reason = lp.failure_reason(exc.reason)
                log.info("intent cascade: episode %s: %s; the local label stands", unit.episode_id, reason)
            except Exception as exc:  # noqa: BLE001 - a unit is never lost to the LLM: the local label stands
                reason = lp.FAILED
                log.warning("intent cascade: episode %s: %s; the local label stands", unit.episode_id, type(exc))
            used = spent.minus(before)
        self.stats.usage.add(used)
        self.store.record_intent(
            fingerprint=unit.key,
            model=self.model,
            prompt_version=self.version,
            label=label,
            reason=reason,
            source=unit.source,
            episode_id=unit.episode_id,
            usage=used,
            at=self.clock(),
        )
        return label, reason


def _guide(settings: LLMSettings) -> Path | None:
    return Path(settings.intent_guide) if settings.intent_guide else None


def open_cascade(settings: LLMSettings, home: Path, taxonomy: Taxonomy, threshold: float) -> LLMIntentCascade:
    """The cascade with its store next to the ledger (or GRAPHFEED_LEDGER_URL), like LLM extraction's."""
    return LLMIntentCascade(settings, taxonomy, LLMStore(store_url(settings, home)), threshold=threshold)
