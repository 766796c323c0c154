"""SourceRecord -> Episode: language, reply stripping, normalisation, intent, references, fingerprint.

Work is done in batches so the classifier and NER see many texts per call (spaCy's pipe is several times faster
than one call per text). Everything here is deterministic for a given model.
"""

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from itertools import islice
from typing import NamedTuple, Protocol

from pydantic import BaseModel

from ground.episode import Episode, EpisodeMetadata, episode_id
from ground.records import ErrorClass, RecordFailure, SourceRecord
from ground.source_traits import SourceTraits, traits_of
from transforms.clip import DEFAULT_MAX_TEXT_CHARS, clip_record
from transforms.fingerprint import fingerprint
from transforms.intent.context import record_context
from transforms.intent.units import ClassifierInput, prepare_record
from transforms.language import detect_language
from transforms.ner import Entity
from transforms.quotes import strip_reply
from transforms.reference_gazetteer import KnownParties
from transforms.references import Reference, ReferenceConfig, extract_references_batch
from transforms.text import normalise


class IntentPredictor(Protocol):
    def predict(
        self,
        texts: Sequence[str],
        languages: Sequence[str] | None = None,
        threshold: float | None = None,
        subjects: Sequence[str] | None = None,
        families: Sequence[str] | None = None,
        contexts: Sequence[Sequence[str]] | None = None,
    ) -> list[tuple[str, float]]: ...


class EpisodeSettings(BaseModel):
    group_id: str = "graphfeed"
    intent_threshold: float | None = None  # None: the model's own (calibrated) threshold
    references: ReferenceConfig = ReferenceConfig()
    batch_size: int = 256
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS  # longer titles/bodies/field strings are cut, with a note
    # source -> what transforms need to know of it (each source's spec declares them; connectors.registry gathers
    # them). A source missing here is read as plain prose.
    source_traits: dict[str, SourceTraits] = {}

    def traits(self, source: str) -> SourceTraits:
        return traits_of(self.source_traits, source)


# Derived values kept per distinct input: the same message reaches a run from several archives (half the records of
# the shared e-mail corpus repeat an earlier one's text), and each copy would pay reply stripping, language id,
# intent and NER again for the same answer.
# Bounded by entries and by the characters it holds (keys and contents), so a run of huge bodies cannot pile up.
DERIVED_CACHE = 4096
DERIVED_CACHE_CHARS = 10_000_000


class _Derived(NamedTuple):
    content: str
    language: str
    intent: str
    confidence: float
    references: list[Reference]


class _DerivedCache(dict[Hashable, _Derived]):
    """Derived values by input key, oldest dropped first once over DERIVED_CACHE entries or DERIVED_CACHE_CHARS.
    `entities` keeps NER results by NER text under the same bounds: records with different keys often share their
    author text (the same reply under another subject or archive)."""

    def __init__(self) -> None:
        super().__init__()
        self.chars = 0
        self.sizes: dict[Hashable, int] = {}
        self.entities: dict[str, list[Entity]] = {}

    def add(self, key: Hashable, record: SourceRecord, derived: _Derived) -> None:
        self[key] = derived
        self.sizes[key] = len(record.title) + len(record.body) + len(derived.content)
        self.chars += self.sizes[key]

    def trim(self) -> None:
        while self and (len(self) > DERIVED_CACHE or self.chars > DERIVED_CACHE_CHARS):
            key = next(iter(self))
            del self[key]
            self.chars -= self.sizes.pop(key)
        chars = sum(map(len, self.entities))
        while self.entities and (len(self.entities) > DERIVED_CACHE or chars > DERIVED_CACHE_CHARS):
            text = next(iter(self.entities))
            chars -= len(text)
            del self.entities[text]


def _derived_key(record: SourceRecord, traits: SourceTraits) -> Hashable:
    """Everything the derived values read of a record (content, language, intent, references)."""
    return (
        record.source,
        record.kind,
        record.title,
        record.body,
        record.language,
        tuple(record.attachments),
        _message_ids(record),
        record_context(traits, record.kind, record.fields),
        record.occurred_at.date(),  # resolves year-less and relative dates
        attachment_scope(record, traits),
    )


def attachment_scope(record: SourceRecord, traits: SourceTraits) -> str | None:
    """What a file known only by its name belongs to: the record's thread (an issue, whose comments share it, or a
    mail thread) where the source scopes files so; else the name alone (Confluence writes its attachment entities
    by name)."""
    return record.thread_key if traits.thread_scoped_attachments else None


def _message_ids(record: SourceRecord) -> tuple[str, ...]:
    return tuple(k for k in (record.parent_key, *record.related_keys) if k)


def record_text(record: SourceRecord, traits: SourceTraits) -> str:
    """What an episode says: the title on its own line, then the body (a mail's without quoted replies and
    signatures)."""
    body = strip_reply(record.body) if record.kind in traits.reply_kinds else record.body
    text = f"{record.title}\n\n{body}" if record.title and body else (record.title or body)
    return normalise(text)


def reference_text(record: SourceRecord, content: str) -> str:
    """What references are read from: the whole content (as docs/references.md labels it), with the record's own
    thread key blanked in the title line ("Comment on KEY: ..." is the episode's identity, not a reference to it).
    Blanked, not cut, so offsets stay those of the content."""
    key = record.thread_key
    title_end = content.find("\n")
    title = content if title_end < 0 else content[:title_end]
    at = title.find(key) if key else -1
    if not key or at < 0:
        return content
    return content[:at] + " " * len(key) + content[at + len(key) :]


def title_end(record: SourceRecord, content: str, traits: SourceTraits) -> int:
    """Where the content's title line ends (0: no title). A party record's title is the party's name (a CRM contact,
    an account), not a headline, so it counts as no title."""
    if not record.title or traits.party_titles:
        return 0
    line_end = content.find("\n")
    return len(content) if line_end < 0 else line_end


def classifier_input(record: SourceRecord, language: str, traits: SourceTraits) -> ClassifierInput:
    """What intent and NER read: the author's own new text of the record, its title apart (transforms.author_text).
    The episode content keeps everything."""
    return prepare_record(
        normalise(record.body or ""),
        normalise(record.title or ""),
        traits,
        record.kind,
        language,
        record_context(traits, record.kind, record.fields),
    )


def _batches(items: Iterable[SourceRecord], size: int) -> Iterator[list[SourceRecord]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def build_episodes(
    records: Iterable[SourceRecord],
    classifier: IntentPredictor,
    settings: EpisodeSettings,
    on_failure: Callable[[RecordFailure], None] | None = None,
) -> Iterator[Episode]:
    """A batch that raises is retried record by record, so one hostile record becomes a RecordFailure (passed to
    on_failure) instead of costing its batch; without on_failure the error propagates."""
    cache = _DerivedCache()
    known = KnownParties()  # people and organisations the records name in their headers (reference_gazetteer.py)
    base = settings
    for batch in _batches(records, settings.batch_size):
        known.learn(batch, settings.source_traits)
        settings = base.model_copy(update={"references": known.config(base.references)})
        try:
            episodes = _build_batch(batch, classifier, settings, cache)
        except Exception:
            if on_failure is None:
                raise
            episodes = []
            for record in batch:
                try:
                    episodes.extend(_build_batch([record], classifier, settings, cache))
                except Exception as exc:  # noqa: BLE001 - becomes data, the run goes on
                    on_failure(
                        RecordFailure.at(
                            record.source,
                            record.origin,
                            ErrorClass.bad_value,
                            f"could not build an episode: {type(exc).__name__}: {exc}",
                            record.source_key,
                        )
                    )
        yield from episodes


def _build_batch(
    batch: list[SourceRecord],
    classifier: IntentPredictor,
    settings: EpisodeSettings,
    cache: _DerivedCache | None = None,
) -> list[Episode]:
    """Episodes of a batch; derived values come from `cache` for inputs seen before and are computed once per
    distinct input of the batch otherwise."""
    cache = _DerivedCache() if cache is None else cache
    clipped = [clip_record(r, settings.max_text_chars) for r in batch]
    keys = [_derived_key(record, settings.traits(record.source)) for record, _ in clipped]
    missing: dict[Hashable, SourceRecord] = {}
    for key, (record, _) in zip(keys, clipped):
        if key not in cache:
            missing.setdefault(key, record)
    if missing:
        for (key, record), derived in zip(
            missing.items(), _derive(list(missing.values()), classifier, settings, cache.entities)
        ):
            cache.add(key, record, derived)
    episodes = []
    for key, (record, notes) in zip(keys, clipped):
        derived = cache[key]
        references = derived.references
        weak = [
            ref.id
            for ref in references
            if ref.kind in ("person", "organization") and ref.confidence < settings.references.entity_confidence
        ]
        episode = make_episode(
            record,
            derived.content,
            derived.language,
            derived.intent,
            derived.confidence,
            [ref.id for ref in references],
            settings,
            notes,
        )
        if weak:
            episode.metadata.unconfirmed_names = weak
        episodes.append(episode)
    cache.trim()
    return episodes


def _derive(
    batch: list[SourceRecord],
    classifier: IntentPredictor,
    settings: EpisodeSettings,
    known_entities: dict[str, list[Entity]] | None = None,
) -> list[_Derived]:
    """Content, language, intent and references of each (clipped) record, batched for the classifier and NER."""
    traits = [settings.traits(r.source) for r in batch]
    contents = [record_text(r, t) for r, t in zip(batch, traits)]
    languages = [r.language or detect_language(c) for r, c in zip(batch, contents)]
    inputs = [classifier_input(r, lang, t) for r, lang, t in zip(batch, languages, traits)]
    intents = classifier.predict(
        [i.text for i in inputs],
        languages,
        threshold=settings.intent_threshold,
        subjects=[i.subject for i in inputs],
        families=[i.family for i in inputs],
        contexts=[i.context for i in inputs],
    )
    refs = extract_references_batch(
        [
            reference_text(r, c) for r, c in zip(batch, contents)
        ],  # the whole content as labelled, not the classifier's cut
        languages,
        attachments=[r.attachments for r in batch],
        message_ids=[list(_message_ids(r)) for r in batch],
        config=settings.references,
        known_entities=known_entities,
        reference_dates=[r.occurred_at.date() for r in batch],
        attachment_scopes=[attachment_scope(r, t) for r, t in zip(batch, traits)],
        title_ends=[title_end(r, c, t) for r, c, t in zip(batch, contents, traits)],
    )
    return [
        _Derived(content, language, intent, confidence, references)
        for content, language, (intent, confidence), references in zip(contents, languages, intents, refs)
    ]


def make_episode(
    record: SourceRecord,
    content: str,
    language: str,
    intent: str,
    confidence: float,
    references: list[str],
    settings: EpisodeSettings,
    truncated: list[str] | None = None,
) -> Episode:
    actor = record.actor
    return Episode(
        id=episode_id(record.source, record.source_key, record.version),
        group_id=record.fields.get("group_id") or settings.group_id,  # a source may route a record (restricted pages)
        timestamp=record.occurred_at,
        source=record.source,
        actor=actor,
        intent=intent,
        intent_confidence=round(float(confidence), 4),
        content=content,
        metadata=EpisodeMetadata(
            source_key=record.source_key,
            kind=record.kind,
            version=record.version,
            title=record.title,
            url=record.url,
            thread_key=record.thread_key,
            parent_key=record.parent_key,
            related_keys=record.related_keys,
            language=language,
            occurred_at=record.occurred_at,
            updated_at=record.updated_at,
            origin=record.origin,
            participants=record.participants,
            attachments=record.attachments,
            fields=record.fields,
            truncated=truncated or [],
        ),
        references=references,
        fingerprint=fingerprint(intent, content, actor.id),
    )
