"""The resources of the code location, built from the environment (see README, "Configuration"); their types live in
assets/resources.py. Secrets only ever through dagster.EnvVar."""

import os

import dagster as dg

from assets.resources import (
    EpisodeConfig,
    ExportsResource,
    GraphResource,
    HomeResource,
    IngestConfig,
    IntentModelResource,
    LedgerResource,
    SourceApisResource,
)
from flow import settings
from graph.config import SECRET_ENV, connection_env
from transforms.clip import DEFAULT_MAX_TEXT_CHARS
from transforms.clip import ENV_NAME as MAX_TEXT_ENV


def episode_config(**overrides) -> EpisodeConfig:
    """How records become episodes, from the environment: the ONE place the nightly run and `graphfeed preview` get
    their episode and reference settings. `overrides` (field=value) win over the environment (CLI flags)."""
    fields = dict(
        group_id=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"),
        intent_threshold=settings.env_float("GRAPHFEED_INTENT_THRESHOLD", None),
        overlap_minutes=settings.env_int("GRAPHFEED_OVERLAP_MINUTES", 60),
        max_failure_rate=settings.env_float("GRAPHFEED_MAX_FAILURE_RATE", 0.2),
        jira_project_keys=settings.env_list("GRAPHFEED_JIRA_PROJECT_KEYS"),
        jira_base_urls=settings.env_list("GRAPHFEED_JIRA_BASE_URLS"),
        confluence_base_urls=settings.env_list("GRAPHFEED_CONFLUENCE_BASE_URLS"),
        max_text_chars=settings.env_int(MAX_TEXT_ENV, DEFAULT_MAX_TEXT_CHARS),
        ner_stop_names_files=[p for p in os.environ.get("GRAPHFEED_NER_STOP_NAMES", "").split(os.pathsep) if p],
        ner_min_confidence=settings.env_float("GRAPHFEED_NER_MIN_CONFIDENCE", 0.5),
        ner_entity_confidence=settings.env_float("GRAPHFEED_NER_ENTITY_CONFIDENCE", 0.8),
    )
    return EpisodeConfig(**{**fields, **overrides})


def intent_model() -> IntentModelResource:
    """The intent classifier the environment names (GRAPHFEED_INTENT_TRAIN / _TAXONOMY), for runs and the CLI alike."""
    return IntentModelResource(
        train_path=os.environ.get("GRAPHFEED_INTENT_TRAIN", ""),
        taxonomy_path=os.environ.get("GRAPHFEED_INTENT_TAXONOMY", ""),
    )


def default_resources() -> dict[str, dg.ConfigurableResource]:
    return {
        "home": HomeResource(path=str(settings.home())),
        "exports": ExportsResource(
            paths_by_source={source: settings.export_paths(source) for source in settings.SOURCES}
        ),
        "episode_config": episode_config(),
        "intent_model": intent_model(),
        **graph_resources(),
        **api_resources(),
    }


def _key_values(raw: str, lower: bool = True) -> dict[str, str]:
    """`a=b,c=d` -> {"a": "b", "c": "d"} (keys lower-cased unless told): domain maps, per-source modes, space maps."""
    pairs = (item.split("=", 1) for item in raw.split(",") if "=" in item)
    return {(key.strip().lower() if lower else key.strip()): value.strip() for key, value in pairs}


def graph_resources() -> dict[str, dg.ConfigurableResource]:
    ingest = IngestConfig()  # its field defaults are the defaults of every variable below
    secrets = {field: _secret(name) for field, name in SECRET_ENV.items()}
    return {
        "graph": GraphResource(
            **connection_env(),  # the same reading the read commands use (graph/config.py)
            **secrets,
            domain_orgs=_key_values(settings.domain_orgs()),
            extraction=_key_values(os.environ.get("GRAPHFEED_EXTRACTION", "")),
            intent_fact_threshold=settings.env_float("GRAPHFEED_INTENT_FACT_THRESHOLD", 0.0),
        ),
        "ledger": LedgerResource(
            url=dg.EnvVar("GRAPHFEED_LEDGER_URL") if os.environ.get("GRAPHFEED_LEDGER_URL") else None
        ),
        "ingest_config": IngestConfig(
            batch_size=settings.env_int("GRAPHFEED_BATCH_SIZE", ingest.batch_size),
            max_episodes_per_run=settings.env_int("GRAPHFEED_MAX_EPISODES_PER_RUN", ingest.max_episodes_per_run),
            max_cost_per_run_usd=settings.env_float("GRAPHFEED_MAX_COST_PER_RUN_USD", ingest.max_cost_per_run_usd),
            max_attempts=settings.env_int("GRAPHFEED_MAX_ATTEMPTS", ingest.max_attempts),
            retry_backoff_seconds=settings.env_float("GRAPHFEED_RETRY_BACKOFF_SECONDS", ingest.retry_backoff_seconds),
            max_failure_rate=settings.env_float("GRAPHFEED_MAX_INGEST_FAILURE_RATE", ingest.max_failure_rate),
        ),
    }


def _secret(name: str):
    return dg.EnvVar(name) if os.environ.get(name) else None


def api_resources() -> dict[str, dg.ConfigurableResource]:
    """Every source's settings, read from its GRAPHFEED_<SOURCE>_* variables when a reader is built (each source's
    spec declares them: connectors/<source>/spec.py; docs/configuration.md)."""
    return {"apis": SourceApisResource()}
