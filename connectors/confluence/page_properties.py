"""Page Properties: the key/value rows teams keep on a Confluence page as a record (Owner, Status, Due date...).

Read from a `details` (Page Properties) macro, and from any other table whose every row is a header cell and one
value cell (the same shape, without the macro). Each row keeps its key as written (for the fact sentence) and a
normalised slot (case-folded, trailing colon dropped) so "Owner:" and "owner" are one slot. Values are rendered for a
sentence: a date as its ISO date, a status lozenge as its title, a user by name; the people a value names are kept
with whatever identifies them (e-mail from a mailto link, account id / user key from a user link).
"""

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field


class PropertyRow(BaseModel):
    key: str  # as written on the page
    slot: str  # normalised key
    value: str  # rendered for a sentence
    kind: str = "text"  # text | date | status | person
    people: list[dict[str, str]] = Field(default_factory=list)  # {account-id|userkey|username|email, name}
    source: str = "details"  # details | table


def normalise_key(key: str) -> str:
    return " ".join(key.split()).rstrip(":").strip().casefold()


def iso_date(value: str) -> str:
    """A <time datetime> value as an ISO date; left as written when it is not a date."""
    text = (value or "").strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        return text


def is_key_value_table(rows: list[list[tuple[str, Any]]]) -> bool:
    """Every row: a header cell then one data cell (a vertical key/value table), at least one row."""
    return bool(rows) and all(len(r) == 2 and r[0][0] == "th" and r[1][0] == "td" for r in rows)


def row_kind(people: list[dict[str, str]], dates: int, statuses: int) -> str:
    if people:
        return "person"
    if statuses and not dates:
        return "status"
    if dates and not statuses:
        return "date"
    return "text"


def keep_rows(rows: list[PropertyRow], ignore: set[str] | frozenset[str] = frozenset()) -> list[PropertyRow]:
    """One row per slot (the first on the page wins), without ignored keys or empty values."""
    seen: set[str] = set()
    out = []
    for row in rows:
        if not row.slot or not row.value or row.slot in ignore or row.slot in seen:
            continue
        seen.add(row.slot)
        out.append(row)
    return out


# ---------------------------------------------------------------- the same rows from an ADF body (Cloud v2)


def adf_property_rows(doc: Any) -> list[PropertyRow]:
    """Rows of `details` extensions (bodiedExtension, extensionKey 'details'), then of header/value tables."""
    from connectors.atlassian.adf import _attrs, _nodes, _walk

    rows: list[PropertyRow] = []
    in_details: set[int] = set()
    for node in _walk(doc, 0):
        if node.get("type") == "bodiedExtension" and _attrs(node).get("extensionKey") in ("details", "page-properties"):
            for table in (n for n in _walk(node.get("content"), 0) if n.get("type") == "table"):
                in_details.add(id(table))
                rows.extend(_adf_rows(table, "details", any_cells=True))
    for node in _walk(doc, 0):
        if node.get("type") == "table" and id(node) not in in_details:
            cells = [[c.get("type") for c in _nodes(r.get("content"))] for r in _nodes(node.get("content"))]
            if cells and all(c == ["tableHeader", "tableCell"] for c in cells):
                rows.extend(_adf_rows(node, "table", any_cells=False))
    return rows


def _adf_rows(table: dict, source: str, any_cells: bool) -> list[PropertyRow]:
    from connectors.atlassian.adf import _nodes, adf_to_text

    out = []
    for row in _nodes(table.get("content")):
        cells = _nodes(row.get("content"))
        if len(cells) < 2 or (not any_cells and len(cells) != 2):
            continue
        key = " ".join(adf_to_text({"type": "doc", "content": _nodes(cells[0].get("content"))}).split())
        if not key:
            continue
        seen = {"date": 0, "status": 0}
        people: list[dict[str, str]] = []
        value = " ".join(_adf_value(_nodes(cells[1].get("content")), seen, people, 0).split())
        out.append(
            PropertyRow(
                key=key,
                slot=normalise_key(key),
                value=value,
                people=people,
                source=source,
                kind=row_kind(people, seen["date"], seen["status"]),
            )
        )
    return out


def _adf_value(nodes: list[dict], seen: dict[str, int], people: list[dict[str, str]], depth: int) -> str:
    """An ADF cell for a sentence: mentions by name, status as its title, dates as ISO dates."""
    from connectors.atlassian.adf import MAX_DEPTH, _attrs, _date, _nodes

    parts = []
    for node in nodes:
        kind, attrs = node.get("type"), _attrs(node)
        if depth > MAX_DEPTH:
            break
        if kind == "text":
            text = str(node.get("text") or "")
            for mark in node.get("marks") or []:
                href = str(((mark or {}).get("attrs") or {}).get("href") or "") if isinstance(mark, dict) else ""
                if href.lower().startswith("mailto:"):
                    address = href[len("mailto:") :].split("?")[0].strip()
                    people.append({"email": address, "name": text if text != address else ""})
            parts.append(text)
        elif kind == "mention":
            name = str(attrs.get("text") or "").lstrip("@")
            people.append({k: v for k, v in (("account-id", str(attrs.get("id") or "")), ("name", name)) if v})
            parts.append(name or str(attrs.get("id") or ""))
        elif kind == "status":
            seen["status"] += 1
            parts.append(str(attrs.get("text") or ""))
        elif kind == "date":
            seen["date"] += 1
            parts.append(_date(attrs.get("timestamp")))
        elif kind == "hardBreak":
            parts.append(" ")
        else:
            parts.append(" " + _adf_value(_nodes(node.get("content")), seen, people, depth + 1) + " ")
    return "".join(parts)
