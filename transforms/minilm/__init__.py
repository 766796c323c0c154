"""A torch-free all-MiniLM-L6-v2 sentence encoder (text -> L2-normalised 384-d vector), shared by the intent
classifier's features and the graph's embeddings: one model per process and runtime.
"""

import functools
import os
from typing import Any

from ground.errors import ConfigError

RUNTIMES = ("onnx", "numpy")


def selected_runtime(runtime: str | None = None) -> str:
    """The given runtime, else GRAPHFEED_MINILM_RUNTIME (default onnx); checked."""
    runtime = runtime or os.environ.get("GRAPHFEED_MINILM_RUNTIME", "onnx")
    if runtime not in RUNTIMES:
        raise ConfigError(f"GRAPHFEED_MINILM_RUNTIME={runtime!r}: use one of {', '.join(RUNTIMES)}")
    return runtime


def check_taps(taps: tuple[int, ...], layers: int) -> tuple[int, ...]:
    """Tapped layers (1-based) whose mean-pooled states follow the sentence vector: each once, within the model."""
    if len(set(taps)) != len(taps) or any(not 1 <= t < layers for t in taps):
        raise ConfigError(f"MiniLM taps {taps}: each layer once, between 1 and {layers - 1}")
    return tuple(taps)


def shared_minilm(
    runtime: str | None = None, max_len: int = 256, int8: bool = False, taps: tuple[int, ...] = (), threads: int = 0
) -> Any:
    """One model per process, runtime, length and precision (~90 MB of weights): ONNX Runtime by default, numpy as the
    reference.

    Both float32 runtimes give the same vectors (float32 rounding, pinned by tests/graph/test_embedders.py), hence one
    embedder name. GRAPHFEED_MINILM_RUNTIME=numpy selects the numpy pass (no onnxruntime needed). `int8` (ONNX only;
    the numpy pass stays float32) quantizes the dense weights: ~2x faster, vectors at cosine ~0.99 to float32 — for
    features the process trains on itself (intent), never for vectors stored in the graph. `taps` appends the
    mean-pooled states of those layers (1-based) to each vector, again for intent features only. `threads`: ONNX
    Runtime's intra-op threads (0 = one per core; the graph writer passes GraphConfig.onnx_threads).
    """
    runtime = selected_runtime(runtime)
    return _load_minilm(runtime, max_len, int8 and runtime == "onnx", tuple(taps), threads if runtime == "onnx" else 0)


@functools.lru_cache(maxsize=4)
def _load_minilm(runtime: str, max_len: int, int8: bool, taps: tuple[int, ...], threads: int = 0) -> Any:
    if runtime == "onnx":
        from transforms.minilm.onnx_pass import OnnxMiniLM

        return OnnxMiniLM(max_len=max_len, int8=int8, taps=taps, threads=threads)
    from transforms.minilm.numpy_pass import NumpyMiniLM

    return NumpyMiniLM(max_len=max_len, taps=taps)
