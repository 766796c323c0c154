"""The LLM path of a write: sources in "llm"/"both" mode go through Graphiti's add_episode, one episode at a time
(graphiti resolves entities against what earlier episodes wrote), until the call's budget or the source's nightly cap
is reached; the rest is deferred. One episode's failure is a typed Failure in the result, not an exception."""

import time

from graph.config import EmbedderMismatch
from graph.llm.meter import Usage
from graph.write.sink import BatchResult, Failure
from graph.write.structured_writes import write_group
from graph.write.write_context import WriteContext
from ground.episode import Episode
from ground.errors import ConfigError
from ground.fact_model import FactSet


async def write_llm(
    ctx: WriteContext,
    items: list[tuple[Episode, str]],
    result: BatchResult,
    max_cost_usd: float | None,
    seconds: dict[str, float],
) -> None:
    """One episode at a time (graphiti resolves entities against what earlier episodes wrote)."""
    from graph.llm.budget import stop_reason

    llm, settings = ctx.llm, ctx.config.llm
    if llm is None or settings is None:
        raise ConfigError("the LLM path needs the writer's LLM parts (WriteContext.llm) and an LLM endpoint")
    spent = 0.0
    for i, (episode, mode) in enumerate(items):
        if not settings.worth_a_call(episode):
            if mode == "llm":
                await write_group(ctx, episode.group_id, [episode], FactSet(), {episode.id: []}, result)
            result.llm_skipped += 1
            continue
        reason = stop_reason(
            source=episode.source,
            spent_this_call=spent,
            max_cost_usd=max_cost_usd,
            night_caps=settings.max_cost_per_source_night_usd,
            store=llm.store,
            now=ctx.clock(),
        )
        if reason:
            result.deferred = [e.id for e, _ in items[i:]]
            result.stopped_by = reason
            break
        t = time.perf_counter()
        before = llm.meter.episodes.get(episode.id, Usage()).model_copy(deep=True)
        try:
            if mode == "llm":  # graphiti's add_episode(uuid=...) needs the Episodic node to exist
                await write_group(ctx, episode.group_id, [episode], FactSet(), {episode.id: []}, result)
            done = await llm.extractor.extract(episode, mode=mode)
        except (ConfigError, EmbedderMismatch):
            raise
        except Exception as exc:  # noqa: BLE001 - one episode's failure is data for the ledger
            # (an empty message was recorded as "Class: " before failures were typed; the ledger keeps seeing that)
            result.llm_failed[episode.id] = Failure(
                error_class=type(exc).__name__,
                message=f"{episode.source} {episode.metadata.source_key}: {exc}"
                if str(exc)
                else f"{type(exc).__name__}: ",
                retryable=Failure.of(exc).retryable,
            )
            done = None
        usage = llm.meter.episodes.get(episode.id, Usage()).minus(before)
        llm.store.record_spend(
            source=episode.source,
            episode_id=episode.id,
            usage=usage,
            ok=done is not None,
            run_id=ctx.session_id,
            chunks=done.chunks if done else 0,
            content_chars=len(episode.content),
            at=ctx.clock(),
        )
        llm.store.record_guard(
            source=episode.source, episode_id=episode.id, counts=usage.guard, run_id=ctx.session_id, at=ctx.clock()
        )
        result.episode_llm[episode.id] = usage
        result.llm.add(usage)
        spent += usage.cost_usd
        if done is not None:
            result.llm_entities += done.entities
            result.llm_facts += done.facts
            result.llm_facts_invalidated += done.facts_invalidated
            result.held_for_review += done.held_chunks
        seconds[episode.id] = seconds.get(episode.id, 0.0) + time.perf_counter() - t
