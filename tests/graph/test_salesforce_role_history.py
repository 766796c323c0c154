"""Given only the Salesforce export taken after the primary contact changed (no earlier snapshot), when it is written
to the graph, then search answers who the contact was before the change and who it is now, on every backend."""

import datetime as dt
from pathlib import Path

from graph.sync_facade import SyncGraphReader, SyncGraphWriter
from tests.salesforce.test_salesforce_graph import EXPORTS, episodes_of, extractor

UTC = dt.UTC
FLIP = dt.datetime(2026, 6, 8, 14, 10, tzinfo=UTC)
QUESTION = "Who is the primary contact of Acme Corp?"


def test_given_the_snapshot_after_the_flip_then_as_of_before_it_the_old_contact_answers(backend_config, group_id):
    later: Path = EXPORTS[-1]
    with SyncGraphWriter(backend_config(), extractor=extractor) as writer:
        reader = SyncGraphReader(writer)
        writer.write_batch(episodes_of(later, group_id))
        now = [h for h in reader.search(QUESTION, group_id=group_id, limit=10) if h.name == "HAS_CONTACT"]
        before = [
            h
            for h in reader.search(QUESTION, group_id=group_id, as_of=dt.datetime(2026, 5, 1, tzinfo=UTC), limit=10)
            if h.name == "HAS_CONTACT"
        ]
        edge = [
            h
            for h in reader.search(QUESTION, group_id=group_id, as_of=FLIP - dt.timedelta(seconds=1), limit=10)
            if h.name == "HAS_CONTACT"
        ]
    assert now[0].object == "Priya Raman" and now[0].valid_at == FLIP and now[0].invalid_at is None
    assert [h.object for h in before] == ["Dana Whitfield"]
    dana = before[0]
    assert (dana.valid_at, dana.invalid_at) == (dt.datetime(2026, 3, 2, 16, 5, tzinfo=UTC), FLIP)
    assert dana.episodes and dana.episodes[0].name.startswith("OpportunityContactRole:")
    assert dana.episodes[0].source == "salesforce"
    assert [h.object for h in edge] == ["Dana Whitfield"]  # the slot closes exactly at the flip
