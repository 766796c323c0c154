"""Root test configuration: the real database servers (Neo4j 5.26, PostgreSQL) as session fixtures, shared by every
test folder (one server of each kind per session)."""

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

pytest_plugins = ["tests.servers.fixtures"]
