"""The Jira projects an export names, learned from the export itself: every issue's own key, its link targets, parent
and epic, and the keys its change history moved it from or linked it to. A bare `ABC-123` in any text of the same
deployment is an issue key only if ABC is a known project (transforms/references.py), so learning them here makes
the references of a Jira issue find the other issues of its own and sibling projects without configuration."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ground.records import SourceRecord

_KEY = re.compile(r"(?<![A-Za-z0-9_-])([A-Z][A-Z0-9_]{1,9})-[1-9]\d{0,6}(?![A-Za-z0-9_-])")
# Change-history fields whose values are issue keys: a moved issue ("Key": OLD-3 -> NEW-9), links, parent, epic.
_KEY_FIELDS = re.compile(r"(?i)\bkey\b|link|parent|epic|sub-?task")


def _projects(value: Any) -> set[str]:
    if isinstance(value, str):
        return {m.group(1) for m in _KEY.finditer(value)}
    if isinstance(value, Mapping):
        return _projects(value.get("key"))
    return set()


def record_projects(record: SourceRecord) -> set[str]:
    """The projects one Jira record names in its metadata (never from its free text: that is what is validated)."""
    if record.source != "jira":
        return set()
    fields = record.fields
    found = _projects(record.source_key.split("#", 1)[0]) | _projects(record.thread_key)
    for value in (record.parent_key, *record.related_keys, fields.get("issue_key"), fields.get("parent")):
        found |= _projects(value)
    found |= _projects(fields.get("epic"))
    for link in fields.get("links") or ():
        found |= _projects(link)
    for change in fields.get("history") or ():
        if isinstance(change, Mapping) and _KEY_FIELDS.search(str(change.get("field") or "")):
            for side in ("from", "to", "from_string", "to_string"):
                found |= _projects(change.get(side))
    return found


def learn_project_keys(records: Iterable[SourceRecord]) -> set[str]:
    found: set[str] = set()
    for record in records:
        found |= record_projects(record)
    return found
