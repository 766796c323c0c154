"""`graphfeed preview`: export files to episodes on stdout, failures on stderr, no state written.

Its episode settings come from pipelines.resources.episode_config(), the function the nightly run's resources use, so a
preview shows what the run would stage for the same environment.
"""

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipelines.commands.common import EXIT_OK, usage_error


def preview_config(args: argparse.Namespace):
    """The nightly run's EpisodeConfig for this environment, with the command line's --group-id and --threshold when
    given (unset flags leave the environment's values, read in one place: episode_config())."""
    from pipelines.resources import episode_config

    flags = {"group_id": args.group_id, "intent_threshold": args.threshold}
    return episode_config(**{name: value for name, value in flags.items() if value is not None})


def export_reader(source: str, paths: list[str]):
    """The export reader of a source's files, configured from the environment (ValueError: unusable setting); no
    Dagster resource is built for it."""
    from connectors.registry import export_reader as configured

    return configured(source, paths)


@contextmanager
def preview_episodes(
    reader, classifier, config, *, on_failure: Callable, summary=None
) -> Iterator[tuple[Iterator, object]]:
    """(unique episodes, dedup stats) of an export reader (export_reader()), built exactly as `graphfeed preview`
    builds them; also what `graphfeed references eval` measures. Deletions are told on stderr."""
    from flow.staging import spooled_dedup
    from ground.records import Deletion, RecordFailure
    from transforms.build import build_episodes

    def records():
        for item in reader.read(None):
            if isinstance(item, RecordFailure):
                on_failure(item)
            elif isinstance(item, Deletion):
                if summary is not None:
                    summary.deletion(item)
                print(f"DELETED {item.source}:{item.source_key} ({item.kind}, {item.reason})", file=sys.stderr)
            else:
                if summary is not None:
                    summary.record(item)
                yield item

    with spooled_dedup(build_episodes(records(), classifier, config, on_failure=on_failure)) as (unique, stats):
        yield unique, stats


def with_known_projects(config, source: str, reader):
    """The Jira projects the nightly run would know: those earlier Jira runs kept under the home (read, never
    written here) and, for a Jira export, the ones its own records name (a first pass over the files)."""
    from connectors.jira.project_keys import record_projects
    from flow import project_keys, settings
    from flow.staging import Staging
    from ground.records import SourceRecord

    known = project_keys.load(Staging(str(settings.home() / "staging")))
    if config.traits(source).names_project_keys:
        for item in reader.read(None):
            if isinstance(item, SourceRecord):
                known |= record_projects(item)
    return project_keys.with_known(config, known)


def cmd_preview(args: argparse.Namespace) -> int:
    from connectors.registry import SOURCE_NAMES
    from flow import settings
    from ground.records import RecordFailure
    from pipelines.commands.preview_summary import PreviewSummary
    from pipelines.resources import intent_model

    if args.source not in SOURCE_NAMES:
        return usage_error(f"unknown source {args.source!r}; known: {', '.join(sorted(SOURCE_NAMES))}")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return usage_error(f"no such file or directory: {', '.join(missing)}")

    classifier = intent_model().classifier(settings.home())
    config = preview_config(args).episode_settings()
    failures = 0
    summary = PreviewSummary()

    def report(failure: RecordFailure) -> None:
        nonlocal failures
        failures += 1
        summary.failure(failure)
        print(f"FAILURE {failure.describe()}", file=sys.stderr)

    try:
        reader = export_reader(args.source, args.paths)
    except ValueError as exc:  # a reader setting from the environment is unusable
        return usage_error(str(exc))
    config = with_known_projects(config, args.source, reader)
    with preview_episodes(reader, classifier, config, on_failure=report, summary=summary) as (unique, stats):
        for episode in unique:
            summary.episode(episode)
            sys.stdout.write(episode.model_dump_json() + "\n")
    for line in summary.lines():
        print(line, file=sys.stderr)
    print(
        f"graphfeed preview: {stats.seen} records -> {stats.unique} episodes "
        f"({stats.duplicates} duplicates, dedup rate {stats.dedup_rate:.1%}), {failures} failures",
        file=sys.stderr,
    )
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    from flow.settings import SOURCES

    pv = sub.add_parser("preview", help="turn export files into episodes (stdout) and failures (stderr)")
    pv.add_argument("--source", required=True, choices=SOURCES)
    pv.add_argument("--group-id", help="default: GRAPHFEED_GROUP_ID, else graphfeed")
    pv.add_argument(
        "--threshold",
        type=float,
        help="`other` below this intent confidence (default: GRAPHFEED_INTENT_THRESHOLD, else the model's "
        "calibrated threshold)",
    )
    pv.add_argument("paths", nargs="+", help="files or folders (mbox, .eml, .msg, .zip, ...)")
    pv.set_defaults(func=cmd_preview)
