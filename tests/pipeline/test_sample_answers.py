"""Given the whole bundled sample company ingested (every source, one range run), when the graph is searched, then it
answers what held now and what held on an earlier date, each with its source episode."""

import datetime as dt

import dagster as dg
import pytest

from graph.sync_facade import SyncGraphReader
from pipelines.dagster_private import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG
from pipelines.definitions import defs
from tests.pipeline.conftest import sample_resources

BEFORE = dt.datetime(2026, 4, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def answers(module_home, model_cache):
    resources = sample_resources(module_home, model_cache)
    assets = [a for a in defs.assets if isinstance(a, dg.AssetsDefinition) and a.key.path[0] != "models"]
    result = dg.materialize(
        assets,
        resources=resources,
        tags={ASSET_PARTITION_RANGE_START_TAG: "2026-03-02", ASSET_PARTITION_RANGE_END_TAG: "2026-06-30"},
    )
    assert result.success
    with resources["graph"].writer(resources["home"].root) as writer:
        reader = SyncGraphReader(writer)

        def ask(question: str, as_of: dt.datetime | None = None):
            return reader.search(question, group_id="graphfeed", as_of=as_of, limit=3)[0]

        yield ask


@pytest.mark.slow
@pytest.mark.timeout(900)  # the fixture trains the intent ensemble (MiniLM head + textcat) before the whole sample run
@pytest.mark.parametrize(
    "question,now,before,relation,source",
    [
        ("Who is Acme's contact person?", "Priya Raman", "Dana Whitfield", "HAS_CONTACT", "salesforce"),
        ("Who is the assignee of ACME-12?", "Li Na", "Michael Chen", "ASSIGNED_TO", "jira"),
        ("Who owns the Project Charter page?", "Priya Raman", "Dana Whitfield", "OWNED_BY", "confluence"),
        ("What stage is the Acme opportunity in?", "Closed Won", "Negotiation/Review", "IN_STAGE", "salesforce"),
    ],
)
def test_the_graph_answers_now_and_before(answers, question, now, before, relation, source):
    current = answers(question)
    assert current.name == relation and now in current.fact and current.invalid_at is None
    assert current.episodes and current.episodes[0].source == source
    earlier = answers(question, as_of=BEFORE)
    assert earlier.name == relation and before in earlier.fact
    assert earlier.invalid_at is not None and earlier.invalid_at > BEFORE and earlier.episodes
