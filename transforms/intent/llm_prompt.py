"""The LLM intent cascade's prompt and answer, as pure functions (the calls live in graph/llm/intent.py).

The prompt carries the taxonomy's definitions and the labelling guide (data/intent/guide.md, the rules the eval split
was labelled by), and asks for exactly one label through a JSON schema whose `label` is an enum of the taxonomy's
names. The answer model itself accepts any string: a server that ignores the schema gets one parse here, and a label
outside the taxonomy is a typed InvalidAnswer (the local label stands) instead of a retry that would cost again.
"""

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, create_model

from transforms.intent.data import IntentDataError, Taxonomy
from transforms.intent.units import ClassifierInput

DEFAULT_GUIDE = Path(__file__).resolve().parents[2] / "data" / "intent" / "guide.md"
ANSWER_SCHEMA = "IntentAnswer"  # the json_schema name servers see (and the scripted test server answers by)
PROMPT_NAME = "intent_classify"  # the meter's per-prompt key
MAX_TEXT_CHARS = 3000  # the head of a long unit: its act is stated early; the rest is cost
MAX_ANSWER_TOKENS = 32  # {"label": "reject_requirement"} is ~8 tokens

SOURCE_LOCAL = "local"
SOURCE_LLM = "llm"
# Why the local label stood although the unit was below the threshold (metadata intent_source, run metrics).
BUDGET = "budget exhausted"
INVALID = "invalid answer"
TIMEOUT = "timeout"
RATE_LIMITED = "rate limited"
SERVER_ERROR = "server error"
FAILED = "call failed"


class InvalidAnswer(ValueError):
    """The model answered, but not one label of the taxonomy; the message says what it sent (never the prompt)."""


def load_guide(path: Path | None = None) -> str:
    """The labelling guide's text; an unreadable guide is an error naming the file (the prompt must not go without)."""
    path = Path(path) if path else DEFAULT_GUIDE
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise IntentDataError(f"{path}: cannot read the intent labelling guide: {exc}") from exc


def system_prompt(taxonomy: Taxonomy, guide: str) -> str:
    labels = "\n".join(f"- {lab.name}: {lab.description}".rstrip(": ") for lab in taxonomy.labels)
    return (
        "You label the intent of one unit of workplace text (an e-mail, a Jira issue or comment, a Confluence page, "
        "a CRM note) with exactly one label of this taxonomy.\n\n"
        f"Labels:\n{labels}\n\n"
        f"{guide}\n\n"
        f'Answer with one JSON object {{"label": "<label>"}} where <label> is one of: '
        f"{', '.join(taxonomy.names)}. Nothing else."
    )


def user_prompt(item: ClassifierInput, max_chars: int = MAX_TEXT_CHARS) -> str:
    """The unit as the local classifier reads it: the author's own text, its subject, source family, language and
    record context (e.g. `on:bug`); the text cut to its head."""
    text = item.text.strip()
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + " [...]"
    lines = [f"Source: {item.family}", f"Language: {item.lang}"]
    if item.subject.strip():
        lines.append(f"Subject: {item.subject.strip()}")
    if item.context:
        lines.append(f"Record context: {' '.join(item.context)}")
    lines.append(f"Text:\n<<<\n{text}\n>>>")
    return "\n".join(lines)


def has_text(item: ClassifierInput) -> bool:
    return bool(item.text.strip() or item.subject.strip())


def below_threshold(confidence: float, threshold: float) -> bool:
    """Only units the local model is unsure of go to the model (a cascade)."""
    return confidence < threshold


@lru_cache(maxsize=16)
def answer_model(labels: tuple[str, ...]) -> type[BaseModel]:
    """The response model: its JSON schema has `label` as an enum of the taxonomy's names (what json_schema servers
    enforce, and what json_object servers are shown in the prompt)."""
    field = Field(description="exactly one label of the taxonomy", json_schema_extra={"enum": list(labels)})
    return create_model(ANSWER_SCHEMA, label=(str, field))


def parse_answer(payload: Any, labels: Sequence[str]) -> str:
    """The label of a parsed answer; InvalidAnswer when it is not exactly one label of the taxonomy."""
    if not isinstance(payload, dict):
        raise InvalidAnswer(f"expected a JSON object, got {type(payload).__name__}")
    raw = payload.get("label")
    if not isinstance(raw, str):
        raise InvalidAnswer(f"no string field 'label' (keys: {sorted(payload)[:5]})")
    label = raw.strip().lower()
    if label not in labels:
        raise InvalidAnswer(f"label {raw[:40]!r} is not in the taxonomy")
    return label


def prompt_version(system: str, labels: Sequence[str]) -> str:
    """Part of the cache key: a changed guide, taxonomy or prompt never answers from an old cache entry."""
    payload = "\x1f".join((system, user_prompt(ClassifierInput("", "", "", "")), *labels))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def fallback_source(reason: str) -> str:
    """metadata intent_source of a unit whose local label stood, e.g. 'local (llm: budget exhausted)'."""
    return f"{SOURCE_LOCAL} (llm: {reason})"


def failure_reason(message: str) -> str:
    """A failed call's reason (connectors' LLMCallFailed.reason) as one of the categories above: the episode and
    the metrics carry the category, never the raw message (which may echo server text)."""
    text = message.lower()
    if "timed out" in text or "timeout" in text:
        return TIMEOUT
    if "429" in text or "rate limit" in text:
        return RATE_LIMITED
    invalid = ("malformed", "does not match", "expected a json", "empty response", "truncated", "finish_reason")
    if any(word in text for word in invalid):
        return INVALID
    if "http 5" in text or "connection error" in text or "http 408" in text or "http 409" in text:
        return SERVER_ERROR
    return FAILED
