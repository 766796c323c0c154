"""References are read from the whole episode content as docs/references.md labels it (issue 28): the subject line
and the parts the intent classifier cuts count too, the record's own key in its title does not."""

import datetime as dt

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
