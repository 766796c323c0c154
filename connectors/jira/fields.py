"""A typed view over the `fields` of a Jira record, as connectors/jira/records.py stages them.

The record's `fields` dict keeps its keys (it is staged as JSON and read back into the episode); this view names the
ones the facts read, with their types and fallbacks in one place instead of string keys read back across the module.
Values are taken as staged: no conversion beyond the defaults below, so the facts are the same as reading the dict.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Person = Mapping[str, Any]  # {"id", "name"?, "email"?} from the record's people directory
Change = Mapping[str, Any]  # one changelog item: at, slot, from/to, from_string/to_string, *_person
Link = Mapping[str, Any]  # {"type", "direction", "verb", "key"}


@dataclass(frozen=True)
class JiraFields:
    issue_key: str | None = None
    summary: str = ""  # the issue's; a comment record may name its issue's (issue_summary)
    status: str | None = None
    priority: str | None = None
    resolution: str | None = None
    due_date: str | None = None  # YYYY-MM-DD as Jira gives it
    assignee: Person | None = None
    reporter: Person | None = None
    fix_versions: Sequence[str] = ()
    sprints: Sequence[str] = ()
    created: str | None = None  # ISO times
    resolved: str | None = None
    parent: str | None = None  # issue keys
    epic: str | None = None
    links: Sequence[Link] = ()
    history: Sequence[Change] = ()

    @classmethod
    def of(cls, fields: Mapping[str, Any] | None) -> "JiraFields":
        f = fields or {}
        return cls(
            issue_key=f.get("issue_key") or None,
            summary=str(f.get("summary") or f.get("issue_summary") or ""),
            status=f.get("status"),
            priority=f.get("priority"),
            resolution=f.get("resolution"),
            due_date=f.get("due_date"),
            assignee=f.get("assignee"),
            reporter=f.get("reporter"),
            fix_versions=f.get("fix_versions") or (),
            sprints=f.get("sprints") or (),
            created=f.get("created"),
            resolved=f.get("resolved"),
            parent=f.get("parent"),
            epic=f.get("epic"),
            links=f.get("links") or (),
            history=f.get("history") or (),
        )

    def key_of(self, thread_key: str | None, source_key: str) -> str:
        """The issue a record belongs to: its issue_key, else the thread key, else the source key before '#'."""
        return str(self.issue_key or thread_key or source_key.split("#", 1)[0])
