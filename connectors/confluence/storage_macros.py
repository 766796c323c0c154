"""The ac: side of the storage renderer: links, images, tasks, macros (code, status, panels, includes) and page properties.

A mixin of the renderer in connectors/confluence/storage.py: it relies on the renderer's `out` (a StorageText),
`macros`, `fact*` state and its inline/children/node/ri/page_ref methods.
"""

from typing import Any

from connectors.confluence.page_properties import PropertyRow, is_key_value_table, normalise_key, row_kind
from connectors.confluence.storage_xml import _attr, _local

# Labelled as Confluence Cloud (and its ADF) names them: the storage "note" macro is the yellow warning panel, etc.
_PANELS = {
    "info": "Info",
    "note": "Warning",
    "warning": "Error",
    "tip": "Success",
    "panel": "Panel",
    "success": "Success",
    "error": "Error",
}
_ADF_PANELS = {
    "info": "Info",
    "note": "Note",
    "warning": "Warning",
    "error": "Error",
    "success": "Success",
    "tip": "Tip",
    "custom": "Panel",
}
_SKIPPED_MACROS = {
    "toc",
    "children",
    "pagetree",
    "recently-updated",
    "contentbylabel",
    "anchor",
    "livesearch",
    "create-from-template",
    "pagetreesearch",
    "attachments",
    "gallery",
    "toc-zone",
}
_INCLUDES = {"include", "excerpt-include"}
_PROPERTY_MACROS = {"details", "page-properties"}


class _MacroRenderer:
    """Renders ac: elements and collects page properties (mixed into the storage renderer)."""

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
            return f"[attachment: {label or 'image'}]" + (f" {caption}" if caption else "")  # as ADF media show
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
        if name == "adf-extension":  # prefer the fallback a reader without ADF support would show
            fallback = [c for c in el if _local(c.tag)[1] == "adf-fallback"]
            inner = self.children(fallback[0]) if fallback else self.children(el)
            node = next((c for c in el if _local(c.tag)[1] == "adf-node"), None)
            if node is not None and node.get("type") == "panel":
                kind = next(
                    (
                        (c.text or "").strip()
                        for c in node
                        if _local(c.tag)[1] == "adf-attribute" and _attr(c, "", "key") == "panel-type"
                    ),
                    "",
                )
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
                    "".join(child.itertext()).split()
                )
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
        if name == "expand":  # as ADF shows an expand: its title, then its body
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
        rows = [
            [(_local(c.tag)[1], c) for c in row if _local(c.tag)[1] in ("td", "th")]
            for row in table.iter()
            if _local(row.tag)[1] == "tr"
        ]
        if is_key_value_table(rows):
            for (_, key_cell), (_, value_cell) in rows:
                self.property(key_cell, value_cell, "table")

    def property(self, key_cell: Any, value_cell: Any, source: str) -> None:
        key = " ".join("".join(key_cell.itertext()).split())
        if not key:
            return
        value, people, kind = self.value(value_cell)
        if source == "details":  # the declared owner comes from the macro only
            self.out.properties.setdefault(key, value)
            if people and key not in self.out.property_users:
                self.out.property_users[key] = people
        self.out.property_rows.append(
            PropertyRow(key=key, slot=normalise_key(key), value=value, kind=kind, people=people, source=source)
        )

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
        del self.out.users[before_users:]  # counted again when the body renders
        self.out.references[:], self.out.attachments[:] = before_refs, before_files
        return text, people, row_kind(people, self.fact_seen["date"], self.fact_seen["status"])
