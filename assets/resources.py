"""The ConfigurableResource types the assets use. pipelines/resources.py builds them from the environment (see README,
"Configuration"); secrets only ever through dagster.EnvVar."""

import os
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import PrivateAttr, SecretStr

from flow.ingest import MAX_EPISODES_PER_RUN, IngestLimits
from flow.staging import Staging
from transforms.build import EpisodeSettings
from transforms.clip import DEFAULT_MAX_TEXT_CHARS
from transforms.references import ReferenceConfig


class HomeResource(dg.ConfigurableResource):
    """graphfeed's state directory: staging, trained models, ledger, embedded graph."""

    path: str

    @property
    def root(self) -> Path:
        return Path(self.path)

    def staging(self) -> Staging:
        return Staging(str(self.root / "staging"))


class ExportsResource(dg.ConfigurableResource):
    """Export files/folders per source (source -> paths). Point the nightly job at your own folders with
    GRAPHFEED_<SOURCE>_EXPORTS."""

    paths_by_source: dict[str, list[str]] = {}

    def paths(self, source: str) -> list[str]:
        paths = self.paths_by_source.get(source)
        if paths is None:
            raise ValueError(f"no export location configured for source {source!r}")
        return list(paths)


class EpisodeConfig(dg.ConfigurableResource):
    """How records become episodes and how much failure a partition may carry."""

    group_id: str = "graphfeed"
    intent_threshold: float | None = None  # None: the model's threshold, calibrated on the train split
    overlap_minutes: int = 60  # a partition also takes records this close before its day; dedup absorbs them
    max_failure_rate: float = 0.2  # blocking check on <source>/episodes
    jira_project_keys: list[str] = []
    jira_base_urls: list[str] = []
    confluence_base_urls: list[str] = []
    ner: bool = True
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS  # GRAPHFEED_MAX_TEXT_CHARS: longer texts are cut, with a note
    ner_stop_names_files: list[str] = []  # extra stop lists for NER names (data/references/stop_names.txt)
    ner_min_confidence: float = 0.5  # NER person/org candidates below this are dropped
    ner_entity_confidence: float = 0.8  # ... below this they stay references unless they resolve to a party

    def episode_settings(self) -> EpisodeSettings:
        from connectors.registry import source_traits

        return EpisodeSettings(
            group_id=self.group_id,
            source_traits=source_traits(),
            intent_threshold=self.intent_threshold,
            max_text_chars=self.max_text_chars,
            references=ReferenceConfig(
                jira_project_keys=self.jira_project_keys,
                jira_base_urls=self.jira_base_urls,
                confluence_base_urls=self.confluence_base_urls,
                ner=self.ner,
                stop_names_files=self.ner_stop_names_files,
                name_min_confidence=self.ner_min_confidence,
                entity_confidence=self.ner_entity_confidence,
            ),
        )


class IntentModelResource(dg.ConfigurableResource):
    """The trained intent classifier, built from the labelled data in the repo (or your own) and cached by version."""

    train_path: str = ""
    taxonomy_path: str = ""
    seed: int = 0
    cache_dir: str = ""  # where trained models are kept (GRAPHFEED_MODEL_CACHE); default <home>/models

    _model = PrivateAttr(default=None)

    def ensure(self, home: Path) -> Path:
        from transforms.intent import shipped

        cache = self.cache_dir or os.environ.get("GRAPHFEED_MODEL_CACHE", "")
        return shipped.ensure(
            Path(cache) if cache else home,
            Path(self.train_path) if self.train_path else None,
            Path(self.taxonomy_path) if self.taxonomy_path else None,
            seed=self.seed,
        )

    def classifier(self, home: Path):
        if self._model is None:
            from transforms.intent import shipped

            self._model = shipped.load(self.ensure(home))
        return self._model


def plain_value(value):
    """An EnvVar field read outside a run (the CLI) resolves here; inside a run Dagster has resolved it already."""
    return value.get_value() if isinstance(value, dg.EnvVar) else value


class GraphResource(dg.ConfigurableResource):
    """Where episodes go: the embedded FalkorDB under the home (default), a FalkorDB server, or Neo4j."""

    backend: str = "falkordb-embedded"  # falkordb-embedded | falkordb | neo4j
    falkor_host: str = "localhost"
    falkor_port: int = 6379
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None  # EnvVar("NEO4J_PASSWORD")
    embedder: str = "minilm-local"  # minilm-local | openai (any OpenAI-compatible base_url)
    embedder_model: str = "text-embedding-3-small"
    embedder_base_url: str | None = None
    embedder_api_key: str | None = None  # EnvVar("GRAPHFEED_EMBEDDER_API_KEY")
    embedding_dim: int = 384
    onnx_threads: int = 0  # ONNX Runtime threads of the writer's MiniLM, 0 = one per core (GRAPHFEED_ONNX_THREADS)
    domain_orgs: dict[str, str] = {}
    extraction: dict[str, str] = {}  # source -> structured | llm | both (GRAPHFEED_EXTRACTION)
    search_timeout_ms: int = 5000  # per search query, server-side (GRAPHFEED_SEARCH_TIMEOUT_MS)
    intent_fact_threshold: float = 0.0  # intent facts only at this intent confidence (GRAPHFEED_INTENT_FACT_THRESHOLD)

    def graph_config(self, home: Path):
        from graph.config import GraphConfig
        from graph.llm.settings import llm_settings_from_env

        llm = llm_settings_from_env() if any(m in ("llm", "both") for m in self.extraction.values()) else None
        return GraphConfig(
            extraction=self.extraction,
            llm=llm,
            backend=self.backend,
            home=home,
            falkor_host=self.falkor_host,
            falkor_port=self.falkor_port,
            neo4j_uri=self.neo4j_uri,
            neo4j_user=self.neo4j_user,
            neo4j_password=plain_value(self.neo4j_password),
            embedder=self.embedder,
            embedder_model="all-MiniLM-L6-v2" if self.embedder == "minilm-local" else self.embedder_model,
            embedder_base_url=self.embedder_base_url,
            embedder_api_key=plain_value(self.embedder_api_key),
            embedding_dim=self.embedding_dim,
            onnx_threads=self.onnx_threads,
            domain_orgs=self.domain_orgs,
            search_timeout_ms=self.search_timeout_ms,
            intent_fact_threshold=self.intent_fact_threshold,
        )

    def writer(self, home: Path, ledger_url: str | None = None, backfill: bool = False):
        """`ledger_url`: the ledger's URL; on PostgreSQL the per-group write locks are its advisory locks. `backfill`:
        a bulk load, vector indexes deferred to the end (GraphConfig.defer_vector_indexes)."""
        from connectors.registry import fact_extractor
        from graph.sync_facade import SyncGraphWriter

        config = self.graph_config(home)
        if ledger_url and ledger_url.startswith("postgresql"):
            config = config.model_copy(update={"write_lock_url": SecretStr(ledger_url)})
        if backfill:
            config = config.model_copy(update={"defer_vector_indexes": True})
        return SyncGraphWriter(config, extractor=fact_extractor(config.intent_fact_threshold))


class LedgerResource(dg.ConfigurableResource):
    """The episode ledger: SQLite under the home unless GRAPHFEED_LEDGER_URL points at PostgreSQL."""

    url: str | None = None  # EnvVar("GRAPHFEED_LEDGER_URL") when set

    def open(self, home: Path):
        from graph.ledger.ledger import Ledger, ledger_url_for_home

        home.mkdir(parents=True, exist_ok=True)
        return Ledger(plain_value(self.url) or ledger_url_for_home(home))


_LIMITS = IngestLimits()


class IngestConfig(dg.ConfigurableResource):
    """Bounds of one graph ingestion run; what they leave out stays pending in the ledger for the next night."""

    batch_size: int = _LIMITS.batch_size  # the defaults are IngestLimits' (flow/ingest.py), declared once there
    max_episodes_per_run: int = MAX_EPISODES_PER_RUN
    max_cost_per_run_usd: float = _LIMITS.max_cost_usd
    max_attempts: int = _LIMITS.max_attempts
    retry_backoff_seconds: float = _LIMITS.backoff_seconds
    max_failure_rate: float = 0.1
    backlog_growth_runs: int = 3  # backlog rising this many runs in a row fails the check

    def limits(self) -> IngestLimits:
        return IngestLimits(
            batch_size=self.batch_size,
            max_episodes=self.max_episodes_per_run,
            max_cost_usd=self.max_cost_per_run_usd,
            max_attempts=self.max_attempts,
            backoff_seconds=self.retry_backoff_seconds,
        )


class SourceApisResource(dg.ConfigurableResource):
    """Each source's settings (its spec's Settings: GRAPHFEED_<SOURCE>_*, docs/configuration.md). A source whose URL
    is set is pulled from its API for the partition's window; otherwise its export files are read. The settings are
    read from the environment when a reader is built, so tokens never enter Dagster's config, logs or metadata;
    `settings` (source -> field -> value) overrides fields, e.g. a test's local server."""

    settings: dict[str, dict[str, Any]] = {}

    def settings_of(self, source: str):
        """The source's settings: its variables under this resource's overrides (ValueError: unusable setting)."""
        from connectors.registry import settings

        return settings(source, self.settings.get(source))

    def export_reader(self, source: str, paths: list[str]):
        """The export-file reader for a source, with the reading options that apply to files too."""
        from connectors.registry import export_reader

        return export_reader(source, paths, self.settings_of(source))

    def reader(self, source: str):
        """The API reader for a source, or None when the source is read from export files."""
        from connectors.registry import api_reader

        return api_reader(source, self.settings_of(source))

    def saved_checkpoint(self, source: str, staging: Staging):
        """The last finished API read's checkpoint (Jira: keys of its last full listing): flow/state.py keeps it."""
        from flow.state import load_checkpoint

        return load_checkpoint(staging, source)

    def save_checkpoint(self, source: str, staging: Staging, checkpoint) -> None:
        from flow.state import save_checkpoint

        save_checkpoint(staging, source, checkpoint)
