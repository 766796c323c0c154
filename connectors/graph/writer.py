"""GraphWriter: episodes -> Graphiti graph in structured mode (no LLM), one batch = one unit, idempotent on rerun.

Per batch and group: check the recorded embedder (before writing anything), extract FactSets, read what is stored for the
touched entities/edges/slots, merge (episode lists union, earliest valid_at, original created_at), recompute every touched
single-valued slot, embed in batches, then ONE write transaction (graphiti's add_nodes_and_edges_bulk_tx + our extra
Episodic properties + slot updates + the meta node). Neo4j commits that atomically; FalkorDB has no multi-statement
transactions, so there a failed batch is repaired by rerunning it (every id is deterministic).

Both clocks survive reruns and backfills: created_at is the first recording, every change of an edge's end or expiry
appends a revision (known_at.py reads the interval as known at any moment), and an edge whose records were deleted
upstream keeps its tombstone when a backfill brings the record again.
"""

import asyncio
import datetime as dt
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphiti_core.driver.driver import GraphProvider
from pydantic import BaseModel, Field

from connectors.graph.backend import META_LABEL, GraphBackend, as_datetime, utcnow
from connectors.graph.config import ConfigError, EmbedderMismatch, GraphConfig, validate_group_id
from connectors.graph.embedders import UsesEmbedder
from connectors.graph.known_at import format_revision, next_revisions
from connectors.graph.llm.meter import Usage
from connectors.graph.pins import SCHEMA_VERSION, check_stamp, graphiti_version, read_stamp
from connectors.graph.timeline import SlotEdge, absence_end, recompute_slot
from connectors.graph.to_graphiti import entity_edge, entity_node, episode_properties, episodic_node, mention_edge
from transforms.episode import Episode
from connectors.registry import episode_facts
from transforms.facts import EntitySpec, FactSet, FactSpec, merge_factsets
from transforms.intent_facts import FACT_KINDS

log = logging.getLogger(__name__)

Extractor = Callable[[Episode, Mapping[str, str]], FactSet]

SET_EPISODE_PROPS = """
UNWIND $rows AS row
MATCH (n:Episodic {uuid: row.uuid})
SET n.intent = row.intent, n.intent_confidence = row.intent_confidence, n.references = row.references,
    n.source_system = row.source_system, n.kind = row.kind, n.fingerprint = row.fingerprint, n.title = row.title,
    n.actor_id = row.actor_id, n.actor_name = row.actor_name, n.actor_email = row.actor_email,
    n.thread_key = row.thread_key, n.url = row.url
"""
SET_EDGE_TIMES = """
UNWIND $rows AS row
MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->()
SET e.invalid_at = row.invalid_at, e.expired_at = row.expired_at, e.revisions = coalesce(e.revisions, []) + [row.revision]
"""
MERGE_META = f"""
MERGE (m:{META_LABEL} {{group_id: $group_id}})
ON CREATE SET m.embedder = $embedder, m.embedding_dim = $dim, m.created_at = $now,
    m.created_schema_version = $schema_version, m.created_graphiti_version = $graphiti_version
SET m.updated_at = $now, m.schema_version = $schema_version, m.graphiti_version = $graphiti_version
"""


class _BulkTx:
    """What graphiti's bulk writer talks to on FalkorDB: its own statements, sent with fewer round trips.

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
            query = [*grouped.items(), *rest]
        return await self.tx.run(query, **kwargs)



class BatchResult(BaseModel):
    episodes_written: int = 0
    entities_written: int = 0
    facts_written: int = 0
    facts_invalidated: int = 0
    per_episode_seconds: list[float] = Field(default_factory=list)
    # Additions: how much of the write was new to the graph (0/0/0 on a rerun).
    episodes_new: int = 0
    entities_new: int = 0
    facts_new: int = 0
    # facts_written broken down by relation (SENT, ESCALATED_RISK, ...) and kind (structured, intent, text_date).
    facts_by_relation: dict[str, int] = Field(default_factory=dict)
    facts_by_kind: dict[str, int] = Field(default_factory=dict)
    # LLM extraction (sources in "llm"/"both" mode); all zero/empty in structured mode.
    llm: Usage = Field(default_factory=Usage)                       # this call's total
    episode_llm: dict[str, Usage] = Field(default_factory=dict)     # per episode id, this call only
    llm_entities: int = 0
    llm_facts: int = 0
    llm_facts_invalidated: int = 0
    held_for_review: int = 0                                        # chunks whose LLM facts wait for approval
    llm_failed: dict[str, str] = Field(default_factory=dict)       # episode id -> "ErrorClass: message"
    deferred: list[str] = Field(default_factory=list)              # not attempted: a budget stopped the batch
    llm_skipped: int = 0                                            # no free text / skipped intent: structured only
    stopped_by: str | None = None


def count_facts(result: BatchResult, facts: Sequence[FactSpec]) -> None:
    for fact in facts:
        kind = FACT_KINDS.get(fact.predicate, "structured")
        result.facts_by_relation[fact.predicate] = result.facts_by_relation.get(fact.predicate, 0) + 1
        result.facts_by_kind[kind] = result.facts_by_kind.get(kind, 0) + 1


class _Stored(BaseModel):
    """What the graph already holds for the uuids a batch touches."""

    entity_names: dict[str, str] = Field(default_factory=dict)
    entity_created: dict[str, dt.datetime] = Field(default_factory=dict)
    episode_created: dict[str, dt.datetime] = Field(default_factory=dict)
    edges: dict[str, dict[str, Any]] = Field(default_factory=dict)
    slot_edges: dict[str, list[SlotEdge]] = Field(default_factory=dict)
    # slot family -> (valid_at, slots stated) of each stored fact of the family; slot -> its family
    family_statements: dict[str, list[tuple[dt.datetime | None, frozenset[str]]]] = Field(default_factory=dict)
    slot_family: dict[str, str] = Field(default_factory=dict)


def _name_rank(name: str) -> tuple[bool, str]:
    return ("@" not in name, name)


async def check_embedder_of(backend: GraphBackend, group_id: str, embedder_name: str, dim: int) -> None:
    """Raise EmbedderMismatch if the group was written with another embedder or dimension, SchemaMismatch if with
    another schema major (writers; readers use pins.check_pins, which also warns)."""
    stamp = await read_stamp(backend, group_id)
    if stamp is not None:
        check_stamp(stamp, group_id, embedder=embedder_name, dim=dim)


class GraphWriter(UsesEmbedder):
    """Async writer; use `async with GraphWriter(config) as w:` or open()/close()."""

    def __init__(self, config: GraphConfig, *, extractor: Extractor = episode_facts,
                 embedder: Any = None, clock: Callable[[], dt.datetime] = utcnow):
        self.config = config.check()
        self.backend = GraphBackend(config)
        self.extractor = extractor
        self._embedder = embedder
        self.clock = clock
        self._graphiti: dict[str, Any] = {}
        self._graphiti_llm: dict[str, Any] = {}
        self._llm: Any = None
        self.session_id = __import__("uuid").uuid4().hex     # groups this writer's LLM spend rows (one per run)

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> "GraphWriter":
        await self.backend.open()
        return self

    async def close(self) -> None:
        self._graphiti.clear()
        self._graphiti_llm.clear()
        if self._llm is not None:
            await self._llm.close()
            self._llm = None
        await self.backend.close()

    @property
    def uses_llm(self) -> bool:
        return self.config.uses_llm()

    @property
    def llm(self) -> Any:
        """The LLM parts (client, limiter, meter, store), built on first use; only when a source uses llm/both."""
        if self._llm is None:
            from connectors.graph.llm.runtime import LLMRuntime

            self._llm = LLMRuntime(self)
        return self._llm

    async def __aenter__(self) -> "GraphWriter":
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def graphiti(self, group_id: str) -> Any:
        """A Graphiti bound to the group's driver with local clients only (never builds OpenAI clients)."""
        if group_id not in self._graphiti:
            from connectors.graph.embedders import local_graphiti

            self._graphiti[group_id] = local_graphiti(await self.backend.driver(group_id), self.embedder)
        return self._graphiti[group_id]

    # ------------------------------------------------------------------ embedder guard

    async def check_embedder(self, group_id: str) -> None:
        """Raise EmbedderMismatch if the group was written with another embedder or dimension."""
        await check_embedder_of(self.backend, group_id, self.embedder_name, int(self.config.embedding_dim))

    # ------------------------------------------------------------------ write

    async def write_batch(self, episodes: Sequence[Episode],
                          extra_facts: Mapping[str, FactSet] | None = None, *,
                          max_cost_usd: float | None = None) -> BatchResult:
        """Write episodes (+ facts that come without content of their own, keyed by group id).

        Sources in "llm"/"both" mode also go through Graphiti's add_episode, one episode at a time, until
        max_cost_usd (this call) or the source's nightly cap is reached: the rest is returned in `deferred`. An
        episode whose LLM extraction fails is reported in `llm_failed` instead of failing the whole batch.
        """
        started = time.perf_counter()
        groups: dict[str, list[Episode]] = defaultdict(list)
        llm_items: list[tuple[Episode, str]] = []
        for episode in episodes:
            validate_group_id(episode.group_id)
            mode = self.config.extraction_mode(episode.source)
            if mode != "structured":
                if self.config.llm is None or not self.config.llm.enabled:
                    raise ConfigError(f"extraction mode {mode!r} (source {episode.source!r}) needs an LLM endpoint")
                llm_items.append((episode, mode))
            if mode != "llm":
                groups[episode.group_id].append(episode)
        for group_id in extra_facts or {}:
            validate_group_id(group_id)
            groups.setdefault(group_id, [])
        checked = list(groups) + [e.group_id for e, _ in llm_items if e.group_id not in groups]
        for group_id in dict.fromkeys(checked):       # all checks before any write
            await self.check_embedder(group_id)

        result = BatchResult()
        extract_seconds: dict[str, float] = {}
        for group_id, group_episodes in groups.items():
            parts = []
            mentions: dict[str, list[str]] = {}
            for episode in group_episodes:
                t = time.perf_counter()
                part = self.extractor(episode, self.config.domain_orgs)
                parts.append(part)
                mentions[episode.id] = list(part.mentions)
                extract_seconds[episode.id] = time.perf_counter() - t
            if extra_facts and group_id in extra_facts:
                parts.append(extra_facts[group_id])
            await self._write_group(group_id, group_episodes, merge_factsets(parts), mentions, result)
        if llm_items:
            await self._write_llm(llm_items, result, max_cost_usd, extract_seconds)

        shared = time.perf_counter() - started - sum(extract_seconds.values())
        share = shared / len(episodes) if episodes else 0.0
        result.per_episode_seconds = [extract_seconds.get(e.id, 0.0) + share for e in episodes]
        return result

    def texts_to_embed(self, episodes: Sequence[Episode]) -> list[str]:
        """Entity names and fact texts the structured write of these episodes embeds (stored better names aside)."""
        texts: list[str] = []
        for episode in episodes:
            if self.config.extraction_mode(episode.source) == "llm":
                continue
            part = self.extractor(episode, self.config.domain_orgs)
            texts += [e.name for e in part.entities] + [f.fact for f in part.facts]
        return texts

    async def prefetch(self, episodes: Sequence[Episode]) -> None:
        """Embed a coming batch into the embedder's cache, best effort: the write embeds whatever is still missing.

        Only for embedders with a cache (`warm`); extraction and embedding run off the event loop, so a write in
        flight (which mostly waits on the database) proceeds meanwhile.
        """
        warm = getattr(self.embedder, "warm", None)
        if warm is None or not episodes:
            return
        texts = await asyncio.to_thread(self.texts_to_embed, episodes)
        await warm(texts)

    async def write_batches(self, batches: Sequence[Sequence[Episode]]) -> list[BatchResult]:
        """write_batch over batches in order, embedding batch i+1 while batch i is written (structured mode)."""
        results: list[BatchResult] = []
        if batches:
            await self.prefetch(batches[0])
        for i, batch in enumerate(batches):
            ahead = asyncio.create_task(self.prefetch(batches[i + 1])) if i + 1 < len(batches) else None
            try:
                results.append(await self.write_batch(batch))
            finally:
                if ahead is not None:
                    await ahead
        return results

    async def _write_llm(self, items: list[tuple[Episode, str]], result: BatchResult, max_cost_usd: float | None,
                         seconds: dict[str, float]) -> None:
        """One episode at a time (graphiti resolves entities against what earlier episodes wrote)."""
        from connectors.graph.llm.budget import stop_reason

        llm = self.llm
        settings = self.config.llm
        spent = 0.0
        for i, (episode, mode) in enumerate(items):
            if not settings.worth_a_call(episode):
                if mode == "llm":
                    await self._write_group(episode.group_id, [episode], FactSet(), {episode.id: []}, result)
                result.llm_skipped += 1
                continue
            reason = stop_reason(source=episode.source, spent_this_call=spent, max_cost_usd=max_cost_usd,
                                 night_caps=settings.max_cost_per_source_night_usd, store=llm.store, now=self.clock())
            if reason:
                result.deferred = [e.id for e, _ in items[i:]]
                result.stopped_by = reason
                break
            t = time.perf_counter()
            before = llm.meter.episodes.get(episode.id, Usage()).model_copy(deep=True)
            try:
                if mode == "llm":     # graphiti's add_episode(uuid=...) needs the Episodic node to exist
                    await self._write_group(episode.group_id, [episode], FactSet(), {episode.id: []}, result)
                done = await llm.extractor.extract(episode, mode=mode)
            except (ConfigError, EmbedderMismatch):
                raise
            except Exception as exc:  # noqa: BLE001 - one episode's failure is data for the ledger
                result.llm_failed[episode.id] = f"{type(exc).__name__}: {exc}"
                done = None
            usage = llm.meter.episodes.get(episode.id, Usage()).minus(before)
            llm.store.record_spend(source=episode.source, episode_id=episode.id, usage=usage, ok=done is not None,
                                   run_id=self.session_id, chunks=done.chunks if done else 0,
                                   content_chars=len(episode.content), at=self.clock())
            result.episode_llm[episode.id] = usage
            result.llm.add(usage)
            spent += usage.cost_usd
            if done is not None:
                result.llm_entities += done.entities
                result.llm_facts += done.facts
                result.llm_facts_invalidated += done.facts_invalidated
                result.held_for_review += done.held_chunks
            seconds[episode.id] = seconds.get(episode.id, 0.0) + time.perf_counter() - t

    async def _read_stored(self, group_id: str, episodes: list[Episode], facts: FactSet) -> _Stored:
        stored = _Stored()
        q = self.backend.query
        if facts.entities:
            rows = await q(group_id, "MATCH (n:Entity) WHERE n.uuid IN $uuids "
                                     "RETURN n.uuid AS uuid, n.name AS name, n.created_at AS created_at",
                           uuids=[e.uuid for e in facts.entities])
            for r in rows:
                stored.entity_names[r["uuid"]] = r["name"]
                stored.entity_created[r["uuid"]] = as_datetime(r["created_at"]) or self.clock()
        if episodes:
            rows = await q(group_id, "MATCH (n:Episodic) WHERE n.uuid IN $uuids RETURN n.uuid AS uuid, n.created_at AS c",
                           uuids=[e.id for e in episodes])
            stored.episode_created = {r["uuid"]: as_datetime(r["c"]) or self.clock() for r in rows}
        if facts.facts:
            rows = await q(group_id, "MATCH ()-[e:RELATES_TO]->() WHERE e.uuid IN $uuids "
                                     "RETURN e.uuid AS uuid, e.episodes AS episodes, e.valid_at AS valid_at, "
                                     "e.invalid_at AS invalid_at, e.expired_at AS expired_at, e.created_at AS created_at, "
                                     "e.revisions AS revisions, e.tombstoned_at AS tombstoned_at",
                           uuids=[f.uuid for f in facts.facts])
            stored.edges = {r["uuid"]: r for r in rows}
        slots = sorted({f.single_valued for f in facts.facts if f.single_valued})
        families = sorted({str(f.attributes["slot_family"]) for f in facts.facts if f.attributes.get("slot_family")})
        rows = []
        if slots:
            rows = await q(group_id, "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.slot IN $slots "
                                     "RETURN e.uuid AS uuid, e.slot AS slot, o.uuid AS object, e.valid_at AS valid_at, "
                                     "e.source_invalid_at AS source_invalid_at, e.invalid_at AS invalid_at, "
                                     "e.expired_at AS expired_at, e.tombstoned_at AS tombstoned_at",
                           g=group_id, slots=slots)
        if families:                    # every slot of a touched family: a removed key ends there (timeline)
            family_rows = await q(group_id, "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g "
                                            "AND e.slot_family IN $families "
                                            "RETURN e.uuid AS uuid, e.slot AS slot, o.uuid AS object, "
                                            "e.valid_at AS valid_at, e.source_invalid_at AS source_invalid_at, "
                                            "e.invalid_at AS invalid_at, e.expired_at AS expired_at, "
                                            "e.tombstoned_at AS tombstoned_at, e.slot_family AS family, "
                                            "e.family_slots AS family_slots", g=group_id, families=families)
            seen = {r["uuid"] for r in rows}
            for r in family_rows:
                stored.slot_family[r["slot"]] = r["family"]
                if r["tombstoned_at"] is None:
                    stored.family_statements.setdefault(r["family"], []).append(
                        (as_datetime(r["valid_at"]), frozenset(r["family_slots"] or [])))
            rows = list(rows) + [r for r in family_rows if r["uuid"] not in seen]
        for r in rows:
            stored.slot_edges.setdefault(r["slot"], []).append(SlotEdge(
                uuid=r["uuid"], object=r["object"], valid_at=as_datetime(r["valid_at"]),
                source_invalid_at=as_datetime(r["source_invalid_at"]), invalid_at=as_datetime(r["invalid_at"]),
                expired_at=as_datetime(r["expired_at"]), tombstoned_at=as_datetime(r["tombstoned_at"])))
        return stored

    async def _write_group(self, group_id: str, episodes: list[Episode], facts: FactSet,
                           mentions: Mapping[str, list[str]], result: BatchResult) -> None:
        now = self.clock()
        driver = await self.backend.driver(group_id)
        stored = await self._read_stored(group_id, episodes, facts)
        episode_ids = {e.id for e in episodes}

        # ---- merge facts with what is stored
        merged: dict[str, tuple[FactSpec, list[str], dt.datetime | None, dt.datetime]] = {}
        for fact in facts.facts:
            old = stored.edges.get(fact.uuid)
            episodes_of = set(fact.episode_ids)
            valid_at = fact.valid_at
            created_at = now
            if old is not None:
                episodes_of |= set(old.get("episodes") or [])
                old_valid = as_datetime(old.get("valid_at"))
                if old_valid is not None and (valid_at is None or old_valid < valid_at):
                    valid_at = old_valid
                created_at = as_datetime(old.get("created_at")) or now
            merged[fact.uuid] = (fact, sorted(episodes_of), valid_at, created_at)

        # ---- single-valued slots: recompute each touched chain from everything stored + this batch
        times: dict[str, tuple[dt.datetime | None, dt.datetime | None]] = {}
        updates: list[dict[str, Any]] = []
        invalidated = 0
        by_slot: dict[str, dict[str, SlotEdge]] = defaultdict(dict)
        for slot, edges in stored.slot_edges.items():
            for edge in edges:
                by_slot[slot][edge.uuid] = edge
        statements = {family: list(told) for family, told in stored.family_statements.items()}
        for uuid_, (fact, _, valid_at, _) in merged.items():
            if not fact.single_valued:
                continue
            before = by_slot[fact.single_valued].get(uuid_)
            by_slot[fact.single_valued][uuid_] = SlotEdge(
                uuid=uuid_, object=fact.object, valid_at=valid_at, source_invalid_at=fact.invalid_at,
                invalid_at=before.invalid_at if before else None, expired_at=before.expired_at if before else None,
                tombstoned_at=before.tombstoned_at if before else None)   # a rerun never revives a deleted record
            family = fact.attributes.get("slot_family")
            if family:
                stored.slot_family[fact.single_valued] = str(family)
                statements.setdefault(str(family), []).append((valid_at, frozenset(fact.attributes.get("family_slots")
                                                                                    or [])))
        for slot, family in stored.slot_family.items():          # a row a later version removed ends there
            for uuid_, edge in list(by_slot.get(slot, {}).items()):
                gone = absence_end(slot, edge.valid_at, statements.get(family, []))
                if gone is not None:
                    by_slot[slot][uuid_] = edge.model_copy(update={"removed_at": gone})
        for slot, edges in by_slot.items():
            for uuid_, new in recompute_slot(list(edges.values()), now).items():
                edge = edges[uuid_]
                if new.invalid_at is not None and new.invalid_at != edge.invalid_at:
                    invalidated += 1
                if uuid_ in merged:
                    times[uuid_] = (new.invalid_at, new.expired_at)
                elif new.differs(edge):
                    updates.append({"uuid": uuid_, "invalid_at": new.invalid_at, "expired_at": new.expired_at,
                                    "revision": format_revision(now, new.invalid_at, new.expired_at)})
        result.facts_invalidated += invalidated

        # ---- entities: keep the better name (a real name beats an address) whatever the arrival order
        names: dict[str, str] = {}
        for spec in facts.entities:
            old_name = stored.entity_names.get(spec.uuid)
            names[spec.uuid] = old_name if old_name and _name_rank(old_name) > _name_rank(spec.name) else spec.name

        # ---- embeddings, batched
        embedder = self.embedder
        name_vecs = await embedder.create_batch([names[e.uuid] for e in facts.entities]) if facts.entities else []
        fact_list = list(merged.values())
        fact_vecs = await embedder.create_batch([f.fact for f, *_ in fact_list]) if fact_list else []
        for vec in [*name_vecs[:1], *fact_vecs[:1]]:
            if len(vec) != self.config.embedding_dim:
                raise EmbedderMismatch(f"embedder {self.embedder_name} returned {len(vec)}-d vectors, "
                                       f"configured embedding_dim is {self.config.embedding_dim}")

        entity_nodes = [entity_node(spec, group_id, name=names[spec.uuid],
                                    created_at=stored.entity_created.get(spec.uuid, now), embedding=vec)
                        for spec, vec in zip(facts.entities, name_vecs)]
        entity_edges = []
        for (fact, eps, valid_at, created_at), vec in zip(fact_list, fact_vecs):
            old = stored.edges.get(fact.uuid)
            tombstoned_at = as_datetime(old.get("tombstoned_at")) if old else None
            if fact.uuid in times:
                invalid_at, expired_at = times[fact.uuid]
            elif tombstoned_at is not None:     # its records were deleted upstream: a backfill does not un-expire it
                invalid_at, expired_at = as_datetime(old.get("invalid_at")), as_datetime(old.get("expired_at"))
            else:
                invalid_at, expired_at = fact.invalid_at, None
            revisions = next_revisions(old.get("revisions") if old else None, now=now, invalid_at=invalid_at,
                                       expired_at=expired_at, created=old is None)
            entity_edges.append(entity_edge(fact, group_id, episodes=eps, valid_at=valid_at, invalid_at=invalid_at,
                                            expired_at=expired_at, created_at=created_at, embedding=vec,
                                            revisions=revisions, tombstoned_at=tombstoned_at))

        # ---- episodes and their MENTIONS
        known_entities = {e.uuid for e in facts.entities}
        edges_of: dict[str, list[str]] = defaultdict(list)
        mentioned: dict[str, list[str]] = {e.id: [m for m in mentions.get(e.id, []) if m in known_entities]
                                           for e in episodes}
        for fact, eps, *_ in fact_list:
            for ep in eps:
                if ep in episode_ids:
                    edges_of[ep].append(fact.uuid)
                    for node in (fact.subject, fact.object):
                        if node in known_entities and node not in mentioned[ep]:
                            mentioned[ep].append(node)
        episodic_nodes, mention_edges = [], []
        for episode in episodes:
            created = stored.episode_created.get(episode.id, now)
            episodic_nodes.append(episodic_node(episode, created_at=created, entity_edges=sorted(edges_of[episode.id])))
            for node in mentioned[episode.id]:
                mention_edges.append(mention_edge(episode.id, node, group_id, created))
        extra_props = [episode_properties(e) for e in episodes]

        from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk_tx

        meta = {"group_id": group_id, "embedder": self.embedder_name, "dim": int(self.config.embedding_dim), "now": now,
                "schema_version": SCHEMA_VERSION, "graphiti_version": graphiti_version()}

        async def unit(tx: Any) -> None:
            bulk_tx = tx if driver.provider == GraphProvider.NEO4J else _BulkTx(tx)
            await add_nodes_and_edges_bulk_tx(bulk_tx, episodic_nodes, mention_edges, entity_nodes, entity_edges,
                                              embedder, driver=driver)
            if extra_props:
                await tx.run(SET_EPISODE_PROPS, rows=extra_props)
            if updates:
                await tx.run(SET_EDGE_TIMES, rows=updates)
            await tx.run(MERGE_META, **meta)

        session = driver.session()
        try:
            await session.execute_write(unit)
        finally:
            await session.close()

        result.episodes_written += len(episodic_nodes)
        result.entities_written += len(entity_nodes)
        result.facts_written += len(entity_edges)
        count_facts(result, [fact for fact, *_ in fact_list])
        result.episodes_new += sum(1 for e in episodes if e.id not in stored.episode_created)
        result.entities_new += sum(1 for e in facts.entities if e.uuid not in stored.entity_created)
        result.facts_new += sum(1 for f in facts.facts if f.uuid not in stored.edges)

    # ------------------------------------------------------------------ tombstones

    async def invalidate_episodes(self, episode_ids: Sequence[str], at: dt.datetime,
                                  group_id: str | None = None) -> int:
        """Episodes deleted upstream: facts that only they support end at `at` (expired now); nothing is deleted.

        Slots they took part in are recomputed, so a predecessor they had superseded holds again.
        Returns the number of facts invalidated.
        """
        from ground.records import as_utc

        at = as_utc(at)
        now = self.clock()
        ids = sorted(set(episode_ids))
        if not ids:
            return 0
        groups = [validate_group_id(group_id)] if group_id else await self.backend.group_ids()
        total = 0
        for g in groups:
            rows = await self.backend.query(
                g, "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND any(x IN e.episodes WHERE x IN $ids) "
                   "RETURN e.uuid AS uuid, e.episodes AS episodes, e.slot AS slot, e.invalid_at AS invalid_at",
                g=g, ids=ids)
            doomed = [r for r in rows if set(r["episodes"] or []) <= set(ids)]
            if not doomed:
                continue
            updates = []
            for r in doomed:
                old = as_datetime(r["invalid_at"])
                invalid_at = min(old, at) if old is not None else at
                updates.append({"uuid": r["uuid"], "invalid_at": invalid_at, "expired_at": now, "tombstoned_at": at,
                                "revision": format_revision(now, invalid_at, now)})
            total += len(updates)
            slots = sorted({r["slot"] for r in doomed if r["slot"]})
            slot_updates = []
            if slots:
                doomed_ids = {u["uuid"] for u in updates}
                srows = await self.backend.query(
                    g, "MATCH ()-[e:RELATES_TO]->(o:Entity) WHERE e.group_id = $g AND e.slot IN $slots "
                       "RETURN e.uuid AS uuid, e.slot AS slot, o.uuid AS object, e.valid_at AS valid_at, "
                       "e.source_invalid_at AS source_invalid_at, e.invalid_at AS invalid_at, "
                       "e.expired_at AS expired_at, e.tombstoned_at AS tombstoned_at", g=g, slots=slots)
                by_slot: dict[str, list[SlotEdge]] = defaultdict(list)
                for r in srows:
                    by_slot[r["slot"]].append(SlotEdge(
                        uuid=r["uuid"], object=r["object"], valid_at=as_datetime(r["valid_at"]),
                        source_invalid_at=as_datetime(r["source_invalid_at"]), invalid_at=as_datetime(r["invalid_at"]),
                        expired_at=as_datetime(r["expired_at"]),
                        tombstoned_at=at if r["uuid"] in doomed_ids else as_datetime(r["tombstoned_at"])))
                for edges in by_slot.values():
                    current = {e.uuid: e for e in edges}
                    for uuid_, new in recompute_slot(edges, now).items():
                        if uuid_ not in doomed_ids and new.differs(current[uuid_]):
                            slot_updates.append({"uuid": uuid_, "invalid_at": new.invalid_at,
                                                 "expired_at": new.expired_at,
                                                 "revision": format_revision(now, new.invalid_at, new.expired_at)})
            driver = await self.backend.driver(g)

            async def unit(tx: Any, updates: list = updates, slot_updates: list = slot_updates) -> None:
                await tx.run("UNWIND $rows AS row MATCH ()-[e:RELATES_TO {uuid: row.uuid}]->() "
                             "SET e.invalid_at = row.invalid_at, e.expired_at = row.expired_at, "
                             "e.tombstoned_at = row.tombstoned_at, "
                             "e.revisions = coalesce(e.revisions, []) + [row.revision]", rows=updates)
                await tx.run("UNWIND $ids AS id MATCH (n:Episodic {uuid: id}) SET n.tombstoned_at = $at", ids=ids, at=at)
                if slot_updates:
                    await tx.run(SET_EDGE_TIMES, rows=slot_updates)

            session = driver.session()
            try:
                await session.execute_write(unit)
            finally:
                await session.close()
        return total

    # ------------------------------------------------------------------ search

    async def search(self, query: str, *, group_id: str, as_of: dt.datetime | None = None,
                     limit: int = 10, intents: Sequence[str] = (), sources: Sequence[str] = ()) -> list:
        """intents/sources: only facts that episodes with one of these intents / from one of these sources support."""
        from connectors.graph.search import search_facts

        if intents or sources:
            from connectors.graph.episode_read import EpisodeFilters
            from connectors.graph.fact_filters import search_facts_of_episodes

            filters = EpisodeFilters(intents=list(intents), sources=list(sources))
            return await search_facts_of_episodes(self, query, group_id=group_id, filters=filters, as_of=as_of,
                                                  limit=limit)
        return await search_facts(self, query, group_id=group_id, as_of=as_of, limit=limit)


# ---------------------------------------------------------------------- sync facade


class _LoopThread:
    """A private event loop in a daemon thread: the async drivers stay on one loop across sync calls."""

    def __init__(self) -> None:
        import threading

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="graphfeed-graph-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


def run_sync(coro: Any) -> Any:
    """Run one coroutine to completion from sync code, also when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    runner = _LoopThread()
    try:
        return runner.run(coro)
    finally:
        runner.stop()


class SyncGraphWriter:
    """Blocking facade over GraphWriter for Dagster ops/assets and the CLI."""

    def __init__(self, config: GraphConfig, **kwargs: Any):
        self._writer = GraphWriter(config, **kwargs)
        self._loop: _LoopThread | None = None

    @property
    def writer(self) -> GraphWriter:
        return self._writer

    def open(self) -> "SyncGraphWriter":
        self._loop = _LoopThread()
        try:
            self._loop.run(self._writer.open())
        except BaseException:
            self._loop.stop()
            self._loop = None
            raise
        return self

    def close(self) -> None:
        if self._loop is None:
            return
        try:
            self._loop.run(self._writer.close())
        finally:
            self._loop.stop()
            self._loop = None

    def _run(self, coro: Any) -> Any:
        if self._loop is None:
            raise RuntimeError("SyncGraphWriter.open() first (or use it as a context manager)")
        return self._loop.run(coro)

    @property
    def uses_llm(self) -> bool:
        return self._writer.uses_llm

    def write_batch(self, episodes: Sequence[Episode], extra_facts: Mapping[str, FactSet] | None = None,
                    **kwargs: Any) -> BatchResult:
        return self._run(self._writer.write_batch(episodes, extra_facts, **kwargs))

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the writer's loop (the review queue's approve uses the writer's drivers)."""
        return self._run(coro)

    def invalidate_episodes(self, episode_ids: Sequence[str], at: dt.datetime, group_id: str | None = None) -> int:
        return self._run(self._writer.invalidate_episodes(episode_ids, at, group_id))

    def search(self, query: str, *, group_id: str, as_of: dt.datetime | None = None, limit: int = 10,
               intents: Sequence[str] = (), sources: Sequence[str] = ()) -> list:
        return self._run(self._writer.search(query, group_id=group_id, as_of=as_of, limit=limit, intents=intents,
                                             sources=sources))

    def __enter__(self) -> "SyncGraphWriter":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["GraphWriter", "SyncGraphWriter", "BatchResult", "run_sync", "EntitySpec"]
