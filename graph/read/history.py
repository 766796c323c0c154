"""`graphfeed history SUBJECT`: every value a single-valued slot had, in valid-time order, with both clocks.

A slot (contact person, assignee, status, stage, amount, owner, ...) holds one object at a time; the writer closes the
old fact when a new value starts (timeline.py). This lists the chain as stored — each value with valid_at/invalid_at
(world), created_at/expired_at (when the graph recorded it and when it recorded its end), its revisions and its source
episodes — the "when did it change, and when did we learn it" answer without a free-text query.

SUBJECT is an entity name or key (the key is the slot's prefix: org:acme.example, jira:issue:ACME-1). An exact match
wins; else a unique substring match; else AmbiguousSubject lists the candidates (close spellings included).
"""

import datetime as dt
import difflib

from pydantic import BaseModel, Field

from graph.connection import GraphReads, as_datetime, group_filter
from graph.known_at import Revision, parse_revisions

MAX_CANDIDATES = 10
_STOP = {"has", "in", "is", "to", "by", "on", "of", "the"}


class AmbiguousSubject(ValueError):
    """No single subject matches; `candidates` are the ones to choose from (may be empty)."""

    def __init__(self, subject: str, candidates: list["Subject"]):
        self.candidates = candidates
        shown = "; ".join(f"{c.name} ({c.key})" for c in candidates) or "none"
        if len(candidates) > 1:
            super().__init__(f"{subject!r} matches several subjects; candidates: {shown}")
        else:
            super().__init__(f"no subject with single-valued facts is {subject!r}; candidates: {shown}")


class Subject(BaseModel):
    uuid: str
    name: str
    key: str
    relations: list[str] = Field(default_factory=list)


class SourceEpisode(BaseModel):
    uuid: str
    source_key: str | None = None
    source: str | None = None
    valid_at: dt.datetime | None = None


class SlotValue(BaseModel):
    relation: str
    value: str
    fact: str
    valid_at: dt.datetime | None
    invalid_at: dt.datetime | None
    created_at: dt.datetime | None
    expired_at: dt.datetime | None
    revisions: list[Revision] = Field(default_factory=list)
    episodes: list[SourceEpisode] = Field(default_factory=list)
    uuid: str


class SlotHistory(BaseModel):
    subject: Subject
    values: list[SlotValue]


def _key_of(slot: str) -> str:
    return slot.rsplit("|", 1)[0]


def choose_subject(query: str, subjects: list[Subject]) -> Subject:
    """Exact name/key, else the one substring match; else AmbiguousSubject with candidates."""
    q = query.strip().lower()
    exact = [s for s in subjects if q in (s.name.lower(), s.key.lower())]
    if len(exact) == 1:
        return exact[0]
    if exact:
        raise AmbiguousSubject(query, exact[:MAX_CANDIDATES])
    partial = [s for s in subjects if q and (q in s.name.lower() or q in s.key.lower())]
    if len(partial) == 1:
        return partial[0]
    if partial:
        raise AmbiguousSubject(query, partial[:MAX_CANDIDATES])
    spellings = {}
    for s in subjects:
        spellings.setdefault(s.name.lower(), s)
        spellings.setdefault(s.key.lower(), s)
    close = difflib.get_close_matches(q, list(spellings), n=MAX_CANDIDATES, cutoff=0.6)
    raise AmbiguousSubject(query, list({spellings[c].uuid: spellings[c] for c in close}.values()))


def _words(text: str) -> list[str]:
    return [w for w in text.lower().replace("_", " ").replace("-", " ").split() if w not in _STOP]


def relation_matches(relation: str, name: str) -> bool:
    """ "HAS_CONTACT", "contact", "assignee" ~ ASSIGNED_TO, "owner" ~ OWNED_BY: every word matches a word of the name
    on its first four letters."""
    if relation.strip().upper().replace(" ", "_") == name.upper():
        return True
    asked, have = _words(relation), _words(name)
    return bool(asked) and all(any(a[:4] == h[:4] for h in have) for a in asked)


SUBJECTS = (
    "MATCH (s:Entity)-[e:RELATES_TO]->(:Entity) WHERE {group} AND e.slot IS NOT NULL "
    "RETURN DISTINCT s.uuid AS uuid, s.name AS name, e.slot AS slot, e.name AS relation"
)
CHAIN = (
    "MATCH (s:Entity {{uuid: $s}})-[e:RELATES_TO]->(o:Entity) WHERE {group} AND e.slot IS NOT NULL "
    "RETURN e.uuid AS uuid, e.name AS relation, o.name AS value, e.fact AS fact, e.valid_at AS valid_at, "
    "e.invalid_at AS invalid_at, e.created_at AS created_at, e.expired_at AS expired_at, "
    "e.revisions AS revisions, e.episodes AS episodes"
)
EPISODES = (
    "MATCH (n:Episodic) WHERE n.uuid IN $uuids AND n.group_id = $g RETURN n.uuid AS uuid, n.name AS source_key, "
    "n.source_system AS source, n.valid_at AS valid_at"
)


async def subjects(backend: GraphReads, group_id: str) -> list[Subject]:
    found: dict[str, Subject] = {}
    cypher = SUBJECTS.format(group=group_filter("e", backend.provider))
    for r in await backend.query(group_id, cypher, g=group_id):
        s = found.setdefault(r["uuid"], Subject(uuid=r["uuid"], name=r["name"] or "", key=_key_of(r["slot"])))
        if r["relation"] not in s.relations:
            s.relations.append(r["relation"])
    return sorted(found.values(), key=lambda s: (s.name.lower(), s.key))


def _episode_ids(value: object) -> list[str]:
    """graphiti stores the list natively on Neo4j and comma-joined on FalkorDB."""
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    return list(value or [])


async def fact_history(backend: GraphReads, group_id: str, subject: str, relation: str | None = None) -> SlotHistory:
    chosen = choose_subject(subject, await subjects(backend, group_id))
    rows = [
        r
        for r in await backend.query(
            group_id, CHAIN.format(group=group_filter("e", backend.provider)), g=group_id, s=chosen.uuid
        )
        if relation is None or relation_matches(relation, r["relation"])
    ]
    if relation is not None and not rows:
        raise AmbiguousSubject(f"{subject} --relation {relation}", [chosen])
    episode_ids = sorted({ep for r in rows for ep in _episode_ids(r["episodes"])})
    episodes = {}
    if episode_ids:
        for r in await backend.query(group_id, EPISODES, uuids=episode_ids, g=group_id):
            episodes[r["uuid"]] = SourceEpisode(
                uuid=r["uuid"], source_key=r["source_key"], source=r["source"], valid_at=as_datetime(r["valid_at"])
            )
    values = [
        SlotValue(
            uuid=r["uuid"],
            relation=r["relation"],
            value=r["value"] or "",
            fact=r["fact"] or "",
            valid_at=as_datetime(r["valid_at"]),
            invalid_at=as_datetime(r["invalid_at"]),
            created_at=as_datetime(r["created_at"]),
            expired_at=as_datetime(r["expired_at"]),
            revisions=parse_revisions(r["revisions"]),
            episodes=[episodes.get(ep) or SourceEpisode(uuid=ep) for ep in _episode_ids(r["episodes"])],
        )
        for r in rows
    ]
    values.sort(key=lambda v: (v.relation, v.valid_at or dt.datetime.min.replace(tzinfo=dt.UTC), v.uuid))
    return SlotHistory(subject=chosen, values=values)
