"""FalkorDB's full-text step over a large group: the question's words required together first, then fewer.

FalkorDB's `db.idx.fulltext.queryRelationships` has no top-k: it yields every match, and the step scored and sorted
them all. A hub word ("about", a large customer's name, a busy sender's first name) matches a share of every fact, so
the step grew with the graph (~2 us per match: 280 ms for the 71k matches of one question at 100k facts). When the
words match more than FULLTEXT_SCAN facts together, the step asks for the facts that contain *all* the words present
first (an intersection, cheap in the index), then all but the most common one, and so on, the words no longer
required still scoring as optional terms (`~word`); the facts of a stricter stage rank before those of a looser one;
the last stage is the plain OR, so a fact that shares any word can still come. Each stage reads at most FULLTEXT_SCAN
matches that pass the filters. Below FULLTEXT_SCAN matches together the step is the exact query as before.

The order is not the exact query's: RediSearch's default scorer can put a fact with two of the words repeated in many
facts ("<hub person> works at Wayne Enterprises") before one holding all of them ("<x> is the contact person of Wayne
Enterprises"). Measured on the synthetic 100k graph (docs/capacity.md "Search at 1M facts"): facts answering the
question in the step's top 10, 56 exact -> 156 staged of 200.
"""

import datetime as dt
import re
from typing import Any

# Matches one full-text query reads at most once the words match more facts than this together (None: always the
# exact query, without counting: bench/search_bench.py --fulltext-exact, the before of a comparison).
FULLTEXT_SCAN: int | None = 1000


# Relation names the index's `name` field holds as one token each (RediSearch does not split at "_").
_RELATION_TOKEN = re.compile(r"[A-Za-z0-9_]+")


def relation_scope(names: list[str] | None) -> str:
    """A RediSearch clause keeping the facts of these relations, '' for every fact. A narrowed search (the relations
    a question names, graph/read/search.py) filtered them in Cypher only, after the index call: the ladder then read
    every match of the question's words to find the few of the relation (0.1-0.2 s at 100k facts). graphiti's
    RELATES_TO full-text index covers e.name, so the index intersects instead; the Cypher filter stays (exactness)."""
    if not names or not all(_RELATION_TOKEN.fullmatch(n) for n in names):
        return ""
    return "@name:(" + " | ".join(n.lower() for n in names) + ") "


def falkor_words(text: str) -> list[str]:
    """The words of a query built by fulltext.falkor_fulltext_query without a group filter: `(w1 | w2 | ...)`."""
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    return list(dict.fromkeys(w.strip() for w in inner.split("|") if w.strip()))


def ladder(words_by_count: list[str]) -> list[str]:
    """RediSearch queries, strictest first: every word required, then the most common dropped to optional, ...;
    last the plain OR. words_by_count: the words that match anything, rarest first."""
    stages = []
    for n in range(len(words_by_count), 0, -1):
        required, optional = words_by_count[:n], words_by_count[n:]
        stages.append(" ".join(required) + "".join(f" ~{w}" for w in optional))
    if len(words_by_count) > 1:
        stages.append("(" + " | ".join(words_by_count) + ")")
    return stages


async def term_counts(steps: Any, words: list[str], scan: int, scope: str = "") -> dict[str, int]:
    """How many facts (of the scope's relations) each word matches, counted up to scan + 1 (the index stops there:
    a few ms)."""
    if not words:
        return {}
    rows = await steps.rows(
        "UNWIND $words AS t CALL { WITH t CALL db.idx.fulltext.queryRelationships('RELATES_TO', $scope + t) "
        "YIELD relationship AS e WITH e LIMIT $cap RETURN count(e) AS n } RETURN t AS word, n",
        words=words,
        cap=scan + 1,
        scope=scope,
    )
    return {r["word"]: int(r["n"]) for r in rows}


async def edge_fulltext(steps: Any, text: str, pool: int, moment: dt.datetime | None, holds: str) -> list[Any]:
    """The full-text candidates (Edge rows, best first) on FalkorDB; `holds` is the as-of condition or 'true'."""
    from graph.read.search_steps import Edge

    extra = {"at": steps.at(moment)} if moment is not None else {}
    scan = FULLTEXT_SCAN
    scope = relation_scope(steps.names) if scan is not None else ""
    words = falkor_words(text)
    counts = await term_counts(steps, words, scan, scope) if scan is not None else {}
    if scan is None or sum(counts.values()) <= scan:
        return [Edge.from_row(r) for r in await _query(steps, scope + text.strip(), pool, holds, None, extra)]
    present = sorted((w for w in words if counts.get(w)), key=lambda w: counts[w])
    found: dict[str, Any] = {}
    for query in ladder(present):
        for row in await _query(steps, scope + query, pool, holds, scan, extra):
            found.setdefault(row["uuid"], Edge.from_row(row))
        if len(found) >= pool:
            break
    return list(found.values())[:pool]


async def _query(
    steps: Any, query: str, pool: int, holds: str, scan: int | None, extra: dict[str, Any]
) -> list[dict[str, Any]]:
    bounded = " LIMIT $scan" if scan is not None else ""
    return await steps.rows(
        "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $q) YIELD relationship AS e, score "
        f"WITH e, score WHERE {holds} AND {steps._edges('e')} WITH e, score{bounded} "
        "WITH e, score ORDER BY score DESC LIMIT $k "
        f"WITH e, score, startNode(e) AS s, endNode(e) AS o RETURN {steps.columns} ORDER BY score DESC",
        q=query,
        k=pool,
        **({"scan": scan} if scan is not None else {}),
        **extra,
    )
