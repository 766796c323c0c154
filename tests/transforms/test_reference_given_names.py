"""Issue 28, sixth round: a given name of one person the export knows is a person where it stands alone (a sign-off
that is also a word, a lower-case sign-off, a name in prose, a possessive), and a company written as its domain.
Fixture sentences of our own; the known parties stand for what reference_gazetteer learns from mail headers and Jira
user objects."""

import pytest

from transforms.references import ReferenceConfig, extract_references

KNOWN = {
    "Till Westermann": "person:till westermann",
    "Sebastian Rauch": "person:sebastian rauch",
    "Ingo Marbach": "person:ingo marbach",
    "Martin Gullberg": "person:martin gullberg",
}
RULES = ReferenceConfig(ner=False, name_map=KNOWN)


def people(text: str, config: ReferenceConfig = RULES) -> list[str]:
    return [r.id for r in extract_references(text, config=config) if r.kind == "person"]


def organisations(text: str) -> list[str]:
    return [r.id for r in extract_references(text, config=ReferenceConfig(ner=False)) if r.kind == "organization"]


@pytest.mark.parametrize(
    "text,person",
    [
        # "till" is a dictionary word; after a closing, and the export knows a Till, it signs the mail
        ("Re: setup\n\nThe IDE steps come first.\n\nCheers,\nTill\n\n[1] http://example.org/dev-setup", "person:till"),
        # lower case, above the full signature
        (
            "Re: fonts\n\nignore the checksum error, i'll fix it\n\nsebastian\nSebastian Rauch s.rauch@example.org",
            "person:sebastian",
        ),
        # in prose
        ("Comment on TIX-1: camera\n\nIngo is saying they cannot procure the devices.", "person:ingo"),
        # a possessive
        ("Comment on TIX-2: null image\n\nClosing this as resolved as per Martin's confirmation.", "person:martin"),
    ],
)
def test_given_a_known_persons_given_name_standing_alone_when_read_then_that_person_as_written(text, person):
    assert person in people(text)


def test_given_the_same_text_when_the_export_knows_no_such_person_then_no_person():
    text = "Comment on TIX-1: camera\n\nIngo is saying they cannot procure the devices.\n\nCheers,\nTill"
    assert people(text, ReferenceConfig(ner=False)) == []


def test_given_two_known_people_with_one_given_name_when_it_stands_alone_then_no_person():
    # given: two Martins in the export; "Martin" alone could be either
    config = ReferenceConfig(ner=False, name_map={**KNOWN, "Martin Ortega": "person:martin ortega"})
    assert people("Closing this as per Martin's confirmation.", config) == []


@pytest.mark.parametrize(
    "text",
    [
        "Till then, the build stays red.",  # the word, not the name, opens a sentence
        "Martin Fowler wrote about it.",  # a capitalised neighbour: another person's full name
        "We asked Ingo Marbach directly.",  # the known full name (found once, as the full name)
    ],
)
def test_given_a_known_given_name_that_does_not_stand_alone_when_read_then_not_the_given_name(text):
    found = people(text)
    assert "person:till" not in found and "person:martin" not in found and "person:ingo" not in found


@pytest.mark.parametrize(
    "text,org",
    [
        ("MySurvey.com: You have a survey waiting!", "org:mysurvey.com"),
        ("Рассылка от Профессионалы.ru для вас", "org:профессионалы.ru"),
    ],
)
def test_given_a_company_written_as_its_domain_when_read_then_an_organisation(text, org):
    assert organisations(text) == [org]


@pytest.mark.parametrize(
    "text",
    [
        "Run Setup.py first, then Node.js.",  # file names and products: no top-level domain
        "See http://www.MySurvey.com/x and mail info@MySurvey.com",  # a URL and an address claim their text
        "The file Report.com.bak was removed",  # a longer file name
        "a Cashback Bonus from Barnes & Noble.com",  # the tail of a joined name
    ],
)
def test_given_a_domain_shaped_token_that_names_no_company_when_read_then_no_organisation(text):
    assert organisations(text) == []


def test_given_a_known_given_name_greeted_on_the_first_line_when_read_then_still_the_greeted_person():
    # given: "Jan," opens the mail (the layout rule) and the export knows a Jan
    config = ReferenceConfig(ner=False, name_map={**KNOWN, "Jan Vennemann": "person:jan vennemann"})
    assert people("Re: export\nJan,\n\nthe export runs tonight, see the attached log for the details.", config) == [
        "person:jan"
    ]


def test_given_a_known_given_name_opening_a_sentence_after_a_capitalised_word_when_read_then_the_person():
    # given: the sentence before ends with a name-like word ("Android."): no part of the given name's own name
    assert "person:ingo" in people("Comment on TIX-1: camera\n\nIt fails on Android. Ingo is asking for a device.")
