"""`graphfeed mcp`: a read-only MCP server over the graph (official `mcp` SDK), for agents that cite what they answer.

Every tool reads; none writes, deletes or clears (the graph is written only by the nightly job and `graphfeed review
approve`). Each fact carries valid_at/invalid_at and its source episodes, each episode its time, actor and intent.
Inputs are validated here (limits capped, dates parsed, intents and sources checked against the known ones) so that an
agent gets a clear error instead of an empty answer.
"""

import functools
import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from graph.config import GraphConfig
from graph.read.episode_read import decode_cursor
from graph.read.history import AmbiguousSubject
from graph.read.reader import GraphReader
from pipelines import read_inputs
from pipelines.read_inputs import InputError, known_intents

__all__ = ["build_server", "check_limit", "episode_filters", "known_intents", "parse_time", "serve"]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
F = TypeVar("F", bound=Callable[..., Any])


def _as_tool_error(check: F) -> F:
    """The input checks of pipelines/read_inputs.py, raising the ToolError an MCP client expects."""

    @functools.wraps(check)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return check(*args, **kwargs)
        except InputError as exc:
            raise ToolError(str(exc)) from None

    return checked  # type: ignore[return-value]


parse_time = _as_tool_error(read_inputs.parse_time)
check_limit = _as_tool_error(read_inputs.check_limit)
episode_filters = _as_tool_error(read_inputs.episode_filters)


def build_server(config: GraphConfig, group_id: str) -> MCPServer:
    """The server with its five read-only tools; the graph is opened once for the server's life."""
    state: dict[str, GraphReader] = {}

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        reader = GraphReader(config)
        getattr(reader.embedder, "preload", lambda: None)()  # the question model loads while the client connects
        async with reader:
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
    """stdio by default; `http="HOST:PORT"` serves streamable HTTP at /mcp.

    The start-up heap (imports, models) is frozen out of the collector: a full collection over it paused single
    searches by 240-380 ms in the search bench (bench/search_bench.py --no-gc-freeze shows it)."""
    server = build_server(config, group_id)
    gc.freeze()
    if http is None:
        server.run("stdio")
        return
    host, _, port = http.rpartition(":")
    server.run("streamable-http", host=host or "127.0.0.1", port=int(port))
