"""Structured facts of any episode: its source's extractor plus the intent/date facts of what people write.

Generic: which extractor and which subject serve which source is not known here. connectors/registry.py holds that
list and builds the default extractor (connectors.registry.episode_facts) from it.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from transforms.episode import Episode
from transforms.facts import Extractor, FactSet, merge_factsets, no_facts
from transforms.intent_facts import DEFAULT_THRESHOLD, Subject, intent_facts


@dataclass(frozen=True)
class SourceFacts:
    """What one source contributes: its structured-fact extractor, and what its episodes are about for an intent fact
    (None: its message thread)."""

    extractor: Extractor = no_facts
    subject: Subject | None = None


class FactExtractor:
    """episode -> FactSet from the sources it is given (pure; same input -> same uuids). A source it is not given gets
    no structured facts (only its author as a mention) and its intent facts are about the message thread."""

    def __init__(self, sources: Mapping[str, SourceFacts], intent_threshold: float = DEFAULT_THRESHOLD) -> None:
        self.extractors: dict[str, Extractor] = {name: s.extractor for name, s in sources.items()}
        self.subjects: dict[str, Subject] = {name: s.subject for name, s in sources.items() if s.subject is not None}
        self.intent_threshold = intent_threshold

    def __call__(self, episode: Episode, domain_orgs: Mapping[str, str] | None = None) -> FactSet:
        """The structured FactSet of one episode plus its intent/date facts."""
        extractor = self.extractors.get(episode.source, no_facts)
        orgs = {k.lower(): v for k, v in (domain_orgs or {}).items()}
        intent = intent_facts(episode, orgs, self.intent_threshold, subjects=self.subjects)
        return merge_factsets([extractor(episode, orgs), intent])
