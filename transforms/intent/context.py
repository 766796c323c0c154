"""What a record's own fields say about the act of its text: the issue type of a Jira description, and for a comment
the issue it is on and whether it was written as the issue was resolved (and how).

Why: the labelling guide settles descriptions by kind ("a bug report is escalate_risk, a feature request
request_info, a chore status_update") and the comment written as an issue is closed as Invalid / Duplicate / Cannot
Reproduce is the rejection itself. Measured on the labelled real Jira units: 134 of 153 Bug descriptions are
escalate_risk; of the 87 comments written within ten minutes of the resolution, 51 of the 64 on a declining
resolution reject it. The text alone often does not say so ("Closing this ticket."). Context is a handful of tokens,
read as extra features by the classifier; a unit without them (mail, a user's own labels) is read from its text.
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

from ground.source_traits import SourceTraits

# how close to the issue's resolution a comment counts as the resolving one
RESOLVING_WINDOW = dt.timedelta(minutes=10)

_ISSUE_KINDS = {
    "bug": ("bug", "defect", "incident", "problem", "error", "regression", "security", "vulnerability"),
    "feature": ("new feature", "improvement", "enhancement", "feature", "feature request", "suggestion", "wish"),
    "task": ("task", "sub-task", "subtask", "technical task", "chore", "test", "documentation"),
    "plan": ("story", "epic", "initiative", "user story"),
}
_DECLINED = (
    "won't fix",
    "wont fix",
    "won't do",
    "invalid",
    "duplicate",
    "cannot reproduce",
    "can't reproduce",
    "not our bug",
    "not a bug",
    "incomplete",
    "rejected",
    "declined",
    "obsolete",
    "out of scope",
    "works as designed",
    "working as intended",
    "won't implement",
)
_NEEDS_INFO = ("needs more info", "needs more information", "need more info", "more info needed")
_DONE = ("fixed", "done", "resolved", "complete", "completed", "implemented", "delivered")

TOKENS = (
    *(f"issue:{k}" for k in (*_ISSUE_KINDS, "other")),
    *(f"on:{k}" for k in (*_ISSUE_KINDS, "other")),
    "resolving:declined",
    "resolving:needs_info",
    "resolving:done",
    "resolving:other",
)


def issue_kind(issue_type: str | None) -> str | None:
    """bug / feature / task / plan / other for a Jira issue type name; None when there is none."""
    name = (issue_type or "").strip().casefold()
    if not name:
        return None
    for kind, names in _ISSUE_KINDS.items():
        if name in names:
            return kind
    return "other"


def resolution_kind(resolution: str | None) -> str | None:
    name = (resolution or "").strip().casefold().replace("\u2019", "'")
    if not name or name == "unresolved":
        return None
    if name in _DECLINED:
        return "declined"
    if name in _NEEDS_INFO:
        return "needs_info"
    if name in _DONE:
        return "done"
    return "other"


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        when = value
    elif isinstance(value, str) and value.strip():
        try:
            when = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def jira_context(
    kind: str, issue_type: str | None, resolution: str | None = None, resolved: Any = None, written: Any = None
) -> tuple[str, ...]:
    """Context tokens of a Jira issue description (kind "issue") or comment (kind "comment")."""
    issue = issue_kind(issue_type)
    if kind == "issue":
        return (f"issue:{issue}",) if issue else ()
    out = [f"on:{issue}"] if issue else []
    res, resolved_at, written_at = resolution_kind(resolution), _when(resolved), _when(written)
    if res and resolved_at and written_at and abs(resolved_at - written_at) <= RESOLVING_WINDOW:
        out.append(f"resolving:{res}")
    return tuple(out)


def record_context(traits: SourceTraits, kind: str, fields: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Context tokens of a staged record (its `fields` as the connector wrote them); () where none apply (a source
    whose records are no issues)."""
    if not traits.issue_context or not fields:
        return ()
    kind = (kind or "").lower()
    if kind == "issue":
        return jira_context("issue", fields.get("issue_type"))
    if kind == "comment":
        return jira_context(
            "comment", fields.get("issue_type"), fields.get("resolution"), fields.get("resolved"), fields.get("created")
        )
    return ()


__all__ = ["RESOLVING_WINDOW", "TOKENS", "issue_kind", "jira_context", "record_context", "resolution_kind"]
