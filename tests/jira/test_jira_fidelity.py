"""Fidelity over the whole Jira corpus: every issue description and comment body (wiki markup or ADF) in
../shared/corpus/jira reaches its episode's content with token recall >= 0.95; records below are listed."""

import json
import re
from pathlib import Path

import pytest

from connectors.jira import JiraExportReader
from connectors.registry import traits_of
from ground.contract import split
from tests.fidelity import below, corpus_dir, report, token_recall
from transforms.build import record_text

pytestmark = pytest.mark.slow

# Markup that is not the author's words: block macros, heading/quote line markers, emoticon codes.
_WIKI_MARKUP = re.compile(
    r"\{(code|noformat|quote|panel|color|anchor|section|column|expand|info|note|tip|warning)"
    r"(:[^}]*)?\}|^\s*(h[1-6]|bq)\.\s|\((y|n|i|x|/|!)\)",
    re.IGNORECASE | re.MULTILINE,
)


def adf_words(node) -> list[str]:
    """The text an ADF document shows: text nodes, plus mention/status/emoji labels."""
    out: list[str] = []
    if isinstance(node, dict):
        if node.get("type") == "text" and isinstance(node.get("text"), str):
            out.append(node["text"])
        attrs = node.get("attrs") if isinstance(node.get("attrs"), dict) else {}
        if node.get("type") in ("mention", "status", "emoji") and isinstance(attrs.get("text"), str):
            out.append(attrs["text"])
        out.extend(adf_words(node.get("content") or []))
    elif isinstance(node, list):
        for child in node:
            out.extend(adf_words(child))
    return out


def source_text(value) -> str:
    if isinstance(value, dict):
        return " ".join(adf_words(value))
    return _WIKI_MARKUP.sub(" ", value) if isinstance(value, str) else ""


def _issues(obj):
    """Issues of a file (single issue, search page, webhook); linked/parent issues inside fields are not records."""
    if isinstance(obj, dict):
        if isinstance(obj.get("key"), str) and isinstance(obj.get("fields"), dict):
            yield obj
            return
        for value in obj.values():
            yield from _issues(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _issues(value)


def source_texts(data) -> dict[str, str]:
    """record key -> the source's own text: KEY -> description, KEY#id -> comment body."""
    out: dict[str, str] = {}
    for issue in _issues(data):
        fields = issue["fields"]
        out.setdefault(issue["key"], source_text(fields.get("description")))
        comments = fields.get("comment")
        comments = comments.get("comments") if isinstance(comments, dict) else comments
        for comment in comments if isinstance(comments, list) else []:
            if isinstance(comment, dict) and comment.get("id"):
                out.setdefault(f"{issue['key']}#{comment['id']}", source_text(comment.get("body")))
    if isinstance(data, dict) and isinstance(data.get("comment"), dict) and isinstance(data.get("issue"), dict):
        comment = data["comment"]  # a comment webhook
        out.setdefault(f"{data['issue'].get('key')}#{comment.get('id')}", source_text(comment.get("body")))
    return {key: text for key, text in out.items() if text.strip()}


def measure(root: Path) -> tuple[list[tuple[str, float, str, str]], list[str]]:
    scores, lost = [], []
    for path in sorted(root.rglob("*.json")):
        try:
            data = json.loads(path.read_bytes())
        except (ValueError, UnicodeDecodeError):
            continue  # the deliberately malformed files: the reader test's business
        wanted = source_texts(data)
        if not wanted:
            continue
        records, _ = split(JiraExportReader([path]).read())
        content: dict[str, str] = {}
        for record in records:
            content.setdefault(record.source_key, record_text(record, traits_of(record.source)))
        name = str(path.relative_to(root))
        for key, text in wanted.items():
            if key not in content:
                lost.append(f"{name}::{key}: no episode")
            else:
                scores.append((f"{name}::{key}", token_recall(text, content[key]), text, content[key]))
    return scores, lost


def test_every_description_and_comment_of_the_jira_corpus_reaches_its_episode():
    scores, lost = measure(corpus_dir("jira"))
    report("jira", scores, lost)
    assert len(scores) > 1000
    assert below(scores) == [] and lost == []


def test_given_indexes_in_code_and_a_glued_mention_when_converted_then_every_word_stays_a_word():
    from connectors.jira.wiki import wiki_to_text

    text = wiki_to_text("assertiond[65] crashed; parent.children[0] is null\n[~mickmister]\u00c2 I agree, see [docs]")
    assert text == "assertiond[65] crashed; parent.children[0] is null\n@mickmister \u00c2 I agree, see docs"
