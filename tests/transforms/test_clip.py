"""The maximum text size: long texts are cut, and every cut is noted in the episode metadata (issue 14, item 3)."""

import datetime as dt

from ground.records import Actor, SourceRecord
from transforms.build import EpisodeSettings, build_episodes
from transforms.references import ReferenceConfig

WHEN = dt.datetime(2026, 5, 4, tzinfo=dt.UTC)


class OneIntent:
    def predict(self, texts, languages=None, threshold=0.5, **inputs):
        return [("inform", 0.9) for _ in texts]


def record(body: str, title: str = "Status", **fields) -> SourceRecord:
    return SourceRecord(
        source="jira",
        kind="issue",
        source_key="HOST-1",
        title=title,
        body=body,
        actor=Actor(id="ada@example.com"),
        occurred_at=WHEN,
        updated_at=WHEN,
        fields=fields,
    )


def build(rec: SourceRecord, limit: int):
    settings = EpisodeSettings(max_text_chars=limit, references=ReferenceConfig(ner=False))
    return list(build_episodes([rec], OneIntent(), settings))


def test_a_body_over_the_limit_is_cut_and_the_cut_is_noted():
    # given a record whose body and one field string are longer than the limit
    rec = record("word " * 2_000, summary="x" * 5_000)
    # when it becomes an episode with a 1,000-character limit
    [episode] = build(rec, 1_000)
    # then the content holds at most the title and 1,000 body characters, and the metadata says what was cut
    assert len(episode.content) <= len("Status\n\n") + 1_000
    assert any(n.startswith("body truncated from 10,000 to 1,000 characters") for n in episode.metadata.truncated)
    assert any(n.startswith("fields.summary truncated from 5,000") for n in episode.metadata.truncated)
    assert len(episode.metadata.fields["summary"]) == 1_000


def test_a_text_within_the_limit_is_kept_whole_with_no_note():
    [episode] = build(record("short body"), 1_000)
    assert episode.content == "Status\n\nshort body"
    assert episode.metadata.truncated == []
