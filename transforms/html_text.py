"""HTML mail bodies to readable text: paragraphs stay paragraphs, list items get bullets, links keep targets,
blockquotes become "> " lines (so the reply stripper recognises quoted history in HTML mail too).

Not a renderer: it exists so HTML-only mail reads like the plain-text part its sender's client never wrote.
"""

import re

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import Comment, Doctype, ProcessingInstruction

_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "aside",
    "nav",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "table",
    "tr",
    "form",
    "fieldset",
    "address",
    "center",
    "dl",
    "dt",
    "dd",
    "figure",
    "hr",
}
_DROP = {"script", "style", "head", "title", "meta", "link", "noscript", "template", "svg", "object", "iframe"}
_SPACES = re.compile(r"[ \t\u00a0\u200b]+")
_BLANKS = re.compile(r"\n{3,}")


def html_to_text(html: str) -> str:
    """Best effort, never raises: unparseable HTML falls back to tag-stripped text."""
    try:
        soup = BeautifulSoup(html, "lxml")
    except Exception:  # noqa: BLE001 - parser failures on hostile input must not cost the message
        return _tidy(re.sub(r"<[^>]+>", " ", html))
    out: list[str] = []
    _walk(soup, out, depth=0)
    return _tidy("".join(out))


def _walk(node: Tag, out: list[str], depth: int) -> None:
    inner: list[str]
    if depth > 200:  # pathological nesting: keep the text, stop structuring
        out.append(node.get_text(" "))
        return
    for child in node.children:
        if isinstance(child, (Comment, Doctype, ProcessingInstruction)):
            continue
        if isinstance(child, NavigableString):
            out.append(_SPACES.sub(" ", str(child).replace("\r", " ").replace("\n", " ")))
            continue
        if not isinstance(child, Tag):
            continue
        name = (child.name or "").lower()
        if name in _DROP:
            continue
        if name == "br":
            out.append("\n")
        elif name == "li":
            inner = []
            _walk(child, inner, depth + 1)
            lines = [line for line in _tidy("".join(inner)).split("\n") if line]
            out.append("\n- " + "\n  ".join(lines))
        elif name in {"td", "th"}:
            _walk(child, out, depth + 1)
            out.append(" ")
        elif name == "a":
            before = len(out)
            _walk(child, out, depth + 1)
            text = "".join(out[before:]).strip()
            href = (child.get("href") or "").strip()
            if href and not href.lower().startswith(("javascript:", "#")) and href != text:
                out.append(f" ({href[7:] if href.lower().startswith('mailto:') else href})" if text else href)
        elif name == "img":
            alt = (child.get("alt") or "").strip()
            if alt:
                out.append(f"[{alt}]")
        elif name == "blockquote":
            inner = []
            _walk(child, inner, depth + 1)
            quoted = "\n".join(f"> {line}".rstrip() for line in _tidy("".join(inner)).split("\n"))
            out.append("\n\n" + quoted + "\n\n")
        elif name == "pre":
            out.append("\n\n" + child.get_text() + "\n\n")
        elif name in _BLOCK:
            out.append("\n\n" if name not in {"tr", "dt", "dd"} else "\n")
            if name == "hr":
                out.append("---\n")
            _walk(child, out, depth + 1)
            out.append("\n\n" if name not in {"tr", "dt", "dd"} else "\n")
        else:
            _walk(child, out, depth + 1)


def _tidy(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()
