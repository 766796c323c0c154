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
