"""Fourth round of issue 28 (docs/references.md): amounts written with a code after them, in parentheses, with a
pre-euro currency or a currency word before them, a repeated comma before the cents; issue keys of projects the
export does not know, where the text itself says they are issues. Synthetic texts."""

import pytest

from transforms.references import ReferenceConfig, extract_references, parse_amount

RULES = ReferenceConfig(ner=False)


def kinds(text, kind, **kwargs):
    kwargs.setdefault("config", RULES)
    return [r.id for r in extract_references(text, **kwargs) if r.id.startswith(kind + ":")]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Der Anschluss kostet 2400DM im Monat.", ["money:DEM:2400"]),
        ("Mit Flatrate: 4.500 DM pro Jahr.", ["money:DEM:4500"]),
        ("Le forfait est de 1200 FRF par mois.", ["money:FRF:1200"]),
        ("Fees\n\n2204.15 (EUR )\n\n7 (EUR )\n", ["money:EUR:2204.15", "money:EUR:7"]),
        ("Capitale sociale euro 12.500.000,50 interamente versato", ["money:EUR:12500000.5"]),
        ("We transferred USD 204,118,35 yesterday.", ["money:USD:204118.35"]),
        ("It cost EUR 1.2m in total.", ["money:EUR:1200000"]),
        ("Price: 1.200 € per licence", ["money:EUR:1200"]),
        ("Budget is $1,200 for the trip.", ["money:USD:1200"]),
    ],
)
def test_given_amounts_in_the_ways_mail_writes_them_then_money(text, expected):
    assert kinds(text, "money") == expected


@pytest.mark.parametrize(
    "text",
    [
        "The Euro 2024 final was on Sunday.",  # a tournament, not an amount: no separator, no cents
        "Send me a DM when you are back.",
        "Dump: 00 FF 3C 12 FF",  # hex, not francs
        "Use awk '{print $1, $5}' on the output.",
        "Shares rose (EUR) by 3 points.",
    ],
)
def test_given_currency_words_without_an_amount_then_no_money(text):
    assert kinds(text, "money") == []


def test_a_repeated_comma_before_two_digits_is_the_decimal_comma():
    assert str(parse_amount("204,118,35")) == "204118.35"
    assert str(parse_amount("1,204,118")) == "1204118"


@pytest.mark.parametrize(
    "text, key",
    [
        ("[ABCD-534] Migrate logging to the new API\n\nPlease review.", "jira:issue:ABCD-534"),
        ("This is the exact issue described in QRST-3421 which should be reopened.", "jira:issue:QRST-3421"),
        ("Please see QRST-5303, which will address this for all views.", "jira:issue:QRST-5303"),
        ("I submitted a JIRA ticket (XY-3433) and it was created.", "jira:issue:XY-3433"),
        ("GitHub user opened pull request #56: [WXYZ-739] Use shallow clones", "jira:issue:WXYZ-739"),
    ],
)
def test_given_a_key_the_text_marks_as_an_issue_then_it_counts_without_a_known_project(text, key):
    assert kinds(text, "jira") == [key]


@pytest.mark.parametrize(
    "text",
    [
        "The file is saved as UTF-8 and see ISO-9001 for the process.",
        "We tested against COVID-19 data.",
        "Mount it as [SDA-1] in the list.",  # bracketed, but no title follows
        "Our model XR-200 ships in May.",
    ],
)
def test_given_key_shapes_without_an_issue_cue_then_no_issue(text):
    assert kinds(text, "jira") == []


@pytest.mark.parametrize(
    "text, expected",
    [
        # magnitude words in any case and in Russian mail (seen in the shared corpus): the amount, not its first digit
        ("$1 Million Donated to the Scholarship Fund", ["money:USD:1000000"]),
        ("Госдолг составляет $19,4 трлн. В этом году", ["money:USD:19400000000000"]),
        ("биткоинов, примерно $70 млн.\nВпрочем", ["money:USD:70000000"]),
        # a currency code inside an identifier: a UUID, a base64 string
        ("Task <7C76F5F2-9691-4E64-BEF8-809492CD6119>.<1> finished with error", []),
        ("Username: c7ZgbZS/+xi/ESP1ey4+eA==", []),
        ("A range of EUR 300-400 per month", ["money:EUR:300"]),
    ],
)
def test_given_magnitude_words_or_codes_inside_identifiers_then_the_amount_is_read_as_stated(text, expected):
    assert kinds(text, "money") == expected


def test_given_an_amount_spelled_with_letters_for_zeros_then_no_money():
    # held-out parakweet spam: "$38,OOO.OO" is no 38 dollars
    text = "Search now to let us know you want to win this amazing vehicle - worth over $38,OOO.OO!"
    assert [r for r in extract_references(text) if r.kind == "money"] == []
    assert [r.id for r in extract_references("It costs $38, paid today.") if r.kind == "money"] == ["money:USD:38"]
