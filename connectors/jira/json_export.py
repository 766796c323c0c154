"""JSON exports: what the REST API returns (one issue, a search page, a list of issues) and webhook payloads.

Anything else (statuses, fields, users, error bodies) is a RecordFailure naming what the file looks like, so a folder
of mixed API dumps never stops a run and never loses an issue silently.
"""

from collections.abc import Iterator
from typing import Any

from connectors.jira.people import person
from connectors.jira.records import Item, comment_record, failure, issue_context, issue_records
from connectors.jira.times import iso, parse_time
from connectors.safe_json import load_json
from ground.records import ErrorClass, Origin


def looks_like_issue(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("key"), str) and isinstance(value.get("fields"), dict)


def _describe(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, dict):
        return "an object with keys " + ", ".join(sorted(map(str, value))[:8])
    return f"a JSON {type(value).__name__}"


def items_from_json(
    data: bytes, origin: Origin, base_url: str | None = None, content_fields: tuple[str, ...] = ()
) -> Iterator[Item]:
    if not data.strip():
        yield failure(origin, ErrorClass.parse_error, f"empty file ({len(data)} bytes): not a Jira JSON export")
        return
    try:
        value = load_json(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        yield failure(origin, ErrorClass.parse_error, f"not valid JSON: {exc}")
        return
    found = False
    for item in _items(value, origin, base_url, content_fields, depth=0):
        found = True
        yield item
    if not found:
        if isinstance(value, dict) and isinstance(value.get("issues"), list):
            yield failure(origin, ErrorClass.missing_field, "search page holds no issues (nothing to read)")
            return
        yield failure(
            origin,
            ErrorClass.unsupported,
            f"JSON is not a Jira issue, search page or webhook payload ({_describe(value)})",
        )


def _items(
    value: Any, origin: Origin, base_url: str | None, content_fields: tuple[str, ...], depth: int
) -> Iterator[Item]:
    kw = {"base_url": base_url, "content_fields": content_fields}
    if looks_like_issue(value):
        yield from issue_records(value, origin, export_format="json", **kw)
    elif (
        isinstance(value, dict)
        and isinstance(value.get("webhookEvent"), str)
        or (isinstance(value, dict) and looks_like_issue(value.get("issue")))
    ):
        yield from webhook_items(value, origin, **kw)
    elif isinstance(value, dict) and isinstance(value.get("issues"), list):
        names = value.get("names") if isinstance(value.get("names"), dict) else None
        for index, issue in enumerate(value["issues"]):
            where = origin.model_copy(update={"index": index})
            if isinstance(issue, dict) and names and "names" not in issue:
                issue = {**issue, "names": names}
            yield from issue_records(issue, where, export_format="json", **kw)
    elif isinstance(value, list) and value and all(looks_like_issue(v) for v in value):
        for index, issue in enumerate(value):
            yield from issue_records(issue, origin.model_copy(update={"index": index}), export_format="json", **kw)
    elif isinstance(value, dict) and depth == 0 and not {"startAt", "comments"} <= set(value):
        # a bundle of named responses (test fixtures, support dumps): read the issue-shaped members
        for name in sorted(value):
            member = value[name]
            if looks_like_issue(member) or (isinstance(member, dict) and isinstance(member.get("issues"), list)):
                yield from _items(
                    member, origin.model_copy(update={"member": str(name)}), base_url, content_fields, depth + 1
                )


def webhook_items(
    payload: dict, origin: Origin, base_url: str | None = None, content_fields: tuple[str, ...] = ()
) -> Iterator[Item]:
    """issue_created/updated (+ changelog items as one history entry at the event time), comment_* events.

    The event name is kept in fields['webhook_event'] so a deletion event stays visible downstream.
    """
    event = str(payload.get("webhookEvent") or payload.get("issue_event_type_name") or "")
    issue = payload.get("issue")
    if not looks_like_issue(issue):
        yield failure(origin, ErrorClass.missing_field, f"webhook payload {event or '(no event)'} carries no issue")
        return
    at = parse_time(payload.get("timestamp"))
    changelog = None
    log = payload.get("changelog")
    if isinstance(log, dict) and isinstance(log.get("items"), list) and at is not None:
        changelog = [
            {"id": str(log.get("id") or ""), "created": iso(at), "author": payload.get("user"), "items": log["items"]}
        ]
    comment = payload.get("comment")
    fields = issue["fields"]
    if "updated" not in fields and at is not None:  # comment events carry a trimmed issue
        issue = {**issue, "fields": {**fields, "updated": iso(at), "created": fields.get("created") or iso(at)}}
    if isinstance(comment, dict) and event.startswith("comment_"):
        summary = str(fields.get("summary") or "")
        record = comment_record(comment, issue["key"], summary, None, origin, issue=issue_context(fields))
        if hasattr(record, "fields"):
            record.fields["webhook_event"] = event
        yield record
        return
    for item in issue_records(
        issue, origin, changelog=changelog, export_format="webhook", base_url=base_url, content_fields=content_fields
    ):
        if hasattr(item, "fields") and item.kind == "issue":
            item.fields["webhook_event"] = event
            item.fields["webhook_user"] = person(payload.get("user"))
        yield item
