"""Read-side commands over the graph: `graphfeed search`, `history`, `episodes search|get|list` and the `mcp` server."""

import argparse
import datetime as dt
import os
import sys
from collections import Counter
from collections.abc import Iterable

from pipelines.commands.common import EXIT_OK, Timings, graph_config, usage_error


def source_labels(labels: Iterable[str], most: int = 3) -> str:
    """The episodes a fact cites, each source record once: several versions of one record (a contact role created,
    then changed) read "<source> <key> (2 episodes)" instead of the key twice."""
    counts = Counter(labels)
    shown = [f"{label} ({n} episodes)" if n > 1 else label for label, n in list(counts.items())[:most]]
    more = len(counts) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "") if shown else "-"


def _moment(value: str | None, what: str) -> dt.datetime | None:
    """A date (start of that day, UTC) or an ISO datetime (UTC when it has no zone)."""
    from pipelines.read_inputs import parse_time

    return parse_time(value, what)


def _read(args: argparse.Namespace, work, *, embeds: bool = False):
    """Open a GraphReader on the configured graph, run `work(reader)`; with --timings, where the time went: imports,
    server attach (the home's shared FalkorDB: started by the first read, attached to by the next), model load (the
    question's embedder, only for `embeds`: loaded in the background meanwhile) and the query."""
    timings = Timings(getattr(args, "timings", False))
    with timings.phase("imports (config)"):
        import asyncio

        from graph.question_embedder import question_embedder

        config = graph_config()
    embedder = None
    if embeds:
        embedder = question_embedder(config)
        getattr(embedder, "preload", lambda: None)()
    with timings.phase("imports (reader)"):
        from graph.read.reader import GraphReader

    async def go():
        reader = GraphReader(config, embedder=embedder)
        with timings.phase("server attach"):
            await reader.__aenter__()
        try:
            if embeds:
                with timings.phase("model load (wait)"):
                    await asyncio.to_thread(getattr, reader.embedder, "model", None)
                loaded = getattr(reader.embedder, "load_seconds", None)
                if loaded is not None:
                    timings.add("model load (background)", loaded)
            with timings.phase("query"):
                return await work(reader)
        finally:
            await reader.__aexit__(None, None, None)

    try:
        return asyncio.run(go())
    finally:
        timings.report()


def cmd_search(args: argparse.Namespace) -> int:
    import json

    from graph.config import ConfigError
    from ground.identity import validate_group_id
    from pipelines.read_inputs import episode_filters

    try:
        validate_group_id(args.group)
        as_of = _moment(args.as_of, "--as-of")
        known_at = _moment(args.known_at, "--known-at")
        filters = episode_filters(args.intent, args.source, None, None, None)  # same checks as the MCP tools
    except (ConfigError, ValueError) as exc:
        return usage_error(str(exc))

    hits = _read(
        args,
        lambda reader: reader.search_facts(
            args.query,
            group_id=args.group,
            as_of=as_of,
            known_at=known_at,
            limit=args.limit,
            intents=filters.intents,
            sources=filters.sources,
        ),
        embeds=True,
    )
    if args.json:
        for hit in hits:
            print(json.dumps(hit.model_dump(mode="json"), ensure_ascii=False))
        if getattr(hits, "degraded", None):  # a step timed out: the answer may be incomplete
            print(json.dumps({"degraded": hits.degraded}))
        return EXIT_OK
    when = f"as of {args.as_of}" if args.as_of else ("held then" if args.known_at else "now first, then history")
    if args.known_at:
        when = f"as the graph knew it at {known_at.isoformat()}, {when}"
    print(f"{len(hits)} facts for {args.query!r} in group {args.group} ({when}):")
    if getattr(hits, "degraded", None):
        print(f"(incomplete: {'; '.join(hits.degraded)})")
    for hit in hits:
        valid = hit.valid_at.date().isoformat() if hit.valid_at else "?"
        invalid = hit.invalid_at.date().isoformat() if hit.invalid_at else "now"
        sources = source_labels(f"{e.source or ''} {e.name}".strip() for e in hit.episodes)
        print(f"- {hit.fact}\n    valid {valid} .. {invalid}   [{hit.name}]   source: {sources}")
        if hit.interval_exact is False:
            print(
                "    (end as known then not recorded: written before revisions were kept; shown as the source gave it)"
            )
    return EXIT_OK


def _stamp(value: dt.datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else "-"


def cmd_history(args: argparse.Namespace) -> int:
    from graph.config import ConfigError
    from graph.read.history import AmbiguousSubject
    from ground.identity import validate_group_id

    try:
        validate_group_id(args.group)
    except ConfigError as exc:
        return usage_error(str(exc))

    try:
        history = _read(
            args, lambda reader: reader.fact_history(args.subject, group_id=args.group, relation=args.relation)
        )
    except AmbiguousSubject as exc:
        print(f"graphfeed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(history.model_dump_json())
        return EXIT_OK
    subject = history.subject
    print(f"{subject.name} ({subject.key}): {len(history.values)} values")
    for v in history.values:
        sources = source_labels(f"{e.source or ''} {e.source_key or e.uuid}".strip() for e in v.episodes)
        print(
            f"- [{v.relation}] {v.value}   valid {_stamp(v.valid_at)} .. {_stamp(v.invalid_at) if v.invalid_at else 'now'}"
            f"\n    recorded {_stamp(v.created_at)}, ended in graph {_stamp(v.expired_at)}   source: {sources}"
        )
    return EXIT_OK


def _print_episode_line(e) -> None:
    when = e.valid_at.isoformat() if e.valid_at else "?"
    who = e.actor_name or e.actor_email or e.actor_id or "-"
    print(
        f"- {when}  {e.source or '?'} {e.source_key}  intent={e.intent}  by {who}\n    {e.title or ''}"
        f"{'  | ' if e.title else ''}{e.snippet[:160]}"
    )


def cmd_episodes(args: argparse.Namespace) -> int:
    import json

    from graph.config import ConfigError
    from ground.identity import validate_group_id
    from pipelines.read_inputs import InputError, check_limit, episode_filters

    try:
        validate_group_id(args.group)
        filters = episode_filters(args.intent, args.source, args.actor, args.since, args.until)
        limit = check_limit(args.limit)
    except (ConfigError, InputError) as exc:
        return usage_error(str(exc))
    if args.action in ("search", "get") and not args.query:
        return usage_error(f"episodes {args.action} needs a {'query' if args.action == 'search' else 'ID or key'}")

    async def work(reader):
        if args.action == "search":
            return await reader.search_episodes(args.query, group_id=args.group, filters=filters, limit=limit)
        if args.action == "get":
            return await reader.get_episode(args.query, group_id=args.group)
        return await reader.list_episodes(group_id=args.group, filters=filters, cursor=args.cursor, limit=limit)

    try:
        result = _read(args, work)
    except ValueError as exc:
        return usage_error(str(exc))
    if args.action == "get":
        if result is None:
            print(f"no episode with id or source key {args.query!r} in group {args.group}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
            return EXIT_OK
        _print_episode_line(result)
        print(f"  id {result.uuid}   created in graph {result.created_at.isoformat() if result.created_at else '?'}")
        print(f"  references: {', '.join(result.references) or '-'}")
        print(f"  facts ({len(result.facts)}):")
        for f in result.facts:
            valid = f.valid_at.date().isoformat() if f.valid_at else "?"
            invalid = f.invalid_at.date().isoformat() if f.invalid_at else "now"
            print(f"    [{f.name}] {f.fact}   valid {valid} .. {invalid}")
        if result.other_versions:
            print(f"  other versions: {', '.join(result.other_versions)}")
        print("\n" + result.content)
        return EXIT_OK
    episodes = result if args.action == "search" else result.episodes
    if args.json:
        for e in episodes:
            print(json.dumps(e.model_dump(mode="json"), ensure_ascii=False))
        if args.action == "list" and result.next_cursor:
            print(json.dumps({"next_cursor": result.next_cursor}))
        return EXIT_OK
    print(f"{len(episodes)} episodes" + (f" for {args.query!r}" if args.action == "search" else "") + ":")
    for e in episodes:
        _print_episode_line(e)
    if args.action == "list" and result.next_cursor:
        print(f"more: --cursor {result.next_cursor}")
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from graph.config import ConfigError
    from ground.identity import validate_group_id
    from pipelines.mcp_server import serve

    try:
        validate_group_id(args.group)
    except ConfigError as exc:
        return usage_error(str(exc))
    if args.http is not None and not args.http.rpartition(":")[2].isdigit():
        return usage_error(f"--http wants HOST:PORT, got {args.http!r}")
    serve(graph_config(), args.group, http=args.http)
    return EXIT_OK


TIMINGS_HELP = "print where the time went (imports, server attach, model load, query) to stderr"


def register(sub: argparse._SubParsersAction) -> None:
    from flow.settings import SOURCES

    se = sub.add_parser("search", help="hybrid search (keyword + vector + graph) over the graph's facts")
    se.add_argument("query")
    se.add_argument("--as-of", help="facts valid at this date or datetime (UTC when no zone)")
    se.add_argument("--known-at", help="as the graph knew it at this date or datetime (its own history)")
    se.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    se.add_argument("--limit", type=int, default=10)
    se.add_argument("--json", action="store_true", help="one JSON object per fact")
    se.add_argument("--timings", action="store_true", help=TIMINGS_HELP)
    se.add_argument(
        "--intent",
        action="append",
        default=[],
        help="only facts of episodes with this intent (repeatable; filtered inside the query)",
    )
    se.add_argument(
        "--source",
        action="append",
        default=[],
        choices=SOURCES,
        help="only facts of episodes from this source (repeatable)",
    )
    se.set_defaults(func=cmd_search)

    hi = sub.add_parser("history", help="every value a single-valued slot had (contact, assignee, status, ...)")
    hi.add_argument("subject", help="an entity name or key (org:acme.example, jira:issue:ACME-1)")
    hi.add_argument("--relation", help="only this relation (HAS_CONTACT, contact, assignee, status, ...)")
    hi.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    hi.add_argument("--json", action="store_true")
    hi.add_argument("--timings", action="store_true", help=TIMINGS_HELP)
    hi.set_defaults(func=cmd_history)

    ep = sub.add_parser("episodes", help="episodes: full-text search, one whole, or a page by time (read-only)")
    ep.add_argument("action", choices=("search", "get", "list"))
    ep.add_argument("query", nargs="?", help="search: the query; get: an episode id or source key")
    ep.add_argument("--intent", action="append", help="only this intent (repeatable)")
    ep.add_argument("--source", action="append", choices=SOURCES, help="only this source (repeatable)")
    ep.add_argument("--actor", help="author e-mail (exact) or name (part of it)")
    ep.add_argument("--since", help="record time from (date or ISO datetime, inclusive)")
    ep.add_argument("--until", help="record time to (exclusive)")
    ep.add_argument("--cursor", help="list: continue after this cursor")
    ep.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    ep.add_argument("--limit", type=int, default=20)
    ep.add_argument("--json", action="store_true")
    ep.add_argument("--timings", action="store_true", help=TIMINGS_HELP)
    ep.set_defaults(func=cmd_episodes)

    mc = sub.add_parser("mcp", help="read-only MCP server over the graph (stdio; --http HOST:PORT for HTTP)")
    mc.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp")
    mc.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    mc.set_defaults(func=cmd_mcp)
