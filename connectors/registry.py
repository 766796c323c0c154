"""The one list of sources: adding a source is its folder (connectors/<source>/, with spec.py) and one line here.

Each entry names the module holding the source's SourceSpec (connectors/source_spec.py) as `SPEC`; everything the
pipeline, the CLI and the transforms need of a source comes from it. Spec modules are imported on first use: the
names alone serve `--source` choices and the read commands (0.25 s less per command).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from connectors.source_spec import SourceSettings, SourceSpec
    from ground.contract import Checkpoint, Reader
    from ground.episode import Episode
    from ground.source_traits import MentionKind, SourceTraits
    from transforms.fact_extractors import FactExtractor
    from transforms.facts import FactSet
    from transforms.intent_facts import Subject

SOURCES: dict[str, str] = {
    "email": "connectors.email.spec",
    "jira": "connectors.jira.spec",
    "confluence": "connectors.confluence.spec",
    "salesforce": "connectors.salesforce.spec",
}
SOURCE_NAMES: tuple[str, ...] = tuple(SOURCES)


def spec(source: str) -> SourceSpec:
    """A registered source's spec (ValueError: unknown source)."""
    try:
        module = SOURCES[source]
    except KeyError:
        raise ValueError(f"unknown source {source!r}; known: {', '.join(sorted(SOURCES))}") from None
    found: SourceSpec = importlib.import_module(module).SPEC
    return found


def specs() -> dict[str, SourceSpec]:
    return {name: spec(name) for name in SOURCES}


def settings(source: str, overrides: Mapping[str, Any] | None = None) -> SourceSettings:
    """A source's settings: its GRAPHFEED_<SOURCE>_* variables under `overrides` (field -> value, e.g. a Dagster
    resource's config); ValueError naming the variable when one is unusable."""
    return spec(source).settings.from_env(**(overrides or {}))


def carried_checkpoint(source: str) -> type[Checkpoint] | None:
    """The checkpoint type a source's API read keeps between nights, or None."""
    load = spec(source).carried_checkpoint if source in SOURCES else None
    return load() if load else None


def export_reader(
    source: str, paths: Sequence[str | Path], source_settings: SourceSettings | None = None
) -> Reader[Any]:
    """The export reader with the options the source's settings give it (time zones, group policy, limits)."""
    return spec(source).export_reader(paths, source_settings or settings(source))


def api_reader(source: str, source_settings: SourceSettings | None = None) -> Reader[Any] | None:
    """The source's API reader when its settings name an endpoint, else None (its export files are read)."""
    return spec(source).api_reader(source_settings or settings(source))


def traits_of(source: str) -> SourceTraits:
    """A registered source's traits (ValueError: unknown source)."""
    return spec(source).traits


def source_traits() -> dict[str, SourceTraits]:
    """source -> its traits: the lookup callers hand to transforms (EpisodeSettings.source_traits, intent facts)."""
    return {name: s.traits for name, s in specs().items()}


def mention_kinds() -> dict[str, MentionKind]:
    """reference namespace (a source's name) -> the node its reference ids name, for transforms.facts."""
    from ground.source_traits import mention_kinds as kinds

    return kinds(source_traits())


@functools.cache
def fact_extractor(intent_threshold: float | None = None) -> FactExtractor:
    """The default extractor over every registered source (built once per intent-fact threshold; None: the default,
    transforms.intent_facts.DEFAULT_THRESHOLD)."""
    from transforms.fact_extractors import FactExtractor
    from transforms.intent_facts import DEFAULT_THRESHOLD

    threshold = DEFAULT_THRESHOLD if intent_threshold is None else intent_threshold
    return FactExtractor({name: s.facts() for name, s in specs().items()}, threshold)


def intent_subjects() -> dict[str, Subject]:
    """source -> what its episodes are about, for transforms.intent_facts.intent_facts(subjects=...)."""
    return dict(fact_extractor().subjects)


def episode_facts(
    episode: Episode, domain_orgs: Mapping[str, str] | None = None, intent_threshold: float | None = None
) -> FactSet:
    """The structured FactSet of one episode plus its intent/date facts (pure; same input -> same uuids)."""
    return fact_extractor(intent_threshold)(episode, domain_orgs)
