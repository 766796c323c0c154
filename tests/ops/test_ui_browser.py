"""Given a few nights materialised into a local instance, when `dagster dev` serves it on loopback, then the Dagster UI
— rendered by a real headless Chromium — shows every source's chain with its lineage edges, the partitions and the
checks. Screenshots are kept under artifacts/ui/ (gitignored) for a person to look at."""

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import dagster as dg
import pytest

from assets.intent_model import build_intent_classifier
from assets.partitions import daily_partitions
from assets.source_chain import build_source_chain
from flow.settings import REPO_ROOT, SOURCES
from tests.ops.cdp import Browser, chromium_binary
from tests.ops.conftest import chain_resources
from tests.servers._process import free_port, log_tail, stop_group

pytestmark = pytest.mark.slow

NIGHTS = ("2026-03-02", "2026-03-03")
intent_classifier = build_intent_classifier()
ARTIFACTS = REPO_ROOT / "artifacts" / "ui"
LOCATION = "pipelines.definitions"
EPISODE_CHECKS = ("no_empty_content", "intent_and_fingerprint", "failure_rate_below_bound")
GRAPH_CHECKS = ("embedder_matches", "ingest_failure_rate_below_bound", "backlog_not_growing")
# Each chain: raw_records -> episodes, models/intent_classifier -> episodes, episodes -> graph, graph -> nightly_report
EDGES_PER_SOURCE_GROUP = 4
SKIP_ONBOARDING = (
    "(() => { const b = [...document.querySelectorAll('button')].find(x => x.innerText.trim() === 'Skip');"
    " if (b) { b.click(); return true } return false })()"
)
EDGE_COUNT = "document.querySelectorAll('svg path[marker-end^=\"url(#arrow\"]').length"
CLICK_BUTTON = (
    "(() => { const b = [...document.querySelectorAll('button')].find(x => x.innerText.trim() === %r);"
    " if (b) { b.click(); return true } return false })()"
)
CHARTS = "document.querySelectorAll('canvas').length"


@pytest.fixture(scope="module")
def dagster_home(tmp_path_factory, ops_model_cache) -> tuple[Path, Path]:
    """A local instance (the checked-in dagster.yaml) with NIGHTS of the email chain materialised in-process."""
    root = tmp_path_factory.mktemp("ui")
    home, graphfeed_home = root / "dagster_home", root / "graphfeed_home"
    home.mkdir()
    shutil.copyfile(REPO_ROOT / "dagster.yaml", home / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        for night in NIGHTS:
            result = dg.materialize(
                [intent_classifier, *build_source_chain("email")],
                instance=instance,
                partition_key=night,
                resources=chain_resources(graphfeed_home, ops_model_cache),
                selection=dg.AssetSelection.groups("models", "email"),
            )
            assert result.success, f"materialising {night} failed"
    return home, graphfeed_home


def _wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dagster dev exited with {proc.returncode}:\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"dagster dev did not answer {url} within {timeout}s:\n{log_tail(log)}")


@pytest.fixture(scope="module")
def dagster_dev(dagster_home):
    """`dagster dev` on 127.0.0.1 in its own process group (start_new_session: what `set -m` gives a shell), so one
    signal to the group stops the webserver, the daemon and the code server together."""
    home, graphfeed_home = dagster_home
    port = free_port()
    log = home.parent / "dagster-dev.log"
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "GRAPHFEED_HOME": str(graphfeed_home),
        "GRAPHITI_TELEMETRY_ENABLED": "false",
        "DAGSTER_DISABLE_TELEMETRY": "yes",
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dagster", "dev", "-m", LOCATION, "-h", "127.0.0.1", "-p", str(port)],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_http(f"http://127.0.0.1:{port}/server_info", proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_group(proc, grace=0.1)


@pytest.fixture(scope="module")
def browser():
    if chromium_binary() is None:
        from tests.servers.fixtures import servers_required

        reason = "no chromium (run scripts/install_browser.sh)"
        if servers_required():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    with Browser() as b:
        yield b.page()


def _open(browser: Browser, url: str, *needles: str) -> str:
    browser.goto(url)
    text = browser.wait_for_text(*needles, timeout=90)
    if browser.evaluate(SKIP_ONBOARDING):  # first visit: the "Join the Dagster community" dialog
        time.sleep(0.5)
    return text


def test_every_source_chain_shows_with_its_lineage_edges(dagster_dev, browser):
    text = _open(browser, f"{dagster_dev}/asset-groups", "Global asset lineage", *SOURCES, "models", "reporting")
    browser.screenshot(ARTIFACTS / "global-lineage.png")
    assert "Reload definitions" in text
    partitions = f"{len(daily_partitions().get_partition_keys())} partitions"  # shown on each asset of a chain
    for source in SOURCES:
        _open(
            browser,
            f"{dagster_dev}/locations/{LOCATION}/asset-groups/{source}",
            "raw_records",
            "episodes",
            "graph",
            "intent_classifier",
            "nightly_report",
            partitions,
        )
        deadline = time.monotonic() + 30
        while browser.evaluate(EDGE_COUNT) < EDGES_PER_SOURCE_GROUP and time.monotonic() < deadline:
            time.sleep(0.5)
        assert browser.evaluate(EDGE_COUNT) == EDGES_PER_SOURCE_GROUP, f"{source}: lineage edges missing"
        assert browser.text().count(partitions) == 3, f"{source}: not every asset of the chain shows {partitions!r}"
        browser.screenshot(ARTIFACTS / f"group-{source}.png")
    assert (ARTIFACTS / "group-email.png").stat().st_size > 10_000


def test_the_materialised_partitions_show(dagster_dev, browser):
    text = _open(
        browser, f"{dagster_dev}/assets/email/episodes?view=partitions", f"Materialized ({len(NIGHTS)})", "Failed (0)"
    )
    browser.screenshot(ARTIFACTS / "email-episodes-partitions.png")
    assert "Missing" in text
    text = _open(browser, f"{dagster_dev}/locations/{LOCATION}/asset-groups/email", "3 / 3 Passed")
    assert text.count("3 / 3 Passed") == 2  # episodes and graph: their checks ran and passed


@pytest.mark.parametrize("source", SOURCES)
def test_every_chain_lists_its_checks(dagster_dev, browser, source):
    episodes = _open(browser, f"{dagster_dev}/assets/{source}/episodes?view=checks", *EPISODE_CHECKS)
    graph = _open(browser, f"{dagster_dev}/assets/{source}/graph?view=checks", *GRAPH_CHECKS)
    assert all(check in episodes for check in EPISODE_CHECKS) and all(check in graph for check in GRAPH_CHECKS)
    if source == "email":
        browser.screenshot(ARTIFACTS / "email-graph-checks.png")


def test_the_nightly_schedule_shows_with_its_time(dagster_dev, browser):
    _open(
        browser,
        f"{dagster_dev}/automation",
        "nightly_ingest_schedule",
        "run_failure_alert",
        "asset_check_failure_alert",
        "quality_alert",
    )
    text = _open(browser, f"{dagster_dev}/locations/{LOCATION}/schedules/nightly_ingest_schedule", "(15 2 * * *)")
    assert "nightly_ingest" in text and "Execution timezone" in text
    browser.screenshot(ARTIFACTS / "nightly-schedule.png")


@pytest.mark.parametrize(
    "asset, keys",
    [("episodes", ("dedup_rate", "failures", "duplicates")), ("graph", ("llm_cost_usd", "failed", "backlog"))],
)
def test_metadata_plots_over_the_materialised_partitions(dagster_dev, browser, asset, keys):
    _open(browser, f"{dagster_dev}/assets/email/{asset}", "Metadata", *keys)
    assert browser.evaluate(CLICK_BUTTON % "Plots"), "no Plots toggle on the asset page"
    time.sleep(1)
    assert browser.evaluate(CLICK_BUTTON % "Events"), "no Events axis for the plots"  # a point per night
    deadline = time.monotonic() + 30
    while browser.evaluate(CHARTS) < len(keys) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert browser.evaluate(CHARTS) >= len(keys), "metadata plots did not render"
    text = browser.text()
    assert all(key in text for key in keys)
    browser.evaluate(SKIP_ONBOARDING)
    browser.screenshot(ARTIFACTS / f"email-{asset}-plots.png")
