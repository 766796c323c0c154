"""ConfigurableResources. Locations and thresholds come from the environment (see README, "Configuration");
secrets only ever through dagster.EnvVar."""

import os
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from pipelines import settings
from pipelines.staging import Staging
from transforms.build import EpisodeSettings
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
    """Export files/folders per source. Point the nightly job at your own folders with GRAPHFEED_<SOURCE>_EXPORTS."""

    email: list[str] = []

    def paths(self, source: str) -> list[str]:
        paths = getattr(self, source, None)
        if paths is None:
            raise ValueError(f"no export location configured for source {source!r}")
        return list(paths)


class EpisodeConfig(dg.ConfigurableResource):
    """How records become episodes and how much failure a partition may carry."""

    group_id: str = "graphfeed"
    intent_threshold: float = 0.5
    overlap_minutes: int = 60            # a partition also takes records this close before its day; dedup absorbs them
    max_failure_rate: float = 0.2        # blocking check on <source>/episodes
    jira_project_keys: list[str] = []
    jira_base_urls: list[str] = []
    confluence_base_urls: list[str] = []
    ner: bool = True

    def episode_settings(self) -> EpisodeSettings:
        return EpisodeSettings(
            group_id=self.group_id,
            intent_threshold=self.intent_threshold,
            references=ReferenceConfig(
                jira_project_keys=self.jira_project_keys,
                jira_base_urls=self.jira_base_urls,
                confluence_base_urls=self.confluence_base_urls,
                ner=self.ner,
            ),
        )


class IntentModelResource(dg.ConfigurableResource):
    """The trained intent classifier, built from the labelled data in the repo (or your own) and cached by version."""

    train_path: str = ""
    taxonomy_path: str = ""
    seed: int = 0
    cache_dir: str = ""          # where trained models are kept; default <home>/models


    _model = PrivateAttr(default=None)

    def ensure(self, home: Path) -> Path:
        from transforms.intent import DEFAULT_TAXONOMY, DEFAULT_TRAIN, ensure_model

        return ensure_model(Path(self.cache_dir) if self.cache_dir else home,
                            Path(self.train_path or DEFAULT_TRAIN), Path(self.taxonomy_path or DEFAULT_TAXONOMY),
                            seed=self.seed)

    def classifier(self, home: Path):
        if self._model is None:
            from transforms.intent import IntentClassifier

            self._model = IntentClassifier.load(self.ensure(home))
        return self._model


def default_resources() -> dict[str, dg.ConfigurableResource]:
    return {
        "home": HomeResource(path=str(settings.home())),
        "exports": ExportsResource(email=settings.export_paths("email")),
        "episode_config": EpisodeConfig(
            group_id=os.environ.get("GRAPHFEED_GROUP_ID", "graphfeed"),
            intent_threshold=settings.env_float("GRAPHFEED_INTENT_THRESHOLD", 0.5),
            overlap_minutes=settings.env_int("GRAPHFEED_OVERLAP_MINUTES", 60),
            max_failure_rate=settings.env_float("GRAPHFEED_MAX_FAILURE_RATE", 0.2),
            jira_project_keys=settings.env_list("GRAPHFEED_JIRA_PROJECT_KEYS"),
            jira_base_urls=settings.env_list("GRAPHFEED_JIRA_BASE_URLS"),
            confluence_base_urls=settings.env_list("GRAPHFEED_CONFLUENCE_BASE_URLS"),
        ),
        "intent_model": IntentModelResource(
            train_path=os.environ.get("GRAPHFEED_INTENT_TRAIN", ""),
            taxonomy_path=os.environ.get("GRAPHFEED_INTENT_TAXONOMY", ""),
        ),
    }
