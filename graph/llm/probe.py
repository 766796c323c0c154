"""`graphfeed llm check`: is the configured model fit to extract? Scenario-style probes (a mail naming a person, an
organisation, an amount and a date) go through graphiti's own extraction steps (extract_nodes, extract_edges: the same
prompts, schemas and date parsing as add_episode) over the configured endpoint, through the metered client, and the
answer through the grounding guard. Nothing is read from or written to a graph: resolution and save are the only
steps left out, and neither asks the model anything the probes test.

Per probe the report says what the model extracted, what the guard kept, what it dropped and why, which of the
probe's known values survived, and what the model got wrong outright (truncated or invalid JSON, timeouts).
"""

import datetime as dt
import time
from typing import Any

from graphiti_core.graphiti_types import GraphitiClients
from graphiti_core.nodes import EpisodeType, EpisodicNode
from graphiti_core.tracer import NoOpTracer
from graphiti_core.utils.maintenance.edge_operations import extract_edges
from graphiti_core.utils.maintenance.node_operations import extract_nodes
from pydantic import BaseModel, Field

from graph.llm.client import LLMCallFailed, MeteredLLMClient
from graph.llm.guard import Dropped, guard_extraction
from graph.llm.meter import UsageMeter
from graph.llm.settings import LLMSettings
from ground.episode import Episode, EpisodeMetadata
from ground.records import Actor, Participant
from transforms.grounding import episode_aliases, fold


class Probe(BaseModel):
    name: str
    sender: Actor
    to: list[Actor]
    subject: str
    body: str
    sent_at: dt.datetime
    known: list[str]  # values a fit model keeps: the person, the organisation, the amount, the date


def _person(name: str, domain: str) -> Actor:
    email = f"{name.split()[0].lower()}.{name.split()[-1].lower()}@{domain}"
    return Actor(type="human", id=email, name=name, email=email)


# Invented people and companies (no real record's names): what a user's own mail looks like, not what a test expects.
PROBES = [
    Probe(
        name="approval",
        sender=_person("Priya Raman", "halvorsen.example"),
        to=[_person("Tomas Berg", "kestrel.example")],
        subject="Purchase order approved",
        body=(
            "Hi Tomas,\n\nI approved the purchase order for Kestrel Analytics today: EUR 48,500 for the first phase, "
            "signed on 12 March 2026. Jonas Weber from our finance team will send the paperwork.\n\nPriya"
        ),
        sent_at=dt.datetime(2026, 3, 12, 16, 5, tzinfo=dt.UTC),
        known=["Priya Raman", "Kestrel Analytics", "48,500", "2026-03-12"],
    ),
    Probe(
        name="contact change",
        sender=_person("Lena Ortiz", "brightwater.example"),
        to=[_person("Marcus Hale", "northfield.example")],
        subject="New contact for the Brightwater account",
        body=(
            "Dear Marcus,\n\nfrom 1 April 2026 Aisha Khan replaces me as Brightwater Foods' contact for the renewal. "
            "The renewal is worth USD 120,000 a year.\n\nBest regards,\nLena"
        ),
        sent_at=dt.datetime(2026, 3, 20, 9, 30, tzinfo=dt.UTC),
        known=["Aisha Khan", "Brightwater Foods", "120,000"],  # 1 April is after the mail: the guard clears it
    ),
]


class ProbeResult(BaseModel):
    probe: str
    entities: list[str] = Field(default_factory=list)  # as the model extracted them
    facts: list[str] = Field(default_factory=list)
    entities_kept: list[str] = Field(default_factory=list)
    facts_kept: list[str] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    known_kept: list[str] = Field(default_factory=list)
    known_missed: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)  # what the model got wrong outright, per prompt
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0


def probe_episode(probe: Probe, group_id: str = "llm_check") -> Episode:
    return Episode(
        id=f"probe-{fold(probe.name).replace(' ', '-')}",
        group_id=group_id,
        timestamp=probe.sent_at,
        source="email",
        actor=probe.sender,
        intent="decision",
        intent_confidence=1.0,
        content=f"{probe.subject}\n\n{probe.body}",
        metadata=EpisodeMetadata(
            source_key=f"<{fold(probe.name).replace(' ', '-')}@probe>",
            kind="email",
            version="1",
            title=probe.subject,
            occurred_at=probe.sent_at,
            updated_at=probe.sent_at,
            participants=[Participant(role="to", actor=a) for a in probe.to],
        ),
        fingerprint=probe.name,
    )


def _known(value: str, kept_entities: list[str], kept_facts: list[str], dates: list[str]) -> bool:
    haystack = fold(" ".join(kept_entities + kept_facts))
    return f" {fold(value)} " in f" {haystack} " or value in dates


async def run_probe(client: MeteredLLMClient, meter: UsageMeter, probe: Probe) -> ProbeResult:
    episode = probe_episode(probe)
    node = EpisodicNode(
        name=probe.subject,
        group_id=episode.group_id,
        labels=[],
        source=EpisodeType.message,
        content=f"{probe.sender.name}: {episode.content}",
        source_description="email (graphfeed llm check probe)",
        created_at=probe.sent_at,
        valid_at=probe.sent_at,
    )
    # The extraction steps read no graph; a driver is only needed by the resolution and save steps left out here.
    clients = GraphitiClients.model_construct(
        driver=None, llm_client=client, embedder=None, cross_encoder=None, tracer=NoOpTracer(), max_coroutines=1
    )
    out = ProbeResult(probe=probe.name)
    t0 = time.perf_counter()
    with meter.episode(episode.id) as usage:
        nodes, edges = [], []
        try:
            nodes, _ = await extract_nodes(clients, node, [])
            out.entities = [n.name for n in nodes]
            if nodes:
                edges, _ = await extract_edges(clients, node, nodes, [], {("Entity", "Entity"): []}, episode.group_id)
                out.facts = [e.fact for e in edges]
        except LLMCallFailed as exc:
            out.errors.append(f"{exc.prompt}: {exc.reason}")
        for edge in edges:
            edge.episodes = [node.uuid]
        kept_nodes, kept_edges, report = guard_extraction(
            episode_uuid=node.uuid,
            record_time=probe.sent_at,
            folded_text=fold(episode.content),
            aliases=episode_aliases(episode),
            nodes=nodes,
            edges=edges,
        )
        unparseable = usage.guard.get("date_unparseable", 0)
        out.dropped = [Dropped(what="date", value="(not a date)", reason="date_unparseable")] * unparseable
        out.dropped += report.dropped
    out.entities_kept, out.facts_kept = report.entities_kept, report.facts_kept
    dates = [d.date().isoformat() for e in kept_edges for d in (e.valid_at, e.invalid_at) if d is not None]
    for value in probe.known:
        (out.known_kept if _known(value, out.entities_kept, out.facts_kept, dates) else out.known_missed).append(value)
    out.calls, out.tokens_in, out.tokens_out = usage.calls, usage.tokens_in, usage.tokens_out
    out.cost_usd, out.seconds = usage.cost_usd, round(time.perf_counter() - t0, 2)
    return out


async def check(settings: LLMSettings, probes: list[Probe] | None = None) -> list[ProbeResult]:
    meter = UsageMeter(settings.price_table())
    client = MeteredLLMClient(settings, meter=meter)
    try:
        return [await run_probe(client, meter, p) for p in (probes or PROBES)]
    finally:
        await client.client.close()


def report_lines(results: list[ProbeResult]) -> list[str]:
    lines: list[str] = []
    for r in results:
        lines.append(
            f"probe {r.probe!r}: {r.calls} call(s), {r.tokens_in}+{r.tokens_out} tokens, "
            f"${r.cost_usd:.4f}, {r.seconds}s"
        )
        lines.append(f"  model extracted: entities {r.entities or '-'}; facts {r.facts or '-'}")
        lines.append(f"  guard kept:      entities {r.entities_kept or '-'}; facts {r.facts_kept or '-'}")
        for d in r.dropped:
            lines.append(f"  guard dropped:   {d.what} {d.value!r}: {d.reason}")
        for e in r.errors:
            lines.append(f"  model failed:    {e}")
        lines.append(
            f"  known values kept {len(r.known_kept)}/{len(r.known_kept) + len(r.known_missed)}"
            + (f" (missed: {', '.join(r.known_missed)})" if r.known_missed else "")
        )
    return lines


def summary(results: list[ProbeResult]) -> dict[str, Any]:
    return {
        "probes": len(results),
        "known_kept": sum(len(r.known_kept) for r in results),
        "known_total": sum(len(r.known_kept) + len(r.known_missed) for r in results),
        "dropped": sum(len(r.dropped) for r in results),
        "failed_prompts": sum(len(r.errors) for r in results),
    }
