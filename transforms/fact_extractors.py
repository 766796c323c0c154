"""Structured facts of any episode: its source's extractor plus the intent/date facts of what people write.

Generic: which extractor and which subject serve which source is not known here. connectors/registry.py holds that
list and builds the default extractor (connectors.registry.episode_facts) from it.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ground.episode import Episode
from ground.source_traits import MentionKind, SourceTraits, mention_kinds
from transforms.facts import FactSet, Mentions, merge_factsets, no_facts
from transforms.intent_facts import DEFAULT_THRESHOLD, Subject, intent_facts

# (episode, domain_orgs, mentions) -> FactSet: a source's structured facts; `mentions` says what every source's
# reference namespace names (the FactExtractor passes them all: a Jira comment names Confluence pages).
SourceExtractor = Callable[[Episode, Mapping[str, str], Mentions], FactSet]


@dataclass(frozen=True)
class SourceFacts:
    """What one source contributes: its structured-fact extractor, what its episodes are about for an intent fact
    (None: its message thread), and its traits (what the generic intent/date facts need to know of it)."""

    extractor: SourceExtractor = no_facts
    subject: Subject | None = None
    traits: SourceTraits | None = field(default=None)


class FactExtractor:
    """episode -> FactSet from the sources it is given (pure; same input -> same uuids). A source it is not given gets
    no structured facts (only its author as a mention) and its intent facts are about the message thread."""

    def __init__(self, sources: Mapping[str, SourceFacts], intent_threshold: float = DEFAULT_THRESHOLD) -> None:
        self.extractors: dict[str, SourceExtractor] = {name: s.extractor for name, s in sources.items()}
        self.subjects: dict[str, Subject] = {name: s.subject for name, s in sources.items() if s.subject is not None}
        self.traits: dict[str, SourceTraits] = {name: s.traits for name, s in sources.items() if s.traits is not None}
        self.mentions: dict[str, MentionKind] = mention_kinds(self.traits)
        self.intent_threshold = intent_threshold

    def __call__(self, episode: Episode, domain_orgs: Mapping[str, str] | None = None) -> FactSet:
        """The structured FactSet of one episode plus its intent/date facts."""
        extractor = self.extractors.get(episode.source, no_facts)
        orgs = {k.lower(): v for k, v in (domain_orgs or {}).items()}
        intent = intent_facts(episode, orgs, self.intent_threshold, subjects=self.subjects, traits=self.traits)
        return merge_factsets([extractor(episode, orgs, self.mentions), intent])
