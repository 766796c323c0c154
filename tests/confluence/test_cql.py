"""CQL windows in the API user's time zone, across the 2026 DST switches."""

import datetime as dt

from connectors.confluence.cql import wall_minute, window_cql
from ground.contract import TimeWindow

UTC = dt.UTC


def test_window_in_the_users_zone_with_overlap_spaces_and_labels():
    window = TimeWindow(start=dt.datetime(2026, 6, 10, tzinfo=UTC), end=dt.datetime(2026, 6, 11, tzinfo=UTC))
    cql = window_cql(
        window,
        timezone="America/Chicago",
        overlap=dt.timedelta(minutes=10),
        spaces=["ACME"],
        include_labels=["charter"],
        exclude_labels=["draft"],
    )
    assert cql == (
        'type in (page, blogpost) and space in ("ACME") and label in ("charter") and label not in ("draft") '
        'and lastmodified >= "2026-06-09 18:50" and lastmodified < "2026-06-10 19:10" '
        "order by lastmodified asc"
    )


def test_autumn_fold_moves_the_start_back_so_both_readings_are_covered():
    # 2026-11-01 06:30 UTC = 01:30 CDT; 01:30 also exists in CST (07:30 UTC): start must read as <= 06:30 either way
    start = wall_minute(dt.datetime(2026, 11, 1, 6, 30, tzinfo=UTC), "America/Chicago", at_or_before=True)
    assert start == "2026-11-01 00:59"
    end = wall_minute(dt.datetime(2026, 11, 1, 7, 30, tzinfo=UTC), "America/Chicago", at_or_before=False)
    assert end == "2026-11-01 02:00"


def test_spring_gap_is_never_a_wall_time_that_does_not_exist():
    end = wall_minute(dt.datetime(2026, 3, 8, 8, 15, tzinfo=UTC), "America/Chicago", at_or_before=False)
    assert end == "2026-03-08 03:15"
    start = wall_minute(dt.datetime(2026, 3, 8, 8, 15, tzinfo=UTC), "America/Chicago", at_or_before=True)
    assert start == "2026-03-08 03:15"  # a real instant never lands in the 02:xx gap
