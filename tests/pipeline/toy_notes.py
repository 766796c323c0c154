"""A toy source defined only here, in tests: a folder of plain-text notes, one record per `*.txt` file. It is what the
"adding a source is one folder and one registry line" claim is tested with (test_toy_source.py): no production file
knows it.

A note reads:  From: <address>\\nDate: <ISO time>\\n\\n<title line>\\n<body>
"""

import datetime as dt
from collections.abc import Generator, Sequence
from pathlib import Path

from pydantic_settings import SettingsConfigDict

from connectors.source_spec import SourceSettings, SourceSpec, no_api
from ground.contract import Checkpoint, TimeWindow
from ground.records import Actor, ErrorClass, Origin, RecordFailure, SourceRecord
from ground.source_traits import SourceTraits
from transforms.fact_extractors import SourceFacts

TRAITS = SourceTraits(name="notes")  # plain prose, nothing special


class NotesSettings(SourceSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHFEED_NOTES_")

    max_notes: int = 1000


class NotesReader:
    def __init__(self, paths: Sequence[str | Path], max_notes: int) -> None:
        self.paths = [Path(p) for p in paths]
        self.max_notes = max_notes

    def read(
        self, window: TimeWindow | None = None, checkpoint: Checkpoint | None = None
    ) -> Generator[SourceRecord | RecordFailure, None, Checkpoint]:
        files = sorted(f for p in self.paths for f in (p.glob("*.txt") if p.is_dir() else [p]))
        for path in files[: self.max_notes]:
            head, _, text = path.read_text().partition("\n\n")
            headers = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
            if "From" not in headers or "Date" not in headers:
                yield RecordFailure.at("notes", Origin(file=str(path)), ErrorClass.missing_field, "no From/Date")
                continue
            when = dt.datetime.fromisoformat(headers["Date"])
            title, _, body = text.partition("\n")
            yield SourceRecord(
                source="notes",
                kind="note",
                source_key=path.stem,
                title=title,
                body=body,
                actor=Actor(id=headers["From"], email=headers["From"]),
                occurred_at=when,
                updated_at=when,
                origin=Origin(file=str(path)),
            )
        return Checkpoint(has_more=False)


SPEC = SourceSpec(
    name="notes",
    traits=TRAITS,
    settings=NotesSettings,
    export_reader=lambda paths, s: NotesReader(paths, s.max_notes),
    api_reader=no_api,
    facts=lambda: SourceFacts(traits=TRAITS),
)
