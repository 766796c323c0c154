"""Hostile inputs generated at test time (nothing large is committed): one small good record per source, and
builders for the bad files issue 14 measured (deep JSON, long tokens, giant fields, BOMs, wrong types, nested zips)."""

import copy
import io
import json
import zipfile
from typing import Any

WHEN = "2026-05-04T10:00:00.000+0000"


def jira_issue(
    key: str = "HOST-1",
    summary: str = "Rollout of the billing connector",
    description: Any = "The connector goes live next week. Please review the plan.",
) -> dict:
    person = {"accountId": "acc-1", "displayName": "Ada Lovelace", "emailAddress": "ada@example.com"}
    return {
        "id": "10001",
        "key": key,
        "self": "https://jira.example.com/rest/api/2/issue/10001",
        "fields": {
            "summary": summary,
            "description": description,
            "created": WHEN,
            "updated": WHEN,
            "issuetype": {"name": "Task"},
            "project": {"key": "HOST", "name": "Hostile"},
            "status": {"name": "Open"},
            "priority": {"name": "High"},
            "resolution": None,
            "reporter": person,
            "assignee": person,
            "creator": person,
            "labels": ["billing"],
            "components": [{"name": "api"}],
            "fixVersions": [{"name": "1.0"}],
            "issuelinks": [
                {
                    "type": {"name": "Blocks", "outward": "blocks", "inward": "is blocked by"},
                    "outwardIssue": {"key": "HOST-2"},
                }
            ],
            "attachment": [{"filename": "plan.pdf", "size": 12, "mimeType": "application/pdf"}],
            "comment": {
                "comments": [
                    {"id": "1", "body": "Looks good to me.", "author": person, "created": WHEN, "updated": WHEN}
                ]
            },
            "customfield_10010": "Team Billing",
        },
        "changelog": {
            "histories": [
                {
                    "id": "5",
                    "created": WHEN,
                    "author": person,
                    "items": [{"field": "status", "fromString": "New", "toString": "Open"}],
                }
            ]
        },
        "names": {"customfield_10010": "Team"},
    }


def confluence_page(
    ident: str = "9001",
    title: str = "Billing runbook",
    storage: str = "<p>Restart the billing worker when the queue stalls.</p>",
) -> dict:
    return {
        "id": ident,
        "type": "page",
        "status": "current",
        "title": title,
        "space": {"key": "OPS", "name": "Operations"},
        "history": {
            "createdDate": "2026-05-04T10:00:00.000Z",
            "createdBy": {"accountId": "acc-1", "displayName": "Ada Lovelace"},
        },
        "version": {
            "number": 2,
            "when": "2026-05-05T10:00:00.000Z",
            "by": {"accountId": "acc-1", "displayName": "Ada Lovelace"},
        },
        "body": {"storage": {"value": storage, "representation": "storage"}},
    }


def salesforce_case(
    ident: str = "5008d00000AbCdEAAV",
    subject: str = "Invoice totals are wrong",
    description: str = "The March invoice shows the wrong totals. Please correct them.",
) -> dict:
    return {
        "attributes": {"type": "Case", "url": f"/services/data/v60.0/sobjects/Case/{ident}"},
        "Id": ident,
        "CaseNumber": "00001001",
        "Subject": subject,
        "Description": description,
        "Status": "New",
        "Priority": "High",
        "CreatedDate": "2026-05-04T10:00:00.000+0000",
        "LastModifiedDate": "2026-05-04T11:00:00.000+0000",
        "SystemModstamp": "2026-05-04T11:00:00.000+0000",
    }


def salesforce_query(*records: dict) -> dict:
    return {"totalSize": len(records), "done": True, "records": list(records)}


def email(
    subject: str = "Contract for signature",
    body: str = "Please sign the attached contract by Friday.",
    message_id: str = "<good-1@example.com>",
) -> bytes:
    return (
        f"From: Ada Lovelace <ada@example.com>\r\nTo: Bob <bob@example.com>\r\nSubject: {subject}\r\n"
        f"Date: Mon, 04 May 2026 10:00:00 +0000\r\nMessage-ID: {message_id}\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def deep_array(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


PLACEHOLDER = "\u0000deep\u0000"


def deep_object(depth: int) -> bytes:
    """JSON text of objects nested `depth` deep (built as text: json.dumps itself recurses)."""
    return b'{"k":' * depth + b'"x"' + b"}" * depth


def deep_adf_lists(depth: int) -> bytes:
    """JSON text of an ADF description `depth` bullet lists deep (each list adds four JSON levels)."""
    head = b'{"type":"bulletList","content":[{"type":"listItem","content":['
    leaf = b'{"type":"paragraph","content":[{"type":"text","text":"deepest item"}]}'
    return b'{"type":"doc","version":1,"content":[' + head * depth + leaf + b"]}]}" * depth + b"]}"


def with_deep(value: Any, fragment: bytes) -> bytes:
    """`value` as JSON with the string PLACEHOLDER replaced by a (deep) JSON fragment."""
    return dumps(value).replace(json.dumps(PLACEHOLDER).encode(), fragment)


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def json_paths(value: Any, path: str = "") -> list[str]:
    """Every node path of a JSON value ('fields.issuelinks', 'fields.issuelinks[0].type', ...), the root excluded."""
    out = []
    if isinstance(value, dict):
        for key, child in value.items():
            here = f"{path}.{key}" if path else key
            out.append(here)
            out.extend(json_paths(child, here))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            here = f"{path}[{i}]"
            out.append(here)
            out.extend(json_paths(child, here))
    return out


def replaced(value: Any, path: str, new: Any) -> Any:
    """A deep copy of value with the node at `path` (as json_paths spells it) replaced by `new`."""
    out = copy.deepcopy(value)
    steps: list[str | int] = []
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            steps.append(int(part[1:-1]))
        elif part:
            steps.append(part)
    node = out
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = new
    return out
