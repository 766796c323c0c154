"""Incremental state between nights: the checkpoint a source's finished API read carries to the next read.

Owned by flow (plain Python over the staging store), so the nightly asset, the CLI and tests keep it the same way
without Dagster. Only a *finished* read's checkpoint is kept (Jira: the keys of its last full listing, whose absence
from a later listing is a deletion); a half-done one never is, since a failed run's staged records were dropped.
Sources whose API read starts from its window every night keep nothing (the registry says which carry one).
"""

from typing import Any

from connectors.registry import carried_checkpoint
from flow.staging import Staging
from ground.contract import Checkpoint

CHECKPOINT_FILE = "api_checkpoint.json"


def checkpoint_path(staging: Staging, source: str) -> Any:
    """<staging root>/<source>/api_checkpoint.json (a UPath: the staging store may be remote)."""
    return staging.root / source / CHECKPOINT_FILE


def load_checkpoint(staging: Staging, source: str) -> Checkpoint | None:
    """The last finished API read's checkpoint of a source that keeps one, else None."""
    kind = carried_checkpoint(source)
    path = checkpoint_path(staging, source)
    if kind is None or not path.exists():
        return None
    return kind.model_validate_json(path.read_text())


def save_checkpoint(staging: Staging, source: str, checkpoint: Checkpoint | None) -> bool:
    """Keep a finished read's checkpoint (written to a temp file and renamed: a reader never sees half of it).
    Returns whether it was kept: unfinished reads and sources that carry nothing are not."""
    if carried_checkpoint(source) is None or checkpoint is None or checkpoint.has_more:
        return False
    path = checkpoint_path(staging, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(checkpoint.model_dump_json())
    tmp.replace(path)
    return True
