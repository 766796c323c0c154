"""Versions (issue 28 pattern 8): tied to the product the text names, never IPs, dates, section numbers or code.
Sentences shaped like (or quoted from) the tidev_appcelerator_jira and ponymail_asf corpus (Apache-2.0)."""

import pytest

from transforms.reference_versions import find_versions
from transforms.references import ReferenceConfig, extract_references

RULES = ReferenceConfig(ner=False)


def version_ids(text: str) -> list[str]:
    return [r.id for r in extract_references(text, config=RULES) if r.kind == "version"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Tested on both iOS 12 and 11 and with Titanium SDK 7.1.0 and 7.4.0, the app never freezes.",
            ["version:ios/12", "version:titanium sdk/7.1.0", "version:7.4.0"],
        ),
        ("I have also used Titanium SDK 3.1.1.GA and I have the same problem", ["version:titanium sdk/3.1.1.GA"]),
        (
            "The vote for Apache Maven 3.5.2 is open; it fixes a regression of v3.5.1.",
            ["version:apache maven/3.5.2", "version:3.5.1"],
        ),
        ("It crashes on Android 11 with the 9.3.2 SDK.", ["version:android/11", "version:9.3.2"]),
        ("[Warning] 11.2.0 현재 Reports 기능은 Beta 버전으로 제공 중입니다.", ["version:11.2.0"]),
        ("Please release version 2.1 soon.", ["version:2.1"]),
        ('"userAgent" = "Apache-Maven/3.3.9 (Java 1.8.0_91; Linux)"', ["version:java/1.8.0_91"]),
        # release qualifiers after a space, build stamps and wildcard parts belong to the version
        (
            "Tested on both 2.1.4 GA and latest 3.1 CI; 1.8.0.1 RC3 too.",
            ["version:2.1.4 GA", "version:3.1 CI", "version:1.8.0.1 RC3"],
        ),
        (
            "Studio build: 4.1.1.201507141126, Eclipse 3.1.3.v20130917141554",
            ["version:4.1.1.201507141126", "version:eclipse/3.1.3.v20130917141554"],
        ),
        ("Only Android 2.1.x devices and 2.0.1GA2 are affected.", ["version:android/2.1.x", "version:2.0.1GA2"]),
        ("It freezes on iOS 12 beta with Appc CLI 5.0.2-19.", ["version:ios/12 beta", "version:appc cli/5.0.2-19"]),
    ],
)
def test_versions_are_found_with_their_product(text, expected):
    # given engineering prose naming releases; when references are extracted; then each version is one reference
    assert version_ids(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The build server at 10.0.0.12 and the proxy 192.168.1.1 were down.",  # IP addresses
        "Released on 06.11.2017, tagged 2017.11.06 in the archive.",  # dates with dots
        "See section 3.2 and Figure 4.1 of the guide; Step 3 explains it.",  # section numbers
        "Der Go-live ist in KW 14, die Abnahme in CW 16.",  # calendar weeks (Kalenderwoche, calendar week)
        "<dependency><version>3.5.2</version></dependency> and org.apache.maven:maven-core:3.5.2",  # dependency XML
        "It took 2.5 s and 0.5% of the budget, about $3.50 in total.",  # plain numbers, amounts
        "About 20 users and 3 admins saw it; Jan 31 is the deadline.",  # counts and year-less dates
        "Screenshot 2025-03-06 at 1.19.24 PM.png shows it",  # a time inside a file name
        "We sold 1.234.567 units.",  # thousands separators
        "550 5.1.1 The email account does not exist; error code 5.1.10 in Office 365",  # SMTP status codes
    ],
)
def test_non_versions_are_not_versions(text):
    assert version_ids(text) == []


def test_version_span_covers_the_product_and_the_value_has_no_leading_v():
    text = "Upgrade to Titanium SDK v9.3.2 now."
    found = list(find_versions(text))
    assert [(text[v.start : v.end], v.version, v.product) for v in found] == [
        ("Titanium SDK v9.3.2", "9.3.2", "Titanium SDK")
    ]


def test_versions_are_rule_references_without_ner():
    refs = extract_references("Maven 3.5.2 is out", config=RULES)
    assert [(r.kind, r.id, r.text, r.confidence) for r in refs] == [
        ("version", "version:maven/3.5.2", "Maven 3.5.2", 1.0)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Call support at 1800.981.5864 today.",  # a phone number
        "> Process: WindowServer 192\n> Thread DispatchQueue 2 14 samples",  # process names in a crash log
        "EMA 11-20-18, Australia 03 office",  # dates and codes after a word
    ],
)
def test_numbers_after_words_in_logs_are_not_versions(text):
    assert version_ids(text) == []


def test_a_verb_opening_the_run_is_not_part_of_the_product():
    assert version_ids("Building Foo 1.0.0-SNAPSHOT took an hour.") == ["version:foo/1.0.0-SNAPSHOT"]


def test_a_version_in_a_build_log_line_is_no_reference():
    # a log line is machine output (transforms/code_spans.py): the version there is not something the author stated
    assert version_ids("[INFO] Building Foo 1.0.0-SNAPSHOT") == []
