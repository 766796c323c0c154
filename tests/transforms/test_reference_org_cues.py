"""A lone word NER tags as an organisation is one when the words around it say so: its possessive before a common
noun, or its own site or mail domain in the same text (issue 28, seventh round). Without such a cue a lone word stays
below the organisation threshold, and a site the text puts something on stays a site."""

import pytest

from transforms.references import extract_references


def organisations(text: str) -> set[str]:
    return {r.id for r in extract_references(text) if r.kind == "organization"}


@pytest.mark.parametrize(
    ("text", "organisation"),
    [
        ("Hi there,\nbefore Apple's event on September 12th we decided to test our apps on the beta.", "org:apple"),
        ("The framework is unsigned at distribution time based on Apple's best practices.", "org:apple"),
        (
            "Have fun with your friends online! Start with\na video from Microsoft\n"
            "http://www.microsoft.com/canada/home/videos/default.asp",
            "org:microsoft",
        ),
    ],
)
def test_given_a_lone_company_name_with_a_cue_when_references_are_read_then_it_is_an_organisation(text, organisation):
    assert organisation in organisations(text)


@pytest.mark.parametrize(
    "text",
    [
        "We decided to test our apps on the Apple beta before the event.",  # no cue: a lone word stays unsure
        "Follow us on Facebook https://www.facebook.com/acme for the latest news.",  # a site, not the company
        "Try the new MSN Search at http://search.msn.com/ for free.",  # a host's first label names no organisation
        "I like Samsung's S duos a lot, the screen is great.",  # a device after the possessive
    ],
)
def test_given_no_cue_or_a_site_when_references_are_read_then_no_lone_word_organisation(text):
    assert organisations(text) == set()


@pytest.mark.parametrize(
    ("text", "not_an_organisation"),
    [
        # a field label before its value (a crash report, a tool's version list)
        ("OS Version: iPhone OS 12.1 (16B92)\nBaseband Version: n/a\nReport Version: 104", "org:baseband version"),
        ("npm Version = 2.11.3\nCore Package = 5.1.0\nTitanium CLI Version = 5.0.5", "org:core package"),
        # a run of dictionary words that nobody deals with: a heading, a feature, a status
        ("Delivery Status Notification (Failure)\n\nDelivery to the following recipient failed.", None),
        ("Unable to add Embedded Binaries to the Xcode project of the app.", "org:embedded binaries"),
        ("List Views and Card Views are two different major UI elements for the app.", "org:card views"),
        ("Re: JDK 10 b29 Early Access is available on jdk.java.net", "org:early access"),
        # an acronym the text spells out as a test pattern or a feature, not as a body
        ("Test spam mail (GTUBE)\n\nThis is the GTUBE, the Generic Test for Unsolicited Bulk Email", None),
        ("Type: QueryPie DAC\nData: DB Access Control, assigned privileges", "org:dac"),
        # a company's name cut at a line break beside the whole name
        (
            "Breaking NEWS: Intelligent\n\nSports, Inc. Offers Affordable Alternative\n\n"
            "Intelligent Sports, Inc. is a publicly held company.",
            "org:sports inc",
        ),
    ],
)
def test_given_labels_headings_and_fragments_when_references_are_read_then_they_are_no_organisations(
    text, not_an_organisation
):
    found = organisations(text)
    assert not_an_organisation not in found if not_an_organisation else found == set()


def test_given_dictionary_word_companies_someone_deals_with_then_they_stay_organisations():
    found = organisations(
        "We signed the renewal with Evergreen Retail today.\nBlue Harbor Logistics confirmed the slot."
    )
    assert {"org:evergreen retail", "org:blue harbor logistics"} <= found


def test_given_an_acronym_spelled_out_as_a_body_then_it_stays_an_organisation():
    text = "I bought it from Waynesville Cycle Center in NC.\nI contacted the manager at WCC about the windshield."
    assert "org:wcc" in organisations(text)
