"""Jira facts: the sample's ACME-12 reassignment (Michael Chen -> Li Na on 2026-04-14) is one slot with an old and a new
fact; in both arrival orders the graph ends the old one at the change time and search answers now and before."""

import copy
import datetime as dt
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from connectors.jira.facts import jira_facts
from connectors.jira.records import issue_records
from connectors.registry import episode_facts
from ground.records import Origin
from transforms.build import EpisodeSettings, make_episode
from transforms.facts import slot_key

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "exports" / "jira" / "issues" / "ACME-12.json"
UTC = dt.UTC
CHANGE = dt.datetime(2026, 4, 14, 15, tzinfo=UTC)
ORGS = {"northwind.example": "Northwind Analytics", "huaxin.example": "Huaxin Data Services"}
SLOT = slot_key("jira:issue:ACME-12", "ASSIGNED_TO")


def episode(issue: dict):
    record = next(r for r in issue_records(issue, Origin(file=str(SAMPLE))) if r.kind == "issue")
    return make_episode(record, f"{record.title}\n\n{record.body}", "en", "status_update", 0.9, [], EpisodeSettings())


def before_and_after():
    """ACME-12 as exported on 2026-04-01 (Michael assigned, no history yet) and as exported at the end."""
    after = json.loads(SAMPLE.read_text(encoding="utf-8"))
    before = copy.deepcopy(after)
    fields = before["fields"]
    fields.update(
        {
            "assignee": copy.deepcopy(fields["reporter"]),
            "status": {"name": "To Do"},
            "resolution": None,
            "priority": {"name": "High"},
            "resolutiondate": None,
            "updated": fields["created"],
        }
    )
    fields["comment"] = {"comments": []}
    before["changelog"] = {"histories": []}
    return episode(before), episode(after)


def extractor(ep, orgs):
    return jira_facts(ep, orgs) if ep.source == "jira" else episode_facts(ep, orgs)


def test_given_the_reassignment_then_both_assignees_are_facts_in_one_slot_valid_from_their_change_times():
    _, after = before_and_after()
    facts = [f for f in jira_facts(after, ORGS).facts if f.single_valued == SLOT]
    assert sorted((f.fact, f.valid_at) for f in facts) == [
        (
            "ACME-12 (Data migration from the legacy Oracle warehouse (14 TB)) is assigned to Li Na (from 2026-04-14)",
            CHANGE,
        ),
        (
            "ACME-12 (Data migration from the legacy Oracle warehouse (14 TB)) is assigned to Michael Chen (from 2026-03-10)",
            dt.datetime(2026, 3, 10, 10, 30, tzinfo=UTC),
        ),
    ]
    statuses = sorted(
        (f.valid_at.date().isoformat(), f.fact.split(" has status ")[1].split(" (")[0])
        for f in jira_facts(after, ORGS).facts
        if f.predicate == "HAS_STATUS"
    )
    assert statuses == [("2026-03-10", "To Do"), ("2026-04-14", "In Progress"), ("2026-06-26", "Done")]


def test_given_the_same_episode_twice_then_the_facts_are_identical():
    _, after = before_and_after()
    assert jira_facts(after, ORGS) == jira_facts(after, ORGS)


@pytest.mark.slow
@pytest.mark.parametrize("order", [(0, 1), (1, 0)], ids=["in-order", "out-of-order"])
def test_given_either_arrival_order_then_search_answers_who_is_assigned_now_and_before(order):
    from graph.config import GraphConfig
    from graph.sync_facade import SyncGraphReader, SyncGraphWriter

    home = Path(tempfile.mkdtemp(prefix="gfj-"))
    try:
        episodes = before_and_after()
        config = GraphConfig(backend="falkordb-embedded", home=home, domain_orgs=ORGS)
        with SyncGraphWriter(config, extractor=extractor) as writer:
            reader = SyncGraphReader(writer)
            for i in order:
                writer.write_batch([episodes[i]])
            question = "Who is ACME-12 data migration assigned to?"
            now = [h for h in reader.search(question, group_id="graphfeed", limit=10) if h.name == "ASSIGNED_TO"]
            before = [
                h
                for h in reader.search(
                    question, group_id="graphfeed", limit=10, as_of=dt.datetime(2026, 4, 1, tzinfo=UTC)
                )
                if h.name == "ASSIGNED_TO"
            ]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert now[0].object == "Li Na" and now[0].invalid_at is None and now[0].valid_at == CHANGE
    michael = next(h for h in now if h.object == "Michael Chen")
    assert michael.invalid_at == CHANGE  # ended at the change time
    assert [h.object for h in before] == ["Michael Chen"]
