"""mbox splitting and loop-safe thread resolution."""

import datetime as dt
import io

from connectors.email.mbox_scan import iter_mbox
from connectors.email.threads import thread_roots
from ground.records import Actor, SourceRecord


def test_mbox_split_offsets_unquoting_and_body_from_lines():
    data = (
        b"From a Mon Jan  2 09:00:00 2023\nSubject: one\n\nbody\nFrom the start, not a separator\n"
        b">From quoted\n>>From twice\n\n"
        b"From b Mon Jan  2 10:00:00 2023\r\nSubject: two\r\n\r\nsecond\r\n"
    )
    messages = list(iter_mbox(io.BytesIO(data)))
    assert [m.index for m in messages] == [0, 1]
    assert messages[0].offset == 0
    assert messages[1].offset == data.index(b"From b")
    assert messages[0].data == (b"Subject: one\n\nbody\nFrom the start, not a separator\nFrom quoted\n>From twice\n")
    assert messages[1].from_line == "b Mon Jan  2 10:00:00 2023"
    assert messages[1].data.endswith(b"second\r\n")


def test_mbox_without_separator_is_one_message_and_blank_stream_is_none():
    assert [m.data for m in iter_mbox(io.BytesIO(b"Subject: x\n\nhi\n"))] == [b"Subject: x\n\nhi\n"]
    assert list(iter_mbox(io.BytesIO(b"\n\n"))) == []


def _record(key: str, parent: str | None) -> SourceRecord:
    moment = dt.datetime(2023, 1, 1, tzinfo=dt.UTC)
    return SourceRecord(
        source="email",
        kind="email",
        source_key=key,
        actor=Actor(id="a@example.com"),
        occurred_at=moment,
        updated_at=moment,
        parent_key=parent,
    )


def test_thread_roots_follow_parents_and_survive_cycles():
    records = [
        _record("<a>", None),
        _record("<b>", "<a>"),
        _record("<c>", "<b>"),
        _record("<x>", "<y>"),
        _record("<y>", "<z>"),
        _record("<z>", "<x>"),  # a cycle
        _record("<self>", "<self>"),
        _record("<orphan>", "<not-here>"),
    ]
    roots = thread_roots(records)
    assert roots["<c>"] == roots["<b>"] == roots["<a>"] == "<a>"
    assert roots["<x>"] == roots["<y>"] == roots["<z>"] == "<x>"
    assert roots["<self>"] == "<self>"
    assert roots["<orphan>"] == "<orphan>"
