"""`graphfeed mcp`: a read-only MCP server over the graph (official `mcp` SDK), for agents that cite what they answer.

Every tool reads; none writes, deletes or clears (the graph is written only by the nightly job and `graphfeed review
approve`). Each fact carries valid_at/invalid_at and its source episodes, each episode its time, actor and intent.
Inputs are validated here (limits capped, dates parsed, intents and sources checked against the known ones) so that an
agent gets a clear error instead of an empty answer.
"""

import datetime as dt
import functools
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from connectors.graph.config import GraphConfig
from connectors.graph.episode_read import MAX_LIMIT, EpisodeFilters, decode_cursor
from connectors.graph.history import AmbiguousSubject
from connectors.graph.reader import GraphReader
from flow.settings import SOURCES
from ground.records import as_utc

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


@functools.lru_cache(maxsize=1)
def known_intents() -> tuple[str, ...]:
    """The taxonomy the classifier was trained with (GRAPHFEED_INTENT_TAXONOMY or the bundled one), read once."""
    from transforms.intent.data import IntentDataError, load_taxonomy
    from transforms.intent.training import DEFAULT_TAXONOMY

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
        raise ToolError(f"{what}: not a date or datetime (YYYY-MM-DD or ISO 8601): {text[:40]!r}") from None
    return as_utc(moment)


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or limit < 1:
        raise ToolError(f"limit must be a positive integer, got {limit!r}")
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
        raise ToolError(f"unknown intent {', '.join(unknown)}; known: {', '.join(known)}")
    bad = [s for s in sources if s not in SOURCES]
    if bad:
        raise ToolError(f"unknown source {', '.join(bad)}; known: {', '.join(SOURCES)}")
    start, end = parse_time(since, "since"), parse_time(until, "until")
    if start and end and start >= end:
        raise ToolError("since must be before until")
    return EpisodeFilters(intents=intents, sources=sources, actor=(actor or "").strip() or None, since=start, until=end)


def build_server(config: GraphConfig, group_id: str) -> MCPServer:
    """The server with its five read-only tools; the graph is opened once for the server's life."""
    state: dict[str, GraphReader] = {}

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        async with GraphReader(config) as reader:
            state["reader"] = reader
            yield {}
            state.clear()

    server = MCPServer(
        "graphfeed",
        instructions=(
            "Read-only access to graphfeed's bi-temporal knowledge graph. Facts carry valid_at/invalid_at (when they held "
            "in the world) and their source episodes; cite the episode's source_key when you answer."
        ),
        lifespan=lifespan,
        log_level="WARNING",
    )

    def reader() -> GraphReader:
        return state["reader"]

    @server.tool(annotations=READ_ONLY)
    async def search_facts(
        query: str, as_of: str | None = None, known_at: str | None = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Hybrid search over facts. Without as_of: facts true now first, then history; with as_of (a date or
        datetime): the facts valid at that moment. known_at (a date or datetime): as the graph knew it then — the facts
        it held at that moment of its own history (with as_of: what it then said held at as_of), each interval as known
        then. Each fact has valid_at, invalid_at, created_at, expired_at and its source episodes."""
        if not query.strip():
            raise ToolError("query is empty")
        hits = await reader().search_facts(
            query,
            group_id=group_id,
            as_of=parse_time(as_of, "as_of"),
            known_at=parse_time(known_at, "known_at"),
            limit=check_limit(limit),
        )
        return [h.model_dump(mode="json") for h in hits]

    @server.tool(annotations=READ_ONLY)
    async def fact_history(subject: str, relation: str | None = None) -> dict[str, Any]:
        """Every value a single-valued slot of one subject had (contact, assignee, status, stage, amount, owner, ...),
        in valid-time order, each with valid_at/invalid_at, created_at/expired_at and its source episodes. subject: an
        entity name or key; relation narrows to one slot (HAS_CONTACT, "contact", "assignee")."""
        if not subject.strip():
            raise ToolError("subject is empty")
        try:
            found = await reader().fact_history(subject, group_id=group_id, relation=relation or None)
        except AmbiguousSubject as exc:
            raise ToolError(str(exc)) from None
        return found.model_dump(mode="json")

    @server.tool(annotations=READ_ONLY)
    async def search_episodes(
        query: str,
        intent: list[str] | None = None,
        source: list[str] | None = None,
        actor: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 10,
    ) -> list[dict[str, Any]]:
        """Full-text search over episodes (one per mail, issue, comment, page version, CRM record), filtered by intent,
        source, actor (e-mail or name), and the record's own time (since inclusive, until exclusive)."""
        if not query.strip():
            raise ToolError("query is empty")
        hits = await reader().search_episodes(
            query,
            group_id=group_id,
            filters=episode_filters(intent, source, actor, since, until),
            limit=check_limit(limit),
        )
        return [h.model_dump(mode="json") for h in hits]

    @server.tool(annotations=READ_ONLY)
    async def get_episode(id_or_source_key: str) -> dict[str, Any]:
        """One episode, whole: content, intent, actor, time, references and the facts it supports."""
        found = await reader().get_episode(id_or_source_key, group_id=group_id)
        if found is None:
            raise ToolError(f"no episode with id or source key {id_or_source_key[:200]!r}")
        return found.model_dump(mode="json")

    @server.tool(annotations=READ_ONLY)
    async def list_episodes(
        intent: list[str] | None = None,
        source: list[str] | None = None,
        actor: str | None = None,
        since: str | None = None,
        until: str | None = None,
        cursor: str | None = None,
        limit: int = 20,
    ) -> dict[str, Any]:
        """Episodes newest first with the same filters as search_episodes; pass next_cursor back to page on."""
        filters = episode_filters(intent, source, actor, since, until)
        if cursor:
            try:
                decode_cursor(cursor)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
        page = await reader().list_episodes(
            group_id=group_id, filters=filters, cursor=cursor or None, limit=check_limit(limit)
        )
        return page.model_dump(mode="json")

    return server


def serve(config: GraphConfig, group_id: str, http: str | None = None) -> None:
    """stdio by default; `http="HOST:PORT"` serves streamable HTTP at /mcp."""
    server = build_server(config, group_id)
    if http is None:
        server.run("stdio")
        return
    host, _, port = http.rpartition(":")
    server.run("streamable-http", host=host or "127.0.0.1", port=int(port))
