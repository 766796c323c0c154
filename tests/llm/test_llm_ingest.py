"""LLM extraction end to end: the real ingest loop (write_backlog) + ledger + SyncGraphWriter + Graphiti add_episode
+ embedded FalkorDB, against the scripted OpenAI-compatible server. Costs, budgets, failures, review, chunking."""

import datetime as dt

import pytest

from connectors.registry import fact_extractor
from flow.ingest import IngestLimits, IngestStats, write_backlog
from graph.config import GraphConfig
from graph.ledger.ledger import ledger_url_for_home
from graph.llm.store import LLMStore
from graph.sync_facade import SyncGraphWriter
from pipelines.commands import review
from tests.llm.conftest import T0, llm_config, mail

TEXTS = [
    "Alice Chen from Acme Corp confirmed the Phoenix rollout with Bob Stone.",
    "Bob Stone asked Carla Diaz to review the Northwind contract.",
    "Carla Diaz approved the Northwind contract for Acme Corp.",
]


def episodes(group_id, n=3):
    return [mail(group_id, f"<m{i}@acme.example>", TEXTS[i % len(TEXTS)], T0 + dt.timedelta(hours=i)) for i in range(n)]


def run(config, ledger, limits=None):
    stats = IngestStats()
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        write_backlog(ledger, writer, "email", limits or IngestLimits(max_cost_usd=1000.0, backoff_seconds=0), stats)
    return stats


def query(config, group_id, cypher, **params):
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        return writer.run(writer.writer.backend.query(group_id, cypher, **params))


def test_llm_mode_writes_facts_at_the_source_time_and_books_cost_per_episode(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server)
    eps = episodes(group_id)
    ledger.register(eps, partition="2026-04-01")
    stats = run(config, ledger)

    assert stats.ingested == 3 and stats.failed == stats.quarantined == 0
    assert stats.llm_calls == len(llm_server.schemas()) >= 3 * 3
    assert {"ExtractedEntities", "ExtractedEdges"} <= set(llm_server.schemas())
    assert stats.tokens_in == sum(r["prompt_tokens"] for r in llm_server.requests)
    rows = [ledger.get(e.id) for e in eps]
    assert all(r.status.value == "ingested" and r.cost_usd > 0 and r.tokens_in > 0 for r in rows)
    assert sum(r.cost_usd for r in rows) == pytest.approx(stats.cost_usd)
    assert sum(r.tokens_out for r in rows) == stats.tokens_out
    assert set(stats.llm_tokens_by_prompt) >= {"extract_nodes.extract_message", "extract_edges.edge"}
    assert len(stats.batch_costs_usd) == stats.batches

    got = query(
        config,
        group_id,
        "MATCH (e:Episodic) RETURN e.uuid AS uuid, e.valid_at AS valid_at, "
        "e.intent AS intent, e.source_system AS src ORDER BY e.valid_at",
    )
    assert [g["uuid"] for g in got] == [e.id for e in eps]  # deterministic ids, one node per episode
    assert all(g["intent"] == "decision" and g["src"] == "email" for g in got)  # our properties survive graphiti
    assert [g["valid_at"][:19] for g in got] == [e.timestamp.isoformat()[:19] for e in eps]
    facts = query(
        config, group_id, "MATCH ()-[r:RELATES_TO]->() RETURN r.fact AS fact, r.valid_at AS v, r.episodes AS eps"
    )
    assert facts and all(f["v"] for f in facts)
    by_episode = {e.id: e.timestamp.isoformat()[:19] for e in eps}
    assert all(f["v"][:19] == by_episode[f["eps"][0]] for f in facts)  # undated facts take the episode's time


def test_run_budget_stops_early_and_leaves_the_rest_pending(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server)
    eps = episodes(group_id, 3)
    ledger.register(eps, partition="2026-04-01")
    stats = run(config, ledger, IngestLimits(max_cost_usd=0.5, backoff_seconds=0))  # one episode costs > $0.5

    assert stats.stopped_by == "max_cost" and stats.ingested == 1 and stats.attempted == 1
    assert ledger.backlog("email") == 2 and ledger.counts("email")["pending"] == 2
    more = run(config, ledger)
    assert more.ingested == 2 and ledger.backlog("email") == 0 and ledger.counts("email")["ingested"] == 3


def test_source_night_budget_holds_across_runs(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server, max_cost_per_source_night_usd={"email": 0.1})
    ledger.register(episodes(group_id, 2), partition="2026-04-01")
    first = run(config, ledger)
    second = run(config, ledger)
    assert first.ingested == 1 and first.stopped_by == "max_cost_source_night"
    assert second.ingested == 0 and second.stopped_by == "max_cost_source_night"
    assert ledger.counts("email")["pending"] == 1
    store = LLMStore(ledger_url_for_home(graph_home))
    assert store.spent_on_night("email", dt.datetime.now(dt.UTC).date()) == pytest.approx(first.cost_usd)


def test_the_same_invalid_answer_twice_quarantines_at_once_with_reason_and_replay_brings_it_back(
    graph_home, llm_server, ledger, group_id
):
    config = llm_config(graph_home, llm_server, max_retries=3)
    eps = episodes(group_id, 2)
    ledger.register(eps, partition="2026-04-01")
    llm_server.fault("invalid", schema="ExtractedEdges", times=2)  # the first episode's edge call, asked twice
    stats = run(config, ledger, IngestLimits(max_cost_usd=1000.0, max_attempts=3, backoff_seconds=0))

    # not max_retries + 1 calls, and not left "failed" for two more nights of the same answer
    assert stats.ingested == 1 and stats.quarantined == 1 and stats.failed == 0 and stats.llm_invalid_output == 2
    assert llm_server.schemas().count("ExtractedEdges") == 3  # 2 for the bad episode, 1 for the good one
    bad = ledger.get(eps[0].id)
    assert bad.status.value == "quarantined" and bad.last_error_class == "LLMOutputRejected"
    assert bad.last_error.startswith("email <m0@acme.example>: ")  # names the episode
    assert "same invalid answer twice" in bad.last_error and "does not match ExtractedEdges" in bad.last_error
    assert bad.tokens_in > 0 and bad.cost_usd > 0
    assert ledger.replay(source="email") == 1
    again = run(config, ledger)
    assert again.ingested == 1 and ledger.counts("email")["ingested"] == 2 and ledger.backlog("email") == 0


def test_a_truncated_answer_quarantines_its_episode_after_one_call(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server, max_retries=4)
    eps = episodes(group_id, 1)
    ledger.register(eps, partition="2026-04-01")
    llm_server.fault("length", schema="ExtractedEntities", times=5)
    stats = run(config, ledger, IngestLimits(max_cost_usd=1000.0, max_attempts=3, backoff_seconds=0))

    assert stats.quarantined == 1 and stats.llm_calls == 1 and stats.llm_retries == 0
    bad = ledger.get(eps[0].id)
    assert bad.last_error_class == "LLMOutputRejected" and "(finish_reason=length" in bad.last_error
    assert "<m0@acme.example>" in bad.last_error and bad.tokens_out > 0


def test_unparseable_model_dates_are_counted_and_do_not_replace_the_source_time(
    graph_home, llm_server, ledger, group_id
):
    def edges(prompt):
        return {
            "edges": [
                {
                    "source_entity_name": "Alice Chen",
                    "target_entity_name": "Acme Corp",
                    "relation_type": "WORKS_AT",
                    "fact": "Alice Chen works at Acme Corp",
                    "valid_at": "sometime next spring",
                    "invalid_at": None,
                }
            ]
        }

    llm_server.answers["ExtractedEdges"] = edges
    config = llm_config(graph_home, llm_server)
    eps = episodes(group_id, 1)
    ledger.register(eps, partition="2026-04-01")
    stats = run(config, ledger)
    assert stats.ingested == 1 and stats.llm_unparseable_dates == 1
    facts = query(config, group_id, "MATCH ()-[r:RELATES_TO]->() RETURN r.fact AS fact, r.valid_at AS v")
    assert [f["fact"] for f in facts] == ["Alice Chen works at Acme Corp"]
    assert facts[0]["v"][:19] == eps[0].timestamp.isoformat()[:19]


def test_review_holds_llm_facts_until_approved(graph_home, llm_server, ledger, group_id, capsys):
    config = llm_config(graph_home, llm_server, review_sources=["email"])
    eps = episodes(group_id, 2)
    ledger.register(eps, partition="2026-04-01")
    stats = run(config, ledger)
    url = ledger_url_for_home(graph_home)

    assert stats.ingested == 2 and stats.held_for_review == 2 and stats.cost_usd > 0
    assert query(config, group_id, "MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS n")[0]["n"] == 0
    assert query(config, group_id, "MATCH (e:Episodic) RETURN count(e) AS n")[0]["n"] == 2  # the records are in
    assert review.review_list(url) == 0
    assert review.review_show(url, eps[0].id) == 0
    shown = capsys.readouterr().out
    assert "2 pending" in shown and "Alice Chen works with Acme Corp" in shown

    assert review.review_reject(url, [eps[1].id], note="wrong") == 0
    assert review.review_approve(config, url) == 0  # all pending: only eps[0] is left
    facts = query(config, group_id, "MATCH ()-[r:RELATES_TO]->() RETURN r.fact AS fact, r.episodes AS eps")
    assert [f["fact"] for f in facts] == ["Alice Chen works with Acme Corp"] and facts[0]["eps"] == [eps[0].id]
    props = query(
        config, group_id, "MATCH (e:Episodic {uuid: $u}) RETURN e.intent AS i, e.entity_edges AS ee", u=eps[0].id
    )[0]
    assert props["i"] == "decision" and len(props["ee"]) == 1
    assert LLMStore(url).counts() == {"pending": 0, "approved": 1, "rejected": 1}
    assert review.review_approve(config, url) == 1  # nothing left


def test_long_content_is_chunked_into_deterministic_episodes(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server, chunk_chars=200, chunk_overlap_chars=0)
    text = " ".join(f"Alice Chen met Bob Stone about Project Phoenix{i}." for i in range(12))
    ep = mail(group_id, "<long@acme.example>", text)
    ledger.register([ep], partition="2026-04-01")
    stats = run(config, ledger)
    assert stats.ingested == 1
    chunks = query(
        config,
        group_id,
        "MATCH (e:Episodic) WHERE e.parent_episode = $p RETURN e.uuid AS u, "
        "e.chunk_index AS i, e.chunk_count AS n, e.valid_at AS v ORDER BY i",
        p=ep.id,
    )
    n = chunks[0]["n"]
    assert n > 1 and [c["i"] for c in chunks] == list(range(n))
    assert ep.id not in {c["u"] for c in chunks}
    assert all(c["v"][:19] == ep.timestamp.isoformat()[:19] for c in chunks)
    assert llm_server.schemas().count("ExtractedEntities") == n  # one extraction per chunk


def test_both_mode_keeps_structured_facts_and_adds_llm_facts(graph_home, llm_server, ledger, group_id):
    config = llm_config(graph_home, llm_server, mode="both")
    ep = mail(group_id, "<both@acme.example>", TEXTS[0])
    ledger.register([ep], partition="2026-04-01")
    structured = run(GraphConfig(home=graph_home), ledger)  # what structured mode alone writes
    assert structured.ingested == 1 and structured.cost_usd == 0
    structured_edges = query(config, group_id, "MATCH (e:Episodic {uuid: $u}) RETURN e.entity_edges AS ee", u=ep.id)[0][
        "ee"
    ]
    assert structured_edges  # sender -> recipients facts etc.
    ledger.replay(source="email", status=("ingested",))
    both = run(config, ledger)
    assert both.ingested == 1 and both.llm_facts >= 1
    after = query(config, group_id, "MATCH (e:Episodic {uuid: $u}) RETURN e.entity_edges AS ee", u=ep.id)[0]["ee"]
    assert set(structured_edges) < set(after)
