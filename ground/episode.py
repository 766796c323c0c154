"""The Episode: what graphfeed hands to the graph. Ids are deterministic so reruns never duplicate."""

import datetime as dt
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ground.records import Actor, Attachment, Origin, Participant

# Fixed namespace: changing it would re-key every episode ever written.
EPISODE_NAMESPACE = uuid.UUID("6f1c2a8e-2b1d-5c55-9a51-67f3b0c0e1a1")


def episode_id(source: str, source_key: str, version: str) -> str:
    return str(uuid.uuid5(EPISODE_NAMESPACE, f"{source}\x1f{source_key}\x1f{version}"))


class EpisodeMetadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    source_key: str
    kind: str
    version: str
    title: str = ""
    url: str | None = None
    thread_key: str | None = None
    parent_key: str | None = None
    related_keys: list[str] = Field(default_factory=list)
    language: str = "en"
    occurred_at: dt.datetime
    updated_at: dt.datetime
    origin: Origin = Field(default_factory=Origin)
    participants: list[Participant] = Field(default_factory=list)
    attachments: list[Attachment] = Field(default_factory=list)
    fields: dict[str, Any] = Field(default_factory=dict)
    # Records that carried the same event (same fingerprint): kept, not lost.
    duplicate_keys: list[str] = Field(default_factory=list)
    # Texts cut to the maximum text size (GRAPHFEED_MAX_TEXT_CHARS): which field, from how long to how long.
    truncated: list[str] = Field(default_factory=list)
    # Person/organisation references found only by NER below the entity confidence: searchable on the episode,
    # a graph node only when they resolve to a known party (transforms/facts.py).
    unconfirmed_names: list[str] = Field(default_factory=list)


class Episode(BaseModel):
    id: str
    group_id: str
    timestamp: dt.datetime  # when it happened in the world (reference_time for Graphiti)
    source: str
    actor: Actor
    intent: str
    intent_confidence: float
    content: str
    metadata: EpisodeMetadata
    references: list[str] = Field(default_factory=list)  # canonical reference ids
    fingerprint: str
