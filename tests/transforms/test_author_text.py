"""author_text: the author's own new prose of a real unit, golden cases shaped like the ASF/Jira corpus text."""

import pytest

from transforms.author_text import AuthorText, author_text, clean_subject, prose_only

LIST_MAIL = """+1 (binding)

checked signatures and ran the build on Linux.

Regards,

Hervé

Le mardi 31 octobre 2017, 16:08:01 CET Karl Heinz a écrit :
> Hi,
> Please vote for the release of Maven Foo 3.1.0.
> [ ] +1 release
> [ ] -1 do not release
>
> ---------------------------------------------------------------------
> To unsubscribe, e-mail: dev-unsubscribe@maven.apache.org
> For additional commands, e-mail: dev-help@maven.apache.org



---------------------------------------------------------------------
To unsubscribe, e-mail: dev-unsubscribe@maven.apache.org
For additional commands, e-mail: dev-help@maven.apache.org
"""

GITHUB_MAIL = """Github user Tibor17 commented on the issue:

    https://github.com/apache/maven-surefire/pull/171

    @britter Could you have a look at this?


---
If your project is set up for it, you can reply to this email and have your
reply appear on GitHub as well. If your project does not have this feature
enabled and wishes so, or if the feature is enabled but not working, please
contact infrastructure at infrastructure@apache.org or file a JIRA ticket
with INFRA.
---

---------------------------------------------------------------------
To unsubscribe, e-mail: dev-unsubscribe@maven.apache.org
For additional commands, e-mail: dev-help@maven.apache.org
"""

GIT_SERVICE_MAIL = """emenaceb opened a new pull request #4: [MRELEASE-798] Commit additional files with release plugin
URL: https://github.com/apache/maven-release/pull/4


   Ability to commit additional files on prepare


----------------------------------------------------------------
This is an automated message from the Apache Git Service.
To respond to the message, please log on GitHub and use the
URL above to go to the specific comment.

For queries about this service, please contact Infrastructure at:
users@infra.apache.org


With regards,
Apache Git Services
"""

JIRA_BUG = """When I build for Android the app crashes on start.

{code}
var win = Ti.UI.createWindow({ title: 'x' });
win.open();
{code}

The log says:

[ERROR] :  TiExceptionHandler: (main) [120,120] Uncaught TypeError: undefined is not a function
[ERROR] :  TiExceptionHandler: (main) [0,120] - In app.js:12,5

java.lang.NullPointerException: Attempt to invoke virtual method
	at org.appcelerator.titanium.TiApplication.onCreate(TiApplication.java:412)
	at android.app.Instrumentation.callApplicationOnCreate(Instrumentation.java:1011)
	... 8 more

Operating System
  Name = Mac OS X
  Version = 10.12.6
  Architecture = 64bit
  Node.js Version = 8.9.1

This blocks our release."""


def test_given_a_list_reply_when_prepared_then_only_the_vote_and_its_reason_remain():
    prepared = author_text(LIST_MAIL, "Re: [VOTE] Release Maven Foo 3.1.0")
    assert prepared == AuthorText(
        "+1 (binding)\n\nchecked signatures and ran the build on Linux.", "[VOTE] Release Maven Foo 3.1.0"
    )


def test_given_a_github_notification_when_prepared_then_the_human_request_is_all_that_is_left():
    prepared = author_text(GITHUB_MAIL, "[GitHub] maven-surefire issue #171: Fix")
    assert prepared.text.split("\n")[-1].strip() == "@britter Could you have a look at this?"
    assert "commented on the issue" not in prepared.text
    assert "unsubscribe" not in prepared.text.lower()
    assert "infrastructure" not in prepared.text


def test_given_an_apache_git_service_mail_when_prepared_then_the_wrapper_is_gone():
    prepared = author_text(GIT_SERVICE_MAIL, None)
    assert prepared.text == "Ability to commit additional files on prepare"


def test_given_a_jira_bug_with_code_log_trace_and_environment_when_prepared_then_each_block_is_one_marker():
    prepared = author_text(JIRA_BUG, "App crashes on start", kind="issue")
    assert prepared.text == (
        "When I build for Android the app crashes on start.\n\n[code]\n\nThe log says:\n\n[log]\n[stack trace]\n\n"
        "Operating System\n[environment]\n\nThis blocks our release."
    )
    assert "NullPointerException" not in prose_only(prepared.text)
    assert "[stack trace]" not in prose_only(prepared.text)


def test_given_prose_lines_that_look_like_markup_when_prepared_then_they_stay():
    body = "- fix the build\n- +1 from me\nVersion: 3.1 is out.\nNote: please rebase first.\nI tested it (on Linux)"
    assert author_text(body, kind="comment").text == body


def test_given_a_wiki_quote_when_prepared_then_the_comment_keeps_only_its_own_words():
    body = "{quote}Can we ship this in 2.1?{quote}\nNo, pushing this to 2.2.\n\nbq. old text"
    assert author_text(body, kind="comment").text == "No, pushing this to 2.2."


def test_given_a_unified_diff_when_prepared_then_it_collapses_and_plus_one_votes_elsewhere_survive():
    body = "Patch below.\n\ndiff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n"
    assert author_text(body, kind="comment").text == "Patch below.\n\n[diff]"
    assert author_text("+1\n-1 for the old plan", kind="comment").text == "+1\n-1 for the old plan"


def test_given_a_repeated_paragraph_when_prepared_then_it_is_read_once():
    body = "Update plexus-utils to 3.1.0.\n\nFixes: MDEP-584\n\nUpdate plexus-utils to 3.1.0.\n\nFixes: MDEP-584"
    assert author_text(body, kind="comment").text == "Update plexus-utils to 3.1.0.\n\nFixes: MDEP-584"


@pytest.mark.parametrize(
    "subject,expected",
    [
        ("Re: Re: [VOTE] Release Apache Maven 3.5.2", "[VOTE] Release Apache Maven 3.5.2"),
        ("AW: WG: Angebot", "Angebot"),
        ("[jira] [Commented] (MNG-6275) ServiceLoader", "(MNG-6275) ServiceLoader"),
        ("[GitHub] maven pull request #136: MNG-6275", "maven pull request #136: MNG-6275"),
        (None, ""),
    ],
)
def test_subjects_lose_reply_and_bot_prefixes_but_keep_vote_tags(subject, expected):
    assert clean_subject(subject) == expected


def test_given_only_quoted_text_when_prepared_then_nothing_of_the_author_remains_and_that_is_not_an_error():
    assert author_text("> all quoted\n> nothing new", "Re: x").text == ""
    assert author_text(None).text == ""


def test_given_confluence_tables_and_headings_when_prepared_then_they_are_content_not_code():
    body = "| Owner | @Dana Whitfield |\n\n# Acme data platform rollout\n\nGo-live target: 2026-07-01.\n\nh3. Steps"
    assert author_text(body, kind="page").text == body


def test_given_a_crm_field_summary_when_prepared_for_the_classifier_then_nothing_collapses():
    from connectors.registry import traits_of
    from transforms.intent.units import prepare_record

    crm = traits_of("salesforce")
    body = "Salesforce Opportunity.\nStage: Closed Won\nAmount: 48,500 USD\nClose date: 2026-05-02"
    assert prepare_record(body, "Acme renewal", crm, "opportunity", "en").text == body
    assert prepare_record(body, "Acme renewal", crm, "task", "en").text != body
