"""`graphfeed run`: the nightly job (or one source's) for a day or a date range, in-process, recorded in the Dagster
instance under the graphfeed home so `dagster dev` shows it."""

import argparse
import datetime as dt
import os
import shutil
from pathlib import Path

from pipelines.commands.common import EXIT_OK, iso_date, usage_error

QUIET = {
    "loggers": {"console": {"config": {"log_level": "INFO"}}}
}  # step events stay in the instance, not the terminal
SUMMARY_FIGURES = (
    "records",
    "episodes",
    "failures",
    "duplicates",
    "dedup_rate",
    "ingested",
    "facts_written",
    "facts_invalidated",
    "quarantined",
    "backlog",
    "total_ingested",
    "total_backlog",
    "index_build_seconds",
)


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
    from pipelines.dagster_private import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

    if args.date and (args.start or args.end):
        return usage_error("give either --date or --from/--to")
    if bool(args.start) != bool(args.end):
        return usage_error("--from and --to go together")
    if args.start and args.start > args.end:
        return usage_error(f"--from {args.start} is after --to {args.end}")
    day = args.date or (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()

    instance = dagster_instance()
    from pipelines.dead_runs import NO_DAEMON_RETRY, fail_dead_runs, worker_tags
    from pipelines.definitions import defs

    for dead in fail_dead_runs(instance):  # before queuing: a dead run would hold its pool slots forever
        print(f"failed dead run {dead.run_id} ({dead.job_name}): {dead.message}")
    job = defs.resolve_job_def(f"{args.source}_ingest" if args.source else "nightly_ingest")
    tags = {**worker_tags(), **NO_DAEMON_RETRY}
    if args.backfill:
        from assets.source_chain import BACKFILL_BULK, BACKFILL_TAG

        tags[BACKFILL_TAG] = BACKFILL_BULK
    if args.start:
        tags |= {ASSET_PARTITION_RANGE_START_TAG: args.start, ASSET_PARTITION_RANGE_END_TAG: args.end}
        result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False, run_config=QUIET)
        label = f"{args.start}...{args.end}"
    else:
        result = job.execute_in_process(
            instance=instance, partition_key=day, tags=tags, raise_on_error=False, run_config=QUIET
        )
        label = day
    shown = set()
    for event in result.get_asset_materialization_events():  # a range run has one event per partition
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
    print(
        f"run {result.run_id} for {label}: {'success' if result.success else 'FAILED'} "
        f"(DAGSTER_HOME={os.environ['DAGSTER_HOME']})"
    )
    return EXIT_OK if result.success else 1


def step_failure_lines(result) -> list[str]:
    """One line per failed step: its key and the error that failed it (the user code's own exception where Dagster
    wrapped it), so the terminal says why without reading a stack trace on stderr."""
    lines = []
    for event in result.get_step_failure_events():
        error = event.step_failure_data.error
        while error is not None and error.cause is not None and error.cls_name and "Dagster" in error.cls_name:
            error = error.cause  # DagsterExecutionStepExecutionError -> what the asset raised
        if error is None:
            lines.append(f"step {event.step_key} FAILED")
            continue
        message = " ".join((error.message or "").split())
        lines.append(f"step {event.step_key} FAILED: {message[:400]}")
    return lines


def register(sub: argparse._SubParsersAction) -> None:
    from flow.settings import SOURCES

    rn = sub.add_parser("run", help="run the nightly job for a day (default: yesterday, UTC) or a date range")
    rn.add_argument("--date", type=iso_date)
    rn.add_argument("--from", dest="start", type=iso_date)
    rn.add_argument("--to", dest="end", type=iso_date)
    rn.add_argument("--source", choices=SOURCES, help="only this source's chain")
    rn.add_argument(
        "--backfill",
        action="store_true",
        help="a first/bulk load: vector indexes built once at the end instead of kept up per write, no per-run "
        "episode bound (GRAPHFEED_MAX_EPISODES_PER_RUN); resumable like any run",
    )
    rn.set_defaults(func=cmd_run)
