"""ADF (Cloud v3) and wiki markup (Server v2) -> text: structure kept, targets visible, hostile input never raises."""

import json
from pathlib import Path

import pytest

from connectors.atlassian.adf import adf_media, adf_mentions, adf_to_text
from connectors.jira.wiki import wiki_to_text

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "jira"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jira"


def test_given_every_adf_node_type_when_converted_then_the_text_matches_the_golden_file():
    doc = json.loads((FIXTURES / "adf_all_nodes.json").read_text(encoding="utf-8"))
    expected = (FIXTURES / "adf_all_nodes.txt").read_text(encoding="utf-8").rstrip("\n")
    assert adf_to_text(doc) == expected


def test_given_adf_with_media_and_mentions_then_they_are_listed_for_attachments_and_people():
    doc = json.loads((FIXTURES / "adf_all_nodes.json").read_text(encoding="utf-8"))
    assert [m["name"] for m in adf_media(doc)] == ["cutover-plan.pdf"]
    assert adf_mentions(doc) == [{"account_id": "712020:abc", "name": "Li Na"}]


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_given_the_real_jira_cli_adf_corpus_then_structure_survives():
    text = adf_to_text(json.loads((CORPUS / "jira-cli" / "testdata" / "md.json").read_text()))
    assert text.startswith("# H1\n\n## H2")
    assert "> Blockquote text" in text
    assert "Inline Node https://antiklabs.atlassian.net/wiki/spaces/ANK/pages/124234/hello-world" in text
    assert "[Info] Panel paragraph" in text
    assert "@Person A (5fb82376aca10c006949f35b)" in text
    assert "Link (https://ankit.pl)" in text
    assert "- Prefix: Unordered list item 1\n  - Next\n    - Another" in text
    assert "3. Ordered list item 3\n   1. nested" in text
    assert "| Table Header 1 | Table Header 2 | Table Header 3 |\n|---|---|---|" in text
    assert "```go\npackage main" in text


@pytest.mark.parametrize(
    "hostile",
    [
        None,
        "",
        "plain",
        42,
        [],
        {},
        {"type": "doc"},
        {"type": "doc", "content": "nope"},
        {"type": "doc", "content": [{"type": "mystery", "content": [{"type": "text", "text": "kept"}]}]},
        {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": None, "marks": [1]}]}]},
        {
            "type": "doc",
            "content": [{"type": "heading", "attrs": {"level": "x"}, "content": [{"type": "text", "text": "h"}]}],
        },
        {"type": "doc", "content": [{"type": "date", "attrs": {"timestamp": "not a number"}}]},
    ],
)
def test_given_odd_adf_then_nothing_raises(hostile):
    assert isinstance(adf_to_text(hostile), str)


def test_given_unknown_node_then_its_text_is_kept():
    doc = {"type": "doc", "content": [{"type": "mystery", "content": [{"type": "text", "text": "kept"}]}]}
    assert adf_to_text(doc) == "kept"


def test_given_absurdly_deep_adf_then_it_ends_without_recursion_error():
    node = {"type": "text", "text": "deep"}
    for _ in range(5000):
        node = {"type": "blockquote", "content": [node]}
    assert isinstance(adf_to_text({"type": "doc", "content": [node]}), str)


def test_given_wiki_markup_when_converted_then_the_text_matches_the_golden_file():
    markup = (FIXTURES / "wiki_all.txt").read_text(encoding="utf-8")
    expected = (FIXTURES / "wiki_all.expected.txt").read_text(encoding="utf-8").rstrip("\n")
    assert wiki_to_text(markup) == expected


@pytest.mark.parametrize("markup", [None, "", "{code}never closed", "[|]", "!!", "{{", "||", "*", "h9. x", "{quote}"])
def test_given_odd_wiki_markup_then_nothing_raises(markup):
    assert isinstance(wiki_to_text(markup), str)


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_given_a_real_server_description_then_headings_and_mentions_read_well():
    issue = json.loads((CORPUS / "tidev_appcelerator_jira" / "dev_batch_AC150" / "AC-1058.json").read_text())
    text = wiki_to_text(issue["fields"]["description"])
    assert text.startswith("### Steps to Reproduce\nRun the app using titanium sdk 4.0.0.GA.")
    comment = wiki_to_text(issue["fields"]["comment"]["comments"][0]["body"])
    assert comment.startswith("@samsur can you please attach a test case")
