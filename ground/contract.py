"""The connector contract (after Onyx's CheckpointedConnector).

A reader is a generator: it yields SourceRecord, RecordFailure and Deletion values (a deletion it detected is an
item of the stream like any record) and *returns* a typed checkpoint,
so `checkpoint = yield from reader.read(window, checkpoint)` resumes where an interrupted pull stopped.
"""

import datetime as dt
from collections.abc import Generator, Iterable
from typing import Protocol, TypeVar

from pydantic import BaseModel, Field

from ground.records import Deletion, RecordFailure, SourceRecord

Item = SourceRecord | RecordFailure | Deletion


class TimeWindow(BaseModel):
    """[start, end) in UTC. Readers keep records whose updated_at falls inside."""

    start: dt.datetime
    end: dt.datetime

    def contains(self, moment: dt.datetime) -> bool:
        return self.start <= moment < self.end

    def widened(self, overlap: dt.timedelta) -> "TimeWindow":
        return TimeWindow(start=self.start - overlap, end=self.end + overlap)


class Checkpoint(BaseModel):
    """Base checkpoint: has_more is False once a read finished. Sources subclass it with their cursors."""

    has_more: bool = True


class FileCheckpoint(Checkpoint):
    """Export readers: which files are done, so a resumed read skips them."""

    files_done: list[str] = Field(default_factory=list)


CT = TypeVar("CT", bound=Checkpoint)


class Reader(Protocol[CT]):
    source: str

    def read(self, window: TimeWindow | None, checkpoint: CT | None = None) -> Generator[Item, None, CT]: ...


def split(items: Iterable[Item]) -> tuple[list[SourceRecord], list[RecordFailure]]:
    """Records and failures of a stream (Deletion items are left out: flow/stage.py stages them as tombstones)."""
    records: list[SourceRecord] = []
    failures: list[RecordFailure] = []
    for item in items:
        if isinstance(item, RecordFailure):
            failures.append(item)
        elif isinstance(item, SourceRecord):
            records.append(item)
    return records, failures
