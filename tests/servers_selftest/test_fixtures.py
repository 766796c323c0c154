"""The session fixtures as other tests see them (needs `pytest_plugins = ["tests.servers.fixtures"]` in
tests/conftest.py, or `-p tests.servers.fixtures` on the command line)."""

import pytest


@pytest.mark.slow
def test_given_neo4j_empty_when_used_twice_then_each_test_starts_without_nodes(neo4j_empty):
    from neo4j import GraphDatabase

    with GraphDatabase.driver(neo4j_empty.uri, auth=(neo4j_empty.user, neo4j_empty.password)) as driver:
        records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS c")
        assert records[0]["c"] == 0
        driver.execute_query("UNWIND range(1, 3) AS i CREATE (:Leftover {i: i})")


@pytest.mark.slow
def test_given_neo4j_empty_again_then_previous_nodes_are_gone(neo4j_empty, neo4j_server):
    from neo4j import GraphDatabase

    assert neo4j_empty is neo4j_server  # one server per session
    with GraphDatabase.driver(neo4j_server.uri, auth=(neo4j_server.user, neo4j_server.password)) as driver:
        records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS c")
        assert records[0]["c"] == 0


@pytest.mark.slow
def test_given_postgres_fresh_url_then_database_is_new_and_empty(postgres_server, postgres_fresh_url):
    import sqlalchemy as sa

    assert postgres_fresh_url != postgres_server.url
    engine = sa.create_engine(postgres_fresh_url)
    try:
        with engine.begin() as conn:
            tables = conn.execute(sa.text("select count(*) from pg_tables where schemaname = 'public'")).scalar()
            assert tables == 0
            conn.execute(sa.text("create table t (x int)"))
    finally:
        engine.dispose()
