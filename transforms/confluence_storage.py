"""Confluence storage format (XHTML with ac:/ri: macros) -> readable text plus what it points at.

Storage XHTML is a fragment: no single root, unbound ac:/ri: prefixes and HTML named entities (&nbsp;, &mdash;).
It is wrapped in a root that declares the prefixes, named entities are mapped to characters, and lxml parses it in
recover mode; if even that fails, the tags are stripped. Nothing here raises on odd markup: the worst case is text.

The text keeps structure an episode needs (headings, list items, table rows, code, tasks, panels, status lozenges);
links, attachments, user mentions and included pages are also returned as references so facts can name them.
"""

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

from lxml import etree
from pydantic import BaseModel, Field

from transforms.page_properties import PropertyRow, is_key_value_table, iso_date, normalise_key, row_kind

AC = "http://atlassian.com/content"
RI = "http://atlassian.com/resource/identifier"
AT = "http://atlassian.com/template"
_WRAP_OPEN = f'<gf-root xmlns:ac="{AC}" xmlns:ri="{RI}" xmlns:at="{AT}">'
_WRAP_CLOSE = "</gf-root>"
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31});")
_UNBOUND_PREFIX = re.compile(r"<(/?)([A-Za-z][\w-]*):")
_BLOCKS = {"p", "div", "blockquote", "pre", "section", "article", "header", "footer", "address", "figure",
           "figcaption", "dl", "dt", "dd", "center", "hr"}
# Labelled as Confluence Cloud (and its ADF) names them: the storage "note" macro is the yellow warning panel, etc.
_PANELS = {"info": "Info", "note": "Warning", "warning": "Error", "tip": "Success", "panel": "Panel",
           "success": "Success", "error": "Error"}
_ADF_PANELS = {"info": "Info", "note": "Note", "warning": "Warning", "error": "Error", "success": "Success",
               "tip": "Tip", "custom": "Panel"}
_SKIPPED_MACROS = {"toc", "children", "pagetree", "recently-updated", "contentbylabel", "anchor", "livesearch",
                   "create-from-template", "pagetreesearch", "attachments", "gallery", "toc-zone"}
_INCLUDES = {"include", "excerpt-include"}
_PROPERTY_MACROS = {"details", "page-properties"}
_OWNER_KEYS = ("owner", "page owner", "document owner", "doc owner")

UserLookup = Callable[[Mapping[str, str]], str | None]
PageLookup = Callable[[str | None, str], str | None]


class StorageText(BaseModel):
    """The text of one storage body and what it names."""

    text: str = ""
    references: list[str] = Field(default_factory=list)        # canonical ids: confluence:page:1, attachment:name:x
    users: list[dict[str, str]] = Field(default_factory=list)  # mentioned users (ri:user attributes + display name)
    attachments: list[dict[str, str]] = Field(default_factory=list)   # {file_name, version?}
    includes: list[str] = Field(default_factory=list)          # references of included pages (never fetched)
    macros: list[str] = Field(default_factory=list)            # macro names seen (sorted, unique)
    properties: dict[str, str] = Field(default_factory=dict)   # page-properties table: key -> text
    property_users: dict[str, list[dict[str, str]]] = Field(default_factory=dict)  # key -> users named in the row
    property_rows: list[PropertyRow] = Field(default_factory=list)   # details rows, then key/value tables, in order
    degraded: str | None = None                                # why the tree parse was not used, if it was not


def _local(tag: Any) -> tuple[str, str]:
    """(namespace prefix ac/ri/'' , local name) of an lxml tag."""
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        ns, _, name = tag[1:].partition("}")
        return {AC: "ac", RI: "ri", AT: "at"}.get(ns, "x"), name.lower()
    return "", tag.lower()


def _attr(el: Any, prefix: str, name: str) -> str | None:
    ns = {"ac": AC, "ri": RI}.get(prefix)
    value = el.get(f"{{{ns}}}{name}") if ns else None
    if value is None:
        value = el.get(f"{prefix}:{name}") or el.get(name)
    return value


def _named_entities(markup: str) -> str:
    def repl(match: re.Match) -> str:
        name = match.group(1)
        if name in _XML_ENTITIES:
            return match.group(0)
        char = html.entities.html5.get(name + ";")
        if char is None:
            return "&amp;" + name + ";"
        return html.escape(char, quote=False)

    return _ENTITY.sub(repl, markup)


def parse_storage(markup: str) -> tuple[Any | None, str | None]:
    """The wrapped tree, or (None, reason). Unknown prefixes (e.g. 'fab:') are stripped so the XML stays well formed."""
    text = _named_entities(markup or "")
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = _UNBOUND_PREFIX.sub(lambda m: f"<{m.group(1)}{m.group(2)}:" if m.group(2) in ("ac", "ri", "at")
                               else f"<{m.group(1)}{m.group(2)}-", text)
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True,
                             remove_pis=True)
    try:
        root = etree.fromstring((_WRAP_OPEN + text + _WRAP_CLOSE).encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        return None, f"storage XHTML did not parse: {exc}"
    if root is None:
        return None, "storage XHTML did not parse: empty tree"
    return root, None


class _Renderer:
    def __init__(self, users: UserLookup | None, pages: PageLookup | None, space_key: str | None) -> None:
        self.users = users
        self.pages = pages
        self.space_key = space_key
        self.out = StorageText()
        self.macros: set[str] = set()
        self.depth = 0
        self.fact = False                    # rendering a property value for a sentence (see value())
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
        if self.fact:                        # a sentence names the person by whatever identifies them
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
            if self.depth > 200:            # pathological nesting: keep the words, drop the structure
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
                address = href[len("mailto:"):].split("?")[0].strip()
                self.fact_mailto.append({"email": address, "name": label if label != address else ""})
                return label or address
            if href and not href.startswith("#") and href not in label:   # as the ADF converter shows a link
                return f"{label} ({href})" if label else href
            return label
        if name == "code" and not self.fact:      # inline code, marked as the ADF text marks it
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
                    rows.append("|" + "---|" * len(found))          # a header row, marked as the ADF text marks it
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

    def ac(self, el: Any, name: str) -> str:
        if name == "link":
            return self.link(el)
        if name == "image":
            target = "".join(self.node(c) for c in el if _local(c.tag)[1] in ("attachment", "url"))
            caption = " ".join(self.inline(c) for c in el if _local(c.tag)[1] == "caption")
            alt = _attr(el, "ac", "alt") or ""
            label = target or alt
            if not (label or caption):
                return ""
            return f"[attachment: {label or 'image'}]" + (f" {caption}" if caption else "")   # as ADF media show
        if name in ("structured-macro", "macro"):
            return self.macro(el)
        if name == "task-list":
            lines = []
            for task in el:
                if _local(task.tag)[1] != "task":
                    continue
                status = next((c.text or "" for c in task if _local(c.tag)[1] == "task-status"), "")
                body = " ".join(self.inline(c) for c in task if _local(c.tag)[1] == "task-body")
                lines.append(f"[{'x' if status.strip() == 'complete' else ' '}] {body}")
            return "\n" + "\n".join(lines) + "\n"
        if name in ("parameter", "task-id", "task-uuid", "placeholder", "adf-attribute", "adf-fragment-mark-detail"):
            return ""
        if name == "emoticon":
            return _attr(el, "ac", "emoji-fallback") or ""
        if name in ("plain-text-body", "plain-text-link-body"):
            return "".join(el.itertext())
        if name == "adf-extension":            # prefer the fallback a reader without ADF support would show
            fallback = [c for c in el if _local(c.tag)[1] == "adf-fallback"]
            inner = self.children(fallback[0]) if fallback else self.children(el)
            node = next((c for c in el if _local(c.tag)[1] == "adf-node"), None)
            if node is not None and node.get("type") == "panel":
                kind = next(((c.text or "").strip() for c in node if _local(c.tag)[1] == "adf-attribute"
                             and _attr(c, "", "key") == "panel-type"), "")
                return f"\n[{_ADF_PANELS.get(kind, 'Panel')}] {' '.join(inner.split())}\n"
            return inner
        if name in ("layout-section", "layout-cell"):
            return "\n" + self.children(el) + "\n"
        return self.children(el)

    def link(self, el: Any) -> str:
        body = ""
        target = ""
        for child in el:
            prefix, cname = _local(child.tag)
            if cname in ("link-body", "plain-text-link-body"):
                body = self.inline(child) if cname == "link-body" else "".join(child.itertext())
            elif prefix == "ri":
                target = self.ri(child, cname)
        anchor = _attr(el, "ac", "anchor")
        shown = " ".join(body.split()) or target or (f"#{anchor}" if anchor else "")
        return shown

    def params(self, el: Any) -> dict[str, str]:
        out = {}
        for child in el:
            if _local(child.tag) == ("ac", "parameter"):
                key = (_attr(child, "ac", "name") or "").strip()
                out[key] = " ".join("".join(self.node(c) for c in child).split()) or " ".join(
                    "".join(child.itertext()).split())
        return out

    def macro(self, el: Any) -> str:
        name = (_attr(el, "ac", "name") or "").strip().lower()
        self.macros.add(name or "?")
        params = self.params(el)
        bodies = [c for c in el if _local(c.tag)[1] in ("rich-text-body", "plain-text-body")]
        if name in ("code", "noformat"):
            code = "".join("".join(b.itertext()) for b in bodies).strip("\n")
            language = params.get("language", "")
            return f"\n```{language}\n{code}\n```\n"
        if name == "status":
            title = params.get("title") or params.get("colour") or ""
            if self.fact:
                self.fact_seen["status"] += 1
                return title
            return f"[{title.upper()}]" if title else ""
        if name == "expand":                    # as ADF shows an expand: its title, then its body
            title = params.get("title", "")
            inner = "".join(self.node(b) for b in bodies).strip()
            return f"\n{title}\n{inner}\n" if title else f"\n{inner}\n"
        if name in _PANELS or name.endswith("panel"):
            label = _PANELS.get(name, "Panel")
            title = params.get("title", "")
            inner = "".join(self.node(b) for b in bodies).strip()
            head = f"[{label}{': ' + title if title else ''}]"
            return f"\n{head} {inner}\n"
        if name in _INCLUDES:
            targets = [c for c in el.iter() if _local(c.tag) in (("ri", "page"), ("ri", "blog-post"))]
            for target in targets:
                ref, title = self.page_ref(target)
                if ref and ref not in self.out.includes:
                    self.out.includes.append(ref)
                return f"\n[includes page: {title or ref}]\n"
            return ""
        if name in ("jira", "jiraissues"):
            return params.get("key", "") or params.get("jqlQuery", "")
        if name in _PROPERTY_MACROS:
            self.in_details += 1
            try:
                for body in bodies:
                    self.properties(body)
                return "\n" + "".join(self.node(b) for b in bodies) + "\n"
            finally:
                self.in_details -= 1
        if name in _SKIPPED_MACROS:
            return ""
        if name == "view-file" or name == "viewpdf" or name == "multimedia":
            return "".join(self.node(c) for c in el.iter() if _local(c.tag) == ("ri", "attachment"))
        # unknown macros degrade to their text (bodies; parameter values are settings, not content)
        return "".join(self.node(b) for b in bodies)

    def properties(self, body: Any) -> None:
        """Page properties (details macro): two-column rows, key in the first cell."""
        for row in body.iter():
            if _local(row.tag)[1] != "tr":
                continue
            cells = [c for c in row if _local(c.tag)[1] in ("td", "th")]
            if len(cells) < 2:
                continue
            self.property(cells[0], cells[1], "details")

    def key_value_table(self, table: Any) -> None:
        """A table of header-cell/value-cell rows holds page properties too (without the macro)."""
        rows = [[(_local(c.tag)[1], c) for c in row if _local(c.tag)[1] in ("td", "th")]
                for row in table.iter() if _local(row.tag)[1] == "tr"]
        if is_key_value_table(rows):
            for (_, key_cell), (_, value_cell) in rows:
                self.property(key_cell, value_cell, "table")

    def property(self, key_cell: Any, value_cell: Any, source: str) -> None:
        key = " ".join("".join(key_cell.itertext()).split())
        if not key:
            return
        value, people, kind = self.value(value_cell)
        if source == "details":                   # the declared owner comes from the macro only
            self.out.properties.setdefault(key, value)
            if people and key not in self.out.property_users:
                self.out.property_users[key] = people
        self.out.property_rows.append(PropertyRow(key=key, slot=normalise_key(key), value=value, kind=kind,
                                                  people=people, source=source))

    def value(self, cell: Any) -> "tuple[str, list[dict[str, str]], str]":
        """A property value for a sentence (ISO dates, status titles, names) and the people it names."""
        before_users, before_refs = len(self.out.users), list(self.out.references)
        before_files = list(self.out.attachments)
        self.fact, self.fact_seen, self.fact_mailto = True, {"date": 0, "status": 0}, []
        try:
            text = self.inline(cell)
        finally:
            self.fact = False
        people = [{k: v for k, v in u.items() if v} for u in self.out.users[before_users:]] + self.fact_mailto
        del self.out.users[before_users:]           # counted again when the body renders
        self.out.references[:], self.out.attachments[:] = before_refs, before_files
        return text, people, row_kind(people, self.fact_seen["date"], self.fact_seen["status"])

    def render(self, root: Any) -> StorageText:
        text = self.children(root)
        self.out.text = tidy(text)
        self.out.macros = sorted(self.macros)
        return self.out


def tidy(text: str) -> str:
    lines = [" ".join(line.split()) if not line.startswith("  ") else line.rstrip() for line in text.split("\n")]
    out: list[str] = []
    fenced = False
    for raw, line in zip(text.split("\n"), lines):
        if line.startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        out.append(raw.rstrip() if fenced else line)
    joined = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", joined).strip()


def _strip_tags(markup: str) -> str:
    from bs4 import BeautifulSoup

    return tidy(BeautifulSoup(markup or "", "html.parser").get_text("\n"))


def storage_to_text(markup: str, *, users: UserLookup | None = None, pages: PageLookup | None = None,
                    space_key: str | None = None) -> StorageText:
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
