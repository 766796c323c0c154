import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from assets.resources import (
    EpisodeConfig,
    ExportsResource,
    GraphResource,
    HomeResource,
    IngestConfig,
    IntentModelResource,
    LedgerResource,
    SourceApisResource,
)
from flow.settings import REPO_ROOT

SAMPLE = REPO_ROOT / "sample"


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((SAMPLE / "expected.json").read_text())


@pytest.fixture(scope="session")
def model_cache() -> Path:
    """The root conftest's shared model cache (GRAPHFEED_MODEL_CACHE): the intent model is trained once for every
    test folder, xdist worker and graphfeed subprocess, not once more per folder and worker (each training embeds
    every labelled unit; models are keyed by code and data version, and published by an atomic rename)."""
    return Path(os.environ["GRAPHFEED_MODEL_CACHE"])


def short_home():
    """Short on purpose: the embedded FalkorDB's unix socket lives under it (socket paths stop at ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="gfh-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


home = pytest.fixture(short_home)
module_home = pytest.fixture(short_home, scope="module", name="module_home")


def sample_resources(home: Path, model_cache: Path) -> dict:
    """Every resource the chains need, pointed at the bundled sample company and a private home."""
    return {
        "home": HomeResource(path=str(home)),
        "exports": ExportsResource(
            paths_by_source={s: [str(SAMPLE / "exports" / s)] for s in ("email", "jira", "confluence", "salesforce")}
        ),
        "episode_config": EpisodeConfig(jira_project_keys=["NW", "ACME"]),
        "intent_model": IntentModelResource(cache_dir=str(model_cache)),
        "graph": GraphResource(domain_orgs={"acme.example": "Acme Corp", "northwind.example": "Northwind Analytics"}),
        "ledger": LedgerResource(),
        "ingest_config": IngestConfig(batch_size=20),
        "apis": SourceApisResource(),
    }


@pytest.fixture
def resources(home, model_cache) -> dict:
    return sample_resources(home, model_cache)
