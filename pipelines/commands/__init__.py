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
graphfeed references eval [--labelled DIR] [--split dev|eval|all] [--show N] [--json]
                                          reference precision/recall per kind on the labelled reference set
graphfeed llm check [--max-tokens N] [--json]   probes through the configured model: what it extracts, what the guard keeps
"""

import argparse
import os
import sys
from typing import NoReturn

from pipelines.commands import graph_reads, intent, ledger, llm_check, preview, references, run
from pipelines.commands.common import EXIT_OK, EXIT_USAGE

__all__ = ["EXIT_OK", "EXIT_USAGE", "cli", "main", "parser"]

EXIT_PIPE_CLOSED = 128 + 13  # killed by SIGPIPE, as `git log | head` or any filter reports it
READ_COMMANDS = frozenset({"search", "history", "episodes"})  # one question, one process: nothing to close but memory
COMMAND_GROUPS = (preview, run, graph_reads, ledger, intent, references, llm_check)  # the order `--help` lists them


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="graphfeed", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


def cli() -> NoReturn:
    """The console script (and `python -m pipelines.commands`): main(), then, after a read command, an exit that skips
    the interpreter's teardown: 70-100 ms of destructors (the question model's ONNX session, numpy's and pydantic's
    modules) on every question, an eighth of its wall time (docs/capacity.md). A read holds nothing to close: its output
    is flushed here, the shared server's lock goes with the process. Tests call main(), which returns."""
    args = parser().parse_args()
    if args.command not in READ_COMMANDS:
        sys.exit(args.func(args))
    try:
        code = args.func(args)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # `graphfeed search ... | head`: the reader left; the shell's convention, no traceback
        os._exit(EXIT_PIPE_CLOSED)
    os._exit(code or 0)
