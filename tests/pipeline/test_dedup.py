"""Given episodes with repeated fingerprints, when deduplicated, then one survives per fingerprint and copies are recorded."""

import datetime as dt

from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import Actor, Origin
from transforms.dedup import dedup

T0 = dt.datetime(2026, 3, 2, 9, 15, tzinfo=dt.UTC)


def _episode(key: str, fp: str, minutes: int = 0, file: str = "a.mbox") -> Episode:
    when = T0 + dt.timedelta(minutes=minutes)
    return Episode(
        id=episode_id("email", key, "1"),
        group_id="g",
        timestamp=when,
        source="email",
        actor=Actor(type="human", id="dana@acme.example"),
        intent="other",
        intent_confidence=0.9,
        content="hello",
        fingerprint=fp,
        metadata=EpisodeMetadata(
            source_key=key,
            kind="email",
            version="1",
            occurred_at=when,
            updated_at=when,
            origin=Origin(file=file, index=0),
        ),
    )


def test_same_message_in_two_archives_becomes_one_episode_with_copy_recorded():
    eps = [_episode("<a@x>", "f1", file="b.mbox"), _episode("<a@x>", "f1", file="a.mbox"), _episode("<b@x>", "f2")]
    unique, stats = dedup(lambda: iter(eps))
    out = list(unique)
    assert [e.metadata.source_key for e in out] == ["<a@x>", "<b@x>"]
    assert stats.seen == 3 and stats.unique == 2 and stats.duplicates == 1
    assert out[0].metadata.origin.file == "a.mbox"  # canonical copy does not depend on input order
    assert out[0].metadata.duplicate_keys == ["<a@x>"]
    assert out[0].metadata.model_extra["duplicate_origins"] == ["b.mbox, item 0"]


def test_different_records_with_same_fingerprint_keep_the_earliest_and_name_the_other():
    eps = [_episode("<late@x>", "f", minutes=5), _episode("<early@x>", "f", minutes=1)]
    unique, stats = dedup(lambda: iter(eps))
    (only,) = list(unique)
    assert only.metadata.source_key == "<early@x>"
    assert only.metadata.duplicate_keys == ["<late@x>"]
    assert stats.groups == {"<early@x>": ["<late@x>"]}
    assert stats.dedup_rate == 0.5


def test_order_of_input_does_not_change_the_result():
    eps = [_episode(f"<{i}@x>", f"f{i % 3}", minutes=i) for i in range(9)]
    a = [e.id for e in dedup(lambda: iter(eps))[0]]
    b = [e.id for e in dedup(lambda: iter(list(reversed(eps))))[0]]
    assert sorted(a) == sorted(b) and len(a) == 3
