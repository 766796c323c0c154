"""Given a `graphfeed run` killed with SIGKILL while its graph step holds the `graph_write_email` pool slot, when the next
`graphfeed run` starts, then it fails the dead run with an event saying why, frees its slots, and finishes itself with
every episode in the graph and the ledger exactly once — on a SQLite instance and on a PostgreSQL instance.
(Before, the dead run stayed STARTED, kept the slot, and the next run waited for it forever.)"""

import datetime as dt
import itertools
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import psutil
import pytest

from assets.resources import GraphResource, LedgerResource
from flow.settings import REPO_ROOT
from flow.staging import Staging
from graph.embedded_falkor import EmbeddedFalkor
from pipelines.dead_runs import WORKER_HOST, WORKER_PID, WORKER_STARTED, worker_gone, worker_tags
from tests.pipeline.conftest import short_home

START, END = "2026-03-02", "2026-03-23"
RERUN_TIMEOUT = 600  # generous safety bound: before the fix the rerun never finished
PRODUCTION_YAML = REPO_ROOT / "docs" / "deploy" / "dagster.production.yaml"
_numbers = itertools.count(1)


def _days() -> list[str]:
    first, last = dt.date.fromisoformat(START), dt.date.fromisoformat(END)
    return [(first + dt.timedelta(days=i)).isoformat() for i in range((last - first).days + 1)]


class Night:
    """A graphfeed home with its own Dagster instance (SQLite, or PostgreSQL through the production yaml)."""

    def __init__(self, home: Path, env: dict[str, str]):
        self.home, self.env = home, env

    def run(self, *prefix: str, timeout: float = RERUN_TIMEOUT) -> subprocess.CompletedProcess:
        cmd = [sys.executable, *prefix, "run", "--source", "email", "--from", START, "--to", END]
        return subprocess.run(cmd, cwd=REPO_ROOT, env=self.env, capture_output=True, text=True, timeout=timeout)

    def instance(self) -> dg.DagsterInstance:
        saved = dict(os.environ)
        os.environ.update(self.env)
        try:
            return dg.DagsterInstance.from_config(self.env["DAGSTER_HOME"])
        finally:
            os.environ.clear()
            os.environ.update(saved)


@pytest.fixture(params=["sqlite", "postgres"])
def night(request):
    home = next(gen := short_home())
    env = {
        **os.environ,
        "GRAPHFEED_HOME": str(home),
        "DAGSTER_HOME": str(home / "dagster"),
        "GRAPHFEED_BATCH_SIZE": "5",
        "GRAPHITI_TELEMETRY_ENABLED": "false",
    }
    env.pop("GRAPHFEED_EMAIL_EXPORTS", None)  # the bundled sample company
    (home / "dagster").mkdir()
    if request.param == "postgres":
        pg = request.getfixturevalue("postgres_server")
        number = next(_numbers)
        db = f"dagster_dead_{os.getpid()}_{number}"
        pg.create_database(db)
        shutil.copyfile(PRODUCTION_YAML, home / "dagster" / "dagster.yaml")
        env |= {
            "DAGSTER_PG_HOST": pg.host,
            "DAGSTER_PG_PORT": str(pg.port),
            "DAGSTER_PG_USER": pg.user,
            "DAGSTER_PG_PASSWORD": pg.password,
            "DAGSTER_PG_DB": db,
            "PGSSLMODE": "disable",
            "GRAPHFEED_LEDGER_URL": pg.create_database(f"ledger_dead_{os.getpid()}_{number}"),
        }
    try:
        yield Night(home, env)
    finally:
        pid = EmbeddedFalkor(home / "falkordb").running_pid()  # the killed run's server outlives it
        if pid:
            os.kill(pid, signal.SIGTERM)
        next(gen, None)


def _graph_slots(instance: dg.DagsterInstance):
    info = instance.event_log_storage.get_concurrency_info("graph_write_email")
    return info.claimed_slots, info.pending_steps


@pytest.mark.slow
@pytest.mark.timeout(3 * RERUN_TIMEOUT)  # two full `graphfeed run`s on two busy cores
def test_given_a_run_killed_mid_graph_step_when_graphfeed_runs_again_then_the_night_finishes_exactly_once(night):
    killed = night.run("-m", "tests.ops.dead_run_worker", "2")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    instance = night.instance()
    [dead] = instance.get_runs()
    assert dead.status == dg.DagsterRunStatus.STARTED
    claimed, _ = _graph_slots(instance)
    assert [slot.run_id for slot in claimed] == [dead.run_id]  # the slot the next night used to wait for
    assert dead.tags[WORKER_PID] and dead.tags[WORKER_HOST]

    rerun = night.run("-m", "pipelines.commands")

    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    assert f"failed dead run {dead.run_id}" in rerun.stdout
    instance = night.instance()
    assert instance.get_run_by_id(dead.run_id).status == dg.DagsterRunStatus.FAILURE
    [failure] = instance.all_logs(dead.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
    assert f"process {dead.tags[WORKER_PID]}" in failure.message and "no longer exists" in failure.message
    assert _graph_slots(instance) == ([], [])
    latest = instance.get_runs(limit=1)[0]
    assert latest.run_id != dead.run_id and latest.status == dg.DagsterRunStatus.SUCCESS

    staging = Staging(str(night.home / "staging"))
    days = [d for d in _days() if staging.path("email", "episodes", d).exists()]
    episode_ids = {row["id"] for day in days for row in staging.rows("email", "episodes", day)}
    assert len(episode_ids) > 10  # more than the two batches written
    ledger = LedgerResource(url=night.env.get("GRAPHFEED_LEDGER_URL"))
    with ledger.open(night.home) as book, GraphResource().writer(night.home) as writer:
        counts = book.counts("email")
        rows = writer._run(
            writer.writer.backend.query("graphfeed", "MATCH (e:Episodic) RETURN e.uuid AS uuid, count(*) AS n")
        )
    assert counts["ingested"] == len(episode_ids) and counts["pending"] == 0
    assert {r["uuid"] for r in rows} == episode_ids
    assert all(r["n"] == 1 for r in rows)


def test_given_worker_tags_when_judged_then_only_a_gone_process_of_this_host_is_dead():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        proc = psutil.Process(child.pid)
        alive = {
            WORKER_HOST: worker_tags()[WORKER_HOST],
            WORKER_PID: str(child.pid),
            WORKER_STARTED: f"{proc.create_time():.3f}",
        }
        assert not worker_gone(alive)
        assert worker_gone({**alive, WORKER_STARTED: f"{proc.create_time() - 3600:.3f}"})  # the pid was reused
        assert not worker_gone({**alive, WORKER_HOST: "another-host"})
        assert not worker_gone({})  # a run without tags is not judged
    finally:
        child.kill()
        child.wait()
    assert worker_gone(alive)
    assert not worker_gone(worker_tags())  # this very process


def test_given_a_started_run_of_a_gone_worker_holding_a_slot_when_the_sensor_ticks_then_it_is_failed_and_freed(
    instance,
):
    from pipelines.dead_runs import dead_run_reaper

    @dg.op
    def step():
        pass

    @dg.job
    def job():
        step()

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # a pid that existed and is gone
    gone = {**worker_tags(), WORKER_PID: str(child.pid), WORKER_STARTED: f"{psutil.Process().create_time():.3f}"}
    dead = instance.create_run_for_job(job, tags=gone, status=dg.DagsterRunStatus.STARTED)
    alive = instance.create_run_for_job(job, tags=worker_tags(), status=dg.DagsterRunStatus.STARTED)
    storage = instance.event_log_storage
    storage.set_concurrency_slots("graph_write_email", 1)
    assert storage.claim_concurrency_slot("graph_write_email", dead.run_id, "email__graph").is_claimed

    skipped = dead_run_reaper(dg.build_sensor_context(instance=instance))

    assert "1 dead run(s) failed" in skipped.skip_message
    assert instance.get_run_by_id(dead.run_id).status == dg.DagsterRunStatus.FAILURE
    assert instance.get_run_by_id(alive.run_id).status == dg.DagsterRunStatus.STARTED  # this process: alive
    assert _graph_slots(instance) == ([], [])
    assert storage.claim_concurrency_slot("graph_write_email", alive.run_id, "email__graph").is_claimed
