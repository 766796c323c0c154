"""Issue 28, the machine-id and value side of the reference extractor: each measured error pattern (dates from file
names, versions and code; year-less and relative dates; shell variables as money; glued URL endings and truncated
link labels; attachment ids and file-name fragments) on text shaped like ../shared/corpus, and the code-region mask.
Names and NER: test_references.py; offsets and keys: test_references_matching.py."""

import datetime as dt

import pytest

from ground.records import Attachment
from transforms.code_spans import code_spans, inside
from transforms.references import ReferenceConfig, extract_references

RULES = ReferenceConfig(ner=False)
WEDNESDAY = dt.date(2026, 3, 11)


def ids(text, **kwargs):
    kwargs.setdefault("config", RULES)
    return [r.id for r in extract_references(text, **kwargs)]


def kinds(text, kind, **kwargs):
    return [i for i in ids(text, **kwargs) if i.startswith(kind + ":")]


# ------------------------------------------------------------------------------------------------ dates (4)


def test_given_screenshot_markup_with_a_timestamp_then_no_date_and_the_whole_name_is_the_file():
    # given a Confluence page rendering of an attached screenshot (querypie_cloud shape)
    text = "접속 정보를 확인할 수 있습니다. [attachment: Screenshot 2025-03-06 at 2.23.37 PM.png] Admin > General"
    # when references are extracted
    found = ids(text, reference_date=dt.date(2025, 3, 7))
    # then the file is one attachment and its timestamp is not a date of the text
    assert found == ["attachment:name:Screenshot 2025-03-06 at 2.23.37 PM.png"]


def test_given_attachment_name_with_a_narrow_space_then_matched_in_normalised_text_and_no_date():
    # the export keeps U+202F before "PM"; the episode text has a plain space
    attachment = Attachment(name="스크린샷 2024-08-04 오후 5.30.02\u202fPM.png")
    text = "설치 화면: 스크린샷 2024-08-04 오후 5.30.02 PM.png 참고"
    found = ids(text, attachments=[attachment], reference_date=dt.date(2025, 11, 15))
    assert found == ["attachment:name:스크린샷 2024-08-04 오후 5.30.02\u202fPM.png"]


def test_given_bare_timestamped_screenshot_name_then_no_date():
    text = "See Screen Shot 2018-11-20 at 11.43.59 AM.png for the freeze."
    assert kinds(text, "date", reference_date=dt.date(2018, 11, 21)) == []


@pytest.mark.parametrize(
    "text",
    [
        "Tested with Titanium SDK 7.4.2.1 on the device.",
        "The build 10.3.1.2 still crashes.",
        "Memory dump: 0x12 0x04 0x20 0x17 then 12 04 2017 0a 1b 2c",
    ],
)
def test_given_four_part_versions_or_hex_then_no_date_even_with_ner(text):
    assert kinds(text, "date", config=ReferenceConfig(), reference_date=dt.date(2018, 11, 21)) == []


@pytest.mark.parametrize(
    "text, record_day, expected",
    [
        ("The deadline Jan 31 still holds.", dt.date(2018, 1, 10), "date:2018-01-31"),
        ("We freeze the branch on Dec 24th.", dt.date(2019, 1, 3), "date:2018-12-24"),
        ("Release planned for 3 October.", dt.date(2024, 9, 20), "date:2024-10-03"),
    ],
)
def test_given_a_date_without_year_then_resolved_against_the_record_day(text, record_day, expected):
    assert kinds(text, "date", reference_date=record_day) == [expected]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I will deploy the fix tomorrow.", "date:2026-03-12"),
        ("Let's pick this up next week.", "date:2026-03-16"),
        ("Please send the logs by Friday.", "date:2026-03-13"),
        ("We talked about it yesterday.", "date:2026-03-10"),
        ("Wir machen das nächste Woche.", "date:2026-03-16"),
    ],
)
def test_given_a_relative_date_then_resolved_from_the_record_day(text, expected):
    language = "de" if "Woche" in text else "en"
    assert kinds(text, "date", language=language, reference_date=WEDNESDAY) == [expected]


def test_given_no_record_day_then_relative_dates_are_not_guessed():
    assert kinds("I will deploy the fix tomorrow.", "date") == []


def test_given_log_lines_and_stack_traces_then_their_timestamps_are_not_dates():
    text = (
        "Eclipse fails at start:\n"
        "!ENTRY com.appcelerator.titanium.core 4 0 2016-02-12 14:29:57.951\n"
        "!MESSAGE Error while installing\n"
        "Date/Time: 2018-11-20 11:50:07.9619 -0800\n"
        "We saw it first on 2016-02-10."
    )
    assert kinds(text, "date", reference_date=dt.date(2016, 2, 16)) == ["date:2016-02-10"]


def test_given_an_english_version_ending_a_sentence_then_not_a_dotted_date():
    assert kinds("It was fixed in 10.5. Then it broke again.", "date", reference_date=WEDNESDAY) == []


# ------------------------------------------------------------------------------------------------ money (5)


@pytest.mark.parametrize(
    "text",
    [
        "Use awk '{print $1, $5}' on the output to get the sizes.",
        "ebody = ebody.replace(re_weburl, \"<a href='$1'>$1</a>\")",
        'lid = json.list.replace(/^([^.]+)\\./, "$1@")',
        "for f in *.txt; do mv $1 $2; done",
    ],
)
def test_given_shell_or_regex_positional_variables_then_no_money(text):
    assert kinds(text, "money") == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("We're happy to announce that the second $1 million for the fund is here.", "money:USD:1000000"),
        ("The upgrade costs $5 per seat.", "money:USD:5"),
        ("Budget is $1,200 for the trip.", "money:USD:1200"),
    ],
)
def test_given_real_dollar_amounts_then_money_kept(text, expected):
    assert kinds(text, "money") == [expected]


# ------------------------------------------------------------------------------------------------ URLs (6)


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "자세한 내용은 https://docs.querypie.com/ko/installation에서 확인하세요.",
            "url:https://docs.querypie.com/ko/installation",
        ),
        ("設定は https://example.jp/docs/setupを参照してください", "url:https://example.jp/docs/setup"),
        (
            "(see http://www.provantage.com/unsubscribe.htm)(Do not reply)",
            "url:http://www.provantage.com/unsubscribe.htm",
        ),
        ("링크(https://github.com/appcelerator/titanium_mobile/pull/10421)를 보세요", None),
        ("https://en.wikipedia.org/wiki/Foo_(bar) is the page", "url:https://en.wikipedia.org/wiki/Foo_(bar)"),
    ],
)
def test_given_url_with_glued_particle_or_parenthesis_then_url_ends_before_it(text, expected):
    expected = expected or "url:https://github.com/appcelerator/titanium_mobile/pull/10421"
    assert kinds(text, "url") == [expected]


def test_given_a_truncated_link_label_then_only_the_target_is_a_url():
    # Jira wiki [label|target] renders as "label (target)"; the label was cut by the UI
    text = "PR: https://github.com/appcelerator/titanium_mobile/pu... (https://github.com/appcelerator/titanium_mobile/pull/10421)"
    assert kinds(text, "url") == ["url:https://github.com/appcelerator/titanium_mobile/pull/10421"]


def test_given_a_link_label_cut_with_an_ellipsis_character_then_dropped():
    assert kinds("see https://docs.example.com/guides/long-pa… for details", "url") == []


# ------------------------------------------------------------------------------------------------ attachments (9)


def test_given_same_file_name_on_two_issues_then_two_attachment_ids():
    # the tidev export has an Eclipse ".log" attached to many issues, each a different file
    log = Attachment(name=".log")
    a = ids("Attached the .log file", attachments=[log], attachment_scope="AC-1058")
    b = ids("Attached the .log file", attachments=[log], attachment_scope="AC-1171")
    assert a and b and set(a).isdisjoint(b)


def test_given_attachment_with_a_hash_then_the_same_id_whatever_the_scope():
    att = Attachment(name="crash.log", sha256="ab" * 32)
    assert ids("x", attachments=[att], attachment_scope="A-1") == ids("x", attachments=[att], attachment_scope="B-2")


def test_given_a_file_name_with_spaces_in_jira_markup_then_no_fragment_is_a_file():
    text = "Here is what I see [attachment: Failed to Create Ticket.png] after clicking."
    assert kinds(text, "attachment") == ["attachment:name:Failed to Create Ticket.png"]


def test_given_a_timestamped_name_without_brackets_then_the_tail_is_not_a_file():
    text = "스크린샷 2024-07-30 오후 3.10.01.png Agent > DB Connection"
    assert not [i for i in kinds(text, "attachment") if i.endswith(":3.10.01.png") or i.endswith(":PM.png")]


# ------------------------------------------------------------------------------------------------ code mask


def test_code_spans_cover_fences_wiki_blocks_traces_logs_and_diffs_but_not_prose():
    text = (
        "Prose by Jan Vennemann on 2018-11-20.\n"
        "```\nconst d = '2018-11-21';\n```\n"
        "{noformat}\nTotal $5 on 2018-11-22\n{noformat}\n"
        "java.lang.NullPointerException: boom\n"
        "    at org.x.Y.run(Y.java:12)\n"
        "diff --git a/x b/x\n@@ -1 +1 @@\n-old 2018-11-23\n+new\n"
        "More prose.\n"
    )
    spans = code_spans(text)
    assert not inside(spans, 0, text.index("\n"))
    for needle in ("2018-11-21", "2018-11-22", "NullPointer", "Y.java", "-old", "More"[:0] or "+new"):
        at = text.index(needle)
        assert inside(spans, at, at + len(needle)), needle
    assert not inside(spans, text.index("More prose"), len(text))


def test_given_code_then_only_machine_ids_are_references():
    # given a comment with a stack trace and a code block naming a URL, an issue, a date and an amount
    text = (
        "See the trace below, it started on 2016-02-10.\n"
        "```\n"
        "// fetched from https://example.com/api on 2016-02-12, costs $5\n"
        "var total = price * 2; // TIMOB-26391\n"
        "```\n"
    )
    found = ids(
        text, config=ReferenceConfig(ner=False, jira_project_keys=["TIMOB"]), reference_date=dt.date(2016, 2, 16)
    )
    # then the URL and the issue key in the code count, the date and money there do not
    assert found == ["date:2016-02-10", "url:https://example.com/api", "jira:issue:TIMOB-26391"]


# ------------------------------------------------------------------------------------------------ mail (10)


def test_given_a_message_id_rewritten_by_a_list_archive_then_it_is_marked_external():
    # Gmane's archive replaced the domain of address-like Message-IDs with a hash at public.gmane.org: the id of the
    # message the reply answers (<CA+nPn...@mail.gmail.com>) is lost, so the reference must not pose as that message
    rewritten = "<CA+nPnMwEH9Z2myp71uaSrdcyLJRFrE-Vrt20191rd01h+Ufhjw-JsoAwUIsXosN+BqQ9rBEUg@public.gmane.org>"
    nntp = "<ou13no$4jo$1@blaine.gmane.org>"  # a real id Gmane's news gateway gave a message: it resolves
    refs = extract_references("", message_ids=[rewritten, nntp], config=RULES)
    assert [r.id for r in refs] == ["email:external:" + rewritten.strip("<>"), "email:" + nntp.strip("<>")]


def test_given_a_rewritten_message_id_in_the_text_then_marked_external_too():
    text = "In-Reply-To: <4F0A1B2C.5060708-hHKSG33TihhbjbujkaE4pw@public.gmane.org>"
    assert kinds(text, "email") == ["email:external:4F0A1B2C.5060708-hHKSG33TihhbjbujkaE4pw@public.gmane.org"]


def test_given_a_record_field_with_a_timestamp_then_its_date_is_kept():
    # Salesforce fields are rendered "Label: value" in the episode; a field's date is stated by the record
    text = "Activated date: 2019-11-11 17:23:34\nEffective date: 2019-11-11 17:23:34"
    assert kinds(text, "date", reference_date=dt.date(2019, 11, 11)) == ["date:2019-11-11"]


def test_given_a_camera_file_name_of_digits_then_it_is_a_file():
    assert kinds("Photo attached: 2013-08-13_19-08-28-1.jpg", "attachment") == [
        "attachment:name:2013-08-13_19-08-28-1.jpg"
    ]


def test_given_today_then_no_date_reference_since_the_record_day_is_the_episode_time():
    assert kinds("Register Today for this free webinar, or download today!", "date", reference_date=WEDNESDAY) == []


@pytest.mark.parametrize(
    "text",
    [
        "Authored: Sun Jun 5 14:37:16 2016 +0200\nCommitted: Sun Jun 5 14:37:16 2016 +0200",
        "2017-11-28 7:46 GMT+01:00 Hervé BOUTEMY <herve.boutemy@free.fr>:",
        "On Mon, 6 Nov 2017, Robert Scholte wrote:",
    ],
)
def test_reproduced_headers_and_attribution_lines_state_no_date(text):
    # given commit/mail header lines and reply attributions (ponymail_asf shapes); when references are extracted;
    # then no date: they date the message they introduce, the author states nothing
    refs = extract_references(text, config=ReferenceConfig(ner=False), reference_date=dt.date(2017, 11, 28))
    assert [r.id for r in refs if r.kind == "date"] == []


def test_a_url_a_mail_client_wrapped_onto_the_next_line_is_no_reference_of_its_first_half():
    # given a long mail line whose URL continues on the next line (mail-parser corpus shape), and a short line whose
    # URL ends a sentence before "Thanks."
    wrapped = "Per cancellarsi da questa newsletter\nhttp://www.example.it/territorio/territorio/centrofunzionale/meteo/c\nancellazione_i.asp?arg=meteo\n"
    whole = "Please read the long explanation in https://example.org/docs/page.html\nThanks."
    # when references are extracted; then the cut half is no URL, the whole one is
    config = ReferenceConfig(ner=False)
    assert [r.kind for r in extract_references(wrapped, config=config)] == []
    assert [r.id for r in extract_references(whole, config=config)] == ["url:https://example.org/docs/page.html"]
