"""The record context the intent head reads (transforms.intent.context): what a Jira issue's own fields say about the
act of its description and of the comment that resolves it."""

import datetime as dt

from connectors.jira import JiraExportReader
from connectors.registry import traits_of
from ground.contract import split
from tests.corpus import corpus_dir
from transforms.build import classifier_input
from transforms.intent.context import jira_context, record_context


def test_given_an_issue_type_then_the_description_context_names_its_kind():
    assert jira_context("issue", "Bug") == ("issue:bug",)
    assert jira_context("issue", "New Feature") == ("issue:feature",)
    assert jira_context("issue", "Sub-task") == ("issue:task",)
    assert jira_context("issue", "Story") == ("issue:plan",)
    assert jira_context("issue", "Spike") == ("issue:other",)
    assert jira_context("issue", None) == ()


def test_given_a_comment_then_only_the_one_written_as_the_issue_was_resolved_is_resolving():
    resolved = "2015-02-09T17:33:40+00:00"
    # when the comment was written within ten minutes of an Invalid resolution
    assert jira_context("comment", "Bug", "Invalid", resolved, "2015-02-09T17:30:00+00:00") == (
        "on:bug",
        "resolving:declined",
    )
    # then one written eleven minutes before is only a comment on a bug
    assert jira_context("comment", "Bug", "Invalid", resolved, "2015-02-09T17:22:39+00:00") == ("on:bug",)
    # and a fix, a request for information and an unresolved issue read as such (naive times are UTC)
    assert jira_context("comment", "Bug", "Fixed", resolved, dt.datetime(2015, 2, 9, 17, 33))[-1] == "resolving:done"
    assert jira_context("comment", "Bug", "Needs more info", resolved, resolved)[-1] == "resolving:needs_info"
    assert jira_context("comment", "Bug", "Unresolved", resolved, resolved) == ("on:bug",)
    assert jira_context("comment", None, None, None, resolved) == ()


def test_given_records_of_other_sources_then_they_carry_no_context():
    assert record_context(traits_of("email"), "email", {"issue_type": "Bug"}) == ()
    assert record_context(traits_of("jira"), "issue", None) == ()
    assert record_context(traits_of("jira"), "issue", {"issue_type": "Bug"}) == ("issue:bug",)


def test_given_the_real_export_then_the_resolving_comment_reaches_the_classifier_with_its_context():
    # given AC-1216 (a Bug resolved as Invalid at 17:33:40, comments at 06:09:03 and 17:33:40) read by the real reader
    path = corpus_dir("jira", "tidev_appcelerator_jira", "dev_batch_AC150", "AC-1216.json")
    records, failures = split(JiraExportReader([path]).read())
    assert failures == []
    by_key = {r.source_key: r for r in records}
    # when the episodes' classifier input is built
    inputs = {key: classifier_input(record, "en", traits_of("jira")) for key, record in by_key.items()}
    # then the description reads as a bug report and only the second comment as the resolving one
    assert inputs["AC-1216"].context == ("issue:bug",)
    assert inputs["AC-1216#342513"].context == ("on:bug",)
    assert inputs["AC-1216#342560"].context == ("on:bug", "resolving:declined")
    assert by_key["AC-1216#342560"].fields["resolution"] == "Invalid"
    # and a comment's subject is its issue's summary, as in the labelled units (not the record title "Comment on ...")
    assert by_key["AC-1216#342560"].title.startswith("Comment on AC-1216: ")
    assert inputs["AC-1216#342560"].subject == inputs["AC-1216"].subject == by_key["AC-1216"].title
