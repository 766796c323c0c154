"""The maximum text size: a title, body or field string longer than the limit is cut, and the cut is noted.

Why: every text step (normalisation, intent, references, NER) costs at least linear time and memory in what it reads,
and a 45 MB description is an attack or an export accident, not something a reader of the graph needs whole. The
cut is never silent: each one becomes a note in the episode's metadata (`truncated`) naming the field and both sizes.
"""

from typing import Any

from ground.records import SourceRecord

DEFAULT_MAX_TEXT_CHARS = 300_000
ENV_NAME = "GRAPHFEED_MAX_TEXT_CHARS"
MAX_FIELD_DEPTH = 8  # fields are walked this deep; readers keep them far shallower


def clip(text: str, limit: int, where: str, notes: list[str]) -> str:
    if len(text) <= limit:
        return text
    notes.append(f"{where} truncated from {len(text):,} to {limit:,} characters ({ENV_NAME})")
    return text[:limit]


def _clip_value(value: Any, limit: int, where: str, notes: list[str], depth: int) -> Any:
    if isinstance(value, str):
        return clip(value, limit, where, notes)
    if depth >= MAX_FIELD_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _clip_value(v, limit, f"{where}.{k}", notes, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_clip_value(v, limit, f"{where}[{i}]", notes, depth + 1) for i, v in enumerate(value)]
    return value


def clip_record(record: SourceRecord, limit: int) -> tuple[SourceRecord, list[str]]:
    """The record with title, body and field strings cut to `limit` characters, and a note per cut."""
    notes: list[str] = []
    title = clip(record.title, limit, "title", notes)
    body = clip(record.body, limit, "body", notes)
    fields = _clip_value(record.fields, limit, "fields", notes, 0)
    if not notes:
        return record, notes
    return record.model_copy(update={"title": title, "body": body, "fields": fields}), notes
