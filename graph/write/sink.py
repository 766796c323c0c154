"""The graph sink's interface: what the ingest loop (flow/ingest.py) writes batches through.

A sink writes a batch of episodes within a Budget and says, per episode, what became of it (EpisodeOutcome):
ingested, failed (a typed Failure: error class + message, never a "Class: message" string) or deferred (not
attempted: a budget stopped the batch; it stays pending). The BatchResult also carries the batch's figures (what was
written, the LLM spend) that the loop adds up into its run metadata.
"""

import datetime as dt
import enum
from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from graph.llm.meter import Usage
from ground.episode import Episode
from ground.records import ErrorClass


class Budget(BaseModel):
    """What one write may still spend: max_cost_usd caps this call's LLM spend (None: no cap but the nightly one)."""

    max_cost_usd: float | None = None


class OutcomeStatus(str, enum.Enum):
    ingested = "ingested"
    failed = "failed"
    deferred = "deferred"


class Failure(BaseModel):
    """Why one episode failed: its error class (an ErrorClass, or the exception's class name) and the message."""

    error_class: ErrorClass | str
    message: str
    retryable: bool = True  # False: another attempt would fail the same way (the ledger quarantines at once)

    @classmethod
    def of(cls, exc: BaseException) -> "Failure":
        retryable = getattr(exc, "retryable", True)  # LLMOutputRejected says False: the model, not the wire
        return cls(error_class=type(exc).__name__, message=str(exc), retryable=retryable is not False)


class EpisodeOutcome(BaseModel):
    episode_id: str
    status: OutcomeStatus
    failure: Failure | None = None  # set when status is failed
    usage: Usage | None = None  # LLM spend of this episode in this call (LLM modes only)


class BatchResult(BaseModel):
    episodes_written: int = 0
    entities_written: int = 0
    facts_written: int = 0
    facts_invalidated: int = 0
    per_episode_seconds: list[float] = Field(default_factory=list)
    # The group write lock (group_locks.py): how long the batch waited for it, and when (epoch seconds) it was held.
    lock_wait_seconds: float = 0.0
    held_from: float = 0.0
    held_until: float = 0.0
    # Additions: how much of the write was new to the graph (0/0/0 on a rerun).
    episodes_new: int = 0
    entities_new: int = 0
    facts_new: int = 0
    # facts_written broken down by relation (SENT, ESCALATED_RISK, ...) and kind (structured, intent, text_date).
    facts_by_relation: dict[str, int] = Field(default_factory=dict)
    facts_by_kind: dict[str, int] = Field(default_factory=dict)
    # One outcome per episode of the batch, in batch order.
    outcomes: list[EpisodeOutcome] = Field(default_factory=list)
    # LLM extraction (sources in "llm"/"both" mode); all zero/empty in structured mode.
    llm_metered: bool = False  # the writer meters LLM spend (a source uses it)
    llm: Usage = Field(default_factory=Usage)  # this call's total
    episode_llm: dict[str, Usage] = Field(default_factory=dict)  # per episode id, this call only
    llm_entities: int = 0
    llm_facts: int = 0
    llm_facts_invalidated: int = 0
    held_for_review: int = 0  # chunks whose LLM facts wait for approval
    llm_failed: dict[str, Failure] = Field(default_factory=dict)  # episode id -> why its LLM extraction failed
    deferred: list[str] = Field(default_factory=list)  # not attempted: a budget stopped the batch
    llm_skipped: int = 0  # no free text / skipped intent: structured only
    stopped_by: str | None = None

    def settle(self, episodes: Sequence[Episode]) -> list[EpisodeOutcome]:
        """The outcomes of these episodes from llm_failed / deferred / episode_llm (everything else is ingested)."""
        deferred = set(self.deferred)
        outcomes: list[EpisodeOutcome] = []
        for episode in episodes:
            usage = self.episode_llm.get(episode.id)
            if episode.id in deferred:
                outcomes.append(EpisodeOutcome(episode_id=episode.id, status=OutcomeStatus.deferred, usage=usage))
            elif episode.id in self.llm_failed:
                outcomes.append(
                    EpisodeOutcome(
                        episode_id=episode.id,
                        status=OutcomeStatus.failed,
                        failure=self.llm_failed[episode.id],
                        usage=usage,
                    )
                )
            else:
                outcomes.append(EpisodeOutcome(episode_id=episode.id, status=OutcomeStatus.ingested, usage=usage))
        self.outcomes = outcomes
        return outcomes


class GraphSink(Protocol):
    """What the ingest loop needs of the graph: write a batch within a budget, tombstone deleted episodes."""

    def write(self, batch: Sequence[Episode], budget: Budget) -> BatchResult:
        """Write the batch; BatchResult.outcomes has one EpisodeOutcome per episode. Raises only for the whole
        batch (the loop then retries it episode by episode) or for configuration errors (the run stops)."""
        ...

    def invalidate_episodes(self, episode_ids: Sequence[str], at: dt.datetime, group_id: str | None = None) -> int:
        """Episodes deleted upstream: end the facts only they support at `at`; returns how many facts ended."""
        ...
