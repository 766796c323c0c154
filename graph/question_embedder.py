"""The embedder without graphiti: the MiniLM text embedder the graph writer wraps for Graphiti (embedders.py) and the
read side uses as is, so that a question is embedded without importing graphiti_core (issue 29: ~2 s per process).

The model is loaded on first use (transforms/minilm: the ONNX session comes from a saved optimised model file), so a
reader that answers from the episodes alone never loads it, and `--timings` can tell its load apart.
"""

import asyncio
import os
import threading
import time
from typing import Any

from graph.config import GraphConfig

BATCH = 32
CACHE_LIMIT = 50_000
MINILM_NAME = "minilm-local:all-MiniLM-L6-v2"


class MiniLMTextEmbedder:
    """Texts -> 384-d MiniLM vectors (transforms/minilm), with a text->vector cache (names repeat across episodes)."""

    name = MINILM_NAME

    def __init__(self, model: Any = None, cache_limit: int = CACHE_LIMIT, batch: int = BATCH):
        self._model = model
        self.cache_limit = cache_limit
        self.batch = batch
        self._cache: dict[str, list[float]] = {}
        self._loading: threading.Thread | None = None
        self.load_seconds: float | None = None  # how long loading the model took (None: given, or not loaded yet)

    def _load(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        start = time.perf_counter()
        from transforms.minilm import shared_minilm

        self._model = shared_minilm()
        self.load_seconds = time.perf_counter() - start

    def preload(self) -> None:
        """Load the model in a background thread (the ONNX runtime's import and session start release the CPU to the
        command's own imports and the server attach on a second core); `model` waits for it."""
        if self._model is None and self._loading is None:
            self._loading = threading.Thread(target=self._load, name="graphfeed-minilm-load", daemon=True)
            self._loading.start()

    @property
    def model(self) -> Any:
        if self._loading is not None:
            self._loading.join()
            self._loading = None
        if self._model is None:
            self._load()
        return self._model

    def _encode_sorted(self, texts: list[str]) -> list[list[float]]:
        # Similar lengths per batch -> less padding work.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float] | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch):
            idx = order[start : start + self.batch]
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


def question_embedder(config: GraphConfig) -> Any:
    """The reader's embedder: MiniLM without graphiti; an OpenAI-compatible embedder through graphiti's client (that
    configuration needs the openai client anyway)."""
    if config.embedder == "minilm-local":
        return MiniLMTextEmbedder()
    from graph.embedders import make_embedder

    return make_embedder(config)


class UsesEmbedder:
    """The embedder a graph writer or reader uses, built on first use from its config (`config`, `_embedder`)."""

    config: GraphConfig
    _embedder: Any

    def _make_embedder(self) -> Any:
        return question_embedder(self.config)

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = self._make_embedder()
        return self._embedder

    @property
    def embedder_name(self) -> str:
        return self.config.embedder_identity()
