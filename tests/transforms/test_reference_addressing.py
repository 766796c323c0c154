"""People named by the layout of a message (issue 28: the small NER model misses most given names): greetings,
signatures and names beside an address. Texts shaped like the tidev_appcelerator_jira and ponymail_asf corpus."""

import pytest

from transforms.reference_addressing import addressed_names, party_names
from transforms.references import ReferenceConfig, extract_references


def names(text: str) -> list[str]:
    return [name for _, _, name in addressed_names(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Android SDK not found\n\nHi Mauro.\n\nI ran the command", ["Mauro"]),
        ("leftNavButton width\n\nJan,\n\nThe docs point out that the property", ["Jan"]),
        ("Crash\n\nSee the log.\n\nBest,\n\nMauro", ["Mauro"]),
        ("Crash\n\nThank you for bringing this to our attention,\nCarter", ["Carter"]),
        ("Unit tests\n\nthose classes are not found during unit tests.\n\n- Russ", ["Russ"]),
        ("Re: boot floppy\n\nNicu Buculei wrote:\n\nia cu incredere", ["Nicu Buculei"]),
        ("Commit\n\nAuthor: Sylwester Lachiewicz <slachiewicz@gmail.com>\nDate: today", ["Sylwester Lachiewicz"]),
        ("Re: Netz\n\nHallo Herr Specht,\nentschuldigen Sie", ["Specht"]),  # the title is no part of the name
    ],
)
def test_greeted_signing_and_addressed_people_are_found(text, expected):
    # given a message that greets, signs or quotes a person by name; when scanned; then the name is found once
    assert names(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Steps\n\nOpen the app.\n\nExpected\n\nAndroid",  # a product on the last line
        "Hi all,\n\nHello World",  # a group and a sample app
        "Report\n\nBonjour,\n\nle fichier est joint.\n\nMerci",  # greetings in another language
        "Report\n\nIt works now.\n\nRegards",  # a closing alone
        "Title\n\nThis is the first line of a description\nWindows",  # a lone word in the middle, no closing
        "Offer\n\nDear Homeowner,\n\nYou have been pre-approved",  # two dictionary words run together
        "Docs\n\n- Setup\n- Troubleshooting\n\n### Demo",  # a bullet list item
        "Lead\n\nSalesforce Lead.\nCompany: Z",  # a record's type line
    ],
)
def test_layout_words_that_are_no_names_are_not_people(text):
    # given lines shaped like a greeting or signature but holding no name; when scanned; then nobody is found
    assert names(text) == []


def test_a_known_party_keeps_its_own_id_over_the_layout_rule():
    # given a signature with a name the export knows; when party names are read; then the known id wins, once
    parties = {"jan": [(("jan", "vennemann"), "person:jan vennemann")]}
    found = list(party_names("Fix\n\nThanks,\nJan Vennemann", parties))
    assert [ref for _, _, ref in found] == ["person:jan vennemann"]


def test_a_signature_becomes_a_person_reference_but_not_inside_code():
    # given a signature after prose and the same layout inside a code block; when references are extracted without
    # NER; then only the prose one is a person
    config = ReferenceConfig(ner=False)
    prose = extract_references("Crash\n\nSee the log.\n\nCheers,\nLeor", config=config)
    code = extract_references("Crash\n\n```\nCheers,\nLeor\n```", config=config)
    assert [r.id for r in prose if r.kind == "person"] == ["person:leor"]
    assert [r.id for r in code if r.kind == "person"] == []


def test_a_title_case_heading_of_dictionary_words_is_no_organisation():
    # given a page whose first line is its title ("Project Charter", the bundled sample's Confluence page)
    refs = extract_references("Project Charter\n\n| Owner | @Dana Whitfield |")
    # when references are extracted with NER; then the heading is no organisation
    assert [r.id for r in refs if r.kind == "organization"] == []


@pytest.mark.parametrize(
    "text, name",
    [
        ("Re: the build\n\nIt works now, thanks for your time!\n\n Maren\n\n-->> Free scripts for your site!", "maren"),
        (
            "Re: the plugin\n\nIt should act as if it was downloaded\nTobias\n\nSent from my phone.\n-- original --",
            "tobias",
        ),
        ("Ordine\n\nBuongiorno Ornella\nmi confermi che va bene?", "ornella"),
        ("Thanks,\n | _/___/ Quirin (quirin@lab.example.org)\n | Example Labs", "quirin"),
    ],
)
def test_given_a_signature_above_a_footer_a_greeting_or_a_name_beside_its_own_address_then_a_person(text, name):
    assert f"person:{name}" in [ref for _, _, ref in party_names(text, {})]


def test_given_a_word_beside_an_address_it_is_not_the_local_part_of_then_no_person():
    assert list(party_names("Write to Support (helpdesk@example.org) for access.", {})) == []


def test_given_a_signature_line_of_a_name_and_a_bare_address_then_the_person():
    text = "Re: fonts\n\nI'll fix it.\n\nMarta Kowalczyk m.kowalczyk@example.co.uk\nExample Press Ltd"
    assert "person:marta kowalczyk" in [ref for _, _, ref in party_names(text, {})]


def people(text: str, language: str = "en") -> set[str]:
    return {r.id for r in extract_references(text, language=language) if r.kind == "person"}


@pytest.mark.parametrize(
    ("text", "person"),
    [
        # Romanian in a record read as English (mime4j mbox.rlug): the English model is kept off that segment
        (
            "In sfarsit am rezolvat problema, cu ajutorul lui James McQuillan (autorul\nLTSP). E foarte simplu si foarte "
            "nedocumentat, 16 mega nu sunt suficienti pentru o statie.",
            "person:james mcquillan",
        ),
        (
            "Bonjour à tous, la réunion de demain est annulée. Merci de contacter Marie Dubreuil pour toute question "
            "sur le nouveau calendrier des livraisons.",
            "person:marie dubreuil",
        ),
    ],
)
def test_given_a_full_name_in_a_language_no_model_reads_then_it_is_a_person(text, person):
    assert person in people(text)


@pytest.mark.parametrize(
    "text",
    [
        # German writes nouns with a capital: a given-name-like word before a noun is no name there
        "Die Rose Gartenschau beginnt morgen um neun Uhr, und wir treffen uns am Eingang mit den anderen Gästen.",
        # a run of capitals is a title or a place, not a person
        "La conférence aura lieu au Palais Grant Montclair Centre, près de la gare, à partir de neuf heures.",
    ],
)
def test_given_capitals_that_are_no_full_name_then_no_person(text):
    assert people(text) == set()
