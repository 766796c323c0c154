"""Graph test fixtures: a private embedded FalkorDB home per test (Neo4j comes from the root conftest's servers)."""

import shutil
import tempfile
import uuid
from pathlib import Path

import pytest


@pytest.fixture
def graph_home():
    """Short path on purpose: a unix socket path must stay under ~100 bytes."""
    home = Path(tempfile.mkdtemp(prefix="gfg-"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def group_id() -> str:
    """Unique per test: the Neo4j server is shared by the session."""
    return "t_" + uuid.uuid4().hex[:12]


def graph_config(backend: str, home: Path, neo4j=None, **overrides):
    from graph.config import GraphConfig

    if backend == "neo4j":
        return GraphConfig(
            backend="neo4j",
            home=home,
            neo4j_uri=neo4j.uri,
            neo4j_user=neo4j.user,
            neo4j_password=neo4j.password,
            **overrides,
        )
    return GraphConfig(backend=backend, home=home, **overrides)


@pytest.fixture(params=["falkordb-embedded", pytest.param("neo4j", marks=pytest.mark.slow)])
def backend_config(request, graph_home):
    """A GraphConfig factory for each backend the scenario must pass on."""
    if request.param == "neo4j":
        server = request.getfixturevalue("neo4j_server")
        return lambda **kw: graph_config("neo4j", graph_home, server, **kw)
    return lambda **kw: graph_config(request.param, graph_home, **kw)
