"""Session-scoped pytest fixtures for the real Neo4j and PostgreSQL servers (register via
`pytest_plugins = ["tests.servers.fixtures"]` in tests/conftest.py).

A server that cannot start skips its tests with the reason, except when GRAPHFEED_REQUIRE_SERVERS=1 (CI):
then the tests fail with the reason, so a broken install can never pass as "all skipped".
"""

import itertools
import os
import re
from collections.abc import Iterator

import pytest

from tests.servers.neo4j_server import Neo4jServer, ensure_neo4j_jars, start_neo4j
from tests.servers.postgres_server import PostgresServer, start_postgres

REQUIRE_ENV = "GRAPHFEED_REQUIRE_SERVERS"
_fresh_numbers = itertools.count(1)


def servers_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "").strip() == "1"


def _unavailable(what: str, exc: BaseException) -> None:
    reason = f"{what} unavailable: {type(exc).__name__}: {exc}"
    if servers_required():
        pytest.fail(f"{reason}\n({REQUIRE_ENV}=1, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    """A running Neo4j 5.26 (bolt, auth on): use `.uri`, `.user`, `.password`. Shared by the whole session."""
    try:
        home = ensure_neo4j_jars()
        server = start_neo4j(tmp_path_factory.mktemp("neo4j"), home)
    except Exception as exc:
        _unavailable("Neo4j", exc)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """A running PostgreSQL with database `graphfeed`: use `.url` (SQLAlchemy) or `.create_database(name)`."""
    try:
        server = start_postgres(tmp_path_factory.mktemp("postgres"))
    except Exception as exc:
        _unavailable("PostgreSQL", exc)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_fresh_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> str:
    """SQLAlchemy URL of a brand-new, empty database for this test only (cheap: CREATE DATABASE from template1)."""
    slug = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:40]
    return postgres_server.create_database(f"t{next(_fresh_numbers)}_{slug}")


@pytest.fixture
def neo4j_empty(neo4j_server: Neo4jServer) -> Neo4jServer:
    """The session Neo4j with every node and relationship deleted first (indexes and constraints are kept)."""
    from neo4j import GraphDatabase

    with GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver, driver.session() as session:
        # CALL ... IN TRANSACTIONS needs an auto-commit transaction, i.e. session.run, not execute_query.
        session.run("MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
    return neo4j_server
