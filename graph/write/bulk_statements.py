"""How graphiti's bulk statements reach the database from a structured write (structured_writes.write_group): the
parameters rendered in one pass on FalkorDB, fewer round trips, and facts written without a vector
(to_graphiti.VECTORLESS_RELATIONS) left without one on both backends."""

import datetime as dt
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np


@functools.lru_cache(maxsize=8)
def _vector_format(length: int) -> str:
    return "[" + ",".join(["%.9g"] * length) + "]"


def vector_text(values: Sequence[float]) -> str:
    """An embedding as FalkorDB statement text: each value rounded to float32 first (what `vecf32` stores) and written
    with 9 significant digits, which read back to that same float32 exactly; one C-level format call per vector
    instead of a Python repr per float (17 digits each: ~3x the time and ~1.5x the bytes for the server to parse)."""
    return _vector_format(len(values)) % tuple(np.asarray(values, dtype=np.float32).tolist())


def _render(value: Any, key: str = "") -> str:
    """The text the FalkorDB path makes of a parameter value — graphiti's datetime conversion (to UTC, ISO), its NUL
    stripping, then falkordb-py's stringify_param_value — in one walk instead of three; `*embedding` lists as
    vector_text."""
    if isinstance(value, str):
        value = value.replace("\x00", "")
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if value else '""'
    if value is None:
        return "null"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            name = k.decode() if isinstance(k, bytes) else str(k)
            if name == "" or "`" in name:
                raise ValueError(f"Cypher map key {name!r}: empty or with a backtick")
            parts.append(f"`{name}`:{_render(v, name)}")
        return "{" + ",".join(parts) + "}"
    if isinstance(value, list | tuple):
        if key.endswith("embedding") and isinstance(value, list) and value:
            return vector_text(value)
        return "[" + ",".join([_render(v) for v in value]) + "]"
    if isinstance(value, dt.datetime):
        utc = value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
        return _render(utc.isoformat())
    if isinstance(value, bytes):
        return _render(value.decode()) if value else '""'
    return str(value)


class _Rendered:
    """A parameter value already as its statement text (_render). Not a str, dict, list, tuple or datetime, so
    graphiti's two walkers pass it through untouched, and falkordb-py's stringify falls back to str(), which returns
    the text. Before this (issue 34, part 1) the three walkers visited every value of every row, and every float of
    every vector, each with a few isinstance checks: the largest CPU cost of the write path (docs/capacity.md)."""

    __slots__ = ("text",)

    def __init__(self, value: Any, key: str = ""):
        self.text = _render(value, key)

    def __str__(self) -> str:
        return self.text


def rendered(params: dict[str, Any]) -> dict[str, Any]:
    """A statement's parameters, each rendered once (_Rendered)."""
    return {k: _Rendered(v, k) for k, v in params.items()}


class FalkorBulkTx:
    """What graphiti's bulk writer talks to on FalkorDB: its own statements, sent with fewer round trips and the
    parameters rendered once (_Rendered).

    graphiti sends one `UNWIND $nodes` statement per entity node there (labels cannot be query parameters); rows whose
    statement text is identical (same labels) go out together: a round trip per label set instead of per node.
    """

    def __init__(self, tx: Any):
        self.tx = tx

    async def run(self, query: Any, **kwargs: Any) -> Any:
        if isinstance(query, list):
            grouped: dict[str, dict[str, Any]] = {}
            rest = []
            for cypher, params in query:
                if set(params) == {"nodes"}:
                    grouped.setdefault(str(cypher), {"nodes": []})["nodes"].extend(params["nodes"])
                else:
                    rest.append((cypher, params))
            query = [(cypher, rendered(params)) for cypher, params in [*grouped.items(), *rest]]
        return await self.tx.run(query, **rendered(kwargs))


class _NoVector:
    """The embedder graphiti's bulk writer gets: it embeds every edge whose vector is None, and the only ones left
    None are meant to stay so (VECTORLESS_RELATIONS); every other vector was computed above, in batches."""

    async def create(self, input_data: Any) -> None:
        return None


NO_VECTOR: Any = _NoVector()


# graphiti's Neo4j edge statement sets every vector through a procedure that fails on null: facts written without one
# (VECTORLESS_RELATIONS) skip that call; their rows are merged and SET before it, and nothing reads what it returns.
NEO4J_SET_VECTOR = 'WITH e, edge CALL db.create.setRelationshipVectorProperty(e, "fact_embedding", edge.fact_embedding)'
NEO4J_SET_VECTOR_IF_ANY = NEO4J_SET_VECTOR.replace(" CALL", " WHERE edge.fact_embedding IS NOT NULL CALL", 1)


# The same for entities written without a name vector (to_graphiti.wants_name_vector).
NEO4J_SET_NAME_VECTOR = 'WITH n, node CALL db.create.setNodeVectorProperty(n, "name_embedding", node.name_embedding)'
NEO4J_SET_NAME_VECTOR_IF_ANY = NEO4J_SET_NAME_VECTOR.replace(" CALL", " WHERE node.name_embedding IS NOT NULL CALL", 1)
_NEO4J_PATCHES = (
    ("setRelationshipVectorProperty", NEO4J_SET_VECTOR, NEO4J_SET_VECTOR_IF_ANY, "facts"),
    ("setNodeVectorProperty", NEO4J_SET_NAME_VECTOR, NEO4J_SET_NAME_VECTOR_IF_ANY, "entities"),
)


class Neo4jBulkTx:
    """What graphiti's bulk writer talks to on Neo4j: its statements, the edge and entity ones setting only vectors
    there are."""

    def __init__(self, tx: Any):
        self.tx = tx

    async def run(self, query: Any, **kwargs: Any) -> Any:
        for procedure, statement, patched, what in _NEO4J_PATCHES:
            if isinstance(query, str) and procedure in query:
                if statement not in query:
                    raise RuntimeError(f"graphiti's Neo4j statement changed: cannot write {what} without a vector")
                query = query.replace(statement, patched)
        return await self.tx.run(query, **kwargs)
