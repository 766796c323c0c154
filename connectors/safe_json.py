"""Third-party JSON, read defensively: one loader for every reader and typed access that names the field path.

Why: `json.loads` raises RecursionError (not ValueError) on deeply nested input, and every recursive walker after it
(ADF, user and content finders, flatteners) would hit the same limit; a document deeper than MAX_JSON_DEPTH is
refused as a whole, so nothing downstream ever recurses further. A field of the wrong type (`issuelinks: 7`) is a
FieldTypeError naming its path, which the readers turn into a RecordFailure for that one record.
"""

import json
import os
from typing import Any

MAX_JSON_DEPTH = int(os.environ.get("GRAPHFEED_MAX_JSON_DEPTH", "256"))  # real exports stay far below (ADF ~30)


class JsonInputError(ValueError):
    """The bytes are JSON we refuse to read (too deep); a ValueError, so `except ValueError` handlers catch it."""


class FieldTypeError(TypeError):
    """A field of third-party JSON has a type its reader cannot use."""

    def __init__(self, path: str, expected: str, value: Any):
        self.path = path
        super().__init__(f"field {path}: expected {expected}, got {json_type(value)}")


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"a number ({value!r:.40})"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def depth_over(value: Any, limit: int) -> bool:
    """True when containers nest deeper than `limit` (iterative: the check itself cannot recurse)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values() if isinstance(child, (dict, list)))
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return False


def load_json(data: str | bytes, max_depth: int | None = None) -> Any:
    """json.loads that fails with a ValueError (JsonInputError) on nesting too deep to parse or to walk."""
    limit = MAX_JSON_DEPTH if max_depth is None else max_depth
    try:
        value = json.loads(data)
    except RecursionError:
        raise JsonInputError(f"nested deeper than the JSON parser allows (over {limit} levels is refused)") from None
    if depth_over(value, limit):
        raise JsonInputError(f"nested more than {limit} levels deep (GRAPHFEED_MAX_JSON_DEPTH)")
    return value


def field_error(exc: Exception) -> str:
    """One line for a wrong-typed value: the field a pydantic model refused, else the exception's own words."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            return f"field {where}: {first.get('msg')} (got {json_type(first.get('input'))})"
        except (TypeError, IndexError, KeyError, AttributeError):
            pass
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def as_list(value: Any, path: str) -> list:
    """A JSON array field: null/missing is empty, anything else but a list is a FieldTypeError naming `path`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldTypeError(path, "a list", value)
    return value


def as_dict(value: Any, path: str) -> dict:
    """A JSON object field: null/missing is empty, anything else but an object is a FieldTypeError naming `path`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FieldTypeError(path, "an object", value)
    return value
