"""Jira project keys this deployment knows, kept across runs: learned from every Jira run's records
(connectors/jira/project_keys.py) and written to <GRAPHFEED_HOME>/staging/references/jira_project_keys.json, so a
mail or Confluence run after a Jira run accepts `ABC-123` for every project the Jira export showed. Configured keys
(GRAPHFEED_JIRA_PROJECT_KEYS) always count too; delete the file to forget what was learned."""

import json
from collections.abc import Iterable, Sequence

from upath import UPath

from connectors.jira.project_keys import learn_project_keys
from flow.staging import RAW, Staging
from ground.records import SourceRecord
from transforms.build import EpisodeSettings

STORE = "references"
FILE = "jira_project_keys.json"


def _path(staging: Staging) -> UPath:
    return staging.root / STORE / FILE


def load(staging: Staging) -> set[str]:
    """The learned keys, or none when no Jira run wrote them yet. A damaged file is an error naming it."""
    path = _path(staging)
    if not path.exists():
        return set()
    try:
        keys = json.loads(path.read_text(encoding="utf-8"))["project_keys"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a learned Jira project key list ({exc}); delete it to relearn") from exc
    return {str(k) for k in keys}


def save(staging: Staging, keys: Iterable[str]) -> None:
    """Write the keys atomically (a run reading them at the same time sees the old or the new list, never half)."""
    path = _path(staging)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"project_keys": sorted(set(keys))}, indent=0) + "\n", encoding="utf-8")
    tmp.rename(path)


def learn_staged(staging: Staging, partition_keys: Sequence[str]) -> set[str]:
    """The projects the staged Jira records of these partitions name (a first, cheap pass before episodes)."""
    return learn_project_keys(
        SourceRecord.model_validate(row)
        for key in partition_keys
        if staging.exists("jira", RAW, key)
        for row in staging.rows("jira", RAW, key)
    )


def remember(staging: Staging, learned: set[str]) -> set[str]:
    """Add what a Jira run learned to what the deployment knows; returns the union."""
    known = load(staging)
    if not learned <= known:
        known |= learned
        save(staging, known)
    return known


def with_known(settings: EpisodeSettings, keys: Iterable[str]) -> EpisodeSettings:
    """The episode settings with the known projects added to the configured ones."""
    references = settings.references
    merged = sorted(set(references.jira_project_keys) | set(keys))
    if merged == sorted(references.jira_project_keys):
        return settings
    return settings.model_copy(update={"references": references.model_copy(update={"jira_project_keys": merged})})
