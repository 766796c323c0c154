"""MeteredLLMClient: graphiti's OpenAIGenericClient (any OpenAI-compatible /chat/completions) made fit for a nightly
batch job: rate-limited, retried with backoff (Retry-After honoured), schema-checked, metered and priced.

Why not graphiti's own retry: it waits 5-120 s at random, retries only some errors and never sees Retry-After; and
the openai SDK's own retries would hide 429s from the limiter. So the SDK runs with max_retries=0 and all retrying
happens here, in front of the shared RateLimiter. When a call still fails it raises LLMCallFailed, which graphiti's
tenacity wrapper does not retry; add_episode fails, and the ingest loop retries/quarantines the episode in the ledger.

The retry budget (max_retries) is for transport: timeouts, connection errors, 429 and 5xx. An answer the model got
wrong is not a transport error, and sending the same request again mostly buys the same answer (a real 135M model,
answering a truncated JSON, cost five identical 40 s calls per prompt before this rule). So: finish_reason "length"
(the answer hit max_tokens) fails at once, or once retried with a larger max_tokens when `length_retry_max_tokens`
says so; a malformed or schema-invalid answer is retried at most `max_invalid_retries` times, and the same invalid
answer twice fails at once. These failures are LLMOutputRejected: the model, not the wire, and the ledger
quarantines the episode without waiting for more attempts.
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

from graph.llm.meter import UsageMeter, estimate_tokens
from graph.llm.rate_limit import RateLimiter
from graph.llm.settings import LLMSettings

log = logging.getLogger(__name__)

DATE_FIELDS = ("valid_at", "invalid_at")


class LLMCallFailed(RuntimeError):
    """A model call failed after all retries; the message says which prompt and why (it ends up in the ledger)."""

    def __init__(self, prompt: str, reason: str, attempts: int):
        super().__init__(f"LLM call {prompt!r} failed after {attempts} attempt(s): {reason}")
        self.prompt = prompt
        self.reason = reason
        self.attempts = attempts

    retryable = True  # a later attempt (another night) may well succeed


class LLMOutputRejected(LLMCallFailed):
    """The model answered, but the answer is unusable: cut at max_tokens, not JSON, or not the response schema.
    `kind` is truncated | malformed | schema_invalid | repeated_invalid. Not retryable with the same model and
    request: the ledger quarantines the episode at once (replay it after changing the model or max_tokens)."""

    retryable = False

    def __init__(self, prompt: str, reason: str, attempts: int, kind: str):
        super().__init__(prompt, reason, attempts)
        self.kind = kind


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


def bound_lists(schema: Any, limit: int) -> Any:
    """A copy of a JSON schema with maxItems on every array (an existing smaller bound stays)."""
    if isinstance(schema, list):
        return [bound_lists(v, limit) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bound_lists(v, limit) for k, v in schema.items()}
    if out.get("type") == "array":
        out["maxItems"] = min(limit, out.get("maxItems", limit))
    return out


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

    def _build_response_format(self, response_model: type[BaseModel] | None) -> dict[str, Any]:
        fmt = super()._build_response_format(response_model)
        limit = self.settings.schema_max_items
        if limit and fmt.get("type") == "json_schema":
            fmt["json_schema"]["schema"] = bound_lists(fmt["json_schema"]["schema"], limit)
        return fmt

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
        # settings.max_tokens caps every call: graphiti asks for 16384 on some prompts (edge extraction), which a
        # looping model fills completely before it is cut.
        max_tokens = min(max_tokens, self.settings.max_tokens)
        chat = []
        for m in messages:
            m.content = self._clean_input(m.content)
            if m.role in ("user", "system"):
                chat.append({"role": m.role, "content": m.content})
        estimate = sum(estimate_tokens(m["content"]) for m in chat)
        attempts = self.settings.max_retries + 1
        reason = "no attempt made"
        invalid: list[str] = []  # the invalid answers seen so far (their text)
        attempt = 0
        while attempt < attempts:
            if attempt:
                self.meter.count("retries")
            attempt += 1
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
                self.limiter.pause(wait if wait is not None else self._backoff(attempt - 1))
                reason = f"429 rate limited (retry-after={wait})"
                continue
            except openai.APITimeoutError:
                self.meter.count("timeouts")
                reason = f"timed out after {self.settings.timeout_s}s"
                await self.sleep(self._backoff(attempt - 1))
                continue
            except openai.APIConnectionError as exc:
                self.meter.count("server_errors")
                reason = f"connection error: {exc}"
                await self.sleep(self._backoff(attempt - 1))
                continue
            except openai.APIStatusError as exc:
                if exc.status_code >= 500 or exc.status_code in (408, 409):
                    self.meter.count("server_errors")
                    reason = f"HTTP {exc.status_code}"
                    await self.sleep(self._backoff(attempt - 1))
                    continue
                raise LLMCallFailed(prompt, f"HTTP {exc.status_code}: {exc.message}", attempt) from exc

            usage = response.usage
            choice = response.choices[0] if response.choices else None
            text = (choice.message.content or "") if choice else ""
            tin = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else estimate
            tout = int(getattr(usage, "completion_tokens", 0) or 0) if usage else estimate_tokens(text)
            self.limiter.settle(handle, tin + tout)
            self.meter.record_call(model_name, tin, tout)
            if choice is not None and choice.finish_reason == "length":
                self.meter.count("truncated")
                cut = f"answer cut at max_tokens={max_tokens} (finish_reason=length, {tout} tokens out)"
                bigger = self.settings.length_retry_max_tokens
                if bigger and bigger > max_tokens:
                    reason = f"{cut}; retried once with max_tokens={bigger}"
                    max_tokens = bigger
                    attempts = max(attempts, attempt + 1)
                    continue
                said = f"{reason}, and again " if "retried once" in reason else ""
                raise LLMOutputRejected(prompt, f"{said}{cut}: the model did not finish its JSON", attempt, "truncated")
            parsed, kind, reason = self._parse(text, response_model)
            if kind is None:
                bad_dates = count_unparseable_dates(parsed)
                if bad_dates:
                    self.meter.count("unparseable_dates", bad_dates)
                    self.meter.count_guard("date_unparseable", bad_dates)
                return typing.cast(dict[str, Any], parsed)
            self.meter.count("schema_invalid" if kind == "schema_invalid" else "malformed")
            if text in invalid:
                raise LLMOutputRejected(prompt, f"the same invalid answer twice: {reason}", attempt, "repeated_invalid")
            invalid.append(text)
            if len(invalid) > self.settings.max_invalid_retries:
                raise LLMOutputRejected(prompt, reason, attempt, kind)
            attempts = max(attempts, attempt + 1)  # an invalid answer's one retry is not taken from transport's
            await self.sleep(self._backoff(attempt - 1))
        raise LLMCallFailed(prompt, reason, attempt)

    def _parse(self, text: str, response_model: type[BaseModel] | None) -> tuple[Any, str | None, str]:
        """(parsed, None, "") for a usable answer, else (None, kind, reason)."""
        try:
            parsed = json.loads(self._strip_code_fences(text)) if text else None
        except json.JSONDecodeError as exc:
            return None, "malformed", f"malformed JSON ({exc.msg} at {exc.pos})"
        if parsed is None:
            return None, "malformed", "empty response"
        if not isinstance(parsed, dict):
            return None, "malformed", f"expected a JSON object, got {type(parsed).__name__}"
        if response_model is not None:
            try:
                response_model.model_validate(parsed)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ()))
                return (
                    None,
                    "schema_invalid",
                    (
                        f"response does not match {response_model.__name__}: {first['msg']}"
                        + (f" at {where}" if where else "")
                    ),
                )
        return parsed, None, ""


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
