"""WriteContext: what the write helpers (structured_writes.py, llm_extraction.py) use of the writer, and nothing else.

The writer builds one per batch and hands it down, so the helpers import nothing from writer.py (no import cycle)
and a helper's needs are visible in its signature. Tombstones need less still: the backend and the clock.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph.backend import GraphBackend
from graph.config import GraphConfig

if TYPE_CHECKING:
    from graph.llm.runtime import LLMRuntime


@dataclass(frozen=True)
class WriteContext:
    """The writer's parts a batch write uses.

    embedder: a graphiti EmbedderClient (create_batch); embedder_name: its identity, stamped on the group's meta
    node; session_id: groups this writer's LLM spend rows (one per run); llm: the LLM parts, present only when the
    batch has episodes of a source in "llm"/"both" mode.
    """

    config: GraphConfig
    backend: GraphBackend
    clock: Callable[[], dt.datetime]
    embedder: Any
    embedder_name: str
    session_id: str
    llm: "LLMRuntime | None" = None
