"""NER on real technical text: products, code and stack frames are no people or organisations; money needs a currency
next to a number in prose; an NER-only name becomes a graph node only when it resolves to a known party."""

import datetime as dt

import pytest

from connectors.registry import episode_facts
from tests.graph.scenario import DANA, TOM, email_episode
from transforms.author_text import author_text
from transforms.references import ReferenceConfig, extract_references

# Shaped like the mailing-list and Jira text where these junk entities were seen (issue 15).
TECH_TEXT = """I cannot build for Android with Xcode 9 and Jenkins keeps failing.

{code}
TiApp::calldata const& data = proxy->string();
at org.appcelerator.kroll.KrollProxy.fireEvent(KrollProxy.java:412)
{code}

$ 1 mvn install fails as well. The SDK says the String is null.
Sarah Miller from Globex Corporation can confirm, the fix costs USD 1,200."""


@pytest.fixture(scope="module")
def refs():
    return extract_references(author_text(TECH_TEXT, kind="comment").text)


def test_given_technical_text_when_extracted_then_products_code_and_prompts_are_no_entities(refs):
    ids = {r.id for r in refs}
    for junk in (
        "person:string",
        "person:android",
        "person:jenkins",
        "org:sdk",
        "org:xcode",
        "org:jenkins",
        "money:USD:1",
        "person:krollproxy",
        "org:tiapp::calldata const&",
    ):
        assert junk not in ids
    assert not any(r.kind in ("person", "organization") and ("::" in r.id or "." in r.id) for r in refs)


def test_given_technical_text_when_extracted_then_real_names_and_money_remain(refs):
    ids = {r.id for r in refs}
    assert {"person:sarah miller", "org:globex corporation", "money:USD:1200"} <= ids
    sarah = next(r for r in refs if r.id == "person:sarah miller")
    assert sarah.confidence >= 0.8


def test_given_a_user_stop_list_when_extracted_then_its_names_are_dropped(tmp_path):
    stop = tmp_path / "stop.txt"
    stop.write_text("# our products\nGlobex Corporation\n")
    text = "Sarah Miller from Globex Corporation called."
    assert "org:globex corporation" in {r.id for r in extract_references(text)}
    found = {r.id for r in extract_references(text, config=ReferenceConfig(stop_names_files=[str(stop)]))}
    assert "org:globex corporation" not in found and "person:sarah miller" in found


def test_given_a_lowercase_common_word_and_a_single_sentence_start_name_then_they_are_not_confident():
    text = "Maven is fine. I ran maven again and Titanium Studio crashed."
    refs = extract_references(text)
    assert not [r for r in refs if r.kind in ("person", "organization") and r.text in ("Maven", "Titanium Studio")]


def test_given_a_jira_mention_then_it_is_a_person_reference_only_when_the_handle_is_a_known_party():
    # issue 28 labelling rule: a handle is no person's name; a known party (name_map) resolves it
    assert [r for r in extract_references("[~mollin] can you attach a test case?") if r.kind == "person"] == []
    config = ReferenceConfig(name_map={"mollin": "person:matt mollin"})
    refs = extract_references("[~mollin] can you attach a test case?", config=config)
    assert [(r.id, r.text) for r in refs if r.kind == "person"] == [("person:matt mollin", "mollin")]


def test_given_an_unconfirmed_name_when_facts_are_built_then_it_is_no_node_unless_it_is_a_known_party():
    when = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    known = (TOM.name or "").casefold()
    episode = email_episode(
        "g", "m1", when, actor=DANA, to=(TOM,), refs=["person:rodriguez", f"person:{known}", "person:sarah miller"]
    )
    episode.metadata.unconfirmed_names = ["person:rodriguez", f"person:{known}"]
    names = {e.name.casefold() for e in episode_facts(episode, {}).entities}
    assert "rodriguez" not in names  # NER-only, unknown: stays a reference on the episode
    assert known in names  # resolves to a participant of the mail
    assert "sarah miller" in names  # confident NER name: a node as before
    assert "person:rodriguez" in episode.references


def test_given_jira_comments_with_unconfirmed_names_when_facts_are_built_then_no_unknown_name_node():
    import json
    from pathlib import Path

    from connectors.jira.facts import jira_facts
    from connectors.jira.records import issue_records
    from ground.records import Origin
    from transforms.build import EpisodeSettings, make_episode

    sample = Path(__file__).resolve().parents[2] / "sample" / "exports" / "jira" / "issues" / "ACME-12.json"
    records = list(issue_records(json.loads(sample.read_text(encoding="utf-8")), Origin(file=str(sample))))
    assert any(r.kind == "comment" for r in records)
    for record in records:
        episode = make_episode(
            record, record.body, "en", "status_update", 0.9, ["person:rodriguez", "org:acme"], EpisodeSettings()
        )
        episode.metadata.unconfirmed_names = ["person:rodriguez"]
        names = {e.name.casefold() for e in jira_facts(episode, {}).entities}
        assert "rodriguez" not in names and "acme" in names
