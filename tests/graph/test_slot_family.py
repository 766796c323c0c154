"""A removed page-properties row ends its fact at the first later version that leaves it out (pure timeline)."""

import datetime as dt

from graph.timeline import SlotEdge, absence_end, recompute_slot

UTC = dt.UTC
T1, T2, T3 = (dt.datetime(2026, m, 1, tzinfo=UTC) for m in (3, 5, 7))
OWNER, STATUS = "page|PROPERTY:owner", "page|PROPERTY:status"


def test_given_statements_then_a_slot_ends_where_a_later_one_leaves_it_out():
    statements = [(T1, frozenset({OWNER, STATUS})), (T2, frozenset({OWNER})), (T3, frozenset({OWNER, STATUS}))]
    assert absence_end(STATUS, T1, statements) == T2  # removed in the second version
    assert absence_end(STATUS, T3, statements) is None  # added back: the new fact holds
    assert absence_end(OWNER, T1, statements) is None
    assert absence_end(STATUS, None, statements) is None


def test_given_a_removed_row_then_its_fact_ends_and_expires_once():
    now = dt.datetime(2026, 8, 1, tzinfo=UTC)
    edge = SlotEdge(uuid="a", object="draft", valid_at=T1, removed_at=T2)
    times = recompute_slot([edge], now)["a"]
    assert (times.invalid_at, times.expired_at) == (T2, now)
    again = recompute_slot([edge.model_copy(update={"invalid_at": T2, "expired_at": now})], now + dt.timedelta(1))
    assert again["a"].expired_at == now  # a rerun keeps the original transaction time
