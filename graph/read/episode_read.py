"""Reading episodes back: full-text search, one episode with the facts it supports, and paging by time.

Episodes are graphiti `Episodic` nodes (uuid = episode id, name = source key) with the cleansing results graphfeed sets
on them (intent, actor, source system, references). Filters go into the Cypher WHERE clause, so a filtered search or
page returns exactly the matching episodes, not a filtered top-k. Read-only: every statement here only MATCHes.
"""

import base64
import datetime as dt
import json
from typing import Any

from pydantic import BaseModel, Field, field_validator

from graph.connection import GraphReads, Provider, as_datetime, fulltext_query, is_neo4j
from ground.identity import validate_group_id
from ground.records import as_utc

MAX_LIMIT = 100
SNIPPET_CHARS = 280
# The full-text index ranks before the WHERE filters; on Neo4j it needs a pool wide enough to hold the filtered hits.
FULLTEXT_POOL = 2000

# graphiti's own `episode_content` index (content, source, source_description) on both backends.
_FULLTEXT_CALL = {
    Provider.NEO4J: 'CALL db.index.fulltext.queryNodes("episode_content", $query, {limit: $pool})',
    Provider.FALKORDB: "CALL db.idx.fulltext.queryNodes('Episodic', $query)",
}

EPISODE_FIELDS = """e.uuid AS uuid, e.name AS source_key, e.source_system AS source, e.kind AS kind,
    e.intent AS intent, e.intent_confidence AS intent_confidence, e.title AS title, e.actor_id AS actor_id,
    e.actor_name AS actor_name, e.actor_email AS actor_email, e.valid_at AS valid_at, e.created_at AS created_at,
    e.source_description AS source_description, e.content AS content"""


class EpisodeFilters(BaseModel):
    """intents/sources: any of; actor: an e-mail (exact, case-insensitive) or a name (case-insensitive substring);
    since/until: the episode's own time (valid_at), since inclusive, until exclusive."""

    intents: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    actor: str | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None

    @field_validator("since", "until")
    @classmethod
    def _utc(cls, value: dt.datetime | None) -> dt.datetime | None:
        return as_utc(value) if value is not None else None

    def where(self) -> tuple[list[str], dict[str, Any]]:
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if self.intents:
            clauses.append("e.intent IN $intents")
            params["intents"] = list(self.intents)
        if self.sources:
            clauses.append("e.source_system IN $sources")
            params["sources"] = list(self.sources)
        if self.actor:
            actor = self.actor.strip().lower()
            if "@" in actor:
                clauses.append("e.actor_email = $actor")
            else:
                clauses.append("toLower(coalesce(e.actor_name, '')) CONTAINS $actor")
            params["actor"] = actor
        if self.since is not None:
            clauses.append("e.valid_at >= $since")
            params["since"] = self.since
        if self.until is not None:
            clauses.append("e.valid_at < $until")
            params["until"] = self.until
        return clauses, params


class EpisodeSummary(BaseModel):
    uuid: str
    source_key: str
    source: str | None = None
    kind: str | None = None
    intent: str | None = None
    intent_confidence: float | None = None
    title: str | None = None
    actor_id: str | None = None
    actor_name: str | None = None
    actor_email: str | None = None
    valid_at: dt.datetime | None = None  # when it happened (the record's own time)
    created_at: dt.datetime | None = None  # when the graph learned it
    snippet: str = ""
    score: float | None = None


class SupportedFact(BaseModel):
    uuid: str
    name: str
    fact: str
    valid_at: dt.datetime | None = None
    invalid_at: dt.datetime | None = None
    created_at: dt.datetime | None = None
    expired_at: dt.datetime | None = None


class EpisodeDetail(EpisodeSummary):
    content: str = ""
    references: list[str] = Field(default_factory=list)
    source_description: str | None = None
    facts: list[SupportedFact] = Field(default_factory=list)
    other_versions: list[str] = Field(default_factory=list)  # uuids of other episodes with the same source key


class EpisodePage(BaseModel):
    episodes: list[EpisodeSummary]
    next_cursor: str | None = None


def _summary(row: dict[str, Any], score: float | None = None) -> EpisodeSummary:
    content = row.get("content") or ""
    snippet = " ".join(content.split())[:SNIPPET_CHARS]
    return EpisodeSummary(
        uuid=row["uuid"],
        source_key=row.get("source_key") or "",
        source=row.get("source"),
        kind=row.get("kind"),
        intent=row.get("intent"),
        intent_confidence=row.get("intent_confidence"),
        title=row.get("title"),
        actor_id=row.get("actor_id"),
        actor_name=row.get("actor_name"),
        actor_email=row.get("actor_email"),
        valid_at=as_datetime(row.get("valid_at")),
        created_at=as_datetime(row.get("created_at")),
        snippet=snippet,
        score=score,
    )


def capped(limit: int) -> int:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    return min(limit, MAX_LIMIT)


async def search_episodes(
    backend: GraphReads, group_id: str, query: str, filters: EpisodeFilters | None = None, limit: int = 10
) -> list[EpisodeSummary]:
    """BM25 over episode content/title through graphiti's `episode_content` full-text index, filters in the query."""
    validate_group_id(group_id)
    limit = capped(limit)
    driver = await backend.driver(group_id)
    text = fulltext_query(query, [group_id], driver)
    if not text:
        return []
    clauses, params = (filters or EpisodeFilters()).where()
    provider = Provider.NEO4J if is_neo4j(backend) else Provider.FALKORDB
    if provider == Provider.NEO4J:
        clauses.insert(0, "e.group_id = $gid")
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    cypher = (
        _FULLTEXT_CALL[provider] + f"\nYIELD node AS e, score\n{where}\n"
        f"RETURN {EPISODE_FIELDS}, score\nORDER BY score DESC, uuid\nLIMIT $limit"
    )
    rows = await backend.query(group_id, cypher, query=text, limit=limit, pool=FULLTEXT_POOL, gid=group_id, **params)
    return [_summary(r, float(r["score"])) for r in rows]


def _encode_cursor(valid_at: dt.datetime | None, uuid: str) -> str:
    raw = json.dumps([valid_at.isoformat() if valid_at else None, uuid])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        valid_at, uuid = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return as_utc(dt.datetime.fromisoformat(valid_at)), str(uuid)
    except Exception:
        raise ValueError(f"not a cursor of `episodes list`: {cursor[:40]!r}") from None


async def list_episodes(
    backend: GraphReads,
    group_id: str,
    filters: EpisodeFilters | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> EpisodePage:
    """Newest first by the record's own time; `next_cursor` continues after the last one shown."""
    validate_group_id(group_id)
    limit = capped(limit)
    clauses, params = (filters or EpisodeFilters()).where()
    clauses.insert(0, "e.group_id = $gid AND e.valid_at IS NOT NULL")
    if cursor:
        after_time, after_uuid = decode_cursor(cursor)
        clauses.append("(e.valid_at < $after_time OR (e.valid_at = $after_time AND e.uuid < $after_uuid))")
        params.update(after_time=after_time, after_uuid=after_uuid)
    cypher = (
        f"MATCH (e:Episodic) WHERE {' AND '.join(clauses)}\nRETURN {EPISODE_FIELDS}\n"
        "ORDER BY valid_at DESC, uuid DESC\nLIMIT $limit"
    )
    rows = await backend.query(group_id, cypher, gid=group_id, limit=limit + 1, **params)
    page = [_summary(r) for r in rows[:limit]]
    more = len(rows) > limit and page
    return EpisodePage(episodes=page, next_cursor=_encode_cursor(page[-1].valid_at, page[-1].uuid) if more else None)


async def get_episode(backend: GraphReads, group_id: str, id_or_key: str) -> EpisodeDetail | None:
    """By episode uuid or by source key (the newest version when a key has several)."""
    validate_group_id(group_id)
    rows = await backend.query(
        group_id,
        f"MATCH (e:Episodic) WHERE e.group_id = $gid AND (e.uuid = $key OR e.name = $key)\n"
        f"RETURN {EPISODE_FIELDS}, e.references AS references, e.entity_edges AS entity_edges\n"
        "ORDER BY valid_at DESC, uuid DESC LIMIT 50",
        gid=group_id,
        key=id_or_key.strip(),
    )
    if not rows:
        return None
    exact = [r for r in rows if r["uuid"] == id_or_key.strip()]
    row = (exact or rows)[0]
    facts = await backend.query(
        group_id,
        "MATCH ()-[r:RELATES_TO]->() WHERE r.uuid IN $uuids AND $episode IN r.episodes\n"
        "RETURN r.uuid AS uuid, r.name AS name, r.fact AS fact, r.valid_at AS valid_at, "
        "r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at",
        uuids=list(row.get("entity_edges") or []),
        episode=row["uuid"],
    )
    summary = _summary(row)
    return EpisodeDetail(
        **summary.model_dump(),
        content=row.get("content") or "",
        references=list(row.get("references") or []),
        source_description=row.get("source_description"),
        facts=sorted(
            (
                SupportedFact(
                    uuid=f["uuid"],
                    name=f["name"],
                    fact=f["fact"],
                    valid_at=as_datetime(f["valid_at"]),
                    invalid_at=as_datetime(f["invalid_at"]),
                    created_at=as_datetime(f["created_at"]),
                    expired_at=as_datetime(f["expired_at"]),
                )
                for f in facts
            ),
            key=lambda f: (f.name, f.fact),
        ),
        other_versions=[r["uuid"] for r in rows if r["uuid"] != row["uuid"]],
    )
