"""Storage XHTML -> text over real Confluence Cloud pages (Korean and English) and odd markup."""

import pytest

from connectors.confluence.storage import storage_to_text
from tests.corpus import CORPUS as SHARED
from tests.corpus import corpus_dir

CORPUS = SHARED / "confluence" / "querypie_cloud"
PAGES = sorted(CORPUS.rglob("page.xhtml"))


def test_the_corpus_is_there():
    assert len(sorted(corpus_dir("confluence", "querypie_cloud").rglob("page.xhtml"))) >= 40


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_given_a_real_page_when_converted_then_text_without_degrading(path):
    result = storage_to_text(path.read_text(encoding="utf-8"))
    assert result.degraded is None
    assert result.text.strip()
    assert "<ac:" not in result.text and "<ri:" not in result.text


def test_lists_keep_every_item_and_nesting():
    text = storage_to_text((corpus_dir("confluence", "querypie_cloud", "lists") / "page.xhtml").read_text()).text
    assert "- one\n  - eleven" in text
    assert "1. hello 1\n  1. world 1" in text
    assert "      1. peace 1" in text


def test_panels_are_labelled():
    text = storage_to_text((corpus_dir("confluence", "querypie_cloud", "panels") / "page.xhtml").read_text()).text
    assert "[Info] This is an info panel." in text
    assert "[Error] This is an error panel." in text  # named as Confluence Cloud and ADF name them
    assert "[Note] This is a note panel." in text and "[Warning] This is a warning panel." in text
    assert "[Success] This is a success panel." in text


def test_code_tables_links_and_attachments_survive():
    pages = sorted(corpus_dir("confluence", "querypie_cloud").rglob("page.xhtml"))
    text_all = {p: storage_to_text(p.read_text()) for p in pages}
    assert any("```" in r.text for r in text_all.values())
    assert any("| " in r.text for r in text_all.values())
    assert any(ref.startswith("confluence:") for r in text_all.values() for ref in r.references)
    assert any(r.attachments for r in text_all.values())


def test_a_fragment_with_unbound_prefixes_entities_macros_and_mentions():
    markup = (
        '<h2>Plan&nbsp;&mdash; v2</h2><table><tr><th>Owner</th><td><ac:link><ri:user ri:account-id="abc"/>'
        '</ac:link></td></tr></table><ac:structured-macro ac:name="code"><ac:plain-text-body>'
        "<![CDATA[x < 1 && y]]></ac:plain-text-body></ac:structured-macro>"
        '<p><ac:link><ri:page ri:content-title="Runbook" ri:space-key="ACME"/></ac:link> '
        '<a href="https://example.org/x">site</a> <ac:link><ri:attachment ri:filename="a.pdf" '
        'ri:version-at-save="2"/></ac:link></p><ac:structured-macro ac:name="include"><ac:parameter ac:name="">'
        '<ac:link><ri:page ri:content-id="42"/></ac:link></ac:parameter></ac:structured-macro>'
        '<ac:structured-macro ac:name="made-up"><ac:parameter ac:name="x">hidden</ac:parameter>'
        "<ac:rich-text-body><p>kept words</p></ac:rich-text-body></ac:structured-macro>"
        '<ac:structured-macro ac:name="status"><ac:parameter ac:name="title">done</ac:parameter>'
        "</ac:structured-macro><fab:weird>odd</fab:weird>"
    )
    result = storage_to_text(markup, users=lambda a: "Dana Whitfield" if a.get("account-id") == "abc" else None)
    assert result.degraded is None
    assert "## Plan\u00a0\u2014 v2".replace("\u00a0", " ") in result.text
    assert "| Owner | @Dana Whitfield |" in result.text
    assert "x < 1 && y" in result.text
    assert "site (https://example.org/x)" in result.text
    assert "kept words" in result.text and "hidden" not in result.text
    assert "[DONE]" in result.text and "odd" in result.text
    assert result.references == ["confluence:title:ACME:Runbook", "attachment:name:a.pdf", "confluence:page:42"]
    assert result.includes == ["confluence:page:42"]
    assert result.attachments == [{"file_name": "a.pdf", "version": "2"}]
    assert result.property_users == {}


@pytest.mark.parametrize(
    "markup",
    [
        "",
        "<p>",
        "</p></div>",
        "<ac:link>",
        "&bogus; & < >",
        "<p>" * 5000,
        "\x00\x01",
        "<![CDATA[",
        '<ac:structured-macro ac:name="code">',
    ],
)
def test_odd_markup_never_raises(markup):
    result = storage_to_text(markup)
    assert isinstance(result.text, str)
