"""The `graphfeed` command line.

  graphfeed preview --source email PATH...   episodes as JSON lines on stdout, failures on stderr (no state written)
  graphfeed run [--date D | --from A --to B] [--source S]   the nightly job, in-process, recorded in the Dagster instance
  graphfeed search "QUERY" [--as-of DATE] [--known-at DATETIME] [--intent I] [--source S] [--limit N] [--json]
                                            what the graph knows (now, or on a date), or knew at a moment of its history
  graphfeed history SUBJECT [--relation R] [--json]   every value a single-valued slot had, with both clocks
  graphfeed episodes search "QUERY" | get ID|KEY | list [filters]   episodes by intent, source, actor and time
  graphfeed mcp [--http HOST:PORT]          read-only MCP server (stdio by default) for agents
  graphfeed ledger [--source S]             episode counts by status and the latest failures
  graphfeed ledger replay [--source S] [--status quarantined,failed]   re-queue failed episodes
  graphfeed estimate --source S [--partition D]   LLM calls, tokens and cost a partition would take, spending nothing
  graphfeed review list|show|approve|reject [KEY...]   LLM-extracted facts held for a person's approval
  graphfeed intent eval --labels FILE.jsonl [--split eval|train|all]   the intent model measured on labelled units
"""

import argparse
import datetime as dt
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

EXIT_OK = 0
EXIT_USAGE = 2
QUIET = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}   # step events stay in the instance, not the terminal
SUMMARY_FIGURES = ("records", "episodes", "failures", "duplicates", "dedup_rate", "ingested", "facts_written",
                   "facts_invalidated", "quarantined", "backlog", "total_ingested", "total_backlog")


def _usage_error(message: str) -> int:
    print(f"graphfeed: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def cmd_preview(args: argparse.Namespace) -> int:
    from ground.records import RecordFailure
    from connectors.registry import EXPORT_READERS
    from flow import settings
    from pipelines.resources import IntentModelResource, api_resources
    from transforms.build import EpisodeSettings, build_episodes
    from pipelines.preview_summary import PreviewSummary
    from transforms.clip import DEFAULT_MAX_TEXT_CHARS, ENV_NAME as MAX_TEXT_ENV
    from flow.staging import spooled_dedup
    from transforms.references import ReferenceConfig

    if args.source not in EXPORT_READERS:
        return _usage_error(f"unknown source {args.source!r}; known: {', '.join(sorted(EXPORT_READERS))}")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return _usage_error(f"no such file or directory: {', '.join(missing)}")

    classifier = IntentModelResource().classifier(settings.home())
    config = EpisodeSettings(
        group_id=args.group_id,
        max_text_chars=settings.env_int(MAX_TEXT_ENV, DEFAULT_MAX_TEXT_CHARS),
        intent_threshold=args.threshold,
        references=ReferenceConfig(jira_project_keys=settings.env_list("GRAPHFEED_JIRA_PROJECT_KEYS")),
    )
    failures = 0
    summary = PreviewSummary()

    def report(failure: RecordFailure) -> None:
        nonlocal failures
        failures += 1
        summary.failure(failure)
        print(f"FAILURE {failure.describe()}", file=sys.stderr)

    try:
        reader = api_resources()["apis"].export_reader(args.source, args.paths)
    except ValueError as exc:                   # a reader setting from the environment is unusable
        return _usage_error(str(exc))

    def records():
        for item in reader.read(None):
            if isinstance(item, RecordFailure):
                report(item)
            else:
                summary.record(item)
                yield item

    with spooled_dedup(build_episodes(records(), classifier, config, on_failure=report)) as (unique, stats):
        for episode in unique:
            summary.episode(episode)
            sys.stdout.write(episode.model_dump_json() + "\n")
    for line in summary.lines():
        print(line, file=sys.stderr)
    print(f"graphfeed preview: {stats.seen} records -> {stats.unique} episodes "
          f"({stats.duplicates} duplicates, dedup rate {stats.dedup_rate:.1%}), {failures} failures", file=sys.stderr)
    return EXIT_OK


def dagster_instance():
    """The persistent local instance under the graphfeed home, so `dagster dev` shows runs made from the CLI."""
    import dagster as dg

    from flow import settings

    if not os.environ.get("DAGSTER_HOME"):
        os.environ["DAGSTER_HOME"] = str(settings.home() / "dagster")
    dagster_home = Path(os.environ["DAGSTER_HOME"])
    dagster_home.mkdir(parents=True, exist_ok=True)
    config = dagster_home / "dagster.yaml"
    if not config.exists():
        shutil.copyfile(settings.REPO_ROOT / "dagster.yaml", config)
    return dg.DagsterInstance.get()


def cmd_run(args: argparse.Namespace) -> int:
    from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

    if args.date and (args.start or args.end):
        return _usage_error("give either --date or --from/--to")
    if bool(args.start) != bool(args.end):
        return _usage_error("--from and --to go together")
    if args.start and args.start > args.end:
        return _usage_error(f"--from {args.start} is after --to {args.end}")
    day = args.date or (dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)).isoformat()

    instance = dagster_instance()
    from pipelines.dead_runs import NO_DAEMON_RETRY, fail_dead_runs, worker_tags
    from pipelines.definitions import defs

    for dead in fail_dead_runs(instance):          # before queuing: a dead run would hold its pool slots forever
        print(f"failed dead run {dead.run_id} ({dead.job_name}): {dead.message}")
    job = defs.resolve_job_def(f"{args.source}_ingest" if args.source else "nightly_ingest")
    tags = {**worker_tags(), **NO_DAEMON_RETRY}
    if args.start:
        tags |= {ASSET_PARTITION_RANGE_START_TAG: args.start, ASSET_PARTITION_RANGE_END_TAG: args.end}
        result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False, run_config=QUIET)
        label = f"{args.start}...{args.end}"
    else:
        result = job.execute_in_process(instance=instance, partition_key=day, tags=tags, raise_on_error=False,
                                        run_config=QUIET)
        label = day
    shown = set()
    for event in result.get_asset_materialization_events():     # a range run has one event per partition
        mat = event.materialization
        key = mat.asset_key.to_user_string()
        if key in shown:
            continue
        shown.add(key)
        figures = {k: v.value for k, v in mat.metadata.items() if k in SUMMARY_FIGURES}
        print(f"{key:<26} {figures}")
    for check in result.get_asset_check_evaluations():
        print(f"check {check.asset_key.to_user_string()}:{check.check_name} {'passed' if check.passed else 'FAILED'}")
    for line in step_failure_lines(result):
        print(line)
    print(f"run {result.run_id} for {label}: {'success' if result.success else 'FAILED'} "
          f"(DAGSTER_HOME={os.environ['DAGSTER_HOME']})")
    return EXIT_OK if result.success else 1


def step_failure_lines(result) -> list[str]:
    """One line per failed step: its key and the error that failed it (the user code's own exception where Dagster
    wrapped it), so the terminal says why without reading a stack trace on stderr."""
    lines = []
    for event in result.get_step_failure_events():
        error = event.step_failure_data.error
        while error is not None and error.cause is not None and error.cls_name and "Dagster" in error.cls_name:
            error = error.cause                     # DagsterExecutionStepExecutionError -> what the asset raised
        if error is None:
            lines.append(f"step {event.step_key} FAILED")
            continue
        message = " ".join((error.message or "").split())
        lines.append(f"step {event.step_key} FAILED: {message[:400]}")
    return lines


def _graph_parts():
    from flow import settings
    from pipelines.resources import graph_resources

    resources = graph_resources()
    return settings.home(), resources["graph"], resources["ledger"]


def _moment(value: str | None, what: str) -> dt.datetime | None:
    """A date (start of that day, UTC) or an ISO datetime (UTC when it has no zone)."""
    from mcp.server.mcpserver.exceptions import ToolError

    from pipelines.mcp_server import parse_time

    try:
        return parse_time(value, what)
    except ToolError as exc:
        raise ValueError(str(exc)) from None


def cmd_search(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from connectors.graph.config import ConfigError, validate_group_id
    from connectors.graph.reader import GraphReader

    try:
        validate_group_id(args.group)
        as_of = _moment(args.as_of, "--as-of")
        known_at = _moment(args.known_at, "--known-at")
    except (ConfigError, ValueError) as exc:
        return _usage_error(str(exc))
    from mcp.server.mcpserver.exceptions import ToolError
    from pipelines.mcp_server import episode_filters

    try:
        filters = episode_filters(args.intent, args.source, None, None, None)     # same checks as the MCP tools
    except ToolError as exc:
        return _usage_error(str(exc))

    async def go():
        async with GraphReader(_graph_config()) as reader:
            return await reader.search_facts(args.query, group_id=args.group, as_of=as_of, known_at=known_at,
                                             limit=args.limit, intents=filters.intents, sources=filters.sources)

    hits = asyncio.run(go())
    if args.json:
        for hit in hits:
            print(json.dumps(hit.model_dump(mode="json"), ensure_ascii=False))
        if getattr(hits, "degraded", None):        # a step timed out: the answer may be incomplete
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
        sources = ", ".join(f"{e.source or ''} {e.name}".strip() for e in hit.episodes[:3]) or "-"
        print(f"- {hit.fact}\n    valid {valid} .. {invalid}   [{hit.name}]   source: {sources}")
        if hit.interval_exact is False:
            print("    (end as known then not recorded: written before revisions were kept; shown as the source gave it)")
    return EXIT_OK


def _stamp(value: dt.datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else "-"


def cmd_history(args: argparse.Namespace) -> int:
    import asyncio

    from connectors.graph.config import ConfigError, validate_group_id
    from connectors.graph.history import AmbiguousSubject
    from connectors.graph.reader import GraphReader

    try:
        validate_group_id(args.group)
    except ConfigError as exc:
        return _usage_error(str(exc))

    async def go():
        async with GraphReader(_graph_config()) as reader:
            return await reader.fact_history(args.subject, group_id=args.group, relation=args.relation)

    try:
        history = asyncio.run(go())
    except AmbiguousSubject as exc:
        print(f"graphfeed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(history.model_dump_json())
        return EXIT_OK
    subject = history.subject
    print(f"{subject.name} ({subject.key}): {len(history.values)} values")
    for v in history.values:
        sources = ", ".join(f"{e.source or ''} {e.source_key or e.uuid}".strip() for e in v.episodes[:3]) or "-"
        print(f"- [{v.relation}] {v.value}   valid {_stamp(v.valid_at)} .. {_stamp(v.invalid_at) if v.invalid_at else 'now'}"
              f"\n    recorded {_stamp(v.created_at)}, ended in graph {_stamp(v.expired_at)}   source: {sources}")
    return EXIT_OK


def _graph_config():
    home, graph, _ = _graph_parts()
    return graph.graph_config(home)


def _print_episode_line(e) -> None:
    when = e.valid_at.isoformat() if e.valid_at else "?"
    who = e.actor_name or e.actor_email or e.actor_id or "-"
    print(f"- {when}  {e.source or '?'} {e.source_key}  intent={e.intent}  by {who}\n    {e.title or ''}"
          f"{'  | ' if e.title else ''}{e.snippet[:160]}")


def cmd_episodes(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from connectors.graph.config import ConfigError, validate_group_id
    from connectors.graph.reader import GraphReader
    from mcp.server.mcpserver.exceptions import ToolError
    from pipelines.mcp_server import check_limit, episode_filters

    try:
        validate_group_id(args.group)
        filters = episode_filters(args.intent, args.source, args.actor, args.since, args.until)
        limit = check_limit(args.limit)
    except (ConfigError, ToolError) as exc:
        return _usage_error(str(exc))
    if args.action in ("search", "get") and not args.query:
        return _usage_error(f"episodes {args.action} needs a {'query' if args.action == 'search' else 'ID or key'}")

    async def go():
        async with GraphReader(_graph_config()) as reader:
            if args.action == "search":
                return await reader.search_episodes(args.query, group_id=args.group, filters=filters, limit=limit)
            if args.action == "get":
                return await reader.get_episode(args.query, group_id=args.group)
            return await reader.list_episodes(group_id=args.group, filters=filters, cursor=args.cursor, limit=limit)

    try:
        result = asyncio.run(go())
    except ValueError as exc:
        return _usage_error(str(exc))
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
    from connectors.graph.config import ConfigError, validate_group_id
    from pipelines.mcp_server import serve

    try:
        validate_group_id(args.group)
    except ConfigError as exc:
        return _usage_error(str(exc))
    if args.http is not None and not args.http.rpartition(":")[2].isdigit():
        return _usage_error(f"--http wants HOST:PORT, got {args.http!r}")
    serve(_graph_config(), args.group, http=args.http)
    return EXIT_OK


def cmd_ledger(args: argparse.Namespace) -> int:
    home, _, ledger = _graph_parts()
    with ledger.open(home) as book:
        if args.action == "replay":
            statuses = tuple(s.strip() for s in args.status.split(",") if s.strip())
            count = book.replay(source=args.source, status=statuses)
            print(f"re-queued {count} episode(s) ({', '.join(statuses)}"
                  f"{', source ' + args.source if args.source else ''}); the next run ingests them")
            return EXIT_OK
        counts = book.counts(args.source)
        print("episodes by status" + (f" (source {args.source})" if args.source else "") + ":")
        for status, n in counts.items():
            print(f"  {status:<12} {n}")
        failures = book.failures(limit=args.limit, source=args.source)
        if failures:
            print(f"latest failures ({len(failures)}):")
        for row in failures:
            print(f"  {row.status.value:<11} {row.source} {row.source_key} attempts={row.attempts} "
                  f"{row.last_error_class}: {(row.last_error or '')[:200]}")
    return EXIT_OK


def _llm_parts():
    from connectors.graph.ledger import ledger_url_for_home

    home, graph, ledger = _graph_parts()
    store_url = ledger.url.get_value() if hasattr(ledger.url, "get_value") else ledger.url
    return home, graph.graph_config(home), store_url or ledger_url_for_home(home)


def cmd_estimate(args: argparse.Namespace) -> int:
    from connectors.graph.llm.cli_commands import estimate

    home, config, store_url = _llm_parts()
    return estimate(config, args.source, args.partition, staging_root=home / "staging", ledger_url=store_url,
                    store_url=store_url, as_json=args.json)


def cmd_review(args: argparse.Namespace) -> int:
    from connectors.graph.llm import cli_commands as review

    home, config, store_url = _llm_parts()
    if args.action == "list":
        return review.review_list(store_url, source=args.source)
    if args.action == "show":
        if len(args.keys) != 1:
            return _usage_error("review show takes one key")
        return review.review_show(store_url, args.keys[0])
    if args.action == "approve":
        return review.review_approve(config, store_url, args.keys or None, source=args.source)
    return review.review_reject(store_url, args.keys, note=args.note)


def cmd_intent(args: argparse.Namespace) -> int:
    from flow import settings
    from pipelines.intent_eval import evaluate_file
    from pipelines.resources import IntentModelResource

    path = Path(args.labels)
    if not path.is_file():
        return _usage_error(f"no such labels file: {path}")
    resource = IntentModelResource(train_path=os.environ.get("GRAPHFEED_INTENT_TRAIN", ""),
                                   taxonomy_path=os.environ.get("GRAPHFEED_INTENT_TAXONOMY", ""))
    try:
        text = evaluate_file(path, lambda: resource.classifier(settings.home()), split=args.split,
                             threshold=args.threshold, show_errors=args.errors)
    except ValueError as exc:                   # IntentDataError: names file and line
        return _usage_error(str(exc))
    print(text)
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    from flow.settings import SOURCES

    p = argparse.ArgumentParser(prog="graphfeed", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    pv = sub.add_parser("preview", help="turn export files into episodes (stdout) and failures (stderr)")
    pv.add_argument("--source", required=True, choices=SOURCES)
    pv.add_argument("--group-id", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    pv.add_argument("--threshold", type=float, default=float(os.environ["GRAPHFEED_INTENT_THRESHOLD"])
                    if os.environ.get("GRAPHFEED_INTENT_THRESHOLD") else None,
                    help="`other` below this intent confidence (default: the model's calibrated threshold)")
    pv.add_argument("paths", nargs="+", help="files or folders (mbox, .eml, .msg, .zip, ...)")
    pv.set_defaults(func=cmd_preview)

    rn = sub.add_parser("run", help="run the nightly job for a day (default: yesterday, UTC) or a date range")
    rn.add_argument("--date", type=_date)
    rn.add_argument("--from", dest="start", type=_date)
    rn.add_argument("--to", dest="end", type=_date)
    rn.add_argument("--source", choices=SOURCES, help="only this source's chain")
    rn.set_defaults(func=cmd_run)

    se = sub.add_parser("search", help="hybrid search (keyword + vector + graph) over the graph's facts")
    se.add_argument("query")
    se.add_argument("--as-of", help="facts valid at this date or datetime (UTC when no zone)")
    se.add_argument("--known-at", help="as the graph knew it at this date or datetime (its own history)")
    se.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    se.add_argument("--limit", type=int, default=10)
    se.add_argument("--json", action="store_true", help="one JSON object per fact")
    se.add_argument("--intent", action="append", default=[],
                    help="only facts of episodes with this intent (repeatable; filtered inside the query)")
    se.add_argument("--source", action="append", default=[], choices=SOURCES,
                    help="only facts of episodes from this source (repeatable)")
    se.set_defaults(func=cmd_search)

    hi = sub.add_parser("history", help="every value a single-valued slot had (contact, assignee, status, ...)")
    hi.add_argument("subject", help="an entity name or key (org:acme.example, jira:issue:ACME-1)")
    hi.add_argument("--relation", help="only this relation (HAS_CONTACT, contact, assignee, status, ...)")
    hi.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    hi.add_argument("--json", action="store_true")
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
    ep.set_defaults(func=cmd_episodes)

    mc = sub.add_parser("mcp", help="read-only MCP server over the graph (stdio; --http HOST:PORT for HTTP)")
    mc.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp")
    mc.add_argument("--group", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    mc.set_defaults(func=cmd_mcp)

    lg = sub.add_parser("ledger", help="episode ledger: counts and failures; `replay` re-queues failures")
    lg.add_argument("action", nargs="?", choices=("show", "replay"), default="show")
    lg.add_argument("--source", choices=SOURCES)
    lg.add_argument("--status", default="quarantined,failed", help="with replay: which statuses to re-queue")
    lg.add_argument("--limit", type=int, default=20)
    lg.set_defaults(func=cmd_ledger)

    es = sub.add_parser("estimate", help="dry run: expected LLM calls, tokens and cost for a partition")
    es.add_argument("--source", required=True, choices=SOURCES)
    es.add_argument("--partition", type=_date, help="a staged day (default: everything pending in the ledger)")
    es.add_argument("--json", action="store_true")
    es.set_defaults(func=cmd_estimate)

    rv = sub.add_parser("review", help="LLM-extracted facts held for review: list, show, approve, reject")
    rv.add_argument("action", choices=("list", "show", "approve", "reject"))
    rv.add_argument("keys", nargs="*", help="held item keys (chunk uuid or episode id)")
    rv.add_argument("--source", choices=SOURCES)
    rv.add_argument("--note", help="with reject: why")
    rv.set_defaults(func=cmd_review)

    it = sub.add_parser("intent", help="intent model: `eval` prints macro-F1, per-label/per-source F1, confusion")
    it.add_argument("action", choices=("eval",))
    it.add_argument("--labels", required=True, help="labelled units, JSON lines (docs/intent.md)")
    it.add_argument("--split", choices=("eval", "train", "all"), default="all",
                    help="which units of the file to score (by their `split` field; default all)")
    it.add_argument("--threshold", type=float, default=None, help="`other` below this confidence (default: model's)")
    it.add_argument("--errors", type=int, default=0, help="list up to N misclassified units by source key")
    it.set_defaults(func=cmd_intent)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
