"""What the `graphfeed` commands share: exit codes, usage errors, argument types, the graph resources."""

import argparse
import datetime as dt
import sys

EXIT_OK = 0
EXIT_USAGE = 2


def usage_error(message: str) -> int:
    print(f"graphfeed: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def iso_date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def graph_parts():
    from flow import settings
    from pipelines.resources import graph_resources

    resources = graph_resources()
    return settings.home(), resources["graph"], resources["ledger"]


def graph_config():
    home, graph, _ = graph_parts()
    return graph.graph_config(home)
