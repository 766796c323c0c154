"""The resources of the code location, built from the environment (see README, "Configuration"); their types live in
assets/resources.py. Secrets only ever through dagster.EnvVar."""

import copy
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
from connectors.graph.config import SECRET_ENV, connection_env
from flow import settings
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
        "exports": ExportsResource(**{source: settings.export_paths(source) for source in settings.SOURCES}),
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
            **connection_env(),  # the same reading the read commands use (connectors/graph/config.py)
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


def _object_fields(items: list[str]) -> dict[str, list[str]]:
    """["Account.Industry", "Opportunity.Region__c"] -> {"Account": ["Industry"], "Opportunity": ["Region__c"]}."""
    out: dict[str, list[str]] = {}
    for item in items:
        obj, _, field = item.partition(".")
        if not field:
            raise ValueError(f"GRAPHFEED_SALESFORCE_EXTRA_FIELDS: {item!r} is not Object.Field")
        out.setdefault(obj, []).append(field)
    return out


def _secret(name: str):
    return dg.EnvVar(name) if os.environ.get(name) else None


SECRET_SUFFIXES = ("_token", "_password", "_secret")  # these fields only ever go in as dagster.EnvVar


def api_env_name(field: str) -> str:
    """The environment variable of a SourceApisResource field: GRAPHFEED_ + its name (jira_url -> GRAPHFEED_JIRA_URL)."""
    return "GRAPHFEED_" + field.upper()


def _api_value(field: str, annotation: object, default: object) -> object:
    """One field from its variable, parsed by the field's type; unset -> the field's own default (declared once)."""
    name = api_env_name(field)
    if field.endswith(SECRET_SUFFIXES):
        return _secret(name)
    raw = os.environ.get(name)
    if raw is None:
        return default
    if annotation is bool:
        return raw.strip().lower() not in ("false", "0", "no")
    if annotation is int:
        return settings.env_int(name, default)
    if annotation == float | None:
        return float(raw) if raw else None
    if annotation == str | None:
        return raw or None
    if annotation == list[str]:
        return settings.env_list(name)
    if annotation == dict[str, str]:
        return _key_values(raw, lower=False)
    if annotation == dict[str, list[str]]:
        return _object_fields(settings.env_list(name))
    return raw


def source_settings(source: str) -> dict[str, object]:
    """A source's settings from the environment as plain values (its `<source>_*` SourceApisResource fields, prefix
    removed, secrets read as they are): what the CLI builds a reader from without building a Dagster resource; the
    same values as the resource's `settings_of` (a contract test checks they agree)."""
    prefix = f"{source}_"
    out: dict[str, object] = {}
    for name, info in SourceApisResource.model_fields.items():
        if not name.startswith(prefix):
            continue
        if name.endswith(SECRET_SUFFIXES):
            value = os.environ.get(api_env_name(name)) or None
        else:
            value = copy.deepcopy(_api_value(name, info.annotation, info.default))
        out[name.removeprefix(prefix)] = value
    return out


def api_resources() -> dict[str, dg.ConfigurableResource]:
    """The API settings of every source, each field from its GRAPHFEED_<FIELD> variable (docs/configuration.md)."""
    fields = SourceApisResource.model_fields
    return {
        "apis": SourceApisResource(
            **{name: _api_value(name, info.annotation, info.default) for name, info in fields.items()}
        )
    }
