"""The graph package. Importing any module of it first runs this: graphiti-core telemetry is off by default (it would
otherwise try to phone home) before graphiti_core is first imported; an explicit GRAPHITI_TELEMETRY_ENABLED wins."""

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
