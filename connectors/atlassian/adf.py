"""Atlassian Document Format (Jira Cloud v3 bodies) -> plain text that keeps structure.

Why text and not HTML: episodes are text, and the reference extractor must see link targets, mentions and card URLs.
So headings keep a '#' prefix, lists keep their nesting, tables become pipe rows, links show their target, mentions show
name and account id, media become attachment references. Unknown node types degrade to their text; nothing raises.
"""

import datetime as dt
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 200  # hostile nesting ends here instead of in a RecursionError

PANEL_LABELS = {
    "info": "Info",
    "note": "Note",
    "warning": "Warning",
    "error": "Error",
    "success": "Success",
    "tip": "Tip",
    "custom": "Panel",
}


def is_adf(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "doc" and isinstance(value.get("content", []), list)


def adf_to_text(doc: Any) -> str:
    """The text of an ADF document (or of any ADF node); '' for None or non-ADF values that carry no text."""
    if doc is None:
        return ""
    if isinstance(doc, str):
        return doc
    try:
        blocks = _blocks(doc, 0) if isinstance(doc, dict) else [b for n in _nodes(doc) for b in _blocks(n, 0)]
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps us far from it
        return ""
    return _join_blocks(blocks).strip()


def adf_media(doc: Any) -> list[dict[str, str]]:
    """Media nodes (attachments shown in the body) as {'id', 'name', 'type'} dicts, in document order."""
    found: list[dict[str, str]] = []
    for node in _walk(doc, 0):
        if node.get("type") in ("media", "mediaInline"):
            attrs = _attrs(node)
            found.append(
                {
                    k: str(v)
                    for k, v in (
                        ("id", attrs.get("id")),
                        ("name", attrs.get("alt") or attrs.get("id")),
                        ("type", attrs.get("type")),
                    )
                    if v
                }
            )
    return found


def adf_mentions(doc: Any) -> list[dict[str, str]]:
    """Mentioned users: {'account_id', 'name'}."""
    out = []
    for node in _walk(doc, 0):
        if node.get("type") == "mention":
            attrs = _attrs(node)
            out.append({"account_id": str(attrs.get("id") or ""), "name": str(attrs.get("text") or "").lstrip("@")})
    return out


# ---------------------------------------------------------------- internals


def _nodes(value: Any) -> list[dict]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    return []


def _attrs(node: dict) -> dict:
    attrs = node.get("attrs")
    return attrs if isinstance(attrs, dict) else {}


def _walk(node: Any, depth: int) -> Iterator[dict]:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, list):
        for child in node:
            yield from _walk(child, depth + 1)
        return
    if not isinstance(node, dict):
        return
    yield node
    yield from _walk(node.get("content"), depth + 1)


def _join_blocks(blocks: list[str]) -> str:
    return "\n\n".join(b for b in blocks if b.strip())


def _indent(text: str, prefix: str, first: str | None = None) -> str:
    lines = text.split("\n")
    head = first if first is not None else prefix
    return "\n".join([head + lines[0]] + [(prefix + line) if line else prefix.rstrip() for line in lines[1:]])


def _blocks(node: dict, depth: int) -> list[str]:
    """A block node -> its text blocks (separated by blank lines when joined)."""
    if depth > MAX_DEPTH or not isinstance(node, dict):
        return []
    kind = node.get("type")
    attrs = _attrs(node)
    children = _nodes(node.get("content"))
    if kind == "doc":
        return [b for child in children for b in _blocks(child, depth + 1)]
    if kind == "paragraph":
        return [_inline(children, depth)]
    if kind == "heading":
        level = attrs.get("level") if isinstance(attrs.get("level"), int) else 1
        return ["#" * max(1, min(level, 6)) + " " + _inline(children, depth)]
    if kind in ("bulletList", "orderedList", "taskList", "decisionList"):
        return [_list(node, depth)]
    if kind == "codeBlock":
        language = attrs.get("language") or ""
        return [f"```{language}\n{_inline(children, depth)}\n```"]
    if kind == "blockquote":
        return [_indent(_join_blocks(_child_blocks(children, depth)), "> ")]
    if kind == "panel":
        label = PANEL_LABELS.get(str(attrs.get("panelType")), "Panel")
        return [_indent(_join_blocks(_child_blocks(children, depth)), "  ", first=f"[{label}] ")]
    if kind == "rule":
        return ["---"]
    if kind == "table":
        return [_table(node, depth)]
    if kind in ("mediaSingle", "mediaGroup"):  # the caption is page text (Confluence shows it under the image)
        caption = " ".join(_inline(_nodes(n.get("content")), depth + 1) for n in children if n.get("type") == "caption")
        shown = " ".join(_media_ref(n) for n in children if n.get("type") == "media")
        return [f"{shown} {caption}".strip() if caption.strip() else shown]
    if kind == "media":
        return [_media_ref(node)]
    if kind in ("expand", "nestedExpand"):
        title = str(attrs.get("title") or "").strip()
        inner = _join_blocks(_child_blocks(children, depth))
        return [f"{title}\n{inner}" if title else inner]
    if kind in ("blockCard", "embedCard"):
        return [str(attrs.get("url") or "")]
    if kind in ("extension", "bodiedExtension"):
        inner = _join_blocks(_child_blocks(children, depth))
        return [inner or str(attrs.get("text") or "")]
    if kind in ("text", "mention", "emoji", "hardBreak", "inlineCard", "date", "status", "mediaInline"):
        return [_inline([node], depth)]
    # unknown block: its children as blocks if they are blocks, else as inline text
    if children and all(c.get("type") not in ("text", "hardBreak", "mention", "emoji") for c in children):
        return _child_blocks(children, depth)
    text = _inline(children, depth) if children else str(node.get("text") or attrs.get("text") or "")
    return [text]


def _child_blocks(children: list[dict], depth: int) -> list[str]:
    return [b for child in children for b in _blocks(child, depth + 1)]


def _list(node: dict, depth: int) -> str:
    kind = node.get("type")
    start = _attrs(node).get("order")
    number = start if isinstance(start, int) else 1
    lines = []
    for item in _nodes(node.get("content")):
        if kind == "orderedList":
            marker = f"{number}. "
            number += 1
        elif item.get("type") == "taskItem":
            marker = "- [x] " if _attrs(item).get("state") == "DONE" else "- [ ] "
        elif item.get("type") == "decisionItem":
            marker = "- [decision] "
        else:
            marker = "- "
        inner = _item_text(item, depth + 1)
        lines.append(_indent(inner, " " * len(marker), first=marker))
    return "\n".join(lines)


def _item_text(item: dict, depth: int) -> str:
    """A list item: paragraphs on their own lines, nested lists below (indented by the caller)."""
    parts = []
    for child in _nodes(item.get("content")):
        if child.get("type") in ("text", "mention", "emoji", "hardBreak", "inlineCard", "date", "status"):
            parts.append(_inline([child], depth))  # taskItem/decisionItem hold inline nodes directly
        else:
            parts.extend(_blocks(child, depth + 1))
    text = "\n".join(p for p in parts if p)
    return text.replace("\n\n", "\n")


def _table(node: dict, depth: int) -> str:
    rows = []
    header_done = False
    for row in _nodes(node.get("content")):
        cells = _nodes(row.get("content"))
        texts = [
            " ".join(_child_blocks(_nodes(c.get("content")), depth + 2)).replace("\n", " ").replace("|", "\\|")
            for c in cells
        ]
        rows.append("| " + " | ".join(t.strip() for t in texts) + " |")
        if not header_done and cells and all(c.get("type") == "tableHeader" for c in cells):
            rows.append("|" + "---|" * len(cells))
        header_done = True
    return "\n".join(rows)


def _media_ref(node: dict) -> str:
    attrs = _attrs(node)
    name = attrs.get("alt") or attrs.get("id") or "media"
    return f"[attachment: {name}]"


def _date(value: Any) -> str:
    try:
        return dt.datetime.fromtimestamp(int(str(value)) / 1000, dt.UTC).date().isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        return str(value or "")


def _inline(nodes: list[dict], depth: int) -> str:
    out: list[str] = []
    for node in nodes:
        if depth > MAX_DEPTH:
            break
        kind = node.get("type")
        attrs = _attrs(node)
        if kind == "text":
            text = str(node.get("text") or "")
            href = None
            code = False
            for mark in node.get("marks") or []:
                if isinstance(mark, dict) and mark.get("type") == "link":
                    href = (mark.get("attrs") or {}).get("href")
                elif isinstance(mark, dict) and mark.get("type") == "code":
                    code = True
            if code:
                text = f"`{text}`"
            if href and href != text:
                text = f"{text} ({href})"
            out.append(text)
        elif kind == "hardBreak":
            out.append("\n")
        elif kind == "mention":
            name = str(attrs.get("text") or "").lstrip("@") or "someone"
            ident = attrs.get("id")
            out.append(f"@{name} ({ident})" if ident else f"@{name}")
        elif kind == "emoji":
            out.append(str(attrs.get("text") or attrs.get("shortName") or ""))
        elif kind in ("inlineCard", "blockCard", "embedCard"):
            url = attrs.get("url")
            if not url and isinstance(attrs.get("data"), dict):
                url = attrs["data"].get("url") or attrs["data"].get("name")
            if out and out[-1] and not out[-1][-1].isspace():
                out.append(" ")  # a card glued to the word before it would hide its URL
            out.append(str(url or ""))
        elif kind == "date":
            out.append(_date(attrs.get("timestamp")))
        elif kind == "status":
            out.append(f"[{str(attrs.get('text') or '').upper()}]")
        elif kind in ("media", "mediaInline"):
            out.append(_media_ref(node))
        elif kind == "placeholder":
            continue
        else:
            children = _nodes(node.get("content"))
            if children:
                out.append(
                    _inline(children, depth + 1)
                    if all(c.get("type") == "text" for c in children)
                    else _join_blocks(_child_blocks(children, depth))
                )
            else:
                out.append(str(node.get("text") or attrs.get("text") or ""))
    return "".join(out)
