"""Dates in prose (transforms/text_dates.py) against the golden list in five languages: nothing wrong is ever written,
ambiguous dates never become dates, and most stated dates are found."""

import datetime as dt
import json
from pathlib import Path

import pytest

from transforms.text_dates import find_dates

GOLDEN = json.loads((Path(__file__).parent / "golden" / "text_dates.json").read_text())["cases"]
REF = dt.datetime(2026, 6, 10, 12, 0, tzinfo=dt.UTC)  # a Wednesday


def found(case: dict) -> set[str]:
    ref = dt.datetime.fromisoformat(case["ref"]).replace(hour=12, tzinfo=dt.UTC)
    return {d.date.isoformat() for d in find_dates(case["text"], case["lang"], ref).dates}


def test_the_golden_list_covers_five_languages_and_ambiguous_cases():
    assert len(GOLDEN) >= 40
    assert {c["lang"] for c in GOLDEN} == {"en", "de", "fr", "es", "zh"}
    assert sum(bool(c.get("ambiguous")) for c in GOLDEN) >= 2


@pytest.mark.parametrize("case", GOLDEN, ids=[f"{c['lang']}:{c['text'][:40]}" for c in GOLDEN])
def test_given_golden_text_when_dates_are_found_then_none_is_wrong(case):
    assert found(case) <= set(case["expect"])


def test_given_the_golden_list_then_recall_is_at_least_nine_in_ten():
    wanted = sum(len(c["expect"]) for c in GOLDEN)
    hits = sum(len(found(c) & set(c["expect"])) for c in GOLDEN)
    assert hits / wanted >= 0.9, f"{hits}/{wanted}"


def test_given_03_04_2026_in_english_then_it_is_ambiguous_and_no_date_but_german_reads_day_first():
    english = find_dates("Let's confirm 03/04/2026 then.", "en", REF)
    german = find_dates("Bestätigt: 03/04/2026.", "de", REF)
    assert english.dates == [] and english.ambiguous == ["03/04/2026"]
    assert [d.date for d in german.dates] == [dt.date(2026, 4, 3)] and german.ambiguous == []


def test_given_a_german_month_name_then_its_dot_does_not_end_the_sentence_kept_with_the_date():
    scan = find_dates("Danke. Der Termin am 14. September 2026 steht. Gruß", "de", REF)
    assert [(d.date, d.sentence, d.form) for d in scan.dates] == [
        (dt.date(2026, 9, 14), "Der Termin am 14. September 2026 steht.", "absolute")
    ]


@pytest.mark.parametrize(
    "text,lang,expected,form",
    [
        ("We confirm Sept 14 for the cutover.", "en", dt.date(2026, 9, 14), "year_inferred"),
        ("Treffen wir uns nächsten Dienstag?", "de", dt.date(2026, 6, 16), "relative"),
        ("我们下周二开会。", "zh", dt.date(2026, 6, 16), "relative"),
        ("我确认交付日期为2026年9月14日。", "zh", dt.date(2026, 9, 14), "absolute"),
    ],
)
def test_given_forms_without_a_year_or_relative_then_the_record_time_decides(text, lang, expected, form):
    (date,) = find_dates(text, lang, REF).dates
    assert (date.date, date.form) == (expected, form)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Tomorrow's build has the fix.", "2026-06-11"),
        ("C'est pour aujourd'hui.", "2026-06-10"),
        ("Deadline «June 14» holds.", "2026-06-14"),
    ],
)
def test_given_trigger_words_glued_to_punctuation_then_still_found(text, expected):
    lang = "fr" if "aujourd" in text else "en"
    assert [d.date.isoformat() for d in find_dates(text, lang, REF).dates] == [expected]
