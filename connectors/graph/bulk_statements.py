"""How graphiti's bulk statements reach the database from a structured write (structured_writes.write_group): vectors
rendered once on FalkorDB, fewer round trips, and facts written without a vector (to_graphiti.VECTORLESS_RELATIONS)
left without one on both backends."""

from collections.abc import Sequence
from typing import Any


class _Vector:
    """An embedding on its way into a FalkorDB statement, already as the text falkordb-py would make of it.

    FalkorDB takes parameters inlined in the statement text; on the way three recursive walkers (graphiti's datetime
    conversion and NUL stripping, falkordb-py's stringify_param_value) each visit every float of every vector with a
    few isinstance checks: ~3 x 384 calls per vector, the largest CPU cost of a structured write (cProfile,
    docs/capacity.md). Not a list, so the first two pass it through; stringify falls back to str(), which returns the
    same text it would have built element by element."""

    __slots__ = ("text",)

    def __init__(self, values: Sequence[float]):
        self.text = "[" + ",".join(map(str, values)) + "]"

    def __str__(self) -> str:
        return self.text


def _vectors_as_text(value: Any) -> Any:
    """Rows of a bulk statement with every `*embedding` list replaced by its _Vector (nothing else touched)."""
    if isinstance(value, dict):
        return {
            k: _Vector(v) if isinstance(v, list) and k.endswith("embedding") else _vectors_as_text(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_vectors_as_text(v) for v in value]
    return value


class FalkorBulkTx:
    """What graphiti's bulk writer talks to on FalkorDB: its own statements, sent with fewer round trips and vectors
    rendered once (_Vector).

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
            query = [(cypher, _vectors_as_text(params)) for cypher, params in [*grouped.items(), *rest]]
        return await self.tx.run(query, **_vectors_as_text(kwargs))


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


class Neo4jBulkTx:
    """What graphiti's bulk writer talks to on Neo4j: its statements, the edge one setting only vectors there are."""

    def __init__(self, tx: Any):
        self.tx = tx

    async def run(self, query: Any, **kwargs: Any) -> Any:
        if isinstance(query, str) and "setRelationshipVectorProperty" in query:
            if NEO4J_SET_VECTOR not in query:
                raise RuntimeError("graphiti's Neo4j edge statement changed: cannot write facts without a vector")
            query = query.replace(NEO4J_SET_VECTOR, NEO4J_SET_VECTOR_IF_ANY)
        return await self.tx.run(query, **kwargs)
