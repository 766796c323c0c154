"""Given the production dagster.yaml (docs/deploy/dagster.production.yaml) with its env values pointing at a real
PostgreSQL, when `dagster asset materialize` runs as a subprocess, then runs, events and pools live in PostgreSQL —
and two runs launched at once never write the graph (or read the source) at the same time."""

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dagster as dg
import pytest

from flow.settings import REPO_ROOT
from pipelines.dagster_private import DagsterEventType

pytestmark = pytest.mark.slow

PRODUCTION_YAML = REPO_ROOT / "docs" / "deploy" / "dagster.production.yaml"
FIRST_NIGHT = "2026-03-02"
CONCURRENT_NIGHTS = ("2026-03-03", "2026-03-04")


class ProductionHome:
    def __init__(self, root: Path, env: dict[str, str]):
        self.root, self.env = root, env

    def materialize(self, partition: str) -> subprocess.CompletedProcess:
        cmd = [
            sys.executable,
            "-m",
            "dagster",
            "asset",
            "materialize",
            "-m",
            "pipelines.definitions",
            "--select",
            "group:email",
            "--partition",
            partition,
        ]
        return subprocess.run(cmd, cwd=REPO_ROOT, env=self.env, capture_output=True, text=True, timeout=600)

    def instance(self) -> dg.DagsterInstance:
        """The same instance, opened in this process (the yaml's env values must resolve here too)."""
        saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        try:
            return dg.DagsterInstance.from_config(str(self.root / "dagster_home"))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="module")
def production(postgres_server, tmp_path_factory) -> ProductionHome:
    root = tmp_path_factory.mktemp("production")
    (root / "dagster_home").mkdir()
    shutil.copyfile(PRODUCTION_YAML, root / "dagster_home" / "dagster.yaml")
    env = {
        **os.environ,
        "DAGSTER_HOME": str(root / "dagster_home"),
        "DAGSTER_PG_HOST": postgres_server.host,
        "DAGSTER_PG_PORT": str(postgres_server.port),
        "DAGSTER_PG_USER": postgres_server.user,
        "DAGSTER_PG_PASSWORD": postgres_server.password,
        "DAGSTER_PG_DB": "dagster_prod",
        "PGSSLMODE": "disable",  # the test server has no TLS; production sets require
        "GRAPHFEED_HOME": str(root / "graphfeed_home"),
        "GRAPHFEED_LEDGER_URL": postgres_server.create_database("ledger_prod"),
        "GRAPHITI_TELEMETRY_ENABLED": "false",
    }
    env.pop("GRAPHFEED_EMAIL_EXPORTS", None)  # the bundled sample company
    postgres_server.create_database("dagster_prod")
    return ProductionHome(root, env)


@pytest.fixture(scope="module")
def first_night(production):
    done = production.materialize(FIRST_NIGHT)
    assert done.returncode == 0, f"materialize failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return done


def _runs(instance: dg.DagsterInstance, partition: str) -> list[dg.DagsterRun]:
    return list(instance.get_runs(filters=dg.RunsFilter(tags={"dagster/partition": partition})))


def test_a_partition_materialises_into_postgres_storage(production, first_night):
    with production.instance() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert type(instance.schedule_storage).__name__ == "PostgresScheduleStorage"
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.run_monitoring_enabled and instance.run_retries_enabled
        [run] = _runs(instance, FIRST_NIGHT)
        assert run.status == dg.DagsterRunStatus.SUCCESS
        for stage in ("raw_records", "episodes", "graph"):
            record = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey(["email", stage]), asset_partitions=[FIRST_NIGHT]), limit=1
            ).records
            assert record, f"email/{stage} has no materialisation for {FIRST_NIGHT}"
        graph = record[0].asset_materialization.metadata
        assert graph["ingested"].value > 0
        pools = {
            pool: instance.event_log_storage.get_concurrency_info(pool).slot_count
            for pool in ("graph_write_email", "email_api")
        }
        assert pools == {"graph_write_email": 1, "email_api": 1}  # default_limit: 1, created on first use


def test_the_ledger_lives_in_postgres_too(production, first_night):
    from sqlalchemy import create_engine, inspect

    engine = create_engine(production.env["GRAPHFEED_LEDGER_URL"])
    try:
        assert inspect(engine).get_table_names(), "the ledger created no tables in PostgreSQL"
    finally:
        engine.dispose()


def _step_windows(instance: dg.DagsterInstance, run_id: str, step_key: str) -> tuple[float, float]:
    start = end = None
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None or event.step_key != step_key:
            continue
        if event.event_type == DagsterEventType.STEP_START:
            start = entry.timestamp
        elif event.event_type in (DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE):
            end = entry.timestamp
    assert start is not None and end is not None, f"{step_key} did not run in {run_id}"
    return start, end


def test_pools_hold_across_two_concurrent_runs(production, first_night):
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(production.materialize, CONCURRENT_NIGHTS))
    for night, result in zip(CONCURRENT_NIGHTS, done):
        assert result.returncode == 0, f"{night} failed:\n{result.stderr[-6000:]}"

    with production.instance() as instance:
        runs = [_runs(instance, night)[0] for night in CONCURRENT_NIGHTS]
        records = {
            r.dagster_run.run_id: r
            for r in instance.get_run_records(filters=dg.RunsFilter(run_ids=[run.run_id for run in runs]))
        }
        spans = sorted((records[run.run_id].start_time, records[run.run_id].end_time) for run in runs)
        assert spans[1][0] < spans[0][1], "the two runs did not overlap, so the test proves nothing"

        for step_key in ("email__graph", "email__raw_records"):  # pools graph_write_email and email_api
            first, second = sorted(_step_windows(instance, run.run_id, step_key) for run in runs)
            assert second[0] >= first[1], f"{step_key} ran in both runs at once: {first} overlaps {second}"

        blocked = [
            entry.message
            for run in runs
            for entry in instance.all_logs(run.run_id)
            if entry.dagster_event
            and entry.dagster_event.event_type == DagsterEventType.ENGINE_EVENT
            and "blocked by limit for pool" in (entry.message or "")
        ]
        assert blocked, "no step waited for a pool slot although both runs ran at once"
