import json
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
def model_cache(tmp_path_factory) -> Path:
    """Train the intent model once per session; every resource set below shares it."""
    return tmp_path_factory.mktemp("models")


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
