"""What a write sends for a stored entity or fact (stored_rows.changed): only what differs from the stored properties,
read back as either backend returns them, and null for what the new row no longer has."""

import datetime as dt

from graph.write.stored_rows import changed, vector_action

WHEN = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)


def test_an_unchanged_row_sends_nothing_whatever_form_the_store_returns():
    # given a row and its stored form on FalkorDB (datetimes as ISO text) and as another timezone's equal moment
    row = {"uuid": "e1", "fact": "Dana works at Acme", "valid_at": WHEN, "invalid_at": None, "family_slots": ["a", "b"]}
    stored = {"uuid": "e1", "fact": "Dana works at Acme", "valid_at": WHEN.isoformat(), "family_slots": ["a", "b"]}
    stored_elsewhere = dict(stored, valid_at=WHEN.astimezone(dt.timezone(dt.timedelta(hours=2))))
    # when compared, then nothing is sent
    assert changed(row, stored) == {}
    assert changed(row, stored_elsewhere) == {}


def test_a_changed_row_sends_the_differences_and_removes_what_it_no_longer_has():
    # given a stored edge that ended, and the row that reopens it with an earlier start, without its old tombstone
    stored = {"valid_at": WHEN.isoformat(), "invalid_at": WHEN.isoformat(), "tombstoned_at": WHEN.isoformat(), "n": 1}
    earlier = WHEN - dt.timedelta(days=3)
    row = {"valid_at": earlier, "invalid_at": None, "n": 1.0, "note": "x"}
    # when compared
    out = changed(row, stored)
    # then the new start, the ends and the dropped property go out as values or null; an int stored for a float
    # is sent again rather than assumed equal
    assert out == {"valid_at": earlier, "invalid_at": None, "tombstoned_at": None, "n": 1.0, "note": "x"}


def test_a_stored_text_that_is_no_datetime_is_sent_again():
    assert changed({"at": WHEN}, {"at": "soon"}) == {"at": WHEN}


def test_labels_compare_as_a_set():
    labels = frozenset({"labels"})
    assert changed({"labels": ["Entity", "Person"]}, {"labels": ["Person", "Entity"]}, unordered=labels) == {}
    assert changed({"labels": ["Entity", "Person"]}, {"labels": ["Entity"]}, unordered=labels) == {
        "labels": ["Entity", "Person"]
    }


def test_a_vector_is_embedded_only_for_new_or_changed_text():
    stored = {"name": "Lee Park"}
    assert vector_action(None, "name", "Lee Park", wanted=True, has_vector=False) == "embed"
    assert vector_action(None, "name", "<id@x>", wanted=False, has_vector=False) == "drop"
    assert vector_action(stored, "name", "Lee Park", wanted=True, has_vector=True) == "keep"
    assert vector_action(stored, "name", "Lee Park", wanted=True, has_vector=False) == "embed"
    assert vector_action(stored, "name", "Lee P.", wanted=True, has_vector=True) == "embed"
    assert vector_action(stored, "name", "<id@x>", wanted=False, has_vector=True) == "drop"
    assert vector_action(stored, "name", "Lee Park", wanted=False, has_vector=True) == "keep"
