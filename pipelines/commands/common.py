"""What the `graphfeed` commands share: exit codes, usage errors, argument types, the graph resources, `--timings`."""

import argparse
import contextlib
import datetime as dt
import os
import sys
import time
from collections.abc import Iterator

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
    """The Dagster resources (nightly-run commands: ledger, review, estimate)."""
    from flow import settings
    from pipelines.resources import graph_resources

    resources = graph_resources()
    return settings.home(), resources["graph"], resources["ledger"]


def graph_config():
    """The read commands' graph config, from the same variables as the nightly run's, without importing Dagster."""
    from flow import settings
    from graph.config import GraphConfig

    return GraphConfig.from_env(settings.home())


def ledger_url() -> str:
    """The ledger's database URL as the nightly run's LedgerResource takes it (GRAPHFEED_LEDGER_URL, else SQLite under
    the home), without importing Dagster: `graphfeed ledger` is a read command. The LLM store lives there too."""
    from flow import settings
    from graph.ledger.ledger import ledger_url_for_home

    home = settings.home()
    home.mkdir(parents=True, exist_ok=True)
    return os.environ.get("GRAPHFEED_LEDGER_URL") or ledger_url_for_home(home)


def open_ledger():
    """The episode ledger (ledger_url())."""
    from graph.ledger.ledger import Ledger

    return Ledger(ledger_url())


def process_age() -> float:
    """Seconds since this process started (interpreter start-up and imports included); 0 where /proc is missing."""
    try:
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time, clock ticks after boot
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError):
        return 0.0


class Timings:
    """`--timings`: where a read command's time went, printed to stderr (phases in the order they ran): wall time and
    the process's CPU time (all threads), which a loaded machine inflates far less than the wall."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.phases: list[tuple[str, float, float | None]] = [
            ("start-up and CLI imports", process_age(), time.process_time())
        ]

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.phases.append((name, time.perf_counter() - start, time.process_time() - cpu))

    def add(self, name: str, seconds: float) -> None:
        """A phase that ran beside the others (its CPU is counted in theirs)."""
        self.phases.append((name, seconds, None))

    def report(self) -> None:
        if not self.enabled:
            return
        lines = [f"  {'phase':<26} {'wall':>9}  {'cpu':>9}"]
        for name, seconds, cpu in self.phases:
            shown = f"{cpu * 1000:6.1f} ms" if cpu is not None else "   (beside)"
            lines.append(f"  {name:<26} {seconds * 1000:6.1f} ms  {shown}")
        lines.append(f"  {'total':<26} {process_age() * 1000:6.1f} ms  {time.process_time() * 1000:6.1f} ms")
        print("timings:\n" + "\n".join(lines), file=sys.stderr)
