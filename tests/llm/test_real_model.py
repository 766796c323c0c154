"""The real-model tier: SmolLM2-135M behind llama.cpp's server (tests/llm/local_model.py), answering graphiti's own
prompts. It is far too weak to judge extraction quality and exactly weak enough to exercise the failure paths for real:
answers that loop until max_tokens, names copied from the prompt's example, dates that are not dates.

Kept small for two CI cores: two mails and one page of the bundled sample, small max_tokens."""

import datetime as dt
import json
import uuid

import pytest

from connectors.registry import fact_extractor
from flow.ingest import IngestLimits, IngestStats, write_backlog
from graph.config import GraphConfig
from graph.ledger.ledger import ledger_url_for_home
from graph.llm.guard import DATE_FLOOR, written_by_system_of_record
from graph.llm.store import LLMStore
from graph.sync_facade import SyncGraphWriter
from pipelines.commands import main
from tests.llm.conftest import real_llm_settings
from tests.llm.real_slice import sample_slice
from transforms.grounding import episode_aliases, fold, is_grounded

pytestmark = [pytest.mark.slow, pytest.mark.real_llm, pytest.mark.timeout(900)]

MODES = {"email": "both", "confluence": "llm"}
# What a quarantine reason may say the model did wrong (client.py / LLMOutputRejected).
MODEL_FAULTS = ("cut at max_tokens", "does not match", "malformed JSON", "same invalid answer", "timed out")


@pytest.fixture(scope="module")
def slice_group() -> str:
    return "r_" + uuid.uuid4().hex[:8]


@pytest.fixture(scope="module")
def episodes(slice_group):
    return sample_slice(slice_group)


def run_all(config, ledger, limits=None) -> IngestStats:
    total = IngestStats()
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        for source in ("email", "confluence"):
            stats = IngestStats()
            write_backlog(ledger, writer, source, limits or IngestLimits(max_cost_usd=1000.0, backoff_seconds=0), stats)
            for name in ("ingested", "quarantined", "failed", "llm_calls", "tokens_in", "tokens_out", "attempted"):
                setattr(total, name, getattr(total, name) + getattr(stats, name))
            total.cost_usd += stats.cost_usd
            total.stopped_by = total.stopped_by or stats.stopped_by
            for reason, n in stats.llm_guard.items():
                total.llm_guard[reason] = total.llm_guard.get(reason, 0) + n
    return total


def graph(config, group_id, cypher, **params):
    with SyncGraphWriter(config, extractor=fact_extractor()) as writer:
        return writer.run(writer.writer.backend.query(group_id, cypher, **params))


def edges_of(config, group_id):
    return graph(
        config,
        group_id,
        "MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity) RETURN r.uuid AS uuid, a.name AS a, b.name AS b, "
        "r.episodes AS eps, r.valid_at AS v, r.invalid_at AS inv, r.expired_at AS exp",
    )


def as_time(value):
    if value is None:
        return None
    if isinstance(value, str):
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value.to_native() if hasattr(value, "to_native") else value


def assert_the_graph_holds_nothing_ungrounded(config, group_id, episodes, structured_before):
    by_id = {e.id: e for e in episodes}
    edges = edges_of(config, group_id)
    for e in edges:
        if written_by_system_of_record_row(e):
            continue
        source = by_id[e["eps"][0]]
        text, aliases = fold(f"{source.metadata.title}\n{source.content}"), episode_aliases(source)
        assert is_grounded(e["a"], text, aliases) and is_grounded(e["b"], text, aliases), e
        for when in (as_time(e["v"]), as_time(e["inv"])):
            assert when is None or DATE_FLOOR <= when <= source.timestamp, e  # parsed, and a date the record can know
    after = {e["uuid"]: (str(e["inv"]), str(e["exp"])) for e in edges if e["uuid"] in structured_before}
    assert after == structured_before  # no structured fact invalidated (or rewritten) by the model


def written_by_system_of_record_row(row) -> bool:
    from graphiti_core.edges import EntityEdge

    return written_by_system_of_record(EntityEdge.model_construct(uuid=row["uuid"]))


def structured_snapshot(config, group_id):
    return {e["uuid"]: (str(e["inv"]), str(e["exp"])) for e in edges_of(config, group_id)}


def assert_every_episode_accounted_for(ledger, episodes):
    for ep in episodes:
        row = ledger.get(ep.id)
        assert row.status.value in ("ingested", "quarantined"), (ep.metadata.source_key, row.status)
        if row.status.value == "quarantined":
            assert row.last_error.startswith(f"{ep.source} {ep.metadata.source_key}: "), row.last_error
            assert any(fault in row.last_error for fault in MODEL_FAULTS), row.last_error


def test_llm_check_shows_the_guard_at_work_on_a_real_model(local_model, monkeypatch, capsys):
    monkeypatch.setenv("GRAPHFEED_LLM_BASE_URL", local_model.base_url)
    monkeypatch.setenv("GRAPHFEED_LLM_MODEL", local_model.model)
    monkeypatch.setenv("GRAPHFEED_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("GRAPHFEED_LLM_TIMEOUT_SECONDS", "300")
    monkeypatch.setenv("GRAPHFEED_LLM_SCHEMA_MAX_ITEMS", "4")  # SmolLM2 then closes its lists instead of looping
    assert main(["llm", "check", "--max-tokens", "320", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    print(json.dumps(report, indent=1))  # what SmolLM2 did, in the test report (-rA) for docs/llm.md's figures
    probes = report["probes"]
    assert [p["probe"] for p in probes] == ["approval", "contact change"]
    assert all(p["calls"] >= 1 and p["tokens_in"] > 0 for p in probes)
    # the guard is visible at work: something the model extracted was dropped, with its reason
    dropped = [d for p in probes for d in p["dropped"]]
    assert dropped and all(d["reason"] for d in dropped)
    # and nothing kept is ungrounded
    from graph.llm.probe import PROBES, probe_episode

    for probe, result in zip(PROBES, probes):
        ep = probe_episode(probe)
        for name in result["entities_kept"]:
            assert is_grounded(name, fold(ep.content), episode_aliases(ep)), name


@pytest.mark.parametrize("backend", ["falkordb-embedded", "neo4j"])
def test_a_run_over_the_sample_slice_accounts_for_every_episode_and_writes_nothing_ungrounded(
    backend, local_model, episodes, graph_home, ledger, request
):
    group_id = episodes[0].group_id
    extra = {}
    if backend == "neo4j":
        server = request.getfixturevalue("neo4j_empty")
        extra = dict(neo4j_uri=server.uri, neo4j_user=server.user, neo4j_password=server.password)
    settings = real_llm_settings(local_model, max_tokens=200, schema_max_items=4)
    structured = GraphConfig(backend=backend, home=graph_home, **extra)
    config = GraphConfig(backend=backend, home=graph_home, extraction=MODES, llm=settings, **extra)
    # given the structured facts of the slice (what a system of record says)
    ledger.register(episodes, partition="2026-06-01")
    assert run_all(structured, ledger).ingested == len(episodes)
    before = structured_snapshot(structured, group_id)
    assert before and all(written_by_system_of_record_row({"uuid": u}) for u in before)
    ledger.replay(status=("ingested",))
    tokens_before = local_model.tokens()

    # when the LLM modes run over it (email: both, confluence: llm)
    stats = run_all(config, ledger)

    # then the run finished and every episode is accounted for, a failure with what the model did wrong
    assert stats.ingested + stats.quarantined == len(episodes) and stats.failed == 0
    assert_every_episode_accounted_for(ledger, episodes)
    # tokens are the server's own count; USD follows from them
    prompt_tokens, generated = local_model.tokens()
    assert stats.tokens_out == generated - tokens_before[1] > 0
    assert stats.tokens_in >= prompt_tokens - tokens_before[0] > 0  # the server counts cached prompt tokens once
    assert stats.cost_usd == pytest.approx(
        settings.price_table().cost(settings.model, stats.tokens_in, stats.tokens_out)
    )
    assert_the_graph_holds_nothing_ungrounded(config, group_id, episodes, before)
    print(
        stats.model_dump_json(include={"ingested", "quarantined", "llm_calls", "tokens_in", "tokens_out", "llm_guard"})
    )

    # a rerun costs nothing for episodes already done
    again = run_all(config, ledger)
    assert again.llm_calls == 0 and again.cost_usd == 0 and again.attempted == 0


def test_the_budget_stop_and_the_nightly_cap_hold_on_a_real_model(local_model, episodes, graph_home, ledger):
    mails = [e for e in episodes if e.source == "email"]
    settings = real_llm_settings(local_model, max_tokens=120, schema_max_items=4)
    config = GraphConfig(home=graph_home, extraction=MODES, llm=settings)
    ledger.register(mails, partition="2026-06-01")
    # a run bound of (almost) nothing: the first episode is paid for, the next is deferred, not attempted
    first = run_all(config, ledger, IngestLimits(max_cost_usd=1e-9, backoff_seconds=0))
    assert first.stopped_by == "max_cost" and first.attempted == 1 and first.llm_calls >= 1
    assert ledger.counts("email")["pending"] == len(mails) - 1
    # a nightly cap already spent: nothing more tonight, not one call
    capped = GraphConfig(
        home=graph_home,
        extraction=MODES,
        llm=settings.model_copy(update={"max_cost_per_source_night_usd": {"email": first.cost_usd / 2}}),
    )
    second = run_all(capped, ledger)
    assert second.stopped_by == "max_cost_source_night" and second.llm_calls == 0
    store = LLMStore(ledger_url_for_home(graph_home))
    assert store.spent_on_night("email", dt.datetime.now(dt.UTC).date()) == pytest.approx(first.cost_usd)


def test_the_intent_cascade_on_a_real_model_answers_a_label_or_keeps_the_local_one(local_model, tmp_path):
    from graph.llm.intent import CascadeUnit, LLMIntentCascade
    from transforms.intent.data import load_taxonomy
    from transforms.intent.training import DEFAULT_TAXONOMY
    from transforms.intent.units import ClassifierInput

    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    texts = [
        "Can you send me the signed contract by Friday?",
        "We go with vendor B for the warehouse scanners; decided in today's steering call.",
        "Migration is at 80 %, the last two tables move tonight.",
    ]
    units = [
        CascadeUnit(f"fp-{i}", f"ep-{i}", "email", ClassifierInput(t, "Warehouse", "mail", "en"), "other", 0.1)
        for i, t in enumerate(texts)
    ]
    settings = real_llm_settings(local_model, max_tokens=32)
    tokens_before = local_model.tokens()
    # when units the local model is unsure of go through the cascade to SmolLM2 (llama.cpp enforces the enum schema)
    with LLMIntentCascade(settings, taxonomy, LLMStore(f"sqlite:///{tmp_path / 'llm.db'}"), threshold=0.25) as c:
        decisions = c.run(units)
        usage, stats = c.stats.usage, c.stats
    # then each answer is one of the taxonomy's labels, or the local label stands with the reason said
    for decision in decisions:
        assert decision.label in taxonomy.names
        assert (decision.source == "llm" and decision.reason is None) or (
            decision.label == "other" and decision.reason and decision.source.startswith("local (llm: ")
        ), decision
    assert stats.llm_labels + sum(stats.fallbacks.values()) == len(units)
    # and every call is metered from the server's own count
    prompt_tokens, generated = local_model.tokens()
    assert usage.calls >= 1 and usage.tokens_out == generated - tokens_before[1]
    assert usage.cost_usd > 0
    # a rerun answers what the model labelled from the cache by fingerprint: no call for those
    with LLMIntentCascade(settings, taxonomy, LLMStore(f"sqlite:///{tmp_path / 'llm.db'}"), threshold=0.25) as again:
        rerun = again.run(units)
        assert [d.label for d in rerun if d.source == "llm"] == [d.label for d in decisions if d.source == "llm"]
        assert again.stats.cached >= stats.llm_labels
        assert again.stats.usage.calls <= sum(stats.fallbacks.values())
