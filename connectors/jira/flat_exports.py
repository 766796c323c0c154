"""Jira's own flat exports: the CSV export ("Export Excel CSV (all fields)") and the XML/RSS export.

Both are turned into the REST issue shape and go through issue_records, so all three formats give the same records.
CSV dates carry no zone (they are written in the exporting user's zone): they are read in a configurable zone, UTC by
default. Neither format carries a change history, so these records give current values only.
"""

import csv
import datetime as dt
import io
from collections.abc import Iterator
from typing import Any, BinaryIO

from connectors.jira.records import Item, failure, issue_records
from connectors.jira.times import iso, parse_time
from ground.records import ErrorClass, Origin
from transforms.html_text import html_to_text

MAX_CSV_FIELD = 10_000_000


def text_doc(text: str) -> dict:
    """Already-plain text wrapped as a one-paragraph ADF doc, so it is not read as wiki markup a second time."""
    return {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}],
    }


# ---------------------------------------------------------------- CSV


def _user(name: str | None, account: str | None) -> dict | None:
    if not (name or account):
        return None
    user: dict[str, Any] = {"displayName": name or account}
    if account:
        user["accountId" if ":" in account or len(account) > 20 else "name"] = account
    return user


def items_from_csv(
    data: bytes | BinaryIO,
    origin: Origin,
    base_url: str | None = None,
    content_fields: tuple[str, ...] = (),
    default_tz: dt.tzinfo = dt.UTC,
) -> Iterator[Item]:
    """Issues streamed row by row from the export (bytes or a binary stream): memory stays flat in the row count."""
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    csv.field_size_limit(MAX_CSV_FIELD)
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    index = 0
    try:
        try:
            header = next(reader)
        except (StopIteration, csv.Error) as exc:
            yield failure(origin, ErrorClass.parse_error, f"CSV export has no header row: {exc}")
            return
        header = [h.strip() for h in header]
        if "Issue key" not in header:
            yield failure(origin, ErrorClass.unsupported, "CSV has no 'Issue key' column: not a Jira issue export")
            return
        key_at = header.index("Issue key")
        while True:
            where = origin.model_copy(update={"index": index})
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield failure(where, ErrorClass.parse_error, f"CSV row cannot be parsed: {exc}")
                return
            index += 1
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                yield failure(
                    where,
                    ErrorClass.parse_error,
                    f"CSV row has {len(row)} cells, the header has {len(header)}",
                    row[key_at] if len(row) > key_at else None,
                )
                continue
            yield from issue_records(
                _csv_issue(header, row, default_tz),
                where,
                base_url=base_url,
                content_fields=content_fields,
                export_format="csv",
                default_tz=default_tz,
            )
    except UnicodeDecodeError as exc:
        yield failure(
            origin.model_copy(update={"index": index}),
            ErrorClass.parse_error,
            f"CSV export is not UTF-8 (from row {index} on): {exc}",
        )
    finally:
        text.detach()


def _csv_issue(header: list[str], row: list[str], default_tz: dt.tzinfo) -> dict:
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for name, value in zip(header, row):
        value = value.strip()
        single.setdefault(name, value)
        if value:
            multi.setdefault(name, []).append(value)
    get = lambda name: single.get(name) or None  # noqa: E731
    fields: dict[str, Any] = {
        "summary": get("Summary"),
        "issuetype": {"name": get("Issue Type")} if get("Issue Type") else None,
        "status": {"name": get("Status")} if get("Status") else None,
        "priority": {"name": get("Priority")} if get("Priority") else None,
        "resolution": {"name": get("Resolution")} if get("Resolution") else None,
        "project": {"key": get("Project key"), "name": get("Project name")} if get("Project key") else None,
        "assignee": _user(get("Assignee"), get("Assignee Id")),
        "reporter": _user(get("Reporter"), get("Reporter Id")),
        "creator": _user(get("Creator"), get("Creator Id")),
        "created": iso(parse_time(get("Created"), default_tz)) or get("Created"),
        "updated": iso(parse_time(get("Updated"), default_tz)) or get("Updated"),
        "resolutiondate": iso(parse_time(get("Resolved"), default_tz)),
        "duedate": (
            parse_time(get("Due Date"), default_tz).date().isoformat()
            if parse_time(get("Due Date"), default_tz)
            else None
        ),
        "labels": multi.get("Labels", []),
        "components": [{"name": c} for c in multi.get("Component/s", [])],
        "fixVersions": [{"name": v} for v in multi.get("Fix Version/s", [])],
        "description": text_doc(get("Description")) if get("Description") else None,
        "comment": {"comments": [_csv_comment(c, i, default_tz) for i, c in enumerate(multi.get("Comment", []))]},
    }
    if get("Sprint"):
        fields["customfield_sprint"] = multi["Sprint"]
    if get("Parent"):
        fields["parent"] = {"key": get("Parent")} if not get("Parent").isdigit() else None
    links = []
    for name, values in multi.items():
        low = name.casefold()
        if low.startswith(("outward issue link (", "inward issue link (")):
            direction = "outward" if low.startswith("outward") else "inward"
            kind = name[name.index("(") + 1 : name.rindex(")")] if "(" in name and ")" in name else "Relates"
            for key in values:
                links.append({"type": {"name": kind, direction: kind.casefold()}, f"{direction}Issue": {"key": key}})
    fields["issuelinks"] = links
    names: dict[str, str] = {"customfield_sprint": "Sprint"}
    for name, values in multi.items():
        if name.startswith("Custom field (") and name.endswith(")"):
            field_id = "customfield_" + name[len("Custom field (") : -1]
            names[field_id] = name[len("Custom field (") : -1]
            fields[field_id] = values if len(values) > 1 else values[0]
    return {"id": get("Issue id"), "key": get("Issue key"), "fields": fields, "names": names}


def _csv_comment(cell: str, index: int, default_tz: dt.tzinfo) -> dict:
    """'26/Mar/26 2:00 PM;<account id>;<body>' (the body may itself contain ';')."""
    parts = cell.split(";", 2)
    if len(parts) == 3 and parse_time(parts[0].strip(), default_tz) is not None:
        when, account, body = parts
        return {
            "id": f"csv{index + 1}",
            "created": iso(parse_time(when.strip(), default_tz)),
            "author": _user(None, account.strip()),
            "body": text_doc(body.strip()),
        }
    return {"id": f"csv{index + 1}", "body": text_doc(cell)}  # no date: a failure names it downstream


# ---------------------------------------------------------------- XML / RSS


def items_from_xml(
    data: bytes, origin: Origin, base_url: str | None = None, content_fields: tuple[str, ...] = ()
) -> Iterator[Item]:
    from lxml import etree

    parser_kw = {"resolve_entities": False, "no_network": True, "huge_tree": False}
    index = 0
    try:
        for _event, element in etree.iterparse(io.BytesIO(data), events=("end",), tag="item", **parser_kw):
            where = origin.model_copy(update={"index": index})
            index += 1
            try:
                issue = _xml_issue(element)
            except Exception as exc:  # noqa: BLE001 - one odd item becomes a failure, the file goes on
                yield failure(where, ErrorClass.bad_value, f"XML item cannot be read: {type(exc).__name__}: {exc}")
            else:
                yield from issue_records(
                    issue, where, base_url=base_url, content_fields=content_fields, export_format="xml"
                )
            element.clear()
    except etree.XMLSyntaxError as exc:
        yield failure(
            origin.model_copy(update={"index": index}), ErrorClass.parse_error, f"XML export breaks off: {exc}"
        )
        return
    if index == 0:
        yield failure(origin, ErrorClass.unsupported, "XML has no <item> elements: not a Jira XML/RSS export")


def _text(element: Any, tag: str) -> str | None:
    found = element.find(tag)
    if found is None:
        return None
    value = "".join(found.itertext()).strip()
    return value or None


def _xml_user(element: Any, tag: str) -> dict | None:
    found = element.find(tag)
    if found is None or not (found.text or "").strip() or (found.text or "").strip() == "Unassigned":
        return None
    account = found.get("accountid") or found.get("username")
    user = {"displayName": found.text.strip(), ("accountId" if found.get("accountid") else "name"): account}
    if found.get("email"):
        user["emailAddress"] = found.get("email")
    return user


def _html(value: str | None) -> dict | None:
    if not value:
        return None
    text = html_to_text(value)
    return text_doc(text) if text.strip() else None


def _xml_issue(item: Any) -> dict:
    key_el = item.find("key")
    title = _text(item, "summary") or _text(item, "title") or ""
    fields: dict[str, Any] = {
        "summary": title,
        "issuetype": {"name": _text(item, "type")} if _text(item, "type") else None,
        "status": {"name": _text(item, "status")} if _text(item, "status") else None,
        "priority": {"name": _text(item, "priority")} if _text(item, "priority") else None,
        "resolution": (
            {"name": _text(item, "resolution")} if _text(item, "resolution") not in (None, "Unresolved") else None
        ),
        "project": {"key": item.find("project").get("key"), "name": _text(item, "project")}
        if item.find("project") is not None
        else None,
        "assignee": _xml_user(item, "assignee"),
        "reporter": _xml_user(item, "reporter"),
        "created": iso(parse_time(_text(item, "created"))) or _text(item, "created"),
        "updated": iso(parse_time(_text(item, "updated"))) or _text(item, "updated"),
        "resolutiondate": iso(parse_time(_text(item, "resolved"))),
        "duedate": (parse_time(_text(item, "due")).date().isoformat() if parse_time(_text(item, "due")) else None),
        "labels": [t for t in (("".join(label.itertext())).strip() for label in item.findall("labels/label")) if t],
        "components": [{"name": "".join(c.itertext()).strip()} for c in item.findall("component")],
        "fixVersions": [{"name": "".join(v.itertext()).strip()} for v in item.findall("fixVersion")],
        "description": _html(_text(item, "description")),
        "attachment": [
            {"filename": a.get("name"), "size": int(a.get("size")) if (a.get("size") or "").isdigit() else None}
            for a in item.findall("attachments/attachment")
            if a.get("name")
        ],
    }
    if item.find("parent") is not None and _text(item, "parent"):
        fields["parent"] = {"key": _text(item, "parent")}
    comments = []
    for comment in item.findall("comments/comment"):
        author = comment.get("author")
        comments.append(
            {
                "id": comment.get("id"),
                "created": iso(parse_time(comment.get("created"))),
                "author": {"displayName": author, "accountId": author} if author else None,
                "body": _html("".join(comment.itertext())),
            }
        )
    fields["comment"] = {"comments": comments}
    links = []
    for link_type in item.findall("issuelinks/issuelinktype"):
        name = _text(link_type, "name") or "Relates"
        for direction in ("outward", "inward"):
            group = link_type.find(f"{direction}links")
            if group is None:
                continue
            for key in group.findall("issuelink/issuekey"):
                links.append(
                    {
                        "type": {"name": name, direction: group.get("description") or name},
                        f"{direction}Issue": {"key": (key.text or "").strip()},
                    }
                )
    fields["issuelinks"] = links
    names = {}
    for custom in item.findall("customfields/customfield"):
        field_id = custom.get("id") or ""
        values = ["".join(v.itertext()).strip() for v in custom.findall("customfieldvalues/customfieldvalue")]
        if field_id and values:
            names[field_id] = _text(custom, "customfieldname") or field_id
            fields[field_id] = values if len(values) > 1 else values[0]
    link = _text(item, "link")
    issue = {
        "id": key_el.get("id") if key_el is not None else None,
        "key": (key_el.text or "").strip() if key_el is not None else None,
        "fields": fields,
        "names": names,
    }
    if link and "/browse/" in link:
        issue["self"] = link.split("/browse/", 1)[0] + "/rest/api/2/issue/" + str(issue["id"])
    return issue
