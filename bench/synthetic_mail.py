"""Synthetic mails for the graph write benches: people on threads across four domains (no path set-up here, so a
worker can import it under whichever code tree is first on sys.path, main's or a branch's)."""

import datetime as dt
import random

from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor, Participant

UTC = dt.UTC
FIRST = ["Dana", "Tom", "Priya", "Lee", "Ana", "Omar", "Mei", "Jonas", "Sara", "Ravi", "Ines", "Kofi"]
LAST = ["Whitfield", "Berger", "Nair", "Park", "Silva", "Haddad", "Chen", "Vogel", "Ruiz", "Iyer"]
DOMAINS = ["acme.example", "globex.example", "initech.example", "umbrella.example"]
TOPICS = ["Q2 budget", "release plan", "renewal terms", "incident review", "hiring", "roadmap", "pricing", "audit"]


def synthetic_episodes(n: int, group_id: str, seed: int = 7) -> list[Episode]:
    rng = random.Random(seed)
    people = [(f"{f} {last}", f"{f.lower()}.{last.lower()}@{rng.choice(DOMAINS)}") for f in FIRST for last in LAST]
    start = dt.datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        name, email = rng.choice(people)
        to = rng.sample(people, rng.randint(1, 3))
        when = start + dt.timedelta(minutes=37 * i)
        topic = rng.choice(TOPICS)
        key = f"<bench-{i}@{email.split('@')[1]}>"
        out.append(
            Episode(
                id=episode_id("email", key, "1"),
                group_id=group_id,
                timestamp=when,
                source="email",
                actor=Actor(type="human", id=email, name=name, email=email),
                intent="fyi",
                intent_confidence=0.5,
                content=f"{topic}: update {i} from {name}.",
                fingerprint=f"fp-{i}",
                references=[f"jira:PHX-{rng.randint(1, 300)}"] if rng.random() < 0.3 else [],
                metadata=EpisodeMetadata(
                    source_key=key,
                    kind="email",
                    version="1",
                    title=topic,
                    occurred_at=when,
                    updated_at=when,
                    parent_key=f"<bench-{i - 1}@x>" if i and rng.random() < 0.4 else None,
                    participants=[Participant(role="to", actor=Actor(id=e, name=nm, email=e)) for nm, e in to],
                ),
            )
        )
    return out
