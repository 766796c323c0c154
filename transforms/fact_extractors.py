"""Which structured-fact extractor serves which source. Each source issue adds its extractor here."""

from collections.abc import Mapping

from transforms.episode import Episode
from transforms.facts import Extractor, FactSet, email_facts, merge_factsets, no_facts
from connectors.confluence.facts import confluence_facts
from connectors.jira.facts import jira_facts
from connectors.salesforce.facts import salesforce_facts
from transforms.intent_facts import intent_facts

EXTRACTORS: dict[str, Extractor] = {
    "email": email_facts,
    "jira": jira_facts,
    "confluence": confluence_facts,
    "salesforce": salesforce_facts,
}


def episode_facts(episode: Episode, domain_orgs: Mapping[str, str] | None = None) -> FactSet:
    """The structured FactSet of one episode plus its intent/date facts (pure; same input -> same uuids)."""
    extractor = EXTRACTORS.get(episode.source, no_facts)
    orgs = {k.lower(): v for k, v in (domain_orgs or {}).items()}
    return merge_factsets([extractor(episode, orgs), intent_facts(episode, orgs)])
