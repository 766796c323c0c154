"""What a structured write sends for an entity or fact the graph already holds (issue 34, part 4): only the
properties that changed, the batch's new episode ids (appended on the server, each once) and a vector only when its
text changed or the stored one is missing.

graphiti's bulk statements replace every property (`SET r = edge`): a fact repeated by many mails (a person's
WORKS_AT) had its whole `episodes` list read back and sent again in every batch, and every known person and fact its
vector, so the bytes and the server's work per mail grew with the graph (docs/capacity.md, part 4). New entities and
facts still go through graphiti's statements; stored ones through the statements here, which leave the graph holding
what graphiti's would (the same properties and values; the episode ids in arrival order instead of sorted).
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode

from graph.backend import as_datetime

# Never read back nor diffed: the id list grows with the graph (appended instead), vectors are large (kept).
EDGE_KEPT = ("episodes", "fact_embedding")
NODE_KEPT = ("name_embedding",)

# Every stored property but the kept ones, as [key, value] pairs (a map would need APOC on Neo4j).
STORED_EDGES = (
    "MATCH ()-[e:RELATES_TO]->() WHERE e.uuid IN $uuids "
    "RETURN e.uuid AS uuid, [k IN keys(e) WHERE NOT k IN $kept | [k, e[k]]] AS props, "
    "e.fact_embedding IS NOT NULL AS has_vector"
)
STORED_ENTITIES = (
    "MATCH (n:Entity) WHERE n.uuid IN $uuids "
    "RETURN n.uuid AS uuid, labels(n) AS labels, [k IN keys(n) WHERE NOT k IN $kept | [k, n[k]]] AS props, "
    "n.name_embedding IS NOT NULL AS has_vector"
)

PATCH_EDGES = """
UNWIND $rows AS row
MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->()
SET e += row.props
SET e.episodes = coalesce(e.episodes, []) + [x IN row.episodes WHERE NOT x IN coalesce(e.episodes, [])]
"""
PATCH_ENTITIES = """
UNWIND $rows AS row
MATCH (n:Entity {uuid: row.uuid})
SET n += row.props
"""
# A changed text's vector: FalkorDB stores it as vecf32, Neo4j through its procedure (as graphiti's statements do).
# On FalkorDB (4.x, with the vector index on the property) a SET of a vecf32 over a stored vecf32 is a silent no-op
# (no property set, the old vector stays): the REMOVE first makes it a new property, and the index takes the new one.
SET_FACT_VECTORS = {
    "falkordb": "UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
    "REMOVE e.fact_embedding SET e.fact_embedding = vecf32(row.fact_embedding)",
    "neo4j": "UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
    'CALL db.create.setRelationshipVectorProperty(e, "fact_embedding", row.fact_embedding)',
}
SET_NAME_VECTORS = {
    "falkordb": "UNWIND $rows AS row MATCH (n:Entity {uuid: row.uuid}) "
    "REMOVE n.name_embedding SET n.name_embedding = vecf32(row.name_embedding)",
    "neo4j": "UNWIND $rows AS row MATCH (n:Entity {uuid: row.uuid}) "
    'CALL db.create.setNodeVectorProperty(n, "name_embedding", row.name_embedding)',
}


def stored_props(row: Mapping[str, Any]) -> dict[str, Any]:
    """A STORED_EDGES / STORED_ENTITIES row's properties as a dict."""
    return {str(k): v for k, v in row["props"] or []}


def edge_row(edge: EntityEdge) -> dict[str, Any]:
    """The properties graphiti's bulk writer stores for an edge (graphiti_core.utils.bulk_utils
    .add_nodes_and_edges_bulk_tx: its fields, then attributes that do not shadow one), vector and episodes aside."""
    row: dict[str, Any] = {
        "uuid": edge.uuid,
        "source_node_uuid": edge.source_node_uuid,
        "target_node_uuid": edge.target_node_uuid,
        "name": edge.name,
        "fact": edge.fact,
        "group_id": edge.group_id,
        "created_at": edge.created_at,
        "expired_at": edge.expired_at,
        "valid_at": edge.valid_at,
        "invalid_at": edge.invalid_at,
        "reference_time": edge.reference_time,
    }
    for k, v in (edge.attributes or {}).items():
        if k not in row and k not in EDGE_KEPT:
            row[k] = v
    return row


def node_row(node: EntityNode, *, labels_as_property: bool) -> dict[str, Any]:
    """The properties graphiti's bulk writer stores for an entity, vector aside; on Neo4j its `SET n = node` also
    stores the label list as a property (FalkorDB's statement drops it)."""
    row: dict[str, Any] = {
        "uuid": node.uuid,
        "name": node.name,
        "group_id": node.group_id,
        "summary": node.summary,
        "created_at": node.created_at,
    }
    if labels_as_property:
        row["labels"] = list(set(node.labels + ["Entity"]))
    for k, v in (node.attributes or {}).items():
        if k not in row and k not in NODE_KEPT:
            row[k] = v
    return row


def _same(stored: Any, new: Any) -> bool:
    """Whether a stored value is the one the write would store; when unsure, not (the property is sent again)."""
    if isinstance(new, dt.datetime):
        try:
            return stored is not None and as_datetime(stored) == as_datetime(new)
        except (TypeError, ValueError):  # a stored text that is no datetime
            return False
    if isinstance(new, tuple):
        new = list(new)
    return type(new) is type(stored) and bool(new == stored)


def changed(
    row: Mapping[str, Any], stored: Mapping[str, Any], *, unordered: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The properties to SET so that the stored ones become `row` (what `SET x = row` would leave): the differing
    values, and null for each stored property the row no longer has (null removes it). `unordered`: list properties
    compared as sets (Neo4j's label list: graphiti builds it from a set)."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if k == "uuid":
            continue
        old = stored.get(k)
        if k in unordered and isinstance(v, list) and isinstance(old, list):
            if sorted(v) != sorted(old):
                out[k] = v
        elif v is None:
            if old is not None:
                out[k] = None
        elif not _same(old, v):
            out[k] = v
    for k in stored:
        if k not in row:
            out[k] = None
    return out


def vector_action(stored: Mapping[str, Any] | None, key: str, text: str, wanted: bool, has_vector: bool) -> str:
    """What the write does with the vector of an entity name / fact text (key: "name" / "fact"): "embed" (and send),
    "keep" the stored one, or "drop" it. Written whole (stored None: new, or through graphiti's statement) it gets one
    if wanted; a stored one keeps its vector unless its text changed (re-embedded, or dropped when no longer wanted:
    what the whole rewrite did) or it lacks a wanted one."""
    if stored is None:
        return "embed" if wanted else "drop"
    if stored.get(key) != text:
        return "embed" if wanted else ("drop" if has_vector else "keep")
    return "embed" if wanted and not has_vector else "keep"


def entity_patches(
    nodes: list[EntityNode], actions: list[str], stored: Mapping[str, Mapping[str, Any]], *, neo4j: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of PATCH_ENTITIES and SET_NAME_VECTORS for stored entities (those in `stored`)."""
    patches, vectors = [], []
    for node, action in zip(nodes, actions):
        if node.uuid not in stored:
            continue
        props = changed(node_row(node, labels_as_property=neo4j), stored[node.uuid], unordered=frozenset({"labels"}))
        if action == "drop":
            props["name_embedding"] = None
        if props:
            patches.append({"uuid": node.uuid, "props": props})
        if action == "embed":
            vectors.append({"uuid": node.uuid, "name_embedding": node.name_embedding})
    return patches, vectors


def edge_patches(
    edges: list[EntityEdge], actions: list[str], stored: Mapping[str, Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of PATCH_EDGES (changed properties, the batch's episode ids) and SET_FACT_VECTORS for stored facts."""
    patches, vectors = [], []
    for edge, action in zip(edges, actions):
        if edge.uuid not in stored:
            continue
        props = changed(edge_row(edge), stored[edge.uuid])
        if action == "drop":
            props["fact_embedding"] = None
        patches.append({"uuid": edge.uuid, "props": props, "episodes": list(edge.episodes)})
        if action == "embed":
            vectors.append({"uuid": edge.uuid, "fact_embedding": edge.fact_embedding})
    return patches, vectors
