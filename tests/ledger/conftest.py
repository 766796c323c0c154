"""Every ledger test runs on SQLite (a file in tmp_path) and on a real PostgreSQL (slow tier).

The PostgreSQL fixtures are the shared session ones; pytest_plugins is not allowed in a non-root conftest, so they are
imported into this namespace instead.
"""

import pytest

from connectors.graph.ledger import Ledger
from tests.servers.fixtures import postgres_fresh_url, postgres_server  # noqa: F401  (fixtures, used by name)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def ledger_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'home' / 'ledger.sqlite'}"
    return request.getfixturevalue("postgres_fresh_url")


@pytest.fixture
def ledger(ledger_url):
    with Ledger(ledger_url) as opened:
        yield opened
