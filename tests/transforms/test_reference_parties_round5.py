"""Issue 28, fifth round: people greeted and signing in German, Italian, French and Spanish mail, names with letters
outside Latin-1 and surnames that are also dictionary words, an address confirming a name, possessives of known
parties and public bodies as organisations. Fixture sentences of our own."""

import pytest

from transforms.name_check import name_confidence
from transforms.reference_addressing import addressed_names
from transforms.references import ReferenceConfig, extract_references

RULES = ReferenceConfig(ner=False)


def people(text: str) -> list[str]:
    return [name for _, _, name in addressed_names(text)]


@pytest.mark.parametrize(
    "text,name",
    [
        ("Betreff\n\nSehr geehrte Frau Albrecht-Köhler,\n\nanbei die Unterlagen.", "Albrecht-Köhler"),
        ("Betreff\n\nSehr geehrter Herr Wójcik,\n\nvielen Dank.", "Wójcik"),
        ("Oggetto\n\nGentile Signora Bianchi,\n\nle invio il modulo.", "Bianchi"),
        ("Objet\n\nChère Amélie,\n\nvoici le document.", "Amélie"),
        ("Asunto\n\nEstimado Joaquín:\n\nle envío la factura.", "Joaquín"),
    ],
)
def test_given_a_greeting_of_another_language_when_read_then_the_greeted_person(text, name):
    assert people(text) == [name]


@pytest.mark.parametrize(
    "text,name",
    [
        (
            "Betreff\n\nDie Unterlagen folgen.\n\nMit freundlichen Grüßen\n\nKatrin Weißmüller\nReferentin",
            "Katrin Weißmüller",
        ),
        ("Betreff\n\nDie Preise gelten ab Mai.\nFreundliche Gruesse\nJochen Brandtner\n\n=====", "Jochen Brandtner"),
        (
            "Oggetto\n\nMi conferma la data?\nGrazie\nA disposizione\nFederica\n\nInizio messaggio inoltrato:",
            "Federica",
        ),
        (
            "Oggetto\n\nIl modulo è allegato.\n\nCordiali saluti\n Ludovica Ferraris\n\nUfficio acquisti",
            "Ludovica Ferraris",
        ),
        ("Objet\n\nMerci pour votre retour.\n\nBien cordialement,\nÉloïse Marchand", "Éloïse Marchand"),
    ],
)
def test_given_a_closing_of_another_language_when_read_then_the_signing_person(text, name):
    assert people(text) == [name]


def test_given_a_signature_whose_surname_is_a_dictionary_word_when_read_then_the_whole_name():
    # given: a given name, then a surname that is also an English word (an occupation)
    text = "Re: offer\n\nThe form is ready.\n\nSincerely,\n\nOrlando Weaver\n\nRegional Manager"
    assert people(text) == ["Orlando Weaver"]


def test_given_a_closing_then_two_dictionary_words_when_read_then_no_person():
    text = "Re: offer\n\nThe form is ready.\n\nSincerely,\n\nCustomer Service\n"
    assert people(text) == []


def test_given_an_author_line_whose_surname_is_a_stop_word_when_the_address_confirms_it_then_the_person():
    # given: "Java" is a stop name (a language), but the address's local part spells the name
    text = "Commit: 1234abc\nAuthor: Nadia Java <njava@example.org>\nDate: today"
    assert people(text) == ["Nadia Java"]
    assert people("Author: Nadia Java <build@example.org>") == []


def orgs(text: str, name_map: dict[str, str] | None = None) -> list[str]:
    config = ReferenceConfig(name_map=name_map or {})  # NER on: written organisations join its candidates
    return [r.id for r in extract_references(text, config=config) if r.kind == "organization"]


def test_given_a_known_organisation_in_a_possessive_when_read_then_the_organisation():
    # given: the export taught graphfeed the organisation "Quillsoft" (e.g. from its mail domain)
    known = {"Quillsoft": "org:quillsoft"}
    # when / then: "Quillsoft's" names it as well as "Quillsoft"
    assert orgs("Users blame Quillsoft's release process for this.", known) == ["org:quillsoft"]
    assert orgs("Users blame Quillsoft for this.", known) == ["org:quillsoft"]


@pytest.mark.parametrize(
    "text,org",
    [
        ("Eingetragen beim Amtsgericht Freiburg, VR 4711.", "org:amtsgericht freiburg"),
        (
            "Il bollettino della REGIONE AUTONOMA FRIULI VENEZIA GIULIA UFFICIO STAMPA è online.",
            "org:regione autonoma friuli venezia giulia",
        ),
        ("La delibera del Comune di Lecco è pubblicata.", "org:comune di lecco"),
        ("Maps based on the National Geospatial Agency data set.", "org:national geospatial agency"),
        ("Precise Maps Based On US Geospatial Survey Agency Data.", "org:us geospatial survey agency"),
        ("Labels approved by the Food and Drug Administration today.", "org:food and drug administration"),
    ],
)
def test_given_a_public_body_named_by_its_head_word_when_read_then_an_organisation(text, org):
    assert orgs(text) == [org]


@pytest.mark.parametrize(
    "text", ["The agency said nothing.", "Das Amtsgericht hat entschieden.", "Ask the Travel Agency desk."]
)
def test_given_a_head_word_without_a_name_when_read_then_no_organisation(text):
    assert orgs(text) == []


def test_given_a_lone_given_name_opening_a_comment_before_a_sentence_when_read_then_the_addressed_person():
    # given: a comment that opens with the addressee's name on a line of its own, then a paragraph
    text = "Comment on ABC-1: list height\n\nJaroslav\n\nThe list should report its own height after layout."
    assert people(text) == ["Jaroslav"]


def test_given_a_lone_word_opening_a_list_or_a_short_line_when_read_then_no_person():
    assert people("Release notes\n\nHyperloop\n\n- faster builds\n- smaller apps") == []
    assert people("Comment on ABC-1: list height\n\nJaroslav\nThe list.") == []


def test_given_a_unit_named_by_dictionary_words_and_group_when_checked_then_no_organisation_but_a_coined_group_is():
    # given: a signature naming the author's department, then the company
    text = "Thanks,\nMira Olsen\nQuality Methods Group\nHartwell Group\nLeeds, UK"
    # when the model proposes both as organisations
    unit = name_confidence("Quality Methods Group", "ORG", text, text.index("Quality"), frozenset())
    company = name_confidence("Hartwell Group", "ORG", text, text.index("Hartwell"), frozenset())
    # then the department made of dictionary words is none; the coined name with "Group" is a company
    assert unit == 0.0 and company >= 0.7
