"""The pure rules behind --known-at and history: an edge's version at a transaction time (with revisions, and for edges
written before revisions were kept), the literal held-at predicate, the version stamps, and choosing a subject."""

import datetime as dt

import pytest

from graph.config import EmbedderMismatch
from graph.known_at import EdgeClock, format_revision, held_at, known_match, next_revisions, parse_revisions
from graph.pins import GraphStamp, SchemaMismatch, check_stamp
from graph.read.history import AmbiguousSubject, Subject, choose_subject, relation_matches

UTC = dt.UTC
JAN, MAR, APR, MAY, JUN, JUL = (dt.datetime(2026, m, 1, tzinfo=UTC) for m in (1, 3, 4, 5, 6, 7))


def test_legacy_edge_without_revisions_follows_the_literal_predicate_and_says_when_it_cannot_tell():
    # given an edge recorded in January, ended (at April) by a fact the graph learned in June, no revisions kept
    edge = EdgeClock(created_at=JAN, valid_at=JAN, invalid_at=APR, expired_at=JUN)
    # then it was held from its creation until its expiry, and not before or after
    assert [held_at(edge, t) for t in (JAN - dt.timedelta(days=1), JAN, MAY, JUN, JUL)] == [
        False,
        True,
        True,
        False,
        False,
    ]
    # and in May its end as known then is not recorded: shown open, marked inexact
    may = known_match(edge, MAY, as_of=MAY)
    assert may is not None and may.invalid_at is None and may.exact is False
    # and from June on the graph shows exactly what it holds now
    jul = known_match(edge, JUL, as_of=MAR)
    assert jul is not None and jul.invalid_at == APR and jul.exact is True
    assert known_match(edge, JUL) is None  # no longer held
    assert known_match(edge, JUL, as_of=MAY) is None  # ended in April as known in July


def test_revisions_give_the_end_as_known_at_each_moment():
    revisions = next_revisions(None, now=JAN, invalid_at=None, expired_at=None, created=True)
    revisions = next_revisions(revisions, now=MAR, invalid_at=MAY, expired_at=MAR, created=False)
    assert next_revisions(revisions, now=APR, invalid_at=MAY, expired_at=MAR, created=False) == revisions  # rerun
    revisions = next_revisions(revisions, now=JUN, invalid_at=APR, expired_at=JUN, created=False)
    edge = EdgeClock(
        created_at=JAN, valid_at=JAN, invalid_at=APR, expired_at=JUN, revisions=parse_revisions(revisions + ["garbage"])
    )
    assert [known_match(edge, t, as_of=APR) is not None for t in (JAN, MAR, JUN)] == [True, True, False]
    assert known_match(edge, APR, as_of=JAN).invalid_at == MAY
    assert held_at(edge, dt.datetime(2026, 2, 1, tzinfo=UTC)) and not held_at(edge, APR)
    assert format_revision(JAN, None, None) == "2026-01-01T00:00:00+00:00||"


def test_stamp_rules():
    ok = GraphStamp(embedder="e", embedding_dim=384, schema_version="1.1", graphiti_version="0.31.2")
    assert check_stamp(ok, "g", embedder="e", dim=384, graphiti="0.31.2") == []
    with pytest.raises(EmbedderMismatch, match="384-d"):
        check_stamp(ok, "g", embedder="e", dim=768, graphiti="0.31.2")
    with pytest.raises(SchemaMismatch):
        check_stamp(ok, "g", embedder="e", dim=384, schema_version="2.0", graphiti="0.31.2")
    [minor, other] = check_stamp(
        ok.model_copy(update={"schema_version": "1.0", "graphiti_version": "0.30.0"}),
        "g",
        embedder="e",
        dim=384,
        graphiti="0.31.2",
    )
    assert "1.0" in minor and "1.1" in minor and "0.30.0" in other and "0.31.2" in other
    assert "docs/operations.md" in other


SUBJECTS = [
    Subject(uuid="1", name="Acme Corp", key="org:acme.example"),
    Subject(uuid="2", name="Acme Labs", key="org:acmelabs.example"),
    Subject(uuid="3", name="ACME-7 Fix login", key="jira:issue:ACME-7"),
]


def test_choose_subject_exact_then_unique_part_else_candidates():
    assert choose_subject("org:acme.example", SUBJECTS).uuid == "1"
    assert choose_subject("acme labs", SUBJECTS).uuid == "2"
    assert choose_subject("ACME-7", SUBJECTS).uuid == "3"
    with pytest.raises(AmbiguousSubject) as caught:
        choose_subject("acme", SUBJECTS)
    assert {c.uuid for c in caught.value.candidates} == {"1", "2", "3"}
    with pytest.raises(AmbiguousSubject, match="no subject with single-valued facts is 'Globex'; candidates: none"):
        choose_subject("Globex", SUBJECTS)


def test_relation_words():
    assert relation_matches("HAS_CONTACT", "HAS_CONTACT") and relation_matches("contact", "HAS_CONTACT")
    assert relation_matches("assignee", "ASSIGNED_TO") and relation_matches("owner", "OWNED_BY")
    assert relation_matches("stage", "IN_STAGE") and not relation_matches("status", "HAS_CONTACT")
