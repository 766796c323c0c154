"""A graphiti-shaped synthetic company graph written straight with parameterised UNWIND Cypher (no embedder, no writer).

Shape (what search meets in company mail): a few organisations and mailing lists are hubs holding thousands of facts,
people sit on many threads, single-valued facts (works at, contact person) carry history (invalid_at/expired_at).
Vectors have the MiniLM dimension and are random, drawn by the server (`rand()`), so 100k facts write in seconds;
they measure cost, not relevance. Episodic nodes and MENTIONS edges are there because graphiti's BFS walks them.
"""

import datetime as dt
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from graphiti_core.driver.driver import GraphProvider

UTC = dt.UTC
NS = uuid.UUID("6f1d8a52-5c0e-4d59-9a51-2b7f3f1c9e10")
ORGS = ["Acme Corp", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark Industries", "Wayne Enterprises"]
LISTS = ["all-staff", "eng-announce", "sales-team", "support", "board", "releases"]
TOPICS = [
    "Q2 budget",
    "release plan",
    "renewal terms",
    "incident review",
    "hiring",
    "roadmap",
    "pricing",
    "audit",
    "security review",
    "onboarding",
    "invoice",
    "migration",
]
FIRST = ["Dana", "Tom", "Priya", "Lee", "Ana", "Omar", "Mei", "Jonas", "Sara", "Ravi", "Ines", "Kofi", "Li", "Nora"]
LAST = ["Whitfield", "Berger", "Nair", "Park", "Silva", "Haddad", "Chen", "Vogel", "Ruiz", "Iyer", "Okafor", "Sato"]
START = dt.datetime(2025, 1, 1, tzinfo=UTC)
SPAN_DAYS = 700
BATCH = 5000


@dataclass
class SyntheticGraph:
    group_id: str
    facts: int
    people: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    hub_degree: dict[str, int] = field(default_factory=dict)

    def questions(self, n: int, seed: int = 11) -> list[str]:
        rng = random.Random(seed)
        forms = [
            lambda: f"Who works at {rng.choice(ORGS[:3])}?",
            lambda: f"Who is the contact person of {rng.choice(ORGS)}?",
            lambda: f"What did {rng.choice(self.people)} send about the {rng.choice(TOPICS)}?",
            lambda: f"Who discussed {rng.choice(self.projects)}?",
            lambda: f"Who posted to {rng.choice(LISTS)} about {rng.choice(TOPICS)}?",
        ]
        return [forms[i % len(forms)]() for i in range(n)]


# What answers each question form, as a test on the fact's text (the facts are templates: see _plan).
_ANSWERS = [
    (re.compile(r"Who works at (.+)\?"), lambda m: rf"works at {re.escape(m[1])}$"),
    (re.compile(r"Who is the contact person of (.+)\?"), lambda m: rf"is the contact person of {re.escape(m[1])}$"),
    (
        re.compile(r"What did (.+) send about the (.+)\?"),
        lambda m: rf"^{re.escape(m[1])} sent .* about the {re.escape(m[2])}$",
    ),
    (re.compile(r"Who discussed (.+)\?"), lambda m: rf" discussed {re.escape(m[1])} \("),
    (
        re.compile(r"Who posted to (.+) about (.+)\?"),
        lambda m: rf"posted to {re.escape(m[1])} about the {re.escape(m[2])}$",
    ),
]


def answers(question: str, fact: str) -> bool:
    """Whether the fact answers the question (its shape: "Who works at Acme Corp?" ~ "<person> works at Acme Corp")."""
    for form, pattern in _ANSWERS:
        if m := form.fullmatch(question):
            return re.search(pattern(m), fact) is not None
    return False


def _id(*parts: Any) -> str:
    return str(uuid.uuid5(NS, "/".join(map(str, parts))))


def _when(rng: random.Random) -> dt.datetime:
    return START + dt.timedelta(minutes=rng.randrange(SPAN_DAYS * 24 * 60))


def _plan(
    group_id: str, facts: int, seed: int
) -> tuple[SyntheticGraph, list[dict], list[dict], list[dict], list[dict]]:
    rng = random.Random(seed)
    graph = SyntheticGraph(group_id, facts)
    graph.people = [
        f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]} {i}" for i in range(max(20, facts // 25))
    ]
    graph.projects = [f"PHX-{i}" for i in range(max(10, facts // 500))]
    names = {"org": ORGS, "list": LISTS, "person": graph.people, "project": graph.projects}
    entities = [
        {"uuid": _id(group_id, kind, name), "name": name, "created_at": START.isoformat()}
        for kind, group in names.items()
        for name in group
    ]
    org = lambda: ORGS[min(int(rng.paretovariate(1.2)) - 1, len(ORGS) - 1)]  # noqa: E731 - hubs: Acme, Globex, ...
    person = lambda: graph.people[int(len(graph.people) * rng.random() ** 3)]  # noqa: E731 - a few on many threads
    edges, episodes, mentions = [], [], []
    for i in range(facts):
        topic = rng.choice(TOPICS)
        roll = rng.random()
        a = person()
        if roll < 0.40:
            b = rng.choice(graph.people)
            kinds, name, fact = ("person", "person"), "SENT_TO", f"{a} sent {b} a mail about the {topic}"
        elif roll < 0.60:
            b = rng.choice(LISTS[:2]) if rng.random() < 0.7 else rng.choice(LISTS)
            kinds, name, fact = ("person", "list"), "POSTED_TO", f"{a} posted to {b} about the {topic}"
        elif roll < 0.75:
            b = rng.choice(graph.projects)
            kinds, name, fact = ("person", "project"), "DISCUSSED", f"{a} discussed {b} ({topic})"
        elif roll < 0.95:
            b = org()
            kinds, name, fact = ("person", "org"), "WORKS_AT", f"{a} works at {b}"
        else:
            a, b = org(), rng.choice(graph.people)
            kinds, name, fact = ("org", "person"), "HAS_CONTACT", f"{b} is the contact person of {a}"
        valid = _when(rng)
        ended = (
            valid + dt.timedelta(days=rng.randint(5, 300))
            if name in ("WORKS_AT", "HAS_CONTACT") and rng.random() < 0.4
            else None
        )
        episode = _id(group_id, "episode", i // 4)
        if i % 4 == 0:
            episodes.append({"uuid": episode, "name": f"<bench-{i // 4}@mail>", "at": valid.isoformat()})
        source, target = _id(group_id, kinds[0], a), _id(group_id, kinds[1], b)
        for hub in (a, b):
            graph.hub_degree[hub] = graph.hub_degree.get(hub, 0) + 1
        edges.append(
            {
                "uuid": _id(group_id, "fact", i),
                "s": source,
                "o": target,
                "name": name,
                "fact": fact,
                "episode": episode,
                "valid_at": valid.isoformat(),
                "created_at": valid.isoformat(),
                "invalid_at": ended.isoformat() if ended else None,
                "expired_at": ended.isoformat() if ended else None,
            }
        )
        mentions.append({"uuid": _id(group_id, "mention", i), "e": episode, "n": source, "at": valid.isoformat()})
    return graph, entities, edges, episodes, mentions


def _statements(provider: GraphProvider, dim: int) -> dict[str, str]:
    neo4j = provider == GraphProvider.NEO4J
    vec = (
        f"[x IN range(1, {int(dim)}) | rand() - 0.5]"
        if neo4j
        else f"vecf32([x IN range(1, {int(dim)}) | rand() - 0.5])"
    )
    t = (lambda v: f"datetime({v})") if neo4j else (lambda v: v)
    return {
        "entities": f"UNWIND $rows AS r CREATE (:Entity {{uuid: r.uuid, name: r.name, group_id: $g, summary: '', "
        f"created_at: {t('r.created_at')}, name_embedding: {vec}}})",
        "episodes": f"UNWIND $rows AS r CREATE (:Episodic {{uuid: r.uuid, name: r.name, group_id: $g, "
        f"source: 'message', source_description: 'synthetic mail', content: '', entity_edges: [], "
        f"created_at: {t('r.at')}, valid_at: {t('r.at')}}})",
        "edges": f"UNWIND $rows AS r MATCH (a:Entity {{uuid: r.s}}) MATCH (b:Entity {{uuid: r.o}}) "
        f"CREATE (a)-[e:RELATES_TO {{uuid: r.uuid, name: r.name, fact: r.fact, group_id: $g, "
        f"episodes: [r.episode], created_at: {t('r.created_at')}, valid_at: {t('r.valid_at')}, "
        f"fact_embedding: {vec}}}]->(b) "
        f"SET e.invalid_at = {t('r.invalid_at')}, e.expired_at = {t('r.expired_at')}",
        "mentions": "UNWIND $rows AS r MATCH (e:Episodic {uuid: r.e}) MATCH (n:Entity {uuid: r.n}) "
        f"CREATE (e)-[:MENTIONS {{uuid: r.uuid, group_id: $g, created_at: {t('r.at')}}}]->(n)",
    }


def planned(group_id: str, facts: int, seed: int = 5) -> SyntheticGraph:
    """The graph write_synthetic writes with these arguments (people, projects, hubs), without writing it: the
    questions of a kept graph (bench/search_bench.py --keep)."""
    return _plan(group_id, facts, seed)[0]


async def written_facts(writer: Any, group_id: str) -> int:
    """How many facts the group holds (0 for a new group): a kept graph of the asked size is not written again."""
    rows = await writer.backend.query(group_id, "MATCH ()-[e:RELATES_TO]->() RETURN count(e) AS n")
    return int(rows[0]["n"]) if rows else 0


async def write_synthetic(
    writer: Any, group_id: str, facts: int, seed: int = 5, ef_construction: int | None = None
) -> SyntheticGraph:
    """Write the graph into the group (prepared by the writer's backend: graphiti's and search's indexes), as a bulk
    backfill would: UNWIND batches, the vector indexes dropped during the load and built once after it."""
    from graph.pins import SCHEMA_VERSION, graphiti_version
    from graph.search_indexes import drop_vector_indexes
    from graph.write.structured_writes import MERGE_META

    graph, entities, edges, episodes, mentions = _plan(group_id, facts, seed)
    driver = await writer.backend.driver(group_id)
    dim = int(writer.config.embedding_dim)
    statements = _statements(driver.provider, dim)
    await drop_vector_indexes(driver, group_id, dim)  # built once after the load: ~3x faster
    for key, rows in (("entities", entities), ("episodes", episodes), ("edges", edges), ("mentions", mentions)):
        t = time.perf_counter()
        for start in range(0, len(rows), BATCH):
            await writer.backend.query(group_id, statements[key], rows=rows[start : start + BATCH], g=group_id)
        print(f"  wrote {len(rows):,} {key} in {time.perf_counter() - t:.1f} s", flush=True)
    meta = MERGE_META.replace("$group_id", "$g")  # backend.query's first argument is already called group_id
    await writer.backend.query(
        group_id,
        meta,
        g=group_id,
        embedder=writer.embedder_name,
        dim=dim,
        now=dt.datetime.now(UTC),
        schema_version=SCHEMA_VERSION,
        graphiti_version=graphiti_version(),
    )
    await build_indexes(writer, group_id, ef_construction)
    return graph


async def build_indexes(writer: Any, group_id: str, ef_construction: int | None = None) -> None:
    """The vector indexes, created if missing, and every index online (a restarted FalkorDB rebuilds them).

    ef_construction (FalkorDB): the HNSW build breadth instead of the server's default (200), for a graph too large to
    index in the bench's time (1M random vectors: the build dominates the load). Queries still search with the
    production efRuntime; a narrower build costs recall, not query time."""
    from graph.connection import is_neo4j
    from graph.search_indexes import FALKOR_EF_RUNTIME, VECTOR_TARGETS, await_indexes, ensure_vector_indexes

    driver = await writer.backend.driver(group_id)
    dim = int(writer.config.embedding_dim)
    t = time.perf_counter()
    if ef_construction and not is_neo4j(driver):
        for pattern, var, prop in VECTOR_TARGETS:
            try:
                await driver.client.select_graph(group_id).query(
                    f"CREATE VECTOR INDEX FOR {pattern} ON ({var}.{prop}) OPTIONS {{dimension: {dim}, "
                    f"similarityFunction: 'cosine', efRuntime: {FALKOR_EF_RUNTIME}, "
                    f"efConstruction: {int(ef_construction)}}}"
                )
            except Exception as exc:  # a kept graph's index
                if "already indexed" not in str(exc).lower():
                    raise
    created = await ensure_vector_indexes(driver, group_id, dim)
    await await_indexes(driver, group_id)
    print(f"  indexes online in {time.perf_counter() - t:.1f} s (created: {', '.join(created) or 'none'})", flush=True)
