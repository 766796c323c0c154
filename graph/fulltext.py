"""Full-text query strings as graphiti 0.31.2 builds them (RediSearch on FalkorDB, Lucene on Neo4j), without importing
graphiti_core: readers use them on every search, and tests/graph/test_fulltext.py pins them to graphiti's own output."""

import re

MAX_QUERY_LENGTH = 128
# graphiti's FalkorDB stop-words (graphiti_core/driver/falkordb/__init__.py).
FALKOR_STOPWORDS = frozenset(
    "a is the an and are as at be but by for if in into it no not of on or such that their then there these they "
    "this to was will with".split()
)
# FalkorDB separator characters that break text into tokens: replaced by spaces.
_FALKOR_SEPARATORS = str.maketrans({c: " " for c in ",.<>{}[]\"':;!@#$%^&*()-+=~?|/\\`"})
# Lucene's special characters, escaped; graphiti also escapes the capitals of AND/OR/NOT.
_LUCENE_ESCAPES = str.maketrans({c: "\\" + c for c in '+-&|!(){}[]^"~*?:\\/ORNTAD'})


def falkor_fulltext_query(query: str, group_ids: list[str] | None = None) -> str:
    """Words (stop-words dropped) OR-ed, optionally under a group filter; '' when nothing is left or it is too long."""
    group_filter = ""
    if group_ids:
        escaped = ['"' + re.sub(r"([^a-zA-Z0-9])", r"\\\1", g) + '"' for g in group_ids]
        group_filter = f"(@group_id:{'|'.join(escaped)})"
    words = [
        w for w in " ".join(query.translate(_FALKOR_SEPARATORS).split()).split() if w.lower() not in FALKOR_STOPWORDS
    ]
    if not words:
        return ""
    joined = " | ".join(words)
    if len(joined.split(" ")) + len(group_ids or []) >= MAX_QUERY_LENGTH:
        return ""
    return f"{group_filter} ({joined})"


def lucene_fulltext_query(query: str, group_ids: list[str] | None = None) -> str:
    """graphiti's Neo4j query: `group_id:"g" AND (escaped words)`; '' when too long."""
    groups = " OR ".join(f'group_id:"{g}"' for g in group_ids or [])
    sanitized = query.translate(_LUCENE_ESCAPES)
    if len(sanitized.split(" ")) + len(group_ids or "") >= MAX_QUERY_LENGTH:
        return ""
    return (groups + " AND " if groups else "") + "(" + sanitized + ")"
