"""The one list of sources: which export reader and which facts serve which source. Each source issue adds its entry
here (and so to `--source`).

Reader options are the reader's own keyword arguments (a Confluence ExportSettings, a Jira CSV time zone, ...); the
pipeline's resource supplies them from its settings. A source's facts are its structured-fact extractor and what its
episodes are about for an intent fact; transforms/fact_extractors.py combines them without knowing any source, and
`episode_facts` here is the default extractor the graph writer uses. Source modules are imported on first use.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names alone: `--source` choices and read commands need the list, not the models (0.25 s)
    from ground.contract import Checkpoint, Reader
    from ground.source_traits import MentionKind, SourceTraits
    from transforms.episode import Episode
    from transforms.fact_extractors import FactExtractor, SourceFacts
    from transforms.facts import FactSet
    from transforms.intent_facts import Subject


def _email(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.email import EmailExportReader

    return EmailExportReader(paths, **options)


def _confluence(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.confluence import ConfluenceExportReader

    return ConfluenceExportReader(paths, **options)


def _jira(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.jira import JiraExportReader

    return JiraExportReader(paths, **options)


def _salesforce(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.salesforce import SalesforceExportReader

    return SalesforceExportReader(paths, **options)


def _email_facts() -> SourceFacts:
    from transforms.fact_extractors import SourceFacts
    from transforms.mail_facts import email_facts

    return SourceFacts(email_facts, traits=traits_of("email"))


def _jira_facts() -> SourceFacts:
    from connectors.jira.facts import issue_subject, jira_facts
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(jira_facts, issue_subject, traits_of("jira"))


def _confluence_facts() -> SourceFacts:
    from connectors.confluence.facts import confluence_facts, page_subject
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(confluence_facts, page_subject, traits_of("confluence"))


def _salesforce_facts() -> SourceFacts:
    from connectors.salesforce.facts import record_subject, salesforce_facts
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(salesforce_facts, record_subject, traits_of("salesforce"))


def _jira_checkpoint() -> type[Checkpoint]:
    from connectors.jira import JiraApiCheckpoint

    return JiraApiCheckpoint


@dataclass(frozen=True)
class Source:
    reader: Callable[..., Reader]  # (paths, **options) -> Reader over export files
    facts: Callable[[], SourceFacts]  # loads the source's facts module
    # The API checkpoint type whose finished state carries across nights (Jira: the keys of its last full listing,
    # so a key gone from the next listing is a deletion); None: every night's API read starts from its window.
    carried_checkpoint: Callable[[], type[Checkpoint]] | None = None
    package: str = ""  # connectors.<package>: where the source's wiring module lives

    @property
    def traits(self) -> SourceTraits:
        """What transforms need to know of the source (its spec module's TRAITS)."""
        traits: SourceTraits = importlib.import_module(f"connectors.{self.package}.spec").TRAITS
        return traits

    @property
    def wiring(self) -> Any:
        """The source package's wiring module: export_options(settings) and api_reader(settings) -> Reader | None,
        over the pipeline's settings of that source (the `<source>_*` resource fields, prefix removed)."""
        return importlib.import_module(f"connectors.{self.package}.wiring")


SOURCES: dict[str, Source] = {
    "email": Source(_email, _email_facts, package="email"),
    "jira": Source(_jira, _jira_facts, carried_checkpoint=_jira_checkpoint, package="jira"),
    "confluence": Source(_confluence, _confluence_facts, package="confluence"),
    "salesforce": Source(_salesforce, _salesforce_facts, package="salesforce"),
}
SOURCE_NAMES: tuple[str, ...] = tuple(SOURCES)


def carried_checkpoint(source: str) -> type[Checkpoint] | None:
    """The checkpoint type a source's API read keeps between nights, or None."""
    load = SOURCES[source].carried_checkpoint if source in SOURCES else None
    return load() if load else None


def traits_of(source: str) -> SourceTraits:
    """A registered source's traits (ValueError: unknown source)."""
    return _source(source).traits


def source_traits() -> dict[str, SourceTraits]:
    """source -> its traits: the lookup callers hand to transforms (EpisodeSettings.source_traits, intent facts)."""
    return {name: source.traits for name, source in SOURCES.items()}


def mention_kinds() -> dict[str, MentionKind]:
    """reference namespace (a source's name) -> the node its reference ids name, for transforms.facts."""
    from ground.source_traits import mention_kinds as kinds

    return kinds(source_traits())


def _source(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise ValueError(f"unknown source {name!r}; known: {', '.join(sorted(SOURCES))}") from None


def export_reader(source: str, paths: Sequence[str | Path], **options: Any) -> Reader:
    return _source(source).reader(paths, **options)


def configured_export_reader(source: str, paths: Sequence[str | Path], settings: Mapping[str, Any]) -> Reader:
    """The export reader with the options the source's settings give it (time zones, group policy, limits)."""
    wiring = _source(source).wiring
    return export_reader(source, paths, **wiring.export_options(settings))


def api_reader(source: str, settings: Mapping[str, Any]) -> Reader | None:
    """The source's API reader when its settings name an endpoint, else None (its export files are read)."""
    return _source(source).wiring.api_reader(settings)


@functools.cache
def fact_extractor(intent_threshold: float | None = None) -> FactExtractor:
    """The default extractor over every registered source (built once per intent-fact threshold; None: the default,
    transforms.intent_facts.DEFAULT_THRESHOLD)."""
    from transforms.fact_extractors import FactExtractor
    from transforms.intent_facts import DEFAULT_THRESHOLD

    threshold = DEFAULT_THRESHOLD if intent_threshold is None else intent_threshold
    return FactExtractor({name: source.facts() for name, source in SOURCES.items()}, threshold)


def intent_subjects() -> dict[str, Subject]:
    """source -> what its episodes are about, for transforms.intent_facts.intent_facts(subjects=...)."""
    return dict(fact_extractor().subjects)


def episode_facts(
    episode: Episode, domain_orgs: Mapping[str, str] | None = None, intent_threshold: float | None = None
) -> FactSet:
    """The structured FactSet of one episode plus its intent/date facts (pure; same input -> same uuids)."""
    return fact_extractor(intent_threshold)(episode, domain_orgs)
