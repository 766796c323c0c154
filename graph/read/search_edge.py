"""A fact as search reads it: the candidate lists carry what ranking reads, the final hits the whole row."""

import dataclasses
from typing import Any


@dataclasses.dataclass
class Edge:
    """A RELATES_TO edge as search reads it (no embedding) with its endpoint names."""

    uuid: str
    fact: str
    name: str
    source_node_uuid: str | None = None
    target_node_uuid: str | None = None
    subject: str | None = None
    object: str | None = None
    valid_at: Any = None
    invalid_at: Any = None
    created_at: Any = None
    expired_at: Any = None
    episodes: list[str] = dataclasses.field(default_factory=list)
    source_invalid_at: Any = None
    revisions: Any = None  # every (invalid_at, expired_at) state the edge had (known_at.py)
    held: bool | None = None  # holds at the search's date (as of, else now): computed in the query

    @property
    def attributes(self) -> dict[str, Any]:
        """The extra properties graphfeed sets on a fact, as graphiti's EntityEdge.attributes holds them."""
        return {"source_invalid_at": self.source_invalid_at, "revisions": self.revisions}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Edge":
        edge = cls(**{k: v for k, v in row.items() if k in _FIELDS})
        edge.episodes = list(edge.episodes or [])
        return edge


_FIELDS = frozenset(f.name for f in dataclasses.fields(Edge))  # once: every candidate row of every search is built here
