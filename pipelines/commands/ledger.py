"""Ledger and LLM-extraction commands: `graphfeed ledger [replay]`, `estimate`, `review list|show|approve|reject`."""

import argparse

from pipelines.commands.common import EXIT_OK, graph_parts, iso_date, ledger_url, open_ledger, usage_error


def cmd_ledger(args: argparse.Namespace) -> int:
    with open_ledger() as book:
        if args.action == "replay":
            statuses = tuple(s.strip() for s in args.status.split(",") if s.strip())
            count = book.replay(source=args.source, status=statuses)
            print(
                f"re-queued {count} episode(s) ({', '.join(statuses)}"
                f"{', source ' + args.source if args.source else ''}); the next run ingests them"
            )
            return EXIT_OK
        counts = book.counts(args.source)
        print("episodes by status" + (f" (source {args.source})" if args.source else "") + ":")
        for status, n in counts.items():
            print(f"  {status:<12} {n}")
        failures = book.failures(limit=args.limit, source=args.source)
        if failures:
            print(f"latest failures ({len(failures)}):")
        for row in failures:
            print(
                f"  {row.status.value:<11} {row.source} {row.source_key} attempts={row.attempts} "
                f"{row.last_error_class}: {(row.last_error or '')[:200]}"
            )
    _print_guard(args.source)
    return EXIT_OK


def _print_guard(source: str | None) -> None:
    """What the LLM grounding guard kept out of the graph, all runs (nothing printed when no LLM run wrote any)."""
    from graph.llm.guard_reasons import REASONS
    from graph.llm.store import guard_counts

    counts = guard_counts(ledger_url(), source)
    if counts:
        print("LLM grounding guard, dropped or cleared (all runs):")
        for reason, n in counts.items():
            print(f"  {reason:<26} {n:>6}  {REASONS.get(reason, '')}")


def _llm_parts():
    from graph.ledger.ledger import ledger_url_for_home

    home, graph, ledger = graph_parts()
    store_url = ledger.url.get_value() if hasattr(ledger.url, "get_value") else ledger.url
    return home, graph.graph_config(home), store_url or ledger_url_for_home(home)


def cmd_estimate(args: argparse.Namespace) -> int:
    from pipelines.commands.review import estimate

    home, config, store_url = _llm_parts()
    return estimate(
        config,
        args.source,
        args.partition,
        staging_root=home / "staging",
        ledger_url=store_url,
        store_url=store_url,
        as_json=args.json,
    )


def cmd_review(args: argparse.Namespace) -> int:
    from pipelines.commands import review

    home, config, store_url = _llm_parts()
    if args.action == "list":
        return review.review_list(store_url, source=args.source)
    if args.action == "show":
        if len(args.keys) != 1:
            return usage_error("review show takes one key")
        return review.review_show(store_url, args.keys[0])
    if args.action == "approve":
        return review.review_approve(config, store_url, args.keys or None, source=args.source)
    return review.review_reject(store_url, args.keys, note=args.note)


def register(sub: argparse._SubParsersAction) -> None:
    from flow.settings import SOURCES

    lg = sub.add_parser("ledger", help="episode ledger: counts and failures; `replay` re-queues failures")
    lg.add_argument("action", nargs="?", choices=("show", "replay"), default="show")
    lg.add_argument("--source", choices=SOURCES)
    lg.add_argument("--status", default="quarantined,failed", help="with replay: which statuses to re-queue")
    lg.add_argument("--limit", type=int, default=20)
    lg.set_defaults(func=cmd_ledger)

    es = sub.add_parser("estimate", help="dry run: expected LLM calls, tokens and cost for a partition")
    es.add_argument("--source", required=True, choices=SOURCES)
    es.add_argument("--partition", type=iso_date, help="a staged day (default: everything pending in the ledger)")
    es.add_argument("--json", action="store_true")
    es.set_defaults(func=cmd_estimate)

    rv = sub.add_parser("review", help="LLM-extracted facts held for review: list, show, approve, reject")
    rv.add_argument("action", choices=("list", "show", "approve", "reject"))
    rv.add_argument("keys", nargs="*", help="held item keys (chunk uuid or episode id)")
    rv.add_argument("--source", choices=SOURCES)
    rv.add_argument("--note", help="with reject: why")
    rv.set_defaults(func=cmd_review)
