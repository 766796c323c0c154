"""Thread roots over a set of records, following parent_key links inside the set.

Header-only threading (thread_key = first References id) is what records carry; this helper is for callers
that hold a batch and want the oldest *present* ancestor. It is loop-safe: every walk stops at a key it has
already visited, so a References/In-Reply-To cycle (or a message answering itself) cannot hang it.
"""

from collections.abc import Iterable

from ground.records import SourceRecord


def thread_roots(records: Iterable[SourceRecord]) -> dict[str, str]:
    """source_key -> root key. A root is the first ancestor with no known parent; in a cycle, the smallest key."""
    parents = {r.source_key: r.parent_key for r in records}
    roots: dict[str, str] = {}
    for key in parents:
        path: list[str] = []
        seen: set[str] = set()
        current = key
        while current in parents and current not in seen and current not in roots:
            seen.add(current)
            path.append(current)
            parent = parents[current]
            if parent is None or parent not in parents:
                break
            current = parent
        if current in roots:
            root = roots[current]
        elif current in seen and parents.get(path[-1]) in seen:
            cycle_start = path.index(parents[path[-1]])
            root = min(path[cycle_start:])
        else:
            root = path[-1]
        for visited in path:
            roots[visited] = root
    return roots
