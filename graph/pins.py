"""Readers pinned to the writer: the meta node records what wrote the graph (the first write, then each later write's own
versions); every reader checks it before answering.

Another embedder or dimension refuses (its vectors would match nothing, silently). Another graphiti-core version or
another schema minor version warns once per process and group, naming both versions and the upgrade step in
docs/operations.md ("Upgrading graphiti-core or the graph schema"). Another schema major version refuses: the reader
would misread the graph's properties.
"""

import importlib.metadata
import logging

from pydantic import BaseModel

from graph.config import EmbedderMismatch
from graph.connection import META_LABEL, GraphReads

log = logging.getLogger(__name__)

# 1.0: embedder on the meta node. 1.1: edge revisions (known_at.py), versions on the meta node.
SCHEMA_VERSION = "1.1"
UPGRADE_DOC = "docs/operations.md, section 'Upgrading graphiti-core or the graph schema'"
_warned: set[tuple[str, str, str]] = set()


class SchemaMismatch(EmbedderMismatch):
    """The graph was written by a graphfeed whose graph schema this reader cannot read."""


class GraphStamp(BaseModel):
    embedder: str | None = None
    embedding_dim: int | None = None
    schema_version: str | None = None
    graphiti_version: str | None = None


def graphiti_version() -> str:
    """From the installed distribution's metadata: reading the stamp must not import graphiti_core."""
    try:
        return importlib.metadata.version("graphiti-core")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - graphiti-core is a dependency
        return "unknown"


async def read_stamp(backend: GraphReads, group_id: str) -> GraphStamp | None:
    rows = await backend.query(
        group_id,
        f"MATCH (m:{META_LABEL} {{group_id: $g}}) RETURN m.embedder AS embedder, m.embedding_dim AS dim, "
        "m.schema_version AS schema_version, m.graphiti_version AS graphiti_version",
        g=group_id,
    )
    if not rows:
        return None
    r = rows[0]
    return GraphStamp(
        embedder=r["embedder"],
        embedding_dim=int(r["dim"]) if r["dim"] is not None else None,
        schema_version=r["schema_version"],
        graphiti_version=r["graphiti_version"],
    )


def _major(version: str) -> str:
    return version.split(".", 1)[0]


def check_stamp(
    stamp: GraphStamp,
    group_id: str,
    *,
    embedder: str,
    dim: int,
    schema_version: str = SCHEMA_VERSION,
    graphiti: str | None = None,
) -> list[str]:
    """Raise on what cannot be read; return the warnings for what can (pure, so each rule is tested on its own)."""
    graphiti = graphiti or graphiti_version()
    if stamp.embedder != embedder or int(stamp.embedding_dim or 0) != int(dim):
        raise EmbedderMismatch(
            f"group {group_id!r} was written with embedder {stamp.embedder} ({stamp.embedding_dim}-d); this process "
            f"uses {embedder} ({dim}-d). Vectors of different models cannot be mixed: "
            "use the same embedder, or re-embed the graph into a new group."
        )
    warnings = []
    if stamp.schema_version is None:
        warnings.append(
            f"group {group_id!r} records no graph schema version (written before graphfeed recorded "
            f"it); this reader reads schema {schema_version}: the next nightly run stamps it. "
            f"See {UPGRADE_DOC}."
        )
    elif _major(stamp.schema_version) != _major(schema_version):
        raise SchemaMismatch(
            f"group {group_id!r} was written with graph schema {stamp.schema_version}; this graphfeed reads schema "
            f"{schema_version}. Run the graphfeed version that wrote it, or migrate the graph ({UPGRADE_DOC})."
        )
    elif stamp.schema_version != schema_version:
        warnings.append(
            f"group {group_id!r} was written with graph schema {stamp.schema_version}; this reader uses "
            f"{schema_version}. Answers may miss what the other version records; see {UPGRADE_DOC}."
        )
    if stamp.graphiti_version is not None and stamp.graphiti_version != graphiti:
        warnings.append(
            f"group {group_id!r} was written with graphiti-core {stamp.graphiti_version}; this reader "
            f"uses graphiti-core {graphiti}. Search may differ; see {UPGRADE_DOC}."
        )
    return warnings


async def check_pins(backend: GraphReads, group_id: str, *, embedder: str, dim: int) -> list[str]:
    """Refuse or warn (once per process for each group and message) before a reader answers from the group."""
    stamp = await read_stamp(backend, group_id)
    if stamp is None:
        return []
    warnings = check_stamp(stamp, group_id, embedder=embedder, dim=dim)
    for text in warnings:
        key = (backend.config.backend, group_id, text)
        if key not in _warned:
            _warned.add(key)
            log.warning(text)
    return warnings
