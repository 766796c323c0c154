"""End to end on the bundled sample: export -> episodes -> facts -> embedded FalkorDB -> search.

"Who is Acme's contact now?" -> Priya Raman; "as of 1 May?" -> Dana Whitfield; the opportunity's stage history; both
arrival orders of the two weekly exports give the same answers.
"""

import datetime as dt
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from connectors.registry import episode_facts, traits_of
from connectors.salesforce import SalesforceExportReader
from connectors.salesforce.facts import salesforce_facts
from graph.config import GraphConfig
from graph.sync_facade import SyncGraphReader, SyncGraphWriter
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode, record_text

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
REPO = Path(__file__).resolve().parents[2]
EXPORTS = sorted((REPO / "sample" / "exports" / "salesforce").glob("*/*.ZIP"))
UTC = dt.UTC


def extractor(episode, domain_orgs):
    return (
        salesforce_facts(episode, domain_orgs)
        if episode.source == "salesforce"
        else episode_facts(episode, domain_orgs)
    )


def episodes_of(path: Path, group_id: str):
    records, _ = split(SalesforceExportReader([path]).read())
    settings = EpisodeSettings(group_id=group_id)
    return [make_episode(r, record_text(r, traits_of(r.source)), "en", "other", 1.0, [], settings) for r in records]


def test_given_the_sample_facts_then_the_contact_slot_holds_dana_then_priya():
    facts = []
    for path in EXPORTS:
        for ep in episodes_of(path, "g"):
            facts += [f for f in salesforce_facts(ep, {}).facts if f.predicate == "HAS_CONTACT"]
    assert len(EXPORTS) == 2
    by_uuid = {}
    for f in facts:  # Dana's fact comes from both snapshots: one uuid, one text
        assert by_uuid.setdefault(f.uuid, f).fact == f.fact
    assert [(f.fact.split(" is ")[0], f.valid_at) for f in sorted(by_uuid.values(), key=lambda f: f.valid_at)] == [
        ("Dana Whitfield", dt.datetime(2026, 3, 2, 16, 5, tzinfo=UTC)),
        ("Priya Raman", dt.datetime(2026, 6, 8, 14, 10, tzinfo=UTC)),
    ]
    assert len({f.single_valued for f in facts}) == 1 and facts[0].single_valued == "org:acme.example|HAS_CONTACT"


def test_given_only_the_export_after_the_flip_then_the_old_primary_role_is_a_closed_fact():
    """The role object keeps no history: the June snapshot alone still says Dana was the contact until the flip."""
    later = [ep for ep in episodes_of(EXPORTS[-1], "g")]
    facts = [f for ep in later for f in salesforce_facts(ep, {}).facts if f.predicate == "HAS_CONTACT"]
    flip = dt.datetime(2026, 6, 8, 14, 10, tzinfo=UTC)
    got = sorted((f.fact.split(" is ")[0], f.valid_at, f.invalid_at, f.single_valued) for f in facts)
    assert got == [
        ("Dana Whitfield", dt.datetime(2026, 3, 2, 16, 5, tzinfo=UTC), flip, "org:acme.example|HAS_CONTACT"),
        ("Priya Raman", flip, None, "org:acme.example|HAS_CONTACT"),
    ]
    olivia = [ep for ep in later if ep.metadata.kind == "contact_role" and ep.metadata.title.startswith("Olivia")]
    assert olivia and not [f for ep in olivia for f in salesforce_facts(ep, {}).facts if f.predicate == "HAS_CONTACT"]


@pytest.fixture
def home():
    path = Path(tempfile.mkdtemp(prefix="gfs-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def ingest_and_ask(home: Path, order: list[Path]):
    group = "sf_sample"
    with SyncGraphWriter(GraphConfig(home=home), extractor=extractor) as writer:
        reader = SyncGraphReader(writer)
        for path in order:
            writer.write_batch(episodes_of(path, group))
        ask = "Who is the primary contact of Acme Corp?"
        now = reader.search(ask, group_id=group, limit=20)
        before = reader.search(ask, group_id=group, as_of=dt.datetime(2026, 5, 1, tzinfo=UTC), limit=5)
        edge = {
            m: reader.search(ask, group_id=group, as_of=dt.datetime(2026, 6, 8, 14, m, tzinfo=UTC), limit=5)
            for m in (9, 11)
        }
        stage_q = "Acme Corp - Data Platform 2026 is in stage"
        stage_april = {
            day: reader.search(stage_q, group_id=group, as_of=dt.datetime(2026, *day, tzinfo=UTC), limit=10)
            for day in ((3, 3), (3, 10), (4, 1))
        }
        stage_now = reader.search(stage_q, group_id=group, limit=10)
    return now, before, stage_april, stage_now, edge


@pytest.mark.slow
@pytest.mark.parametrize("order", ["in_order", "reversed"])
def test_given_both_exports_when_ingested_then_search_answers_contact_now_and_before(home, order):
    paths = EXPORTS if order == "in_order" else list(reversed(EXPORTS))
    now, before, stage_april, stage_now, edge = ingest_and_ask(home, paths)
    contact_now = [h for h in now if h.name == "HAS_CONTACT"]
    assert contact_now[0].object == "Priya Raman" and contact_now[0].invalid_at is None
    assert [h.object for h in edge[9] if h.name == "HAS_CONTACT"] == ["Dana Whitfield"]  # ends at the change
    assert [h.object for h in edge[11] if h.name == "HAS_CONTACT"] == ["Priya Raman"]
    contact_before = [h for h in before if h.name == "HAS_CONTACT"]
    assert [h.object for h in contact_before] == ["Dana Whitfield"]
    stages = {day: [h.object for h in hits if h.name == "IN_STAGE"] for day, hits in stage_april.items()}
    assert stages == {(3, 3): ["Qualification"], (3, 10): ["Proposal/Price Quote"], (4, 1): ["Negotiation/Review"]}
    current = [h for h in stage_now if h.name == "IN_STAGE" and h.invalid_at is None]
    assert [h.object for h in current] == ["Closed Won"]
