"""JSON Lines staging between assets: one file per source, stage and partition, written atomically and streamed.

Paths are UPath so the same code writes to object storage later (s3://, gs://) when GRAPHFEED_STAGING points there.
"""

import contextlib
import json
import tempfile
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from upath import UPath

if TYPE_CHECKING:
    from ground.episode import Episode
    from transforms.dedup import DedupStats

# The stages a source's staging holds (<root>/<source>/<stage>/<partition>.jsonl)
RAW = "raw_records"
FAILURES = "failures"
READ_STATS = "read_stats"
TOMBSTONES = "tombstones"
EPISODES = "episodes"
EPISODE_FAILURES = "episode_failures"


class StagedFile:
    """Streamed writer: rows go to <path>.tmp and are renamed into place on commit, so readers never see half a file."""

    def __init__(self, path: UPath):
        self.path = path
        self._tmp = path.with_name(path.name + ".tmp")
        self._tmp.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self._tmp.open("w", encoding="utf-8")
        self.rows = 0

    def write(self, row: BaseModel | dict[str, Any]) -> None:
        line = row.model_dump_json() if isinstance(row, BaseModel) else json.dumps(row, ensure_ascii=False, default=str)
        self._fh.write(line + "\n")
        self.rows += 1

    def commit(self) -> None:
        self._fh.close()
        self._tmp.replace(self.path) if hasattr(self._tmp, "replace") else self._tmp.rename(self.path)

    def abort(self) -> None:
        self._fh.close()
        if self._tmp.exists():
            self._tmp.unlink()


class Staging:
    def __init__(self, root: str):
        self.root = UPath(root)

    def path(self, source: str, stage: str, partition: str) -> UPath:
        return self.root / source / stage / f"{partition}.jsonl"

    def writer(self, source: str, stage: str, partition: str) -> StagedFile:
        return StagedFile(self.path(source, stage, partition))

    def exists(self, source: str, stage: str, partition: str) -> bool:
        return self.path(source, stage, partition).exists()

    def rows(self, source: str, stage: str, partition: str) -> Iterator[dict[str, Any]]:
        """Stream rows; a missing upstream partition is an error that says what to materialise first."""
        path = self.path(source, stage, partition)
        if not path.exists():
            raise FileNotFoundError(
                f"no staged {source}/{stage} for partition {partition} at {path}; materialise {source}/{stage} first"
            )
        with path.open("r", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)

    def write_all(self, source: str, stage: str, partition: str, rows: Iterable[BaseModel | dict[str, Any]]) -> int:
        out = self.writer(source, stage, partition)
        try:
            for row in rows:
                out.write(row)
        except BaseException:
            out.abort()
            raise
        out.commit()
        return out.rows


@contextlib.contextmanager
def spooled_dedup(episodes: Iterable["Episode"]) -> Iterator[tuple[Iterator["Episode"], "DedupStats"]]:
    """Fingerprint dedup needs two passes over the episodes; building them (intent, NER) is the costly part, so they
    are built once and spooled to a temporary file that both passes read. Memory stays flat whatever the volume."""
    from ground.episode import Episode
    from transforms.dedup import dedup

    with tempfile.NamedTemporaryFile("w+", suffix=".jsonl", encoding="utf-8") as spool:
        for episode in episodes:
            spool.write(episode.model_dump_json() + "\n")
        spool.flush()

        def stream() -> Iterator[Episode]:
            with open(spool.name, encoding="utf-8") as fh:
                for line in fh:
                    yield Episode.model_validate_json(line)

        yield dedup(stream)
