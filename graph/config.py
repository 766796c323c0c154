"""How graphfeed reaches its graph: which backend, which embedder. Secrets are SecretStr and never printed."""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr

from graph.llm.settings import LLMSettings
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
    # ONNX Runtime intra-op threads of the local MiniLM (GRAPHFEED_ONNX_THREADS); 0 = ONNX Runtime's default, one per
    # core. N writers (one per group) on N cores: 1 each, else they put N x cores compute threads on the cores.
    onnx_threads: int = Field(default=0, ge=0)
    domain_orgs: dict[str, str] = Field(default_factory=dict)
    # Per source: "structured" (system-of-record fields), "llm" (Graphiti add_episode), "both".
    extraction: dict[str, Literal["structured", "llm", "both"]] = Field(default_factory=dict)
    embedded_start_timeout: float = 20.0
    # The shared embedded FalkorDB stops after this long unused (embedded_falkor.py); 0 = when the last user leaves.
    embedded_idle_timeout: float = Field(
        default_factory=lambda: float(os.environ.get("GRAPHFEED_FALKOR_IDLE_SECONDS") or 900), ge=0
    )
    # Server-side timeout of each search query (FalkorDB TIMEOUT, Neo4j transaction timeout): a slower step is
    # dropped and reported as degraded instead of holding the database.
    search_timeout_ms: int = Field(default=5000, ge=1)
    # Intent facts ("X escalated a risk on Y") only from episodes whose intent confidence reaches this; 0 = every
    # episode the classifier did not call `other` (docs/intent.md has the precision each bar measured on real units).
    intent_fact_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    # Where the per-group write locks live (group_locks.py): the ledger's PostgreSQL URL (advisory locks, shared by
    # workers on several machines) or None (flock files under the home, for one machine sharing a home).
    write_lock_url: SecretStr | None = None  # carries the ledger's password: never printed
    # A bulk load (`graphfeed run --backfill`): the vector indexes are dropped when a group is first opened and built
    # once by build_vector_indexes() at the end (HNSW upkeep per write costs ~3x building it after; docs/capacity.md).
    defer_vector_indexes: bool = False
    # The LLM endpoint, limits, prices, budgets and review queue; None/no base_url = no LLM anywhere.
    llm: LLMSettings | None = None

    @classmethod
    def from_env(cls, home: Path, environ: Mapping[str, str] | None = None) -> "GraphConfig":
        """The read commands' config: connection and embedder from the environment as the nightly run reads them
        (connection_env), secrets straight from their variables. No Dagster on the read path."""
        env = os.environ if environ is None else environ
        fields = connection_env(env)
        if fields["embedder"] == "minilm-local":
            fields["embedder_model"] = "all-MiniLM-L6-v2"
        secrets = {field: env[name] for field, name in SECRET_ENV.items() if env.get(name)}
        return cls(home=home, **fields, **secrets)

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


# The variables of the graph's secrets; they reach a Dagster resource only as dagster.EnvVar (pipelines/resources.py).
SECRET_ENV = {"neo4j_password": "NEO4J_PASSWORD", "embedder_api_key": "GRAPHFEED_EMBEDDER_API_KEY"}


def connection_env(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The graph's connection, embedder and search settings from the environment (secrets apart): the one reading of
    these variables, for the nightly run's GraphResource and the read commands alike."""
    env = os.environ if environ is None else environ

    def number(name: str, default: int) -> int:
        raw = env.get(name)
        return int(raw) if raw not in (None, "") else default

    return {
        "backend": env.get("GRAPHFEED_GRAPH_BACKEND", "falkordb-embedded"),
        "falkor_host": env.get("FALKORDB_HOST", "localhost"),
        "falkor_port": number("FALKORDB_PORT", 6379),
        "neo4j_uri": env.get("NEO4J_URI", "bolt://localhost:7687"),
        "neo4j_user": env.get("NEO4J_USER", "neo4j"),
        "embedder": env.get("GRAPHFEED_EMBEDDER", "minilm-local"),
        "embedder_model": env.get("GRAPHFEED_EMBEDDER_MODEL", "text-embedding-3-small"),
        "embedder_base_url": env.get("GRAPHFEED_EMBEDDER_BASE_URL") or None,
        "embedding_dim": number("GRAPHFEED_EMBEDDING_DIM", 384),
        "onnx_threads": number("GRAPHFEED_ONNX_THREADS", 0),
        "search_timeout_ms": number("GRAPHFEED_SEARCH_TIMEOUT_MS", 5000),
    }
