"""The reference scorer: normalised matching per kind, precision/recall with a Wilson 95 % interval, a kind the
extractor does not produce, version products, and the worst examples first."""

import pytest

from transforms.reference_eval import Gold, format_report, found_key, gold_key, name_key, score, wilson


def test_given_textbook_proportions_when_wilson_then_the_known_intervals():
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(2, 3) == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert wilson(0, 0) is None


def test_given_surface_variants_when_keyed_then_both_sides_meet():
    assert name_key("  John   Q. Smith's ") == name_key("john q. smith") == "john q. smith"
    assert gold_key("url", "https://Example.COM:443/a?utm_source=x") == found_key("url:https://example.com/a").key
    assert gold_key("money", "USD 1,200.00") == found_key("money:USD:1200").key == "USD:1200"
    assert gold_key("jira_issue", "mng-6275") == found_key("jira:issue:MNG-6275").key == "MNG-6275"
    assert gold_key("salesforce_record", "001A000001abcdeFGH") == found_key("salesforce:account:001A000001abcdeFGH").key
    assert found_key("email_address:a@b.org").kind == "email_address"
    assert found_key("email:123@mail.host").kind == "email_message"
    assert found_key("version:Titanium SDK/9.3.2") == ("version", "9.3.2", "titanium sdk")
    assert found_key("version:v9.3.2") == ("version", "9.3.2", None)
    assert found_key("attachment:sha256:ab", {"attachment:sha256:ab": "Crash.LOG"}) == ("attachment", "crash.log", None)
    assert found_key("attachment:sha256:ab") is None  # a hash with no known name is not guessed
    assert found_key("crm:contact:42") is None


def hand_made():
    units = [
        (
            "u1",
            [
                Gold("person", "John Q. Smith", "John Q. Smith"),
                Gold("organization", "Acme Corp", "Acme Corp's"),
                Gold("date", "2024-01-31", "Jan 31"),
                Gold("url", "https://Example.com/a", "https://Example.com/a"),
                Gold("version", "3.5.2", "Maven 3.5.2", "Maven"),
            ],
            [
                "person:john q. smith",
                "org:acme corp's",
                "date:2024-01-31",
                "url:https://example.com/a",
                "person:kitchensink",
                "version:maven/3.5.2",
                "crm:contact:42",
            ],
        ),
        (
            "u2",
            [
                Gold("person", "Hervé", "Hervé"),
                Gold("date", "2024-02-01", "tomorrow"),
                Gold("email_address", "a@b.org"),
            ],
            ["person:hervé", "date:2024-02-02"],
        ),
    ]
    return score(units, ["person", "organization", "date", "url", "email_address", "version", "money"])


def test_given_a_hand_made_case_when_scored_then_counts_precision_recall_and_intervals_are_known():
    report = hand_made()
    person, date, address, money = (report.kinds[k] for k in ("person", "date", "email_address", "money"))
    assert (person.tp, person.fp, person.fn) == (2, 1, 0)
    assert person.precision == pytest.approx(2 / 3) and person.recall == 1.0
    assert person.precision_ci == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert (date.tp, date.fp, date.fn) == (1, 1, 1) and date.precision == date.recall == 0.5
    assert report.kinds["organization"].tp == report.kinds["url"].tp == report.kinds["version"].tp == 1
    # A kind the extractor never produces: recall 0, precision not defined.
    assert (address.tp, address.fp, address.fn) == (0, 0, 1)
    assert address.recall == 0.0 and address.precision is None and address.precision_ci is None
    assert money.precision is None and money.recall is None
    assert (report.versions_with_product, report.products_matched, report.unscored) == (1, 1, 1)


def test_given_a_hand_made_case_when_formatted_then_every_kind_has_a_line_and_the_worst_unit_comes_first():
    report = hand_made()
    text = format_report(report, show=3)
    assert "  person             0.67 [0.21, 0.94] 1.00 [0.34, 1.00]    2    1    0" in text
    assert "  email_address      n/a               0.00 [0.00, 0.79]    0    0    1" in text
    assert "  money              n/a               n/a                  0    0    0" in text
    assert "versions matched with a labelled product: 1, product matched too: 1" in text
    assert "miss           email_address      'a@b.org'  (u2)" in text
    assert "false positive person             'kitchensink'  (u1)" in text
    # u2 has three errors (date fp, date miss, address miss), u1 one: u2's come first.
    assert [e.uid for e in report.examples] == ["u2", "u2", "u2", "u1"]
