"""Confluence storage format (XHTML with ac:/ri: macros) -> readable text plus what it points at.

Storage XHTML is a fragment: no single root, unbound ac:/ri: prefixes and HTML named entities (&nbsp;, &mdash;).
It is wrapped in a root that declares the prefixes, named entities are mapped to characters, and lxml parses it in
recover mode; if even that fails, the tags are stripped. Nothing here raises on odd markup: the worst case is text.

The text keeps structure an episode needs (headings, list items, table rows, code, tasks, panels, status lozenges);
links, attachments, user mentions and included pages are also returned as references so facts can name them.
The tree and tidy helpers are in storage_xml.py, the ac: elements (macros, page properties) in storage_macros.py.
"""

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from connectors.confluence.page_properties import PropertyRow, iso_date
from connectors.confluence.storage_macros import _MacroRenderer
from connectors.confluence.storage_xml import _attr, _local, _strip_tags, parse_storage, tidy

_BLOCKS = {
    "p",
    "div",
    "blockquote",
    "pre",
    "section",
    "article",
    "header",
    "footer",
    "address",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "center",
    "hr",
}
_OWNER_KEYS = ("owner", "page owner", "document owner", "doc owner")

UserLookup = Callable[[Mapping[str, str]], str | None]
PageLookup = Callable[[str | None, str], str | None]


class StorageText(BaseModel):
    """The text of one storage body and what it names."""

    text: str = ""
    references: list[str] = Field(default_factory=list)  # canonical ids: confluence:page:1, attachment:name:x
    users: list[dict[str, str]] = Field(default_factory=list)  # mentioned users (ri:user attributes + display name)
    attachments: list[dict[str, str]] = Field(default_factory=list)  # {file_name, version?}
    includes: list[str] = Field(default_factory=list)  # references of included pages (never fetched)
    macros: list[str] = Field(default_factory=list)  # macro names seen (sorted, unique)
    properties: dict[str, str] = Field(default_factory=dict)  # page-properties table: key -> text
    property_users: dict[str, list[dict[str, str]]] = Field(default_factory=dict)  # key -> users named in the row
    property_rows: list[PropertyRow] = Field(default_factory=list)  # details rows, then key/value tables, in order
    degraded: str | None = None  # why the tree parse was not used, if it was not


class _Renderer(_MacroRenderer):
    def __init__(self, users: UserLookup | None, pages: PageLookup | None, space_key: str | None) -> None:
        self.users = users
        self.pages = pages
        self.space_key = space_key
        self.out = StorageText()
        self.macros: set[str] = set()
        self.depth = 0
        self.fact = False  # rendering a property value for a sentence (see value())
        self.fact_seen = {"date": 0, "status": 0}
        self.fact_mailto: list[dict[str, str]] = []
        self.in_details = 0

    # ------------------------------------------------------------ references

    def _ref(self, ref: str) -> None:
        if ref and ref not in self.out.references:
            self.out.references.append(ref)

    def page_ref(self, el: Any) -> tuple[str | None, str]:
        """Reference + display title of an ri:page / ri:blog-post / ri:content-entity element."""
        content_id = _attr(el, "ri", "content-id")
        title = _attr(el, "ri", "content-title") or ""
        space = _attr(el, "ri", "space-key") or self.space_key
        if not content_id and title and self.pages is not None:
            content_id = self.pages(space, title)
        if content_id and content_id.isdigit():
            ref = f"confluence:page:{int(content_id)}"
        elif title:
            ref = f"confluence:title:{space or ''}:{title}"
        else:
            return None, ""
        self._ref(ref)
        return ref, title

    def user_name(self, el: Any) -> str:
        attrs = {k: v for k in ("account-id", "userkey", "username") if (v := _attr(el, "ri", k))}
        name = self.users(attrs) if self.users is not None else None
        shown = name or attrs.get("username") or "user"
        self.out.users.append({**attrs, "name": name or ""})
        if self.fact:  # a sentence names the person by whatever identifies them
            return name or attrs.get("username") or attrs.get("account-id") or attrs.get("userkey") or "user"
        return shown

    # ------------------------------------------------------------ text

    def inline(self, el: Any) -> str:
        """All text of an element on one line (table cells, list item heads, link bodies)."""
        return " ".join(self.block(el).split())

    def children(self, el: Any) -> str:
        parts = [el.text or ""]
        for child in el:
            parts.append(self.node(child))
            parts.append(child.tail or "")
        return "".join(parts)

    def block(self, el: Any) -> str:
        return self.children(el)

    def node(self, el: Any) -> str:
        self.depth += 1
        try:
            if self.depth > 200:  # pathological nesting: keep the words, drop the structure
                return " ".join("".join(el.itertext()).split())
            prefix, name = _local(el.tag)
            if not name:
                return ""
            if prefix == "ac":
                return self.ac(el, name)
            if prefix == "ri":
                return self.ri(el, name)
            return self.html(el, name)
        finally:
            self.depth -= 1

    def html(self, el: Any, name: str) -> str:
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return f"\n\n{'#' * int(name[1])} {self.inline(el)}\n\n"
        if name in ("ul", "ol"):
            return "\n" + self.list(el, ordered=name == "ol") + "\n"
        if name == "table":
            if not self.in_details and not self.fact:
                self.key_value_table(el)
            return "\n\n" + self.table(el) + "\n\n"
        if name == "br":
            return "\n"
        if name == "pre":
            return "\n```\n" + "".join(el.itertext()).strip("\n") + "\n```\n"
        if name == "a":
            label = self.inline(el)
            href = (el.get("href") or "").strip()
            if self.fact and href.lower().startswith("mailto:"):
                address = href[len("mailto:") :].split("?")[0].strip()
                self.fact_mailto.append({"email": address, "name": label if label != address else ""})
                return label or address
            if href and not href.startswith("#") and href not in label:  # as the ADF converter shows a link
                return f"{label} ({href})" if label else href
            return label
        if name == "code" and not self.fact:  # inline code, marked as the ADF text marks it
            inner = self.children(el)
            return f"`{inner}`" if inner.strip() else inner
        if name == "time":
            if self.fact and el.get("datetime"):
                self.fact_seen["date"] += 1
                return iso_date(el.get("datetime"))
            return el.get("datetime") or self.children(el)
        if name in ("script", "style"):
            return ""
        if name == "li":
            return "\n- " + self.inline(el) + "\n"
        if name in _BLOCKS:
            return "\n" + self.children(el) + "\n"
        return self.children(el)

    def list(self, el: Any, ordered: bool, level: int = 0) -> str:
        lines = []
        n = 0
        for item in el:
            _, name = _local(item.tag)
            if name != "li":
                text = self.inline(item)
                if text:
                    lines.append("  " * level + text)
                continue
            n += 1
            head = [item.text or ""]
            nested = []
            for child in item:
                _, cname = _local(child.tag)
                if cname in ("ul", "ol"):
                    nested.append(self.list(child, cname == "ol", level + 1))
                else:
                    head.append(self.node(child))
                head.append(child.tail or "")
            marker = f"{n}." if ordered else "-"
            lines.append("  " * level + f"{marker} " + " ".join("".join(head).split()))
            lines.extend(nested)
        return "\n".join(lines)

    def table(self, el: Any) -> str:
        rows = []
        for row in el.iter():
            if _local(row.tag)[1] != "tr":
                continue
            found = [c for c in row if _local(c.tag)[1] in ("td", "th")]
            cells = [self.inline(c) for c in found]
            if cells:
                rows.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
                if len(rows) == 1 and all(_local(c.tag)[1] == "th" for c in found):
                    rows.append("|" + "---|" * len(found))  # a header row, marked as the ADF text marks it
        return "\n".join(rows)

    def ri(self, el: Any, name: str) -> str:
        if name == "user":
            return self.user_name(el) if self.fact else "@" + self.user_name(el)
        if name in ("page", "blog-post", "content-entity"):
            _, title = self.page_ref(el)
            return title
        if name == "attachment":
            return self.attachment(el)
        if name == "url":
            return _attr(el, "ri", "value") or ""
        if name == "space":
            return _attr(el, "ri", "space-key") or ""
        return ""

    def attachment(self, el: Any) -> str:
        file_name = _attr(el, "ri", "filename") or ""
        if not file_name:
            return ""
        entry = {"file_name": file_name}
        version = _attr(el, "ri", "version-at-save")
        if version:
            entry["version"] = version
        if entry not in self.out.attachments:
            self.out.attachments.append(entry)
        self._ref(f"attachment:name:{file_name}")
        return file_name

    def render(self, root: Any) -> StorageText:
        text = self.children(root)
        self.out.text = tidy(text)
        self.out.macros = sorted(self.macros)
        return self.out


def storage_to_text(
    markup: str, *, users: UserLookup | None = None, pages: PageLookup | None = None, space_key: str | None = None
) -> StorageText:
    """Convert one storage body. users maps ri:user attributes to a display name; pages maps (space, title) to an id."""
    root, reason = parse_storage(markup)
    if root is not None:
        try:
            return _Renderer(users, pages, space_key).render(root)
        except Exception as exc:  # noqa: BLE001 - odd markup degrades to text, never to a crash
            reason = f"storage renderer gave up: {type(exc).__name__}: {exc}"
    try:
        return StorageText(text=_strip_tags(markup), degraded=reason)
    except Exception as exc:  # noqa: BLE001
        return StorageText(text=re.sub(r"<[^>]+>", " ", markup or ""), degraded=f"{reason}; {exc}")


def owner_users(converted: StorageText) -> list[dict[str, str]]:
    """Users named in the page-properties 'Owner' row (the page's declared owner)."""
    for key, users in converted.property_users.items():
        if key.strip().rstrip(":").casefold() in _OWNER_KEYS:
            return users
    return []
