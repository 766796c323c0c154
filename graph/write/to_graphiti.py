"""Episode/FactSet -> graphiti-core's own models (EpisodicNode, EntityNode, EntityEdge, EpisodicEdge).

Pure mapping: the writer decides times and merges with what is stored, this module only shapes the objects so that any
Graphiti reader (its search, its MCP server) reads exactly what we write.
"""

import datetime as dt
import uuid
from typing import Any

from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from ground.episode import Episode
from transforms.facts import FACT_NAMESPACE, EntitySpec, FactSpec

# Sources whose content is a conversation turn; everything else is prose.
MESSAGE_SOURCES = frozenset({"email", "chat", "slack", "teams"})

# Relations written without a `fact_embedding` (issue 34): message-envelope facts, whose text is a template over the
# sender, the recipients, the subject and the date. Every word of it is in the full-text index and on the endpoints
# (people by name, the message named by its subject, each with a name vector), so the full-text step and the graph
# step find them; the scenario answers are the same without a vector of their own (docs/capacity.md, issue 34)
# and made 78 % of the texts a mail run embeds. The read side scores a fact without a vector by its endpoints' name
# vectors (search_steps.around) and the vector steps skip it; a graph written before keeps its vectors and reads
# the same, whether a later rewrite of a fact drops its old vector or not (no migration).
VECTORLESS_RELATIONS = frozenset({"SENT", "SENT_TO", "CC", "BCC", "REPLIED_TO", "MENTIONS_MESSAGE"})


def wants_vector(fact: FactSpec) -> bool:
    """Whether the fact gets a `fact_embedding` (see VECTORLESS_RELATIONS)."""
    return fact.predicate not in VECTORLESS_RELATIONS


def wants_name_vector(spec: EntitySpec, name: str) -> bool:
    """Whether the entity gets a `name_embedding`: not a message known only by its message id (a reply to a mail
    outside the export). The id is machine-made ("<CAF3x9@mail.example>"): its vector places it near nothing a question
    says, and full-text finds it by the id. Issue keys and other references keep theirs: people write those. Once the
    message itself arrives, its subject becomes the name (fact_model.name_rank) and the rewrite embeds that."""
    reference = str(spec.attributes.get("reference") or "")
    return not (spec.label == "Message" and reference.partition(":")[2] == name)


def episode_type(episode: Episode) -> EpisodeType:
    return EpisodeType.message if episode.source in MESSAGE_SOURCES else EpisodeType.text


def source_description(episode: Episode) -> str:
    """'email/email intent=decision': readable by Graphiti readers, which show source_description as provenance."""
    return f"{episode.source}/{episode.metadata.kind} intent={episode.intent}"


def episodic_node(episode: Episode, *, created_at: dt.datetime, entity_edges: list[str]) -> EpisodicNode:
    return EpisodicNode(
        uuid=episode.id,
        name=episode.metadata.source_key,
        group_id=episode.group_id,
        source=episode_type(episode),
        source_description=source_description(episode),
        content=episode.content,
        valid_at=episode.timestamp,
        created_at=created_at,
        entity_edges=entity_edges,
    )


def episode_properties(episode: Episode) -> dict[str, Any]:
    """Extra Episodic properties set after the bulk write (graphiti's bulk query stores a fixed property set).

    Graphiti's own `source` property holds the EpisodeType (message/text) and its readers parse it, so the source
    system goes into `source_system`.
    """
    return {
        "uuid": episode.id,
        "intent": episode.intent,
        "intent_confidence": float(episode.intent_confidence),
        "references": list(episode.references),
        "source_system": episode.source,
        "kind": episode.metadata.kind,
        "fingerprint": episode.fingerprint,
        "title": episode.metadata.title,
        "actor_id": episode.actor.id,
        "actor_name": episode.actor.name,
        "actor_email": (episode.actor.email or "").lower() or None,
        "thread_key": episode.metadata.thread_key,
        "url": episode.metadata.url,
    }


def entity_node(
    spec: EntitySpec, group_id: str, *, name: str, created_at: dt.datetime, embedding: list[float] | None
) -> EntityNode:
    return EntityNode(
        uuid=spec.uuid,
        name=name,
        group_id=group_id,
        labels=[spec.label],
        summary=spec.summary,
        attributes=dict(spec.attributes),
        created_at=created_at,
        name_embedding=embedding,
    )


def entity_edge(
    fact: FactSpec,
    group_id: str,
    *,
    episodes: list[str],
    valid_at: dt.datetime | None,
    invalid_at: dt.datetime | None,
    expired_at: dt.datetime | None,
    created_at: dt.datetime,
    embedding: list[float] | None,
    revisions: list[str] | None = None,
    tombstoned_at: dt.datetime | None = None,
) -> EntityEdge:
    """revisions: every (invalid_at, expired_at) state the edge had, in transaction order (known_at.py)."""
    attributes: dict[str, Any] = dict(fact.attributes)
    if revisions:
        attributes["revisions"] = list(revisions)
    if tombstoned_at is not None:  # graphiti's bulk save replaces all properties: carry ours through
        attributes["tombstoned_at"] = tombstoned_at
    if fact.single_valued:
        attributes["slot"] = fact.single_valued
    if fact.invalid_at is not None:
        attributes["source_invalid_at"] = fact.invalid_at
    return EntityEdge(
        uuid=fact.uuid,
        group_id=group_id,
        source_node_uuid=fact.subject,
        target_node_uuid=fact.object,
        name=fact.predicate,
        fact=fact.fact,
        episodes=episodes,
        created_at=created_at,
        valid_at=valid_at,
        invalid_at=invalid_at,
        expired_at=expired_at,
        reference_time=valid_at,
        fact_embedding=embedding,
        attributes=attributes,
    )


def mention_edge(episode_uuid: str, entity_uuid: str, group_id: str, created_at: dt.datetime) -> EpisodicEdge:
    edge_id = str(uuid.uuid5(FACT_NAMESPACE, f"MENTIONS\x1f{episode_uuid}\x1f{entity_uuid}"))
    return EpisodicEdge(
        uuid=edge_id,
        group_id=group_id,
        source_node_uuid=episode_uuid,
        target_node_uuid=entity_uuid,
        created_at=created_at,
    )
