"""Raw-record staging, what a <source>/raw_records asset does, as a plain function (testable without Dagster).

raw records: read the export once for the whole partition range (a backfill reads the files once, not once per day)
and route each record to the day partitions whose window holds its updated_at (a window reaches `overlap` back into
the previous day; the ledger's fingerprint dedup absorbs the repeat). Failures are staged with the range's last
partition, the night being processed.

The failure rate is failures / everything the run read. An export file is read whole (a broken message often has no
date to place it in a day), so the rate describes the export's health, not one day's share of it.
"""

import datetime as dt
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from flow.staging import FAILURES, RAW, READ_STATS, TOMBSTONES, StagedFile, Staging
from ground.contract import Checkpoint, Reader, TimeWindow
from ground.records import Deletion, RecordFailure


def day_window(partition_key: str) -> tuple[dt.datetime, dt.datetime]:
    """A daily partition's UTC day: [midnight, next midnight)."""
    start = dt.datetime.fromisoformat(partition_key).replace(tzinfo=dt.UTC)
    return start, start + dt.timedelta(days=1)


class Tombstone(BaseModel):
    """A record deleted upstream: its episodes are marked in the ledger and their facts closed; nothing is deleted."""

    source_key: str
    at: dt.datetime
    reason: str


class RawStats(BaseModel):
    records: int = 0  # record placements (a record in two overlapping partitions counts twice)
    distinct_records: int = 0  # records placed in at least one partition of the range
    records_read: int = 0  # every good record the reader produced, inside the range or not
    failures: int = 0
    failures_by_class: dict[str, int] = Field(default_factory=dict)
    per_partition: dict[str, int] = Field(default_factory=dict)
    reader_counts: dict[str, int] = Field(default_factory=dict)  # what a reader counts besides records (skips...)
    tombstones: int = 0
    checkpoint: Checkpoint | None = None  # what the reader returned when it finished

    @property
    def failure_rate(self) -> float:
        total = self.records_read + self.failures
        return self.failures / total if total else 0.0


def stage_raw_records(
    reader: Reader[Checkpoint],
    staging: Staging,
    source: str,
    partition_keys: Sequence[str],
    overlap: dt.timedelta,
    whole_export: bool = True,
    checkpoint: Checkpoint | None = None,
) -> RawStats:
    """`checkpoint`: a *finished* earlier read's checkpoint, for what it carries across windows (the keys of the last
    full listing, which reveal deletions); never a half-done one, since a failed run's staged records were dropped."""
    windows = {key: day_window(key) for key in partition_keys}
    read_window = TimeWindow(
        start=min(s for s, _ in windows.values()) - overlap, end=max(e for _, e in windows.values())
    )
    writers: dict[str, StagedFile] = {key: staging.writer(source, RAW, key) for key in partition_keys}
    failures = staging.writer(source, FAILURES, partition_keys[-1])
    tombstones = staging.writer(source, TOMBSTONES, partition_keys[-1])
    stats = RawStats()
    classes: Counter[str] = Counter()
    try:
        items = reader.read(None if whole_export else read_window, checkpoint)
        while True:
            try:
                item = next(items)
            except StopIteration as done:  # a reader returns its checkpoint
                stats.checkpoint = done.value
                break
            if isinstance(item, Deletion):  # a deletion the read detected, an item of its stream
                at = item.detected_at or read_window.end
                tombstones.write(Tombstone(source_key=item.source_key, at=at, reason=item.reason))
                continue
            if isinstance(item, RecordFailure):
                failures.write(item)
                classes[item.error_class.value] += 1
                continue
            stats.records_read += 1
            placed = False
            for key, (start, end) in windows.items():
                if start - overlap <= item.updated_at < end:
                    writers[key].write(item)
                    placed = True
            stats.distinct_records += placed
    except BaseException:
        for w in (*writers.values(), failures, tombstones):
            w.abort()
        raise
    for key, writer in writers.items():
        writer.commit()
        stats.per_partition[key] = writer.rows
    failures.commit()
    tombstones.commit()
    stats.tombstones = tombstones.rows
    stats.records = sum(stats.per_partition.values())
    stats.failures = failures.rows
    stats.failures_by_class = dict(classes)
    reader_stats = getattr(reader, "stats", None)
    if isinstance(reader_stats, BaseModel):
        stats.reader_counts = {k: v for k, v in reader_stats.model_dump().items() if isinstance(v, int)}
    staging.write_all(source, READ_STATS, partition_keys[-1], [stats.model_dump(include={"records_read", "failures"})])
    return stats
