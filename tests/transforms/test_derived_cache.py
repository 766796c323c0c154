"""The same message copied into several archives is classified once per run, and its copies get the episode they
would have got alone (transforms.build's per-input cache, issue 13)."""

import datetime as dt

from ground.records import Actor, SourceRecord
from transforms import build
from transforms.build import EpisodeSettings, build_episodes
from transforms.references import ReferenceConfig

WHEN = dt.datetime(2026, 5, 4, tzinfo=dt.UTC)
BODIES = (
    "Could you send the signed contract for ACME-12 by Friday?\n\nOn Mon, Ada wrote:\n> old text",
    "I will deploy the fix to staging tomorrow.\n\n-- \nBob\nbob@example.com",
    "FYI the release notes are on https://example.com/notes",
)


class CountingIntent:
    """Answers by text length and remembers every text it was asked about."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def predict(self, texts, languages=None, threshold=0.5, **inputs):
        self.seen.extend(texts)
        return [("request" if len(t) % 2 else "inform", round(len(t) / 1000, 4)) for t in texts]


def mail(i: int) -> SourceRecord:
    return SourceRecord(
        source="email",
        kind="email",
        source_key=f"<m{i}@example.com>",
        title="Contract",
        body=BODIES[i % len(BODIES)],
        actor=Actor(id=f"user{i}@example.com"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )


def settings(batch_size: int) -> EpisodeSettings:
    return EpisodeSettings(batch_size=batch_size, references=ReferenceConfig(ner=False))


def test_copies_of_a_message_are_derived_once_and_equal_the_episode_built_alone():
    # given 30 mails with only three distinct texts, spread over batches of 4
    records = [mail(i) for i in range(30)]
    classifier = CountingIntent()
    # when they become episodes in one run
    episodes = list(build_episodes(records, classifier, settings(4)))
    # then each distinct text reached the classifier once
    assert len(classifier.seen) == len(BODIES)
    # and every episode equals the one its record gives when built on its own
    alone = [next(build_episodes([r], CountingIntent(), settings(4))) for r in records]
    assert [e.model_dump_json() for e in episodes] == [e.model_dump_json() for e in alone]


def test_a_cache_bounded_to_one_entry_still_gives_the_same_episodes(monkeypatch):
    # given the cache limited to one entry (every batch but the copies inside it derived again)
    records = [mail(i) for i in range(12)]
    unbounded = list(build_episodes(records, CountingIntent(), settings(2)))
    monkeypatch.setattr(build, "DERIVED_CACHE", 1)
    classifier = CountingIntent()
    # when the same records are built
    bounded = list(build_episodes(records, classifier, settings(2)))
    # then the episodes are unchanged and the texts were derived more than once
    assert [e.model_dump_json() for e in bounded] == [e.model_dump_json() for e in unbounded]
    assert len(classifier.seen) > len(BODIES)
