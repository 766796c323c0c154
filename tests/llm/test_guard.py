"""The grounding guard, case by case, fed by the scripted server where a real model's answer does not reproduce the
case on demand (tests/llm/test_real_model.py has what SmolLM2 really does). Each test reads the result from the
graph: what the guard drops never reaches it."""

import datetime as dt
import itertools
import re

from graph.config import GraphConfig
from pipelines.commands import main
from tests.llm.conftest import T0, llm_config, mail
from tests.llm.scripted_server import section
from tests.llm.test_llm_ingest import TEXTS, query, run

TEXT = TEXTS[0]  # "Alice Chen from Acme Corp confirmed the Phoenix rollout with Bob Stone." (sender: Dana Fox)


def edge(a, b, fact, valid_at=None, invalid_at=None, relation="WORKS_WITH"):
    return {
        "source_entity_name": a,
        "target_entity_name": b,
        "relation_type": relation,
        "fact": fact,
        "valid_at": valid_at,
        "invalid_at": invalid_at,
    }


def entities(*names):
    return {"extracted_entities": [{"name": n, "entity_type_id": 0} for n in names]}


def facts_in_graph(config, group_id):
    return query(
        config,
        group_id,
        "MATCH (a)-[r:RELATES_TO]->(b) RETURN a.name AS a, b.name AS b, r.fact AS fact, r.uuid AS uuid, "
        "r.valid_at AS v, r.invalid_at AS inv, r.expired_at AS exp ORDER BY r.fact",
    )


def test_an_entity_the_text_does_not_name_is_dropped_with_its_facts_and_counted(
    graph_home, llm_server, ledger, group_id
):
    # given a model that adds "Zed Example" (not in the mail), and "Dana Fox", the mail's sender (not in its text)
    llm_server.answers["ExtractedEntities"] = entities("Alice Chen", "Bob Stone", "Zed Example", "Dana Fox")
    llm_server.answers["ExtractedEdges"] = {
        "edges": [
            edge("Alice Chen", "Bob Stone", "Alice Chen confirmed the rollout with Bob Stone"),
            edge("Alice Chen", "Zed Example", "Alice Chen reports to Zed Example"),
            edge("Dana Fox", "Alice Chen", "Dana Fox wrote to Alice Chen"),
        ]
    }
    config = llm_config(graph_home, llm_server)
    ep = mail(group_id, "<g1@acme.example>", TEXT)
    ledger.register([ep], partition="2026-04-01")
    # when the episode is extracted
    stats = run(config, ledger)
    # then the invented entity and its fact are not in the graph; the sender (an alias of the record) is
    assert stats.ingested == 1
    names = {r["n"] for r in query(config, group_id, "MATCH (n:Entity) RETURN n.name AS n")}
    assert names == {"Alice Chen", "Bob Stone", "Dana Fox"}
    assert [f["fact"] for f in facts_in_graph(config, group_id)] == [
        "Alice Chen confirmed the rollout with Bob Stone",
        "Dana Fox wrote to Alice Chen",
    ]
    assert stats.llm_guard == {"entity_ungrounded": 1, "fact_ungrounded": 1}
    assert stats.llm_entities == 3 and stats.llm_facts == 2


def test_graphfeed_ledger_shows_what_the_guard_dropped(graph_home, llm_server, ledger, group_id, monkeypatch, capsys):
    llm_server.answers["ExtractedEntities"] = entities("Alice Chen", "Zed Example")
    config = llm_config(graph_home, llm_server)
    ledger.register([mail(group_id, "<g5@acme.example>", TEXT)], partition="2026-04-01")
    assert run(config, ledger).llm_guard["entity_ungrounded"] == 1
    monkeypatch.setenv("GRAPHFEED_HOME", str(graph_home))
    assert main(["ledger"]) == 0
    out = capsys.readouterr().out
    assert "LLM grounding guard" in out
    line = next(x for x in out.splitlines() if "entity_ungrounded" in x)
    assert line.split()[1] == "1" and "neither in the text" in line


def test_model_dates_after_the_record_or_before_the_floor_are_cleared_and_the_fact_keeps_the_record_time(
    graph_home, llm_server, ledger, group_id
):
    llm_server.answers["ExtractedEntities"] = entities("Alice Chen", "Bob Stone", "Acme Corp")
    llm_server.answers["ExtractedEdges"] = {
        "edges": [
            edge("Alice Chen", "Acme Corp", "Alice Chen works at Acme Corp", valid_at="2031-05-01T00:00:00Z"),
            edge("Bob Stone", "Acme Corp", "Bob Stone works at Acme Corp", valid_at="1066-10-14T00:00:00Z"),
            edge(
                "Alice Chen",
                "Bob Stone",
                "Alice Chen works with Bob Stone",
                valid_at="2026-03-01T00:00:00Z",
                invalid_at="2026-02-01T00:00:00Z",
            ),
        ]
    }
    config = llm_config(graph_home, llm_server)
    ep = mail(group_id, "<g2@acme.example>", TEXT)
    ledger.register([ep], partition="2026-04-01")
    stats = run(config, ledger)

    facts = {f["fact"]: f for f in facts_in_graph(config, group_id)}
    record = T0.isoformat()[:19]
    assert facts["Alice Chen works at Acme Corp"]["v"][:19] == record  # 2031: after the mail was written
    assert facts["Bob Stone works at Acme Corp"]["v"][:19] == record  # 1066: before the floor
    kept = facts["Alice Chen works with Bob Stone"]  # a sane valid_at stays; an end before it does not
    assert kept["v"][:10] == "2026-03-01" and kept["inv"] is None
    assert all(f["inv"] is None for f in facts.values())
    assert stats.llm_guard == {"date_after_record": 1, "date_before_floor": 1, "date_invalid_before_valid": 1}


def _contradict_everything(prompt):
    """A model that calls every existing fact contradicted (idx are continuous across both lists)."""
    listed = (section(prompt, "EXISTING FACTS") or "") + (section(prompt, "FACT INVALIDATION CANDIDATES") or "")
    n = len(re.findall(r"['\"]idx['\"]: \d+", listed))  # graphiti lists them as Python reprs, not JSON
    return {"duplicate_facts": [], "contradicted_facts": list(range(n))}


def test_an_llm_invalidation_never_closes_a_fact_a_system_of_record_wrote(graph_home, llm_server, ledger, group_id):
    # given two mails whose structured facts (sender -> recipient ...) are in the graph
    first = mail(group_id, "<s1@acme.example>", TEXT)
    second = mail(group_id, "<s2@acme.example>", TEXT, T0 + dt.timedelta(days=2))
    ledger.register([first, second], partition="2026-04-01")
    assert run(GraphConfig(home=graph_home), ledger).ingested == 2
    structured = {f["uuid"]: (f["inv"], f["exp"]) for f in facts_in_graph(GraphConfig(home=graph_home), group_id)}
    assert structured and all(v == (None, None) for v in structured.values())
    # when the second mail goes through the LLM too, and the model calls every fact it is shown contradicted
    llm_server.answers["ExtractedEntities"] = entities("Dana Fox", "Alice Chen", "Bob Stone")
    calls = itertools.count(1)
    llm_server.answers["ExtractedEdges"] = lambda prompt: {
        "edges": [  # dated: graphiti invalidates only facts older than the new one
            edge("Dana Fox", "Alice Chen", f"Dana Fox wrote to Alice Chen ({next(calls)})", "2026-04-01T09:30:00Z")
        ]
    }
    llm_server.answers["EdgeDuplicate"] = _contradict_everything
    ledger.replay(source="email", status=("ingested",))
    config = llm_config(graph_home, llm_server, mode="both")
    stats = run(config, ledger)
    # then every structured fact is as its source wrote it, and the attempts are counted
    after = {f["uuid"]: (f["inv"], f["exp"]) for f in facts_in_graph(config, group_id)}
    assert {u: after[u] for u in structured} == structured
    assert "EdgeDuplicate" in llm_server.schemas()
    assert stats.llm_guard.get("structured_invalidation", 0) >= 1


def test_unparseable_model_dates_are_counted_by_the_guard(graph_home, llm_server, ledger, group_id):
    llm_server.answers["ExtractedEntities"] = entities("Alice Chen", "Acme Corp")
    llm_server.answers["ExtractedEdges"] = {
        "edges": [edge("Alice Chen", "Acme Corp", "Alice Chen works at Acme Corp", valid_at="around Easter")]
    }
    config = llm_config(graph_home, llm_server)
    ledger.register([mail(group_id, "<g4@acme.example>", TEXT)], partition="2026-04-01")
    stats = run(config, ledger)
    assert stats.llm_guard == {"date_unparseable": 1}
    assert [f["v"][:19] for f in facts_in_graph(config, group_id)] == [T0.isoformat()[:19]]
