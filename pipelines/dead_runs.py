"""Runs whose worker process died (kill -9, OOM kill, a reboot) are failed and their pool slots freed.

Dagster's run monitoring cannot see this for `graphfeed run`: the run executes in-process, so no run launcher knows
it, and the DefaultRunLauncher our instances use reports no worker health at all (supports_check_run_worker_health is
False; only launchers such as K8sRunLauncher do). A dead run stays STARTED and keeps its `graph_write` slot, and every
later run waits for it. So each run records who executes it (host, pid, process start time) as run tags, and before a
new run queues, the runs of this host whose worker is gone are failed with an event saying so and their concurrency
slots (held and pending) are released. The start time guards against a reused pid; a run of another host is never
judged from here.
"""

import socket

import dagster as dg
import psutil
from pydantic import BaseModel

WORKER_HOST = "graphfeed/worker_host"
WORKER_PID = "graphfeed/worker_pid"
WORKER_STARTED = "graphfeed/worker_started"  # the worker's process create time (epoch seconds)
NO_DAEMON_RETRY = {"dagster/max_retries": "0"}  # the next `graphfeed run` is the retry; the daemon cannot relaunch it
UNFINISHED = [
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]
START_TIME_SLACK = 1.0  # create_time is rounded differently across reads


class DeadRun(BaseModel):
    run_id: str
    job_name: str
    status: str
    pid: int
    host: str
    message: str


def worker_tags() -> dict[str, str]:
    """Tags naming this process as the run's worker."""
    me = psutil.Process()
    return {WORKER_HOST: socket.gethostname(), WORKER_PID: str(me.pid), WORKER_STARTED: f"{me.create_time():.3f}"}


def worker_gone(tags: dict[str, str], host: str | None = None) -> bool:
    """True only when the run names a worker on this host and that process no longer exists (or its pid now belongs
    to a later process). Runs without worker tags or of another host: False, they are not ours to judge."""
    if tags.get(WORKER_HOST) != (host or socket.gethostname()):
        return False
    try:
        pid, started = int(tags[WORKER_PID]), float(tags[WORKER_STARTED])
    except (KeyError, ValueError):
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return True
        return abs(proc.create_time() - started) > START_TIME_SLACK
    except psutil.NoSuchProcess:
        return True
    except psutil.AccessDenied:
        return False  # it exists; we may not look at it


def fail_dead_runs(instance: dg.DagsterInstance, by: str = "graphfeed run") -> list[DeadRun]:
    """Fail every unfinished run of this host whose worker is gone, and free its concurrency slots."""
    host = socket.gethostname()
    found: list[DeadRun] = []
    records = instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED, tags={WORKER_HOST: host}))
    for record in records:
        run = record.dagster_run
        if not worker_gone(run.tags, host):
            continue
        current = instance.get_run_by_id(run.run_id)
        if current is None or current.is_finished:
            continue  # finished meanwhile (another run reaped it)
        pid = int(run.tags[WORKER_PID])
        message = (
            f"run worker gone: process {pid} on {host} no longer exists (killed or crashed) while the run was "
            f"{current.status.value}; marked failed by {by} (pid {psutil.Process().pid}) and its "
            "concurrency slots released"
        )
        instance.report_run_failed(current, message)
        storage = instance.event_log_storage
        if storage.supports_global_concurrency_limits:
            storage.free_concurrency_slots_for_run(run.run_id)
        found.append(
            DeadRun(
                run_id=run.run_id,
                job_name=run.job_name,
                status=current.status.value,
                pid=pid,
                host=host,
                message=message,
            )
        )
    return found


@dg.sensor(
    name="dead_run_reaper",
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=120,
    description="Fails runs of the daemon's host whose worker process died and frees their pool slots "
    "(Dagster's own run monitoring does not cover in-process runs or the DefaultRunLauncher).",
)
def dead_run_reaper(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    dead = fail_dead_runs(context.instance, by="the dead_run_reaper sensor")
    for run in dead:
        context.log.warning(f"{run.run_id}: {run.message}")
    return dg.SkipReason(f"{len(dead)} dead run(s) failed" if dead else "no dead runs on this host")
