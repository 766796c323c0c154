"""Local clients for Graphiti: a torch-free numpy all-MiniLM-L6-v2 embedder, a local reranker, and an LLM client that
refuses to be called.

Graphiti() builds OpenAI clients for any of llm_client/embedder/cross_encoder left out, so all three are always passed.
The embedder wraps the torch-free MiniLM sentence encoder of transforms/minilm (the intent classifier uses the same one).
"""

import os
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient, EmbedderConfig  # noqa: E402
from graphiti_core.llm_client.client import LLMClient  # noqa: E402
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from graph.config import ConfigError, GraphConfig  # noqa: E402
from graph.question_embedder import BATCH, CACHE_LIMIT, MiniLMTextEmbedder  # noqa: E402
from graph.question_embedder import UsesEmbedder as QuestionSide  # noqa: E402
from transforms.minilm import shared_minilm  # noqa: E402
from transforms.minilm.numpy_pass import NumpyMiniLM  # noqa: E402


class NumpyMiniLMEmbedder(MiniLMTextEmbedder, EmbedderClient):
    """Graphiti EmbedderClient over the MiniLM text embedder (question_embedder.py; the read side uses it directly)."""

    def __init__(self, model: Any = None, cache_limit: int = CACHE_LIMIT, batch: int = BATCH):
        super().__init__(model if model is not None else shared_minilm(), cache_limit, batch)
        self.config = EmbedderConfig(embedding_dim=NumpyMiniLM.dim)


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

    async def _generate_response(
        self,
        messages: list,
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        self.calls += 1
        raise RuntimeError("an LLM call was attempted in graphfeed's structured (no-LLM) graph mode")


def make_embedder(config: GraphConfig) -> EmbedderClient:
    if config.embedder == "minilm-local":
        return NumpyMiniLMEmbedder(shared_minilm(threads=config.onnx_threads))
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

    api_key = config.embedder_api_key.get_secret_value() if config.embedder_api_key else None
    if not api_key:
        raise ConfigError("embedder 'openai' needs embedder_api_key (a placeholder works for keyless local servers)")
    return OpenAIEmbedder(
        config=OpenAIEmbedderConfig(
            embedding_model=config.embedder_model,
            api_key=api_key,
            base_url=config.embedder_base_url,
            embedding_dim=config.embedding_dim,
        )
    )


def local_graphiti(driver: Any, embedder: EmbedderClient) -> Any:
    """A Graphiti bound to one driver with local clients only: `Graphiti()` would otherwise build OpenAI clients."""
    from graphiti_core import Graphiti

    return Graphiti(
        graph_driver=driver,
        llm_client=ForbiddenLLMClient(),
        embedder=embedder,
        cross_encoder=EmbeddingReranker(embedder),
    )


class UsesEmbedder(QuestionSide):
    """The writer's embedder: a graphiti EmbedderClient (Graphiti and add_episode call it)."""

    def _make_embedder(self) -> Any:
        return make_embedder(self.config)
