"""The LLM intent cascade applied where episodes are built: after dedup, in batches, before the episodes are staged.

An episode keeps its fingerprint (the local label's): it is the dedup key and the cascade's cache key, so switching
the cascade on or off never re-keys an episode. What changes is `intent`, and the metadata says where it came from:
`intent_source` "local", "llm" or "local (llm: <reason>)", and `intent_local` when the LLM changed the label. The
confidence stays the local model's (the LLM gives none).
"""

from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from connectors.registry import traits_of
from graph.llm.intent import CascadeUnit, LLMIntentCascade, open_cascade
from graph.llm.settings import LLMSettings
from ground.episode import Episode
from transforms.build import EpisodeSettings
from transforms.intent.context import record_context
from transforms.intent.data import DEFAULT_TAXONOMY, IntentDataError, load_taxonomy
from transforms.intent.units import ClassifierInput, prepare_record

DEFAULT_MODEL_THRESHOLD = 0.5  # IntentClassifier's default, for a model that does not say its own


def episode_input(episode: Episode) -> ClassifierInput:
    """What the local model read of the record, rebuilt from the episode (content = title, blank line, body)."""
    meta = episode.metadata
    body = episode.content
    if meta.title and body.startswith(meta.title):
        body = body[len(meta.title) :].lstrip("\n")
    traits = traits_of(episode.source)
    context = record_context(traits, meta.kind, meta.fields)
    return prepare_record(body, meta.title, traits, meta.kind, meta.language, context)


def cascade_unit(episode: Episode) -> CascadeUnit:
    return CascadeUnit(
        episode.fingerprint,
        episode.id,
        episode.source,
        episode_input(episode),
        episode.intent,
        episode.intent_confidence,
    )


def relabel(episodes: list[Episode], cascade: LLMIntentCascade) -> list[Episode]:
    for episode, decision in zip(episodes, cascade.run([cascade_unit(e) for e in episodes]), strict=True):
        if decision.label != episode.intent:
            # extra fields (EpisodeMetadata allows them): set only where the cascade ran, so other previews are unchanged
            episode.metadata.intent_local = episode.intent  # type: ignore[attr-defined]
            episode.intent = decision.label
        episode.metadata.intent_source = decision.source  # type: ignore[attr-defined]
    return episodes


def cascaded(episodes: Iterable[Episode], cascade: LLMIntentCascade, batch_size: int) -> Iterator[Episode]:
    """The episodes, relabelled batch by batch."""
    it = iter(episodes)
    while batch := list(islice(it, max(1, batch_size))):
        yield from relabel(batch, cascade)


def cascade_threshold(llm: LLMSettings, episode_settings: EpisodeSettings, classifier: Any) -> float:
    """Below what local confidence a unit goes to the LLM: GRAPHFEED_LLM_INTENT_BELOW, else the threshold the local
    model used (GRAPHFEED_INTENT_THRESHOLD, else the model's own)."""
    if llm.intent_cascade_below is not None:
        return llm.intent_cascade_below
    if episode_settings.intent_threshold is not None:
        return episode_settings.intent_threshold
    return float(getattr(classifier, "threshold", DEFAULT_MODEL_THRESHOLD))


def open_intent_cascade(
    llm: LLMSettings, home: Path, classifier: Any, episode_settings: EpisodeSettings, taxonomy_path: Path | None = None
) -> LLMIntentCascade:
    """The cascade for the local model in use: its taxonomy must be the model's labels (the enum the LLM answers)."""
    path = Path(taxonomy_path) if taxonomy_path else DEFAULT_TAXONOMY
    taxonomy = load_taxonomy(path)
    if set(taxonomy.names) != set(classifier.labels):
        raise IntentDataError(
            f"{path}: the taxonomy's labels {sorted(taxonomy.names)} are not the intent model's "
            f"{sorted(classifier.labels)}; the LLM must answer in the model's labels"
        )
    return open_cascade(llm, home, taxonomy, cascade_threshold(llm, episode_settings, classifier))
