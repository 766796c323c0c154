"""Dump candidate Jira units (one per issue description, one per comment) from shared/corpus/jira to a JSONL scratch file.

The labeller reads the dump and assigns labels by hand (notes/intent-labelling.md); this script assigns no label.
raw_text is the body as stored: Jira wiki markup verbatim; ADF (v3) bodies rendered to text with connectors/atlassian/adf.py.
Usage: python scripts/intent_units/extract_jira.py [CORPUS_DIR] > /tmp/jira_units.jsonl
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from connectors.atlassian.adf import adf_to_text, is_adf  # noqa: E402
from connectors.jira.records import issue_context  # noqa: E402
from transforms.intent.context import jira_context  # noqa: E402

_KEY = re.compile(r"/issue/([A-Za-z][A-Za-z0-9_]*-\d+|\d+)(?:/|$)")


def body_text(body):
    if is_adf(body):
        return adf_to_text(body)
    return body if isinstance(body, str) else ""


def issue_key_from(url):
    match = _KEY.search(url or "")
    return match.group(1) if match else None


def walk(node, file, out, issue_key=None, summary=None, issue=None):
    """issue: the comment's issue as the reader keeps it on a comment record (connectors.jira.records)."""
    if isinstance(node, dict):
        if isinstance(node.get("fields"), dict) and node.get("key"):
            issue_key, summary = node["key"], node["fields"].get("summary")
            issue = issue_context(node["fields"])
            text = body_text(node["fields"].get("description"))
            if text.strip():
                context = jira_context("issue", issue["issue_type"])
                out.append(("jira_description", file, issue_key, issue_key, summary, text, context))
        elif "body" in node and "author" in node and node.get("id"):
            key = issue_key or issue_key_from(node.get("self"))
            text = body_text(node.get("body"))
            if key and text.strip():
                issue = issue or {}
                context = jira_context(
                    "comment",
                    issue.get("issue_type"),
                    issue.get("resolution"),
                    issue.get("resolved"),
                    node.get("created"),
                )
                out.append(("jira_comment", file, f"{key}#{node['id']}", key, summary, text, context))
            return
        if isinstance(node.get("issue"), dict) and isinstance(node.get("comment"), dict):  # webhook payload
            walk(node["issue"], file, out)
            issue = node["issue"]
            walk(
                node["comment"],
                file,
                out,
                issue.get("key"),
                (issue.get("fields") or {}).get("summary"),
                issue_context(issue.get("fields")),
            )
            return
        for value in node.values():
            walk(value, file, out, issue_key, summary, issue)
    elif isinstance(node, list):
        for value in node:
            walk(value, file, out, issue_key, summary, issue)


def units(corpus: Path):
    seen = set()
    for path in sorted((corpus / "jira").rglob("*.json")):
        if "openapi_spec" in path.parts:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        found = []
        walk(data, str(path.relative_to(corpus)), found)
        for family, file, key, thread, summary, text, context in found:
            ident = (family, key, text.strip())
            if ident in seen:
                continue
            seen.add(ident)
            yield {
                "uid": f"{family}:{file}#{key}",
                "source_family": family,
                "corpus_file": file,
                "source_key": key,
                "thread": thread,
                "subject": summary,
                "raw_text": text,
                "context": list(context),
            }


if __name__ == "__main__":
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "../shared/corpus"
    uids = set()
    for unit in units(corpus.resolve()):
        if unit["uid"] in uids:  # same key, edited text in another file: keep both, suffix the later one
            unit["uid"] += f"@{sum(u.startswith(unit['uid']) for u in uids)}"
        uids.add(unit["uid"])
        print(json.dumps(unit, ensure_ascii=False))
