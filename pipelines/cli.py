"""The `graphfeed` command line.

  graphfeed preview --source email PATH...   episodes as JSON lines on stdout, failures on stderr (no state written)
  graphfeed run [--date D | --from A --to B] [--source S]   the nightly job, in-process, recorded in the Dagster instance
"""

import argparse
import datetime as dt
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

EXIT_OK = 0
EXIT_USAGE = 2


def _usage_error(message: str) -> int:
    print(f"graphfeed: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def cmd_preview(args: argparse.Namespace) -> int:
    from connectors.records import RecordFailure
    from connectors.registry import EXPORT_READERS, export_reader
    from pipelines import settings
    from pipelines.resources import IntentModelResource
    from transforms.build import EpisodeSettings, build_episodes
    from transforms.dedup import dedup
    from transforms.episode import Episode
    from transforms.references import ReferenceConfig

    if args.source not in EXPORT_READERS:
        return _usage_error(f"unknown source {args.source!r}; known: {', '.join(sorted(EXPORT_READERS))}")
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return _usage_error(f"no such file or directory: {', '.join(missing)}")

    classifier = IntentModelResource().classifier(settings.home())
    config = EpisodeSettings(
        group_id=args.group_id,
        intent_threshold=args.threshold,
        references=ReferenceConfig(jira_project_keys=settings.env_list("GRAPHFEED_JIRA_PROJECT_KEYS")),
    )
    failures = 0

    def records():
        nonlocal failures
        for item in export_reader(args.source, args.paths).read(None):
            if isinstance(item, RecordFailure):
                failures += 1
                print(f"FAILURE {item.describe()}", file=sys.stderr)
            else:
                yield item

    with tempfile.NamedTemporaryFile("w+", suffix=".jsonl", encoding="utf-8") as tmp:
        for episode in build_episodes(records(), classifier, config):
            tmp.write(episode.model_dump_json() + "\n")
        tmp.flush()

        def stream():
            with open(tmp.name, encoding="utf-8") as fh:
                for line in fh:
                    yield Episode.model_validate_json(line)

        unique, stats = dedup(stream)
        for episode in unique:
            sys.stdout.write(episode.model_dump_json() + "\n")
    print(f"graphfeed preview: {stats.seen} records -> {stats.unique} episodes "
          f"({stats.duplicates} duplicates, dedup rate {stats.dedup_rate:.1%}), {failures} failures", file=sys.stderr)
    return EXIT_OK


def dagster_instance():
    """The persistent local instance under the graphfeed home, so `dagster dev` shows runs made from the CLI."""
    import dagster as dg

    from pipelines import settings

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
    from pipelines.definitions import defs

    job = defs.resolve_job_def(f"{args.source}_ingest" if args.source else "nightly_ingest")
    if args.start:
        tags = {ASSET_PARTITION_RANGE_START_TAG: args.start, ASSET_PARTITION_RANGE_END_TAG: args.end}
        result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False)
        label = f"{args.start}...{args.end}"
    else:
        result = job.execute_in_process(instance=instance, partition_key=day, raise_on_error=False)
        label = day
    for event in result.get_asset_materialization_events():
        mat = event.materialization
        figures = {k: v.value for k, v in mat.metadata.items()
                   if k in ("records", "episodes", "failures", "duplicates", "dedup_rate")}
        print(f"{mat.asset_key.to_user_string():<24} {figures}")
    for check in result.get_asset_check_evaluations():
        print(f"check {check.asset_key.to_user_string()}:{check.check_name} {'passed' if check.passed else 'FAILED'}")
    print(f"run {result.run_id} for {label}: {'success' if result.success else 'FAILED'} "
          f"(DAGSTER_HOME={os.environ['DAGSTER_HOME']})")
    return EXIT_OK if result.success else 1


def parser() -> argparse.ArgumentParser:
    from pipelines.settings import SOURCES

    p = argparse.ArgumentParser(prog="graphfeed", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    pv = sub.add_parser("preview", help="turn export files into episodes (stdout) and failures (stderr)")
    pv.add_argument("--source", required=True, choices=SOURCES)
    pv.add_argument("--group-id", default=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"))
    pv.add_argument("--threshold", type=float, default=float(os.environ.get("GRAPHFEED_INTENT_THRESHOLD", 0.5)))
    pv.add_argument("paths", nargs="+", help="files or folders (mbox, .eml, .msg, .zip, ...)")
    pv.set_defaults(func=cmd_preview)

    rn = sub.add_parser("run", help="run the nightly job for a day (default: yesterday, UTC) or a date range")
    rn.add_argument("--date", type=_date)
    rn.add_argument("--from", dest="start", type=_date)
    rn.add_argument("--to", dest="end", type=_date)
    rn.add_argument("--source", choices=SOURCES, help="only this source's chain")
    rn.set_defaults(func=cmd_run)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
