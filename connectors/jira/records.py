"""One Jira issue (REST v2 or v3 JSON, or what the CSV/XML readers build in that shape) -> records.

The issue itself is one record (source key = issue key; content = summary + description + configured custom fields)
and each comment is one record (source key = issue key + '#' + comment id). Everything the facts need travels in
`fields`: current values, the normalised change history with change times, links, parent/epic, a people directory
(account id -> person) so history values resolve to the same person node as mail, and custom fields by name.
"""

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from connectors.atlassian.adf import adf_media, adf_to_text, is_adf
from connectors.jira.issue_fields import (
    _embedded_comments,
    _epic_key,
    _histories,
    _links,
    _name,
    _show,
    _str,
    browse_url,
    normalise_history,
    sprint_names,
)
from connectors.jira.people import actor, collect_users, person
from connectors.jira.times import epoch_ms, iso, parse_time
from connectors.jira.wiki import wiki_to_text
from connectors.safe_json import FieldTypeError, as_dict, as_list
from ground.records import Attachment, ErrorClass, Origin, Participant, RecordFailure, SourceRecord

SOURCE = "jira"
Item = SourceRecord | RecordFailure


failure = functools.partial(RecordFailure.at, SOURCE)  # (origin, error_class, reason, key=None)


def body_text(value: Any) -> str:
    """Description/comment body: ADF (Cloud v3) or wiki markup (Server v2, exports)."""
    if value is None:
        return ""
    if is_adf(value):
        return adf_to_text(value)
    if isinstance(value, str):
        return wiki_to_text(value)
    if isinstance(value, dict):
        return adf_to_text(value)
    return ""


def simplify(value: Any, depth: int = 0) -> Any:
    """A custom field value reduced to JSON-safe strings/numbers/lists/dicts (ADF to text)."""
    if depth > 6:
        return None
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value
    if is_adf(value):
        return adf_to_text(value)
    if isinstance(value, list):
        return [simplify(v, depth + 1) for v in value[:200]]
    if isinstance(value, dict):
        name = _name(value)
        if name is not None:
            return name
        return {
            str(k): simplify(v, depth + 1)
            for k, v in list(value.items())[:50]
            if not str(k).startswith(("self", "avatarUrls", "iconUrl"))
        }
    return str(value)


def _custom_fields(fields: dict, names: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field_id, value in fields.items():
        if not field_id.startswith("customfield_") or value is None or value == [] or value == "":
            continue
        out[names.get(field_id, field_id)] = simplify(value)
    return out


def _attachments(fields: dict, description: Any) -> list[Attachment]:
    out, seen = [], set()
    for att in as_list(fields.get("attachment"), "fields.attachment"):
        if isinstance(att, dict) and att.get("filename"):
            size = att.get("size") if isinstance(att.get("size"), int) else None
            out.append(Attachment(name=str(att["filename"]), size=size, media_type=_str(att.get("mimeType"))))
            seen.add(str(att["filename"]))
    for media in adf_media(description) if is_adf(description) else []:
        name = media.get("name") or media.get("id")
        if name and name not in seen:
            out.append(Attachment(name=name))
            seen.add(name)
    return out


def issue_records(issue: Any, origin: Origin, **options: Any) -> list[Item]:
    """The issue record followed by one record per comment; failures instead of records for what cannot be read.

    A field of the wrong type is a failure naming its path (`field fields.issuelinks: expected a list, got a
    number`); any other surprise in third-party JSON is a failure for this issue, never an exception."""
    key = _str(issue.get("key")) if isinstance(issue, dict) and isinstance(issue.get("key"), (str, int)) else None
    try:
        return _issue_records(issue, origin, **options)
    except FieldTypeError as exc:
        return [failure(origin, ErrorClass.bad_value, str(exc), key)]
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        return [
            failure(
                origin, ErrorClass.bad_value, f"unexpected value in the issue JSON: {type(exc).__name__}: {exc}", key
            )
        ]


def _issue_records(
    issue: Any,
    origin: Origin,
    *,
    base_url: str | None = None,
    field_names: Mapping[str, str] | None = None,
    content_fields: Sequence[str] = (),
    changelog: Sequence[dict] | None = None,
    comments: Sequence[dict] | None = None,
    export_format: str = "json",
    default_tz: dt.tzinfo = dt.UTC,
) -> list[Item]:
    if not isinstance(issue, dict):
        return [failure(origin, ErrorClass.parse_error, f"an issue must be a JSON object, got {type(issue).__name__}")]
    key = _str(issue.get("key"))
    if not key:
        return [failure(origin, ErrorClass.missing_field, "issue has no key")]
    fields = issue.get("fields")
    if not isinstance(fields, dict):
        return [failure(origin, ErrorClass.missing_field, "issue has no fields object", key)]
    names = {**as_dict(issue.get("names"), "names"), **(field_names or {})}
    for field_id, name in names.items():
        if not isinstance(name, str):
            raise FieldTypeError(f"names.{field_id}", "a string", name)
    created = parse_time(fields.get("created"), default_tz)
    updated = parse_time(fields.get("updated"), default_tz) or created
    created = created or updated
    if created is None:
        return [failure(origin, ErrorClass.missing_field, "issue has neither a created nor an updated date", key)]

    directory: dict[str, dict[str, str]] = {}
    collect_users(issue, directory)
    collect_users(list(changelog or []), directory)
    collect_users(list(comments or []), directory)
    history = normalise_history(_histories(issue, changelog), directory)

    summary = _str(fields.get("summary")) or ""
    description = fields.get("description")
    reporter, assignee, creator = (
        person(fields.get("reporter")),
        person(fields.get("assignee")),
        person(fields.get("creator")),
    )
    parent = fields.get("parent") if isinstance(fields.get("parent"), dict) else None
    custom = _custom_fields(fields, names)
    sprint = next(
        (sprint_names(v) for k, v in fields.items() if names.get(k, "").casefold() == "sprint" or k == "sprint"), []
    )
    url = browse_url(issue, base_url)
    links = _links(fields)

    body = body_text(description)
    extra = [f"{name}: {_show(custom[name])}" for name in content_fields if custom.get(name) not in (None, "", [])]
    if extra:
        body = (body + "\n\n" if body else "") + "\n".join(extra)
    participants = [
        Participant(role=role, actor=actor(p))
        for role, p in (("reporter", reporter), ("assignee", assignee), ("creator", creator))
        if p
    ]
    context = issue_context(fields, default_tz)
    record_fields: dict[str, Any] = {
        "format": export_format,
        "issue_id": _str(issue.get("id")),
        "issue_key": key,
        "project": _name(fields.get("project"))
        if not isinstance(fields.get("project"), dict)
        else _str(fields["project"].get("key")) or _name(fields["project"]),
        "issue_type": context["issue_type"],
        "summary": summary,
        "status": _name(fields.get("status")),
        "priority": _name(fields.get("priority")),
        "resolution": context["resolution"],
        "assignee": assignee,
        "reporter": reporter,
        "creator": creator,
        "labels": [str(x) for x in as_list(fields.get("labels"), "fields.labels") if isinstance(x, (str, int))],
        "components": [n for n in (_name(c) for c in as_list(fields.get("components"), "fields.components")) if n],
        "fix_versions": [n for n in (_name(v) for v in as_list(fields.get("fixVersions"), "fields.fixVersions")) if n],
        "sprints": sprint,
        "due_date": _str(fields.get("duedate")),
        "created": iso(created),
        "updated": iso(updated),
        "resolved": context["resolved"],
        "parent": _str(parent.get("key")) if parent else None,
        "epic": _epic_key(fields, names),
        "links": links,
        "history": history,
        "people": directory,
        "custom_fields": custom,
    }
    record = SourceRecord(
        source=SOURCE,
        kind="issue",
        source_key=key,
        version=str(epoch_ms(updated or created)),
        url=url,
        title=summary,
        body=body,
        actor=actor(reporter or creator),
        occurred_at=created,
        updated_at=updated or created,
        participants=participants,
        attachments=_attachments(fields, description),
        links=[url] if url else [],
        parent_key=record_fields["parent"] or record_fields["epic"],
        thread_key=key,
        related_keys=sorted({link["key"] for link in links}),
        fields=record_fields,
        origin=origin,
    )
    items: list[Item] = [record]
    raw_comments = comments if comments is not None else _embedded_comments(fields)
    for index, comment in enumerate(raw_comments):
        items.append(
            comment_record(
                comment, key, summary, url, origin.model_copy(update={"index": index}), default_tz, issue=context
            )
        )
    return items


# what a comment record keeps of its issue: the intent context of the comment (transforms.intent.context)
ISSUE_CONTEXT = ("issue_type", "resolution", "resolved")


def issue_context(fields: Any, default_tz: dt.tzinfo = dt.UTC) -> dict[str, Any]:
    """ISSUE_CONTEXT of raw issue fields: the issue record's own values, and what each of its comment records keeps
    (a webhook's trimmed issue carries what it carries)."""
    fields = fields if isinstance(fields, dict) else {}
    return {
        "issue_type": _name(fields.get("issuetype")),
        "resolution": _name(fields.get("resolution")),
        "resolved": iso(parse_time(fields.get("resolutiondate"), default_tz)),
    }


def comment_record(
    comment: Any,
    issue_key: str,
    summary: str,
    issue_url: str | None,
    origin: Origin,
    default_tz: dt.tzinfo = dt.UTC,
    issue: dict[str, Any] | None = None,
) -> Item:
    try:
        return _comment_record(comment, issue_key, summary, issue_url, origin, default_tz, issue or {})
    except FieldTypeError as exc:
        return failure(origin, ErrorClass.bad_value, f"comment: {exc}", issue_key)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        return failure(
            origin,
            ErrorClass.bad_value,
            f"unexpected value in the comment JSON: {type(exc).__name__}: {exc}",
            issue_key,
        )


def _comment_record(
    comment: Any,
    issue_key: str,
    summary: str,
    issue_url: str | None,
    origin: Origin,
    default_tz: dt.tzinfo,
    issue: dict[str, Any],
) -> Item:
    if not isinstance(comment, dict):
        return failure(origin, ErrorClass.parse_error, "comment is not a JSON object", issue_key)
    comment_id = _str(comment.get("id"))
    if not comment_id:
        return failure(origin, ErrorClass.missing_field, "comment has no id", issue_key)
    source_key = f"{issue_key}#{comment_id}"
    created = parse_time(comment.get("created"), default_tz)
    updated = parse_time(comment.get("updated"), default_tz) or created
    if created is None:
        return failure(origin, ErrorClass.missing_field, "comment has no created date", source_key)
    author = person(comment.get("author"))
    body = comment.get("body")
    url = f"{issue_url}?focusedCommentId={comment_id}" if issue_url else None
    attachments = (
        [Attachment(name=m.get("name") or m.get("id", "media")) for m in adf_media(body)] if is_adf(body) else []
    )
    return SourceRecord(
        source=SOURCE,
        kind="comment",
        source_key=source_key,
        version=str(epoch_ms(updated or created)),
        url=url,
        title=f"Comment on {issue_key}: {summary}" if summary else f"Comment on {issue_key}",
        body=body_text(body),
        actor=actor(author),
        occurred_at=created,
        updated_at=updated or created,
        participants=[Participant(role="author", actor=actor(author))] if author else [],
        attachments=attachments,
        parent_key=issue_key,
        thread_key=issue_key,
        fields={
            "issue_key": issue_key,
            "comment_id": comment_id,
            "author": author,
            "update_author": person(comment.get("updateAuthor")),
            "created": iso(created),
            "updated": iso(updated),
            "visibility": simplify(comment.get("visibility")) if comment.get("visibility") else None,
            **{k: issue.get(k) for k in ISSUE_CONTEXT},
        },
        origin=origin,
    )
