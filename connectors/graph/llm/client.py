"""MeteredLLMClient: graphiti's OpenAIGenericClient (any OpenAI-compatible /chat/completions) made fit for a nightly
batch job: rate-limited, retried with backoff (Retry-After honoured), schema-checked, metered and priced.

Why not graphiti's own retry: it waits 5-120 s at random, retries only some errors and never sees Retry-After; and
the openai SDK's own retries would hide 429s from the limiter. So the SDK runs with max_retries=0 and all retrying
happens here, in front of the shared RateLimiter. When a call still fails it raises LLMCallFailed, which graphiti's
tenacity wrapper does not retry; add_episode fails, and the ingest loop retries/quarantines the episode in the ledger.
"""

import asyncio
import datetime as dt
import email.utils
import json
import logging
import typing
from typing import Any

import openai
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from graphiti_core.prompts.models import Message
from pydantic import BaseModel, ValidationError

from connectors.graph.llm.meter import UsageMeter, estimate_tokens
from connectors.graph.llm.rate_limit import RateLimiter
from connectors.graph.llm.settings import LLMSettings

log = logging.getLogger(__name__)

DATE_FIELDS = ("valid_at", "invalid_at")


class LLMCallFailed(RuntimeError):
    """A model call failed after all retries; the message says which prompt and why (it ends up in the ledger)."""

    def __init__(self, prompt: str, reason: str, attempts: int):
        super().__init__(f"LLM call {prompt!r} failed after {attempts} attempt(s): {reason}")
        self.prompt = prompt
        self.reason = reason
        self.attempts = attempts


def retry_after_seconds(headers: Any, now: dt.datetime | None = None) -> float | None:
    """Retry-After as seconds (delta-seconds or HTTP date); also the common retry-after-ms / x-ratelimit-reset-* forms."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


def is_iso_date(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    try:
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def count_unparseable_dates(payload: Any) -> int:
    """valid_at/invalid_at anywhere in a response that graphiti would fail to parse (it logs and drops them)."""
    if isinstance(payload, dict):
        bad = sum(1 for k in DATE_FIELDS if k in payload and not is_iso_date(payload[k]))
        return bad + sum(count_unparseable_dates(v) for k, v in payload.items() if k not in DATE_FIELDS)
    if isinstance(payload, list):
        return sum(count_unparseable_dates(v) for v in payload)
    return 0


class MeteredLLMClient(OpenAIGenericClient):
    def __init__(
        self,
        settings: LLMSettings,
        *,
        meter: UsageMeter,
        limiter: RateLimiter | None = None,
        sleep: typing.Callable[[float], typing.Awaitable[None]] = asyncio.sleep,
    ):
        if not settings.base_url:
            raise ValueError("MeteredLLMClient needs settings.base_url")
        api_key = settings.api_key.get_secret_value() if settings.api_key else "unused"
        config = LLMConfig(
            api_key=api_key,
            model=settings.model,
            small_model=settings.small_model,
            base_url=settings.base_url,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
        )
        sdk = openai.AsyncOpenAI(api_key=api_key, base_url=settings.base_url, timeout=settings.timeout_s, max_retries=0)
        super().__init__(
            config=config, client=sdk, max_tokens=settings.max_tokens, structured_output_mode=settings.structured_output
        )
        self.settings = settings
        self.meter = meter
        self.limiter = limiter or RateLimiter(settings.requests_per_minute, settings.tokens_per_minute)
        self.semaphore = asyncio.Semaphore(max(1, settings.concurrency))
        self.sleep = sleep
        meter.token_tracker = self.token_tracker

    async def generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        model_size: ModelSize = ModelSize.medium,
        group_id: str | None = None,
        prompt_name: str | None = None,
        *,
        attribute_extraction: bool = False,
        model: str | None = None,
    ) -> dict[str, Any]:
        # prompt_name is only visible here; a contextvar carries it into _generate_response (concurrency-safe).
        with self.meter.prompt(prompt_name):
            return await super().generate_response(
                messages,
                response_model,
                max_tokens,
                model_size,
                group_id,
                prompt_name,
                attribute_extraction=attribute_extraction,
                model=model,
            )

    def _model_for(self, model: str | None, model_size: ModelSize) -> str:
        if model:
            return model
        if model_size == ModelSize.small and self.small_model:
            return self.small_model
        return self.model or self.settings.model

    def _backoff(self, attempt: int) -> float:
        return min(self.settings.backoff_max_s, self.settings.backoff_base_s * (2**attempt))

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        prompt = self.meter.current_prompt()
        model_name = self._model_for(model, model_size)
        chat = []
        for m in messages:
            m.content = self._clean_input(m.content)
            if m.role in ("user", "system"):
                chat.append({"role": m.role, "content": m.content})
        estimate = sum(estimate_tokens(m["content"]) for m in chat)
        attempts = self.settings.max_retries + 1
        reason = "no attempt made"
        for attempt in range(attempts):
            if attempt:
                self.meter.count("retries")
            handle = await self.limiter.acquire(estimate)
            try:
                async with self.semaphore:
                    response = await self.client.chat.completions.create(
                        model=model_name,
                        messages=chat,
                        temperature=self.temperature,
                        max_tokens=max_tokens,
                        response_format=self._build_response_format(response_model),
                    )
            except openai.RateLimitError as exc:
                self.limiter.settle(handle, 0)
                self.meter.count("rate_limited")
                wait = retry_after_seconds(exc.response.headers if exc.response is not None else None)
                self.limiter.pause(wait if wait is not None else self._backoff(attempt))
                reason = f"429 rate limited (retry-after={wait})"
                continue
            except openai.APITimeoutError:
                self.meter.count("timeouts")
                reason = f"timed out after {self.settings.timeout_s}s"
                await self.sleep(self._backoff(attempt))
                continue
            except openai.APIConnectionError as exc:
                self.meter.count("server_errors")
                reason = f"connection error: {exc}"
                await self.sleep(self._backoff(attempt))
                continue
            except openai.APIStatusError as exc:
                if exc.status_code >= 500 or exc.status_code in (408, 409):
                    self.meter.count("server_errors")
                    reason = f"HTTP {exc.status_code}"
                    await self.sleep(self._backoff(attempt))
                    continue
                raise LLMCallFailed(prompt, f"HTTP {exc.status_code}: {exc.message}", attempt + 1) from exc

            usage = response.usage
            text = (response.choices[0].message.content or "") if response.choices else ""
            tin = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else estimate
            tout = int(getattr(usage, "completion_tokens", 0) or 0) if usage else estimate_tokens(text)
            self.limiter.settle(handle, tin + tout)
            self.meter.record_call(model_name, tin, tout)
            try:
                parsed = json.loads(self._strip_code_fences(text)) if text else None
            except json.JSONDecodeError as exc:
                parsed, reason = None, f"malformed JSON ({exc.msg} at {exc.pos})"
            else:
                reason = "empty response"
            if not isinstance(parsed, dict):
                self.meter.count("malformed")
                if parsed is not None:
                    reason = f"expected a JSON object, got {type(parsed).__name__}"
                await self.sleep(self._backoff(attempt))
                continue
            if response_model is not None:
                try:
                    response_model.model_validate(parsed)
                except ValidationError as exc:
                    self.meter.count("schema_invalid")
                    reason = f"response does not match {response_model.__name__}: {exc.errors()[0]['msg']}"
                    await self.sleep(self._backoff(attempt))
                    continue
            bad_dates = count_unparseable_dates(parsed)
            if bad_dates:
                self.meter.count("unparseable_dates", bad_dates)
            return parsed
        raise LLMCallFailed(prompt, reason, attempts)


class MeteredEmbedder(EmbedderClient):
    """Any graphiti EmbedderClient, counting embedding input tokens (estimated: graphiti's embedders drop the API's
    usage) against the current episode. Only on the LLM path, so structured mode is untouched."""

    def __init__(self, inner: EmbedderClient, meter: UsageMeter, model: str):
        self.inner = inner
        self.meter = meter
        self.model = model
        self.config = getattr(inner, "config", None)

    async def create(self, input_data: Any) -> list[float]:
        text = input_data if isinstance(input_data, str) else str(input_data)
        self.meter.record_embedding(self.model, estimate_tokens(text))
        return await self.inner.create(input_data)

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        self.meter.record_embedding(self.model, sum(estimate_tokens(t) for t in input_data_list))
        return await self.inner.create_batch(input_data_list)
