"""Given an ingested email, when a later read reports it deleted upstream, then the ledger marks its episode
tombstoned and the facts only it supported get invalid_at = the deletion time; nothing is deleted from the graph."""

import datetime as dt

import dagster as dg
import pytest

from assets.source_chain import build_source_chain
from flow.ingest import IngestLimits, ingest
from flow.stage import Tombstone
from flow.staging import TOMBSTONES, Staging

DAY, LATER = "2026-03-04", "2026-03-05"
DELETED_AT = dt.datetime(2026, 3, 5, 12, 0, tzinfo=dt.UTC)


@pytest.mark.slow
def test_a_record_deleted_upstream_closes_its_facts(resources, home):
    assert dg.materialize(build_source_chain("email"), resources=resources, partition_key=DAY).success
    staging = Staging(str(home / "staging"))
    (episode,) = [row for row in staging.rows("email", "episodes", DAY)]
    staging.write_all(
        "email",
        TOMBSTONES,
        LATER,
        [Tombstone(source_key=episode["metadata"]["source_key"], at=DELETED_AT, reason="deleted")],
    )
    staging.write_all("email", "episodes", LATER, [])

    with resources["ledger"].open(home) as book, resources["graph"].writer(home) as writer:
        stats = ingest(book, writer, staging, "email", [LATER], IngestLimits(), run_id="tombstones")
        row = book.get(episode["id"])
        facts = writer._run(
            writer.writer.backend.query(
                "graphfeed",
                "MATCH ()-[e:RELATES_TO]->() WHERE $id IN e.episodes "
                "RETURN e.invalid_at AS invalid_at, e.expired_at AS expired_at",
                id=episode["id"],
            )
        )
        episodic = writer._run(
            writer.writer.backend.query(
                "graphfeed", "MATCH (n:Episodic {uuid: $id}) RETURN count(n) AS n", id=episode["id"]
            )
        )
    assert stats.tombstoned == 1 and stats.facts_invalidated > 0
    assert row.status.value == "tombstoned"
    assert facts and all(f["invalid_at"] and f["expired_at"] for f in facts)
    assert all(str(f["invalid_at"]).startswith("2026-03-05T12:00") for f in facts)
    assert episodic[0]["n"] == 1  # the episode itself stays in the graph
