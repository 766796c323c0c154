"""Long content is cut before extraction: graphiti sends an episode's whole body (plus up to 10 previous episodes) in
every extraction prompt and does no chunking itself, so a 50-page Confluence export would blow the context and the
budget. Chunks break at paragraph, then sentence, then word boundaries; each gets a uuid derived from the episode id,
so a rerun writes the same chunk episodes."""

import re
import uuid

from pydantic import BaseModel

CHUNK_NAMESPACE = uuid.UUID("0d9d3c55-7d1e-5f0b-a7f4-4b8e2f61c0aa")
_BREAKS = [re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+")]


class Chunk(BaseModel):
    index: int
    count: int
    uuid: str
    text: str


def chunk_uuid(episode_id: str, index: int, count: int) -> str:
    """The episode's own id when it is not split (one episode, one graph node); derived ids for the parts."""
    if count <= 1:
        return episode_id
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{episode_id}\x1f{index}"))


def _cut(text: str, limit: int) -> int:
    """Where to end a piece of at most `limit` chars: the last paragraph/sentence/word break past half of it."""
    window = text[:limit]
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(window) if m.end() >= limit // 2]
        if ends:
            return ends[-1]
    return limit


def split_text(text: str, max_chars: int, overlap: int = 0) -> list[str]:
    if max_chars <= 0:
        raise ValueError("max_chars must be positive")
    overlap = max(0, min(overlap, max_chars // 4))
    text = text.strip()
    if len(text) <= max_chars:
        return [text]
    pieces = []
    start = 0
    while start < len(text):
        if len(text) - start <= max_chars:
            pieces.append(text[start:].strip())
            break
        end = start + _cut(text[start:], max_chars)
        pieces.append(text[start:end].strip())
        nxt = end - overlap
        if overlap:
            # start the overlap at a word boundary
            space = text.find(" ", nxt, end)
            nxt = space + 1 if space != -1 else nxt
        start = max(nxt, start + 1)
    return [p for p in pieces if p]


def chunk_episode(episode_id: str, content: str, max_chars: int, overlap: int = 0) -> list[Chunk]:
    pieces = split_text(content, max_chars, overlap)
    n = len(pieces)
    return [Chunk(index=i, count=n, uuid=chunk_uuid(episode_id, i, n), text=p) for i, p in enumerate(pieces)]
