"""Jira field values as the issue record carries them: display names, sprint names, the normalised change history
(tracked fields -> our slot names, people resolved through the directory), issue links, the epic key, the browse URL
and the comments embedded in an issue.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from connectors.jira.people import named_person, person
from connectors.jira.times import iso, parse_time
from connectors.safe_json import as_list

# Changelog field names (Server spells them as shown, Cloud adds fieldId) -> our slot names.
TRACKED_FIELDS = {
    "status": "status",
    "assignee": "assignee",
    "reporter": "reporter",
    "priority": "priority",
    "resolution": "resolution",
    "fix version": "fix_version",
    "fixversions": "fix_version",
    "sprint": "sprint",
    "duedate": "due_date",
    "due date": "due_date",
    "parent": "parent",
    "issueparentassociation": "parent",
    "epic link": "epic",
    "link": "link",
}
PERSON_FIELDS = {"assignee", "reporter"}


def _name(value: Any) -> str | None:
    """The display value of a Jira field value (status/priority/version/option objects, strings, numbers)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        for key in ("name", "value", "displayName", "key", "title"):
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip()
    return None


def sprint_names(value: Any) -> list[str]:
    """Sprint field: a list of sprint objects (Cloud/new Server) or 'com.atlassian...Sprint@..[name=X,..]' strings."""
    names = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict) and item.get("name"):
            names.append(str(item["name"]))
        elif isinstance(item, str) and "name=" in item:
            names.append(item.split("name=", 1)[1].split(",", 1)[0])
        elif isinstance(item, str) and item.strip():
            names.append(item.strip())
    return names


def _histories(issue: dict, changelog: Sequence[dict] | None) -> list[dict]:
    if changelog is not None:
        return [h for h in changelog if isinstance(h, dict)]
    log = issue.get("changelog")
    if isinstance(log, dict) and isinstance(log.get("histories"), list):
        return [h for h in log["histories"] if isinstance(h, dict)]
    return []


def normalise_history(histories: Sequence[dict], directory: dict[str, dict[str, str]]) -> list[dict]:
    """Changelog -> [{id, at, author, field, slot, from, from_string, to, to_string}] sorted by time (then id).

    Every item is kept (slot None for fields we do not model as facts); the facts use the tracked ones.
    """
    out = []
    for entry in histories:
        at = parse_time(entry.get("created"))
        if at is None:
            continue
        author = person(entry.get("author"))
        for item in as_list(entry.get("items"), "changelog.histories[].items"):
            if not isinstance(item, dict):
                continue
            field = str(item.get("field") or item.get("fieldId") or "")
            slot = TRACKED_FIELDS.get(field.casefold()) or TRACKED_FIELDS.get(str(item.get("fieldId") or "").casefold())
            change = {
                "id": str(entry.get("id") or ""),
                "at": iso(at),
                "author": author,
                "field": field,
                "slot": slot,
                "from": _str(item.get("from")),
                "from_string": _str(item.get("fromString")),
                "to": _str(item.get("to")),
                "to_string": _str(item.get("toString")),
            }
            if slot in PERSON_FIELDS:
                change["from_person"] = named_person(change["from_string"], change["from"], directory)
                change["to_person"] = named_person(change["to_string"], change["to"], directory)
            out.append(change)
    out.sort(key=lambda c: (c["at"], c["id"]))
    return out


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _links(fields: dict) -> list[dict[str, str]]:
    out = []
    for link in as_list(fields.get("issuelinks"), "fields.issuelinks"):
        if not isinstance(link, dict):
            continue
        kind = link.get("type") if isinstance(link.get("type"), dict) else {}
        for direction, verb_key in (("outward", "outward"), ("inward", "inward")):
            other = link.get(f"{direction}Issue")
            if isinstance(other, dict) and other.get("key"):
                out.append(
                    {
                        "type": str(kind.get("name") or "Relates"),
                        "direction": direction,
                        "verb": str(kind.get(verb_key) or kind.get("name") or "relates to"),
                        "key": str(other["key"]),
                    }
                )
    return out


def _epic_key(fields: dict, names: Mapping[str, str]) -> str | None:
    epic = fields.get("epic")
    if isinstance(epic, dict) and epic.get("key"):
        return str(epic["key"])
    for field_id, name in names.items():
        if name.casefold() == "epic link" and isinstance(fields.get(field_id), str):
            return fields[field_id]
    return None


def browse_url(issue: dict, base_url: str | None) -> str | None:
    key = issue.get("key")
    if base_url:
        return f"{base_url.rstrip('/')}/browse/{key}"
    self_url = issue.get("self")
    if isinstance(self_url, str) and "/rest/api/" in self_url:
        return f"{self_url.split('/rest/api/', 1)[0]}/browse/{key}"
    return None


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_show(v)}" for k, v in value.items())
    return str(value)


def _embedded_comments(fields: dict) -> list[dict]:
    block = fields.get("comment")
    if isinstance(block, dict) and isinstance(block.get("comments"), list):
        return block["comments"]
    if isinstance(block, list):
        return block
    return []
