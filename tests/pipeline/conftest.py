import json
from pathlib import Path

import pytest

from pipelines.resources import EpisodeConfig, ExportsResource, HomeResource, IntentModelResource
from pipelines.settings import REPO_ROOT

SAMPLE = REPO_ROOT / "sample"


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((SAMPLE / "expected.json").read_text())


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory) -> Path:
    """Train the intent model once per session; every resource set below shares it."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def resources(tmp_path, model_cache) -> dict:
    return {
        "home": HomeResource(path=str(tmp_path / "home")),
        "exports": ExportsResource(email=[str(SAMPLE / "exports" / "email")]),
        "episode_config": EpisodeConfig(jira_project_keys=["NW", "ACME"]),
        "intent_model": IntentModelResource(cache_dir=str(model_cache)),
    }
