"""Confluence storage XHTML as a tree: namespaces, the fragment wrapper, named entities, and the plain-text tidy.

Storage XHTML is a fragment: no single root, unbound ac:/ri: prefixes and HTML named entities (&nbsp;, &mdash;).
It is wrapped in a root that declares the prefixes, named entities are mapped to characters, and lxml parses it in
recover mode; if even that fails, the caller strips the tags (_strip_tags). Nothing here raises on odd markup.
"""

import html
import re
from typing import Any

from lxml import etree

AC = "http://atlassian.com/content"
RI = "http://atlassian.com/resource/identifier"
AT = "http://atlassian.com/template"
_WRAP_OPEN = f'<gf-root xmlns:ac="{AC}" xmlns:ri="{RI}" xmlns:at="{AT}">'
_WRAP_CLOSE = "</gf-root>"
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31});")
_UNBOUND_PREFIX = re.compile(r"<(/?)([A-Za-z][\w-]*):")


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
    text = _UNBOUND_PREFIX.sub(
        lambda m: f"<{m.group(1)}{m.group(2)}:" if m.group(2) in ("ac", "ri", "at") else f"<{m.group(1)}{m.group(2)}-",
        text,
    )
    parser = etree.XMLParser(
        recover=True, resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True, remove_pis=True
    )
    try:
        root = etree.fromstring((_WRAP_OPEN + text + _WRAP_CLOSE).encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        return None, f"storage XHTML did not parse: {exc}"
    if root is None:
        return None, "storage XHTML did not parse: empty tree"
    return root, None


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
