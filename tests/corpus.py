"""The shared real-data corpus (../shared/corpus): skipped when absent, a failure when GRAPHFEED_REQUIRE_CORPUS=1."""

import os
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def corpus_dir(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        message = f"shared corpus folder {path} is missing"
        if os.environ.get("GRAPHFEED_REQUIRE_CORPUS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path
