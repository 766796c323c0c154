"""Self-test of the test servers: each starts for real, answers a query, stops, and leaves no process behind.

These start their own servers (not the session fixtures) because they must stop them and check they are gone.
"""

import asyncio
import subprocess
from pathlib import Path

import pytest

from tests.servers import fixtures
from tests.servers._process import pid_alive, port_accepts
from tests.servers.neo4j_server import C1_ONLY, FETCH_SCRIPT, Neo4jServer, ensure_neo4j_jars, jvm_options, start_neo4j
from tests.servers.postgres_server import start_postgres


def _start_or_skip(what: str, start):
    try:
        return start()
    except Exception as exc:
        fixtures._unavailable(what, exc)


# --- skip/fail policy (fast, no server) ---------------------------------------------------------------------


def test_given_servers_not_required_when_unavailable_then_skips(monkeypatch):
    monkeypatch.delenv(fixtures.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="Neo4j unavailable: RuntimeError: no java"):
        fixtures._unavailable("Neo4j", RuntimeError("no java"))


def test_given_ci_requires_servers_when_unavailable_then_fails(monkeypatch):
    monkeypatch.setenv(fixtures.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL unavailable: .*no initdb"):
        fixtures._unavailable("PostgreSQL", RuntimeError("no initdb"))


def test_the_test_server_runs_c1_only_and_a_peak_server_keeps_the_c2_jit():
    # given the shared JVM options, then the test suites start Neo4j C1-only (fast start) and the bench's peak
    # server drops only that option (C2 for a long-running server), keeping heap, GC and the module opens
    assert C1_ONLY in jvm_options()
    assert jvm_options(peak=True) == [option for option in jvm_options() if option != C1_ONLY]


# --- real servers -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_given_cached_jars_when_fetching_again_then_nothing_is_downloaded():
    home = _start_or_skip("Neo4j jars", ensure_neo4j_jars)
    jars = sorted((home / "jars").glob("*.jar"))
    before = {jar: jar.stat().st_mtime_ns for jar in jars}
    done = subprocess.run(["bash", str(FETCH_SCRIPT), str(home)], capture_output=True, text=True, check=True)
    assert "downloading" not in done.stderr and "building" not in done.stderr
    assert (home / "launcher" / "neo4j-launcher.jar").is_file()
    assert any(jar.name.startswith("neo4j-bolt-5.26.") for jar in jars)
    assert {jar: jar.stat().st_mtime_ns for jar in sorted((home / "jars").glob("*.jar"))} == before


def _graphiti_builds_its_indices(server: Neo4jServer) -> set[str]:
    """graphiti 0.31.2's own index set on Neo4j: range + fulltext (core Neo4j 5, no APOC)."""
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    async def run() -> set[str]:
        # Built inside the loop, the driver schedules build_indices_and_constraints itself; we await that one
        # run explicitly instead, so there is no duplicate concurrent build racing it.
        driver = Neo4jDriver(server.uri, server.user, server.password)
        try:
            if driver._init_task is not None:
                await driver._init_task
            else:
                await driver.build_indices_and_constraints()
            records, _, _ = await driver.execute_query("SHOW INDEXES YIELD name, type RETURN name, type")
            return {f"{r['type']}:{r['name']}" for r in records}
        finally:
            await driver.close()

    return asyncio.run(run())


@pytest.mark.slow
def test_given_neo4j_when_started_then_queries_work_and_stop_leaves_nothing(tmp_path: Path):
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError

    server = _start_or_skip("Neo4j", lambda: start_neo4j(tmp_path, ensure_neo4j_jars()))
    try:
        assert server.uri == f"bolt://127.0.0.1:{server.port}"
        assert server.password not in " ".join(server.process.args)  # env only, never argv
        with GraphDatabase.driver(server.uri, auth=server.auth) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            assert records[0]["one"] == 1
            driver.execute_query("CREATE (:Probe {name: $name})", name="round-trip")
            records, _, _ = driver.execute_query("MATCH (p:Probe) RETURN p.name AS name")
            assert [r["name"] for r in records] == ["round-trip"]
            records, _, _ = driver.execute_query("CALL dbms.components() YIELD versions RETURN versions[0] AS v")
            assert records[0]["v"].startswith("5.26.")
            names = {
                "db.create.setNodeVectorProperty",
                "db.index.fulltext.queryNodes",
                "db.index.fulltext.queryRelationships",
            }
            records, _, _ = driver.execute_query(
                "SHOW PROCEDURES YIELD name WHERE name IN $names RETURN collect(name) AS found", names=list(names)
            )
            assert set(records[0]["found"]) == names  # what graphiti 0.31.2 calls on Neo4j
        with pytest.raises(AuthError), GraphDatabase.driver(server.uri, auth=("neo4j", "wrong-password")) as bad:
            bad.execute_query("RETURN 1")

        indexes = _graphiti_builds_its_indices(server)
        assert {"FULLTEXT:node_name_and_summary", "FULLTEXT:edge_name_and_fact", "RANGE:entity_uuid"} <= indexes
    finally:
        server.stop()

    assert not server.is_running()
    assert not pid_alive(server.pid)
    assert not port_accepts("127.0.0.1", server.port)
    assert "STOPPED" in server.log_path.read_text()  # clean shutdown, not SIGKILL


@pytest.mark.slow
def test_given_postgres_when_started_then_sqlalchemy_round_trips_and_stop_leaves_nothing(tmp_path: Path):
    import sqlalchemy as sa

    server = _start_or_skip("PostgreSQL", lambda: start_postgres(tmp_path))
    try:
        assert server.url.startswith(f"postgresql+psycopg2://{server.user}:")
        assert server.url.endswith(f"@127.0.0.1:{server.port}/{server.dbname}")
        engine = sa.create_engine(server.url)
        try:
            with engine.begin() as conn:
                assert conn.execute(sa.text("select 1")).scalar() == 1
                conn.execute(sa.text("create table probe (id int primary key, body text)"))
                conn.execute(sa.text("insert into probe values (1, :body)"), {"body": "ünïcode round-trip"})
            with engine.connect() as conn:
                assert conn.execute(sa.text("select body from probe where id = 1")).scalar() == "ünïcode round-trip"
        finally:
            engine.dispose()

        other = sa.create_engine(server.create_database("second_db"))
        try:
            with other.connect() as conn:
                assert conn.execute(sa.text("select current_database()")).scalar() == "second_db"
                assert conn.execute(sa.text("select to_regclass('probe')")).scalar() is None
        finally:
            other.dispose()

        with pytest.raises(sa.exc.OperationalError):
            bad = sa.create_engine(server.url.replace(server.password, "wrong-password"))
            try:
                bad.connect().close()
            finally:
                bad.dispose()
    finally:
        server.stop()

    assert not server.is_running()
    assert not pid_alive(server.pid)
    assert not port_accepts("127.0.0.1", server.port)
