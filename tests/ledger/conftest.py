"""Every ledger test runs on SQLite (a file in tmp_path) and on a real PostgreSQL (slow tier).

The PostgreSQL fixtures are the shared session ones registered in tests/conftest.py.
"""

import pytest

from graph.ledger.ledger import Ledger


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def ledger_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'home' / 'ledger.sqlite'}"
    return request.getfixturevalue("postgres_fresh_url")


@pytest.fixture
def ledger(ledger_url):
    with Ledger(ledger_url) as opened:
        yield opened
