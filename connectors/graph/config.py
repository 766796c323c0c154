"""How graphfeed reaches its graph: which backend, which embedder. Secrets are SecretStr and never printed."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

from connectors.graph.llm.settings import LLMSettings
from ground.errors import ConfigError


class EmbedderMismatch(RuntimeError):
    """The graph was written with another embedder/dimension: mixing vectors breaks cosine search."""


class GraphConfig(BaseModel):
    backend: Literal["falkordb-embedded", "falkordb", "neo4j"] = "falkordb-embedded"
    home: Path = Field(default_factory=lambda: Path(".graphfeed"))
    falkor_host: str = "localhost"
    falkor_port: int = 6379
    falkor_password: SecretStr | None = None
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    embedder: Literal["minilm-local", "openai"] = "minilm-local"
    embedder_model: str = "all-MiniLM-L6-v2"
    embedder_base_url: str | None = None
    embedder_api_key: SecretStr | None = None
    embedding_dim: int = 384
    domain_orgs: dict[str, str] = Field(default_factory=dict)
    # Per source: "structured" (system-of-record fields), "llm" (Graphiti add_episode), "both".
    extraction: dict[str, Literal["structured", "llm", "both"]] = Field(default_factory=dict)
    embedded_start_timeout: float = 20.0
    # Server-side timeout of each search query (FalkorDB TIMEOUT, Neo4j transaction timeout): a slower step is
    # dropped and reported as degraded instead of holding the database.
    search_timeout_ms: int = Field(default=5000, ge=1)
    # Intent facts ("X escalated a risk on Y") only from episodes whose intent confidence reaches this; 0 = every
    # episode the classifier did not call `other` (docs/intent.md has the precision each bar measured on real units).
    intent_fact_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    # The LLM endpoint, limits, prices, budgets and review queue; None/no base_url = no LLM anywhere.
    llm: LLMSettings | None = None

    def falkor_dir(self) -> Path:
        return Path(self.home) / "falkordb"

    def extraction_mode(self, source: str) -> str:
        return self.extraction.get(source, "structured")

    def embedder_identity(self) -> str:
        """What is recorded in the graph: a change of any part means different vectors."""
        if self.embedder == "minilm-local":
            return "minilm-local:all-MiniLM-L6-v2"
        return f"openai:{self.embedder_model}"

    def llm_sources(self) -> list[str]:
        return sorted(s for s, mode in self.extraction.items() if mode in ("llm", "both"))

    def uses_llm(self) -> bool:
        return bool(self.llm_sources())

    def check(self) -> "GraphConfig":
        if self.embedder == "minilm-local" and self.embedding_dim != 384:
            raise ConfigError(f"embedder minilm-local produces 384-d vectors, embedding_dim={self.embedding_dim}")
        llm_sources = self.llm_sources()
        if llm_sources:
            if self.llm is None or not self.llm.enabled:
                raise ConfigError(
                    f"extraction mode llm/both for {', '.join(llm_sources)} needs an LLM endpoint: set "
                    "GRAPHFEED_LLM_BASE_URL (any OpenAI-compatible /v1 URL) and GRAPHFEED_LLM_MODEL, or use 'structured'"
                )
            prices = self.llm.price_table()
            unpriced = [m for m in [*self.llm.models(), self.embedder_model] if not prices.knows(m)]
            if unpriced:
                raise ConfigError(
                    f"no price for model(s) {', '.join(unpriced)}: budgets need one. Add them to GRAPHFEED_LLM_PRICES "
                    '(JSON, USD per 1M tokens, e.g. {"my-model": [0.5, 1.5]}; 0 for a free local model)'
                )
        if self.backend == "neo4j" and self.neo4j_password is None:
            raise ConfigError("backend neo4j needs neo4j_password")
        return self
