"""Dump candidate Confluence units (one per page version, one per comment) from shared/corpus/confluence as JSONL.

No label is assigned here: the labeller reads the dump (notes/intent-labelling.md). raw_text is the page text rendered
from storage XHTML (or view HTML for comments that only carry it) with connectors/confluence/storage.py.
Usage: python scripts/intent_units/extract_confluence.py [CORPUS_DIR] > /tmp/confluence_units.jsonl
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from connectors.confluence.storage import storage_to_text  # noqa: E402


def render(markup: str) -> str:
    return storage_to_text(markup or "").text.strip()


def body_markup(node: dict) -> str | None:
    body = node.get("body")
    if not isinstance(body, dict):
        return None
    for kind in ("storage", "view"):
        part = body.get(kind)
        if isinstance(part, dict) and isinstance(part.get("value"), str) and part["value"].strip():
            return part["value"]
    return None


def content_nodes(node, out, container=None):
    """Pages, blog posts, comments and custom content carrying a body, with the page they hang on."""
    if isinstance(node, dict):
        markup = body_markup(node)
        if markup is not None and node.get("id"):
            parent = (node.get("container") or {}).get("id") or node.get("pageId") or container
            out.append((node, markup, str(parent) if parent else None))
        for key, value in node.items():
            if key != "body":
                content_nodes(value, out, node.get("id") if node.get("type") == "page" else container)
    elif isinstance(node, list):
        for value in node:
            content_nodes(value, out, container)


def units(corpus: Path):
    root = corpus / "confluence"
    seen = set()

    def unit(file, key, thread, title, text):
        if not text or (key, text) in seen:
            return None
        seen.add((key, text))
        return {
            "uid": f"confluence:{file}#{key}",
            "source_family": "confluence",
            "corpus_file": file,
            "source_key": key,
            "thread": thread,
            "subject": title,
            "raw_text": text,
        }

    for xhtml in sorted(root.rglob("page.xhtml")):
        meta_path = xhtml.with_name("page.v1.json")
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        key = str(meta.get("id") or xhtml.parent.name)
        made = unit(
            str(xhtml.relative_to(corpus)), key, key, meta.get("title"), render(xhtml.read_text(encoding="utf-8"))
        )
        if made:
            yield made
    for path in sorted(root.rglob("*.json")):
        if path.name in (
            "page.v1.json",
            "page.v2.json",
            "ancestors.v1.json",
            "children.v2.json",
            "attachments.v1.json",
        ):
            continue  # the querypie page metadata: its body is the page.xhtml read above
        found = []
        content_nodes(json.loads(path.read_text(encoding="utf-8")), found)
        for node, markup, parent in found:
            key = str(node["id"])
            is_comment = (
                node.get("type") == "comment" or str(node.get("title", "")).startswith("Re:") or "comment" in key
            )
            thread = parent if is_comment and parent else key
            made = unit(str(path.relative_to(corpus)), key, thread, node.get("title"), render(markup))
            if made:
                yield made


if __name__ == "__main__":
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "../shared/corpus"
    uids = set()
    for made in units(corpus.resolve()):
        if made["uid"] in uids:  # same page id, another version's text in the same file
            made["uid"] += f"@{sum(u.startswith(made['uid']) for u in uids)}"
        uids.add(made["uid"])
        print(json.dumps(made, ensure_ascii=False))
