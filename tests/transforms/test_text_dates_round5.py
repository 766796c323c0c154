"""Issue 28, fifth round: dates written in Italian (month and weekday names, relative words) and slashed dates with
a two-digit year, on fixture sentences of our own (transforms/text_dates.py)."""

import datetime as dt

from transforms.reference_values import text_dates
from transforms.text_dates import find_dates

SUNDAY = dt.date(2031, 3, 2)


def dates(text: str, lang: str, ref: dt.date = SUNDAY) -> list[dt.date]:
    return [d.date for d in find_dates(text, lang, ref).dates]


def test_given_an_italian_heading_with_weekday_and_month_in_capitals_when_found_then_it_is_that_day():
    # given: a bulletin heading in capitals, as Italian newsletters print them
    text = "PREVISIONI\n\nGIOVEDÌ 6 MARZO 2031\nSereno.\n\nVENERDÌ 7 MARZO 2031\nNuvoloso.\n\nSABATO 8 GENNAIO 2032"
    # when
    found = dates(text, "it")
    # then
    assert found == [dt.date(2031, 3, 6), dt.date(2031, 3, 7), dt.date(2032, 1, 8)]


def test_given_italian_month_names_in_prose_when_found_then_each_is_read():
    text = "La riunione è fissata per il 14 settembre 2031; la consegna entro il 3 dicembre e il 20 luglio 2030."
    assert dates(text, "it") == [dt.date(2031, 9, 14), dt.date(2030, 12, 3), dt.date(2030, 7, 20)]


def test_given_italian_relative_words_when_found_then_they_count_from_the_record_day():
    # given the record's day is a Sunday
    text = "Ci vediamo domani. Il rilascio è previsto per venerdì prossimo, la revisione entro giovedì."
    # then: tomorrow is Monday, "venerdì prossimo" the coming Friday, "entro giovedì" (by Thursday) the coming one
    assert dates(text, "it") == [dt.date(2031, 3, 3), dt.date(2031, 3, 7), dt.date(2031, 3, 6)]


def test_given_la_prossima_settimana_when_next_week_is_asked_for_then_it_is_its_monday():
    scan = find_dates("Ne parliamo la prossima settimana.", "it", SUNDAY, next_week=True)
    assert [d.date for d in scan.dates] == [dt.date(2031, 3, 3)]


def test_given_a_slashed_date_with_a_two_digit_year_when_the_order_is_clear_then_it_is_read():
    # given: US-style dates with a two-digit year, as old mail writes them; 22 > 12 fixes month/day order
    text = "I am out from Monday, 12/22/97, through 12/26/97 and back on 1/5/98."
    found = dates(text, "en", dt.date(1997, 12, 18))
    # then: the unambiguous two are read in the century nearest the record; 1/5/98 stays ambiguous in English
    assert found == [dt.date(1997, 12, 22), dt.date(1997, 12, 26)]
    assert find_dates(text, "en", dt.date(1997, 12, 18)).ambiguous == ["1/5/98"]


def test_given_a_two_digit_year_stamp_with_a_clock_time_when_found_then_no_date():
    # given: a tool's build report pasted into a comment
    assert dates("    build timestamp        = 11/27/97 14:12\n", "en", dt.date(1997, 12, 18)) == []


def test_given_fractions_and_paths_with_two_digit_parts_when_found_then_no_date():
    text = "Scaled by 3/4/16 of the width; see /docs/12/22/97/index and build 10/31/99a."
    assert dates(text, "en", dt.date(1997, 12, 18)) == []


def test_given_oggi_in_an_italian_mail_when_references_are_read_then_the_record_day_is_no_date_reference():
    # "oggi" (today) is the record's own day, already its timestamp (docs/references.md), like "today"/"heute"
    text = "Vi segnalo che oggi è stato pubblicato l'aggiornamento; la scadenza resta il 3 aprile 2031."
    assert [ref for _, _, ref in text_dates(text, "it", SUNDAY)] == ["date:2031-04-03"]


def test_given_a_folded_received_header_reproduced_in_a_text_when_references_are_read_then_no_date():
    # given: a mail header block pasted into the body; the Received header's date is on its folded second line
    text = "Headers below\nReceived: by relay.example.org (Postfix)\n id 4A2B; Tue, 4 Mar 2031 09:16:17 -0600\nok"
    # then: the header dates the message it came with, not something the author states
    assert list(text_dates(text, "en", SUNDAY)) == []
    assert [ref for _, _, ref in text_dates("We meet Tue, 4 Mar 2031 at noon.", "en", SUNDAY)] == ["date:2031-03-04"]


def test_given_a_received_header_folded_over_several_lines_when_references_are_read_then_no_date():
    # given: the date is on the third line of one Received header (seen in a bounce of the shared corpus)
    text = (
        "Received: from relay.example.org (relay.example.org [192.0.2.1]) by\n"
        " mx.example.com (Mail Server v2.02) with ESMTP\n"
        " id AAA685 for <ops@example.com>; Tue, 4 Mar 2031 16:58:30 -0500\nThe message follows."
    )
    assert list(text_dates(text, "en", SUNDAY)) == []


def test_given_an_attribution_line_with_the_date_after_wrote_when_references_are_read_then_no_date():
    text = "Stay tuned.\n\nManfred\n\nHervé Boutemy wrote on 2031-03-01 05:49:\n> the quoted mail"
    assert list(text_dates(text, "en", SUNDAY)) == []
    assert [ref for *_, ref in text_dates("We release on 2031-03-04, as agreed:", "en", SUNDAY)] == ["date:2031-03-04"]


def test_given_a_date_assigned_in_code_or_a_cookie_when_references_are_read_then_no_date():
    text = "set-cookie: [ 'sid=abc; Path=/; Expires=Tue, 04 Mar 2031 06:04:04 GMT; HttpOnly' ],\n since='2031-03-05'"
    assert list(text_dates(text, "en", SUNDAY)) == []
    assert [ref for *_, ref in text_dates("The freeze is 2031-03-05 = the day after review.", "en", SUNDAY)] == [
        "date:2031-03-05"
    ]
