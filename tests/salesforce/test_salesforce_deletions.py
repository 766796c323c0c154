"""Salesforce `IsDeleted` rows arrive as `Deletion` items, like every other source's deletions, and the staging step
turns them into the same tombstones it wrote when they were records flagged deleted."""

import datetime as dt

from connectors.salesforce import SalesforceExportReader
from flow.stage import stage_raw_records
from flow.staging import RAW, TOMBSTONES, Staging
from ground.records import Deletion, RecordFailure, SourceRecord

UTC = dt.UTC
OPPORTUNITIES = (
    "Id,Name,StageName,IsDeleted,SystemModstamp\n"
    "0068d00000NwAaaAAF,Live deal,Prospecting,false,2026-04-01T10:00:00.000Z\n"
    "0068d00000NwBbbAAF,Binned deal,Prospecting,true,2026-04-02T11:30:00.000Z\n"
)


def test_given_a_deleted_row_when_read_then_it_is_a_deletion_not_a_record(tmp_path):
    # given an Opportunity export with one live and one deleted row
    path = tmp_path / "Opportunity.csv"
    path.write_text(OPPORTUNITIES)
    # when read
    items = list(SalesforceExportReader([path]).read(None))
    # then the live row is a record and the deleted one a Deletion keyed, typed and timed like the record was
    assert [i.source_key for i in items if isinstance(i, SourceRecord)] == ["Opportunity:0068d00000NwAaaAAF"]
    assert not [i for i in items if isinstance(i, RecordFailure)]
    assert [i for i in items if isinstance(i, Deletion)] == [
        Deletion(
            source="salesforce",
            source_key="Opportunity:0068d00000NwBbbAAF",
            kind="opportunity",
            reason="deleted",
            detected_at=dt.datetime(2026, 4, 2, 11, 30, tzinfo=UTC),
        )
    ]


def test_given_a_deleted_row_when_staged_then_it_is_a_tombstone_at_its_modstamp(tmp_path):
    # given the same export
    path = tmp_path / "Opportunity.csv"
    path.write_text(OPPORTUNITIES)
    staging = Staging(str(tmp_path / "staging"))
    # when the raw-records step stages it
    stats = stage_raw_records(
        SalesforceExportReader([path]), staging, "salesforce", ["2026-04-02"], overlap=dt.timedelta(days=2)
    )
    # then the deleted row is one tombstone at its SystemModstamp (as before), never a staged record
    raw = list(staging.rows("salesforce", RAW, "2026-04-02"))
    tombstones = list(staging.rows("salesforce", TOMBSTONES, "2026-04-02"))
    assert [row["source_key"] for row in raw] == ["Opportunity:0068d00000NwAaaAAF"]
    assert stats.tombstones == 1 and stats.records_read == 1
    assert [(t["source_key"], dt.datetime.fromisoformat(t["at"]), t["reason"]) for t in tombstones] == [
        ("Opportunity:0068d00000NwBbbAAF", dt.datetime(2026, 4, 2, 11, 30, tzinfo=UTC), "deleted")
    ]
