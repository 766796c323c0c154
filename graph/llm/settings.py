"""LLMSettings: everything the LLM extraction path needs, as one pydantic model carried by GraphConfig.llm.

No endpoint configured (base_url None) means no LLM path at all: sources stay in structured mode and nothing here runs.
"""

import json
import os
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, SecretStr

from graph.llm.pricing import DEFAULT_PRICES, ModelPrice, PriceTable

if TYPE_CHECKING:  # an annotation only: the read commands load GraphConfig (and so this) without the episode model
    from ground.episode import Episode


class LLMSettings(BaseModel):
    base_url: str | None = None  # any OpenAI-compatible endpoint, e.g. http://vllm:8000/v1
    api_key: SecretStr | None = None  # a placeholder works for keyless local servers
    model: str = "gpt-4.1-mini"
    small_model: str | None = "gpt-4.1-nano"  # graphiti asks for the small model for timestamps/dedupe
    structured_output: Literal["json_schema", "json_object"] = "json_schema"
    temperature: float = 0.0
    max_tokens: int = 4096  # per call (graphiti's generic client defaults to 16384)
    timeout_s: float = 60.0  # per HTTP request
    # Rate limits in front of the model (a semaphore only caps concurrency; these cap throughput).
    requests_per_minute: int | None = 500
    tokens_per_minute: int | None = 200_000
    concurrency: int = 4  # hard cap on in-flight requests, also Graphiti(max_coroutines=)
    max_retries: int = 4  # per call, after the first attempt: transport errors, 429 and 5xx only
    max_invalid_retries: int = 1  # a malformed/schema-invalid answer is asked again this often (same answer: stop)
    length_retry_max_tokens: int | None = None  # an answer cut at max_tokens: None fails it, N retries once with N
    # json_schema mode: bound every list in the schema sent to the server (maxItems). Constrained-decoding servers
    # (llama.cpp, vLLM) then cannot loop a list until max_tokens, the way small local models do. None: graphiti's schema.
    schema_max_items: int | None = None
    backoff_base_s: float = 2.0
    backoff_max_s: float = 60.0
    # Context for extraction: "thread" = up to context_episodes earlier episodes of the same thread/parent (what a
    # reply is about), "recent" = graphiti's default (the 10 latest episodes of the whole group, full content).
    context: Literal["thread", "recent"] = "thread"
    context_episodes: int = 3
    # Long content is cut into chunks before extraction (graphiti itself does no chunking).
    chunk_chars: int = 6000
    chunk_overlap_chars: int = 200
    # Budgets: per run comes from IngestLimits.max_cost_usd; per source and UTC night from here.
    max_cost_per_source_night_usd: dict[str, float] = Field(default_factory=dict)
    # Intents not worth a model call (e.g. "other": greetings, chit-chat): such episodes get structured facts only.
    skip_intents: list[str] = Field(default_factory=list)
    # Sources whose LLM facts wait in the review queue until `graphfeed review approve`.
    review_sources: list[str] = Field(default_factory=list)
    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    # Where the spend log and the review queue live; None = next to the ledger in the graphfeed home.
    store_url: str | None = None
    # The opt-in LLM intent cascade (graph/llm/intent.py): units the local model is unsure of (confidence
    # below intent_cascade_below, default the model's own threshold) are labelled by the small model (else model).
    intent_cascade: bool = False
    intent_cascade_below: float | None = None
    intent_max_cost_usd: float = 1.0  # per episodes step (per `intent eval --llm`); nightly caps apply as well
    intent_guide: str | None = None  # the labelling guide the prompt carries; None = data/intent/guide.md

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)

    def worth_a_call(self, episode: "Episode") -> bool:
        """LLM extraction is for free text. A record that says it has none (a Salesforce account, contact or
        opportunity without a description: every fact in it is written exactly from its fields) and an intent in
        skip_intents get structured facts only."""
        return episode.intent not in self.skip_intents and episode.metadata.fields.get("free_text") is not False

    def price_table(self) -> PriceTable:
        return PriceTable(prices=dict(self.prices))

    def intent_model(self) -> str:
        return self.small_model or self.model

    def models(self) -> list[str]:
        return [m for m in (self.model, self.small_model) if m]

    def holds_for_review(self, source: str) -> bool:
        return source in self.review_sources


def _env_list(env: dict[str, str], name: str) -> list[str]:
    return [s.strip() for s in env.get(name, "").split(",") if s.strip()]


def _env_prices(raw: str) -> dict[str, ModelPrice]:
    """JSON {"model": {"input_per_mtok": 0.4, "output_per_mtok": 1.6}} or {"model": [0.4, 1.6]} on top of the defaults."""
    prices = dict(DEFAULT_PRICES)
    for model, value in (json.loads(raw) if raw else {}).items():
        if isinstance(value, list | tuple):
            value = {"input_per_mtok": value[0], "output_per_mtok": value[1] if len(value) > 1 else 0.0}
        prices[model] = ModelPrice.model_validate(value)
    return prices


INTENT_ENV = "GRAPHFEED_LLM_INTENT"


def intent_cascade_on(env: dict[str, str] | None = None) -> bool:
    raw = (os.environ if env is None else env).get(INTENT_ENV, "")
    return raw.strip().lower() in ("cascade", "on", "true", "1", "yes")


def intent_cascade_settings(env: dict[str, str] | None = None) -> LLMSettings | None:
    """The LLM settings when GRAPHFEED_LLM_INTENT=cascade, None when the cascade is off; a cascade switched on
    without an endpoint is a configuration error, not a silent local-only run."""
    if not intent_cascade_on(env):
        return None
    settings = llm_settings_from_env(env)
    if settings is None:
        raise ValueError(f"{INTENT_ENV}=cascade needs an OpenAI-compatible endpoint: set GRAPHFEED_LLM_BASE_URL")
    return settings


def llm_settings_from_env(env: dict[str, str] | None = None) -> LLMSettings | None:
    """The GRAPHFEED_LLM_* variables (listed in the report for the lead); None when no endpoint is configured."""
    env = dict(os.environ if env is None else env)
    base_url = env.get("GRAPHFEED_LLM_BASE_URL") or None
    if not base_url:
        return None

    def num(name: str, default, kind: type = float):
        raw = env.get(name)
        return default if raw is None or raw == "" else kind(raw)

    def limit(name: str, default: int) -> int | None:
        raw = env.get(name)
        if raw is None or raw == "":
            return default
        return None if raw.strip().lower() in ("off", "none", "0") else int(raw)

    budgets = {}
    for item in env.get("GRAPHFEED_LLM_MAX_COST_PER_SOURCE_NIGHT_USD", "").split(","):
        if "=" in item:
            source, value = item.split("=", 1)
            budgets[source.strip()] = float(value)
    return LLMSettings(
        base_url=base_url,
        api_key=env.get("GRAPHFEED_LLM_API_KEY") or "unused",
        model=env.get("GRAPHFEED_LLM_MODEL", "gpt-4.1-mini"),
        small_model=env.get("GRAPHFEED_LLM_SMALL_MODEL") or None,
        structured_output=env.get("GRAPHFEED_LLM_STRUCTURED_OUTPUT", "json_schema"),
        max_tokens=num("GRAPHFEED_LLM_MAX_TOKENS", 4096, int),
        timeout_s=num("GRAPHFEED_LLM_TIMEOUT_SECONDS", 60.0),
        requests_per_minute=limit("GRAPHFEED_LLM_REQUESTS_PER_MINUTE", 500),
        tokens_per_minute=limit("GRAPHFEED_LLM_TOKENS_PER_MINUTE", 200_000),
        concurrency=num("GRAPHFEED_LLM_CONCURRENCY", 4, int),
        max_retries=num("GRAPHFEED_LLM_MAX_RETRIES", 4, int),
        max_invalid_retries=num("GRAPHFEED_LLM_MAX_INVALID_RETRIES", 1, int),
        length_retry_max_tokens=num("GRAPHFEED_LLM_LENGTH_RETRY_MAX_TOKENS", None, int),
        schema_max_items=num("GRAPHFEED_LLM_SCHEMA_MAX_ITEMS", None, int),
        chunk_chars=num("GRAPHFEED_LLM_CHUNK_CHARS", 6000, int),
        max_cost_per_source_night_usd=budgets,
        review_sources=_env_list(env, "GRAPHFEED_LLM_REVIEW_SOURCES"),
        skip_intents=_env_list(env, "GRAPHFEED_LLM_SKIP_INTENTS"),
        prices=_env_prices(env.get("GRAPHFEED_LLM_PRICES", "")),
        store_url=env.get("GRAPHFEED_LEDGER_URL") or None,
        intent_cascade=intent_cascade_on(env),
        intent_cascade_below=num("GRAPHFEED_LLM_INTENT_BELOW", None),
        intent_max_cost_usd=num("GRAPHFEED_LLM_INTENT_MAX_COST_USD", 1.0),
        intent_guide=env.get("GRAPHFEED_LLM_INTENT_GUIDE") or None,
    )
