"""Root test configuration: the real database servers (Neo4j 5.26, PostgreSQL) as session fixtures, shared by every
test folder (one server of each kind per session)."""

import os
import tempfile

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
# One trained intent model (and its embedding cache) for the whole session and the graphfeed processes tests start:
# training embeds every labelled unit once; each temporary home would otherwise train its own.
os.environ.setdefault(
    "GRAPHFEED_MODEL_CACHE", os.path.join(tempfile.gettempdir(), f"graphfeed-test-models-{os.getuid()}")
)

# Each test home's shared FalkorDB stops when its last user leaves (as before issue 29), instead of idling for 15 min:
# a session creates many homes. Tests of the idle timeout set their own.
os.environ.setdefault("GRAPHFEED_FALKOR_IDLE_SECONDS", "0")

pytest_plugins = ["tests.servers.fixtures"]

REQUIRE_CORPUS_ENV = "GRAPHFEED_REQUIRE_CORPUS"


def _corpus_required() -> bool:
    return os.environ.get(REQUIRE_CORPUS_ENV, "").strip() == "1"


import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With GRAPHFEED_REQUIRE_CORPUS=1 (CI) a test skipped because ../shared/corpus is missing is a failure: a CI run
    without the corpus must not pass as "all skipped" (every corpus skip reason names the corpus)."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _corpus_required():
        reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)
        if "corpus" in reason.lower():
            report.outcome = "failed"
            report.longrepr = f"{reason}\n({REQUIRE_CORPUS_ENV}=1, so this is a failure, not a skip)"


def _file_weight(items: list) -> int:
    """0: a file with a real-model test (the longest files), 1: with another slow test, 2: the rest."""
    if any(item.get_closest_marker("real_llm") for item in items):
        return 0
    return 1 if any(item.get_closest_marker("slow") for item in items) else 2


def pytest_collection_modifyitems(config, items):
    """Files holding slow tiers first, in file order otherwise (a stable sort; each file's tests stay in order).
    Under pytest-xdist (`make test`: --dist loadfile --no-loadscope-reorder hands out whole files in this order) the
    long files start at once on both workers and the many quick files fill the end, instead of one long file starting
    last and running alone while the other worker idles."""
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    weight = {path: _file_weight(group) for path, group in by_file.items()}
    items[:] = sorted(items, key=lambda item: weight[item.nodeid.split("::", 1)[0]])
