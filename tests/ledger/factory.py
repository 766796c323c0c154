"""Episodes for ledger tests: built through the real Episode model, ids derived as the pipeline derives them."""

import datetime as dt

from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor

DAY = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)


def make_episode(
    source: str,
    key: str,
    *,
    fingerprint: str | None = None,
    at: dt.datetime | None = None,
    version: str = "1",
    group_id: str = "acme",
    duplicate_keys: list[str] | None = None,
    content: str = "Budget approved for Q3.",
    kind: str = "email",
    thread: str | None = None,
) -> Episode:
    when = at or DAY
    return Episode(
        id=episode_id(source, key, version),
        group_id=group_id,
        timestamp=when,
        source=source,
        actor=Actor(type="human", id="ann@example.com", name="Ann"),
        intent="decision",
        intent_confidence=0.9,
        content=content,
        metadata=EpisodeMetadata(
            source_key=key,
            kind=kind,
            thread_key=thread,
            version=version,
            occurred_at=when,
            updated_at=when,
            duplicate_keys=duplicate_keys or [],
        ),
        fingerprint=fingerprint or f"fp-{source}-{key}",
    )


def many(source: str, n: int, *, start: dt.datetime = DAY) -> list[Episode]:
    """n distinct episodes one minute apart (so claim order is known)."""
    return [make_episode(source, f"{source}-{i:05d}", at=start + dt.timedelta(minutes=i)) for i in range(n)]
