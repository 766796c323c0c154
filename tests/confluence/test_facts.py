"""Confluence facts: the charter's owner changes on 2026-06-10 (Dana Whitfield -> Priya Raman) as one OWNED_BY slot."""

import datetime as dt
from pathlib import Path

import pytest

from connectors.confluence import ConfluenceExportReader
from connectors.confluence.facts import confluence_facts
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode
from transforms.facts import slot_key

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "exports" / "confluence" / "ACME-xml-export.zip"
UTC = dt.UTC
ORGS = {"acme.example": "Acme Corp", "northwind.example": "Northwind Analytics"}


def episodes():
    records, _ = split(ConfluenceExportReader([SAMPLE]).read())
    settings = EpisodeSettings(group_id="confluence_ACME")
    return [make_episode(r, f"{r.title}\n\n{r.body}", "en", "status_update", 0.9, [], settings) for r in records]


def charter(episodes_):
    return {e.metadata.version: e for e in episodes_ if e.metadata.source_key == "131073"}


def test_each_charter_version_states_its_owner_in_one_slot():
    versions = charter(episodes())
    facts = {v: confluence_facts(e, ORGS) for v, e in versions.items()}
    owned = {v: [f for f in fs.facts if f.predicate == "OWNED_BY"] for v, fs in facts.items()}
    assert all(len(o) == 1 for o in owned.values())
    slot = slot_key("ref:confluence:page:131073", "OWNED_BY")
    assert {o[0].single_valued for o in owned.values()} == {slot}
    assert owned["1"][0].fact.startswith("Project Charter is owned by Dana Whitfield")
    assert owned["3"][0].fact.startswith("Project Charter is owned by Priya Raman")
    assert owned["3"][0].valid_at == dt.datetime(2026, 6, 10, 20, 30, tzinfo=UTC)
    predicates = {f.predicate for f in facts["3"].facts}
    assert {
        "IN_SPACE",
        "CREATED_BY",
        "LAST_EDITED_BY",
        "OWNED_BY",
        "MENTIONS_DOCUMENT",
        "MENTIONS_PERSON",
        "WORKS_AT",
    } <= predicates
    plan = [e for e in episodes() if e.metadata.source_key == "131074" and e.metadata.version == "3"][0]
    plan_facts = confluence_facts(plan, ORGS)
    part_of = [f for f in plan_facts.facts if f.predicate == "PART_OF"][0]
    assert part_of.fact == "Data Migration Plan is part of Project Charter"
    assert any(f.predicate == "HAS_ATTACHMENT" for f in plan_facts.facts)
    # deterministic
    assert [f.uuid for f in confluence_facts(versions["3"], ORGS).facts] == [f.uuid for f in facts["3"].facts]


def test_comment_facts_link_the_comment_to_its_page():
    comment = [e for e in episodes() if e.metadata.source_key == "131101"][0]
    facts = confluence_facts(comment, ORGS)
    assert {"COMMENTED", "COMMENT_ON", "MENTIONS_PERSON"} <= {f.predicate for f in facts.facts}


@pytest.mark.slow
@pytest.mark.parametrize("order", [[0, 1, 2], [2, 0, 1]])
def test_given_both_arrival_orders_then_search_answers_owner_now_and_before(order, tmp_path):
    from graph.config import GraphConfig
    from graph.sync_facade import SyncGraphReader, SyncGraphWriter

    versions = charter(episodes())
    steps = [versions["1"], versions["2"], versions["3"]]
    with SyncGraphWriter(GraphConfig(home=tmp_path, domain_orgs=ORGS), extractor=confluence_facts) as writer:
        reader = SyncGraphReader(writer)
        for i in order:
            writer.write_batch([steps[i]])
        now = reader.search("Who owns the Project Charter?", group_id="confluence_ACME", limit=10)
        before = reader.search(
            "Who owns the Project Charter?",
            group_id="confluence_ACME",
            as_of=dt.datetime(2026, 5, 1, tzinfo=UTC),
            limit=10,
        )
    now_owner = [h.fact for h in now if "is owned by" in h.fact]
    before_owner = [h.fact for h in before if "is owned by" in h.fact]
    assert now_owner and all("Priya Raman" in f for f in now_owner)
    assert before_owner and all("Dana Whitfield" in f for f in before_owner)
