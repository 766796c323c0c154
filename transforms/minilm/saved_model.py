"""The optimised ONNX model file, built once per weights and ONNX Runtime version and reused by every process.

Building the graph from the safetensors weights (onnx.helper, ~2 s of imports and ~2-5 s of work) and letting ONNX
Runtime optimise it took seconds per process: a `graphfeed search` spent most of its time here (issue 29). The first
process saves ONNX Runtime's optimised model (`SessionOptions.optimized_model_filepath`, initializers in a `.data` file
beside it); later ones load that file (~0.1-0.3 s) with optimisation off. The file name carries the weights' SHA-256 (so other weights never load a stale
model), the variant (precision, taps) and the runtime version and machine (an ORT_ENABLE_ALL model may hold
hardware-specific fused operators). Hashing 90 MB costs ~0.2 s, so the hash is remembered per weights file (path,
size, mtime) in the cache directory and recomputed only when the file changes.
"""

import hashlib
import json
import os
import platform
from pathlib import Path

CACHE_ENV = "GRAPHFEED_MINILM_CACHE"


def cache_dir() -> Path:
    """GRAPHFEED_MINILM_CACHE, else <GRAPHFEED_MODEL_CACHE>/minilm, else the user's cache dir (~/.cache/graphfeed)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    models = os.environ.get("GRAPHFEED_MODEL_CACHE")
    if models:
        return Path(models) / "minilm"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "graphfeed" / "minilm"


def weights_sha256(weights: Path, cache: Path) -> str:
    """The weights file's SHA-256, remembered in `cache` against its path, size and mtime."""
    stat = weights.stat()
    key = hashlib.sha256(f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    memo = cache / f"weights-{key}.json"
    try:
        return str(json.loads(memo.read_text())["sha256"])
    except (OSError, ValueError, KeyError):
        pass
    digest = hashlib.sha256()
    with open(weights, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    sha = digest.hexdigest()
    _write_atomic(memo, json.dumps({"weights": str(weights.resolve()), "sha256": sha}).encode())
    return sha


def model_path(weights: Path, variant: str, runtime_version: str, cache: Path | str | None = None) -> Path:
    """Where the optimised model of these weights, this variant and this runtime lives (it may not exist yet)."""
    cache = cache_dir() if cache is None else Path(cache)
    sha = weights_sha256(weights, cache)
    machine = platform.machine() or "any"
    return cache / f"minilm-{sha[:16]}-{variant}-ort{runtime_version}-{machine}.onnx"


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def build_dir(path: Path) -> Path:
    """A private directory next to `path` for ONNX Runtime to write the optimised model and its weights into."""
    tmp = path.with_name(f".build-{path.stem}-{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    return tmp


def weights_file(path: Path) -> Path:
    """The model's initializers, saved beside it: ONNX Runtime maps them instead of parsing 90 MB of protobuf
    (load measured 0.3-0.5 s instead of 1.0-1.7 s on the loaded 2-core machine)."""
    return path.with_name(path.name + ".data")


def publish(built: Path, path: Path) -> None:
    """Move a finished build in place: the weights first, then the model file whose presence says both are there."""
    os.replace(built.parent / weights_file(built).name, weights_file(path))
    os.replace(built, path)
    try:
        built.parent.rmdir()
    except OSError:
        pass
