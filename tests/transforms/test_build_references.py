"""References are read from the whole episode content as docs/references.md labels it (issue 28): the subject line
and the parts the intent classifier cuts count too, the record's own key in its title does not."""

import datetime as dt

from connectors.registry import source_traits
from ground.records import Actor, SourceRecord
from transforms.build import EpisodeSettings, build_episodes
from transforms.references import ReferenceConfig

WHEN = dt.datetime(2026, 5, 4, tzinfo=dt.UTC)


class FixedIntent:
    def predict(self, texts, languages=None, threshold=0.5, **inputs):
        return [("inform", 0.9) for _ in texts]


def episode(record: SourceRecord):
    config = ReferenceConfig(ner=False, jira_project_keys=["TIMOB"])
    return next(build_episodes([record], FixedIntent(), EpisodeSettings(references=config)))


def test_a_subject_line_and_a_commit_header_block_name_references():
    # given a commit mail whose subject carries a URL and whose header block the classifier cuts
    record = SourceRecord(
        source="email",
        kind="email",
        source_key="<c1@example.org>",
        title="Release notes at https://example.org/notes",
        body="commit 0123456789abcdef\nAuthor: Sam Carter <sam@example.org>\n\nFix the build for 3.5.2 GA.",
        actor=Actor(id="sam@example.org"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )
    # when it becomes an episode; then the subject's URL, the author's address and the version are references
    refs = episode(record).references
    assert "url:https://example.org/notes" in refs
    assert "email_address:sam@example.org" in refs
    assert "version:3.5.2 GA" in refs


def test_a_jira_comment_title_does_not_reference_its_own_issue():
    # given a Jira comment titled "Comment on KEY: ..." whose text names another issue
    record = SourceRecord(
        source="jira",
        kind="comment",
        source_key="TIMOB-1#10",
        thread_key="TIMOB-1",
        title="Comment on TIMOB-1: Crash on start",
        body="Same as TIMOB-2.",
        actor=Actor(id="jdoe"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )
    # when it becomes an episode; then the other issue is a reference, its own is not
    refs = episode(record).references
    assert "jira:issue:TIMOB-2" in refs
    assert "jira:issue:TIMOB-1" not in refs


def named(record: SourceRecord) -> set[str]:
    settings = EpisodeSettings(references=ReferenceConfig(), source_traits=source_traits())
    built = next(build_episodes([record], FixedIntent(), settings))
    return {ref for ref in built.references if ref.startswith(("person:", "org:"))}


def record(source: str, kind: str, title: str, body: str) -> SourceRecord:
    return SourceRecord(
        source=source,
        kind=kind,
        source_key=f"{source}-1",
        title=title,
        body=body,
        actor=Actor(id="someone"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )


def test_a_headline_feature_name_in_a_jira_summary_is_no_organisation():
    # given Jira issues whose summaries capitalise features and verbs, with bodies that do not name them
    plugin = record(
        "jira", "issue", "Code Processor: Create Analytics and Breadcrumbs detector plugin", "It should log."
    )
    modules = record("jira", "issue", "Tooling: Remove Yahoo and Facebook modules from core", "They are unused.")
    # when they become episodes; then no person or organisation comes from the summary
    assert named(plugin) == set()
    assert named(modules) == set()


def test_a_summary_alone_is_no_signature():
    # given a Jira issue with a summary and no description
    issue = record("jira", "issue", "Video Capture", "")
    # when it becomes an episode; then the summary is no person who signed it
    assert named(issue) == set()


def test_a_title_keeps_a_person_it_is_addressed_to_and_a_name_the_body_repeats():
    # given a mail subject naming whom the meeting is with, and a page title naming a company its body names again
    mail = record("email", "email", "Lunch with Mark Haedicke", "See you at noon.")
    page = record("confluence", "page", "Kickoff with Lindqvist Logistics", "Lindqvist Logistics confirmed the scope.")
    # when they become episodes; then both names stay references
    assert "person:mark haedicke" in named(mail)
    assert "org:lindqvist logistics" in named(page)


def test_a_crm_record_title_is_the_party_name_not_a_headline():
    # given a Salesforce contact whose title is the person's name and whose body does not repeat it
    contact = record("salesforce", "Contact", "Priya Raman", "Title: Head of Procurement")
    # when it becomes an episode; then the title's name is a person reference
    assert "person:priya raman" in named(contact)
