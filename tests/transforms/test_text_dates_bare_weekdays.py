"""A weekday written alone is a date only where the text looks ahead: it dates a day of the coming week itself (a
forecast, a plan). Then "mercoledì e giovedì" are the next such days after the record's; elsewhere a bare "Monday"
may be the one past and stays no date (issue 28, seventh round; docs/references.md). Fixture texts of our own, shaped
like the labelled Italian weather bulletin."""

import datetime as dt

import pytest

from transforms.reference_values import text_dates
from transforms.text_dates import find_dates

SUNDAY = dt.date(2031, 3, 2)


def dates(text: str, lang: str, *, bare: bool = True) -> list[dt.date]:
    return [d.date for d in find_dates(text, lang, SUNDAY, bare_weekdays=bare).dates]


def test_given_a_forecast_with_bare_weekdays_when_found_then_they_are_the_days_ahead():
    # given: a bulletin of Sunday that dates Monday itself, then names the following days alone
    text = (
        "BOLLETTINO di domenica 2 marzo 2031\nDomani e martedì tempo soleggiato.\n\n"
        "LUNEDÌ 3 MARZO 2031\nSereno.\n\nTENDENZA SUCCESSIVA\nSoleggiato mercoledì e giovedì, "
        "possibili annuvolamenti tra venerdì e sabato."
    )
    # when
    found = dates(text, "it")
    # then: "domenica" beside its date is no second date; Wednesday to Saturday are the coming ones
    assert found == [
        dt.date(2031, 3, 2),
        dt.date(2031, 3, 3),
        dt.date(2031, 3, 4),
        dt.date(2031, 3, 3),
        dt.date(2031, 3, 5),
        dt.date(2031, 3, 6),
        dt.date(2031, 3, 7),
        dt.date(2031, 3, 8),
    ]


def test_given_bare_weekdays_in_a_text_that_does_not_look_ahead_then_no_date():
    text = "On Monday I upgraded to the new release, and on Tuesday the build failed again."
    assert dates(text, "en") == []


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Tomorrow we deploy. Last Monday the job failed.", "en"),
        ("Domani si parte. Lunedì scorso il servizio era fermo.", "it"),
        ("Tomorrow we deploy; see the thread of Mon, 24 Feb 2031.", "en"),
    ],
)
def test_given_a_weekday_placed_in_the_past_or_beside_a_date_then_it_is_no_bare_weekday(text, lang):
    found = dates(text, lang)
    assert dt.date(2031, 3, 3) in found  # tomorrow
    assert not any(d > dt.date(2031, 3, 3) for d in found)


def test_given_abbreviated_weekdays_or_the_flag_off_then_no_bare_weekday():
    assert dates("Tomorrow the plan: Wed review, Fri release.", "en") == [dt.date(2031, 3, 3)]
    assert dates("Tomorrow we plan; Friday we release.", "en", bare=False) == [dt.date(2031, 3, 3)]


def test_given_a_forecast_when_references_are_read_then_bare_weekdays_are_date_references():
    text = "Domani sereno.\nSoleggiato mercoledì e giovedì."
    assert [ref for *_, ref in text_dates(text, "it", SUNDAY)] == [
        "date:2031-03-03",
        "date:2031-03-05",
        "date:2031-03-06",
    ]


def test_given_entro_sabato_in_italian_then_it_is_the_coming_saturday():
    assert dates("La revisione entro sabato.", "it", bare=False) == [dt.date(2031, 3, 8)]
