"""The read commands' and MCP tools' input checks: dates, limits, intents and sources, each a clear error.

Plain functions raising InputError (a ValueError) so that `graphfeed search` checks its flags without importing the
MCP SDK (~1 s); pipelines/mcp_server.py turns InputError into the MCP ToolError its clients expect.
"""

import datetime as dt
import functools
import os
from pathlib import Path

from flow.settings import SOURCES
from graph.read.episode_read import MAX_LIMIT, EpisodeFilters
from ground.records import as_utc


class InputError(ValueError):
    """An argument a reader cannot use; the message says which and why."""


@functools.lru_cache(maxsize=1)
def known_intents() -> tuple[str, ...]:
    """The taxonomy the classifier was trained with (GRAPHFEED_INTENT_TAXONOMY or the bundled one), read once."""
    from transforms.intent.data import DEFAULT_TAXONOMY, IntentDataError, load_taxonomy

    try:
        return tuple(load_taxonomy(Path(os.environ.get("GRAPHFEED_INTENT_TAXONOMY") or DEFAULT_TAXONOMY)).names)
    except IntentDataError:
        return ()


def parse_time(value: str | None, what: str) -> dt.datetime | None:
    """A date (YYYY-MM-DD, start of that day UTC) or an ISO datetime (UTC when it has no zone)."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{what}: not a date or datetime (YYYY-MM-DD or ISO 8601): {text[:40]!r}") from None
    return as_utc(moment)


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or limit < 1:
        raise InputError(f"limit must be a positive integer, got {limit!r}")
    return min(limit, MAX_LIMIT)


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [i.strip() for i in items if i and i.strip()]


def episode_filters(
    intent: str | list[str] | None,
    source: str | list[str] | None,
    actor: str | None,
    since: str | None,
    until: str | None,
) -> EpisodeFilters:
    intents, sources = _as_list(intent), _as_list(source)
    known = known_intents()
    unknown = [i for i in intents if known and i not in known]
    if unknown:
        raise InputError(f"unknown intent {', '.join(unknown)}; known: {', '.join(known)}")
    bad = [s for s in sources if s not in SOURCES]
    if bad:
        raise InputError(f"unknown source {', '.join(bad)}; known: {', '.join(SOURCES)}")
    start, end = parse_time(since, "since"), parse_time(until, "until")
    if start and end and start >= end:
        raise InputError("since must be before until")
    return EpisodeFilters(intents=intents, sources=sources, actor=(actor or "").strip() or None, since=start, until=end)
