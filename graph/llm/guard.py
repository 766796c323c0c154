"""The grounding guard between the model and the graph: what graphiti extracted for one episode, checked against the
record before anything is saved.

It runs in HoldingGraphiti._process_episode_data, the one step of graphiti's add_episode between its extraction /
resolution and its save (graphiti is subclassed there, not patched): nothing graphiti does before that step writes.
What it drops is counted per reason (guard_reasons.REASONS) on the episode's Usage, so it reaches the run's metadata next to the
cost, the spend log and `graphfeed ledger`.
"""

import datetime as dt
import uuid as uuid_mod
from collections.abc import Iterable

from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from pydantic import BaseModel, Field

from transforms.grounding import is_grounded

DATE_FLOOR = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class Dropped(BaseModel):
    what: str  # entity | fact | valid_at | invalid_at
    value: str  # the name, the fact text, or the date as the model gave it
    reason: str  # a key of guard_reasons.REASONS


class GuardReport(BaseModel):
    """One add_episode's extraction as the guard saw it: what came in, what was kept, what was dropped and why."""

    entities_in: list[str] = Field(default_factory=list)
    facts_in: list[str] = Field(default_factory=list)
    entities_kept: list[str] = Field(default_factory=list)
    facts_kept: list[str] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.dropped:
            out[d.reason] = out.get(d.reason, 0) + 1
        return out


def written_by_system_of_record(edge: EntityEdge) -> bool:
    """Structured facts are keyed uuid5 (ground/fact_model.fact_uuid: same fact, same id); graphiti keys the
    facts a model extracts with uuid4. So the id says who wrote a fact, without a read."""
    try:
        return uuid_mod.UUID(edge.uuid).version == 5
    except ValueError:
        return False


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _check_dates(edge: EntityEdge, record_time: dt.datetime, floor: dt.datetime, report: GuardReport) -> None:
    """Clear, never guess: a date the record cannot know (after its own time) or that is absurdly early."""
    for field in ("valid_at", "invalid_at"):
        value = _utc(getattr(edge, field))
        if value is None:
            continue
        reason = None
        if value > record_time:
            reason = "date_after_record"
        elif value < floor:
            reason = "date_before_floor"
        if reason:
            setattr(edge, field, None)
            report.dropped.append(Dropped(what=field, value=value.isoformat(), reason=reason))
    valid, invalid = _utc(edge.valid_at), _utc(edge.invalid_at)
    if valid is not None and invalid is not None and invalid < valid:
        edge.invalid_at = None
        report.dropped.append(Dropped(what="invalid_at", value=invalid.isoformat(), reason="date_invalid_before_valid"))


def guard_extraction(
    *,
    episode_uuid: str,
    record_time: dt.datetime,
    folded_text: str,
    aliases: Iterable[str],
    nodes: list[EntityNode],
    edges: list[EntityEdge],
    floor: dt.datetime = DATE_FLOOR,
) -> tuple[list[EntityNode], list[EntityEdge], GuardReport]:
    """The nodes and edges graphiti may save for this episode, and the report. Edges are changed in place (dates)."""
    record_time = _utc(record_time) or record_time
    alias_set = set(aliases)
    report = GuardReport(entities_in=[n.name for n in nodes], facts_in=[e.fact for e in edges])
    kept_nodes = []
    for node in nodes:
        if is_grounded(node.name, folded_text, alias_set):
            kept_nodes.append(node)
        else:
            report.dropped.append(Dropped(what="entity", value=node.name, reason="entity_ungrounded"))
    grounded = {n.uuid for n in kept_nodes}
    kept_edges = []
    for edge in edges:
        supported = episode_uuid in (edge.episodes or [])
        if written_by_system_of_record(edge):
            reason = "structured_rewrite" if supported else "structured_invalidation"
            report.dropped.append(Dropped(what="fact", value=edge.fact, reason=reason))
            continue
        if supported:
            if edge.source_node_uuid not in grounded or edge.target_node_uuid not in grounded:
                report.dropped.append(Dropped(what="fact", value=edge.fact, reason="fact_ungrounded"))
                continue
            _check_dates(edge, record_time, floor, report)
        kept_edges.append(edge)
    report.entities_kept = [n.name for n in kept_nodes]
    report.facts_kept = [e.fact for e in kept_edges]
    return kept_nodes, kept_edges, report
