"""The intent classifier over sentence embeddings: a linear head on MiniLM vectors of the author's text and subject,
plus cue-lexicon concepts, block markers and the source family.

Why: real units are long and varied; the lexical model only knows words it saw, the embedding generalises across
paraphrases, and the cues carry the acts the lexicon names (NOT_DONE, REJECT, ...) that one vector blurs. Trained at
run time (numpy, deterministic) and saved as plain arrays (npz without pickle) plus JSON, never committed.
"""

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from transforms.author_text import MARKERS
from transforms.intent.context import TOKENS as CONTEXT_TOKENS
from transforms.intent.data import OTHER
from transforms.intent.embedding import DIM, IntentEmbedder, shared_embedder
from transforms.intent.lexicon import Lexicon
from transforms.intent.linear import fit_softmax, predict_proba
from transforms.intent.units import FAMILIES, SYNTHETIC, ClassifierInput, classifier_inputs

WEIGHTS = "weights.npz"
META = "meta.json"
LEXICON = "cues.json"
FAMILY_SLOTS = (*FAMILIES, SYNTHETIC)
CONTEXT_COLUMN = {token: k for k, token in enumerate(CONTEXT_TOKENS)}


class FeatureConfig(BaseModel):
    """Which inputs the head reads. subject_weight scales the subject vector (a weaker input than the text)."""

    subject_weight: float = 0.5
    cues: bool = True
    markers: bool = True
    family: bool = True
    cue_scale: float = 0.5
    context: bool = False  # the record's context tokens (transforms.intent.context); off in models saved before them
    context_scale: float = 1.0


def cue_vocabulary(lexicon: Lexicon) -> list[str]:
    names = sorted(lexicon.source.get("concepts", {}))
    return [*names, *(f"NOT_{n}" for n in names if n != "NEG")]


def featurize(
    inputs: Sequence[ClassifierInput],
    config: FeatureConfig,
    lexicon: Lexicon | None,
    vocabulary: Sequence[str],
    embedder: IntentEmbedder,
) -> np.ndarray:
    texts = [i.text if i.text.strip() else i.subject for i in inputs]
    blocks = [embedder.encode(texts)]
    if config.subject_weight > 0:
        blocks.append(embedder.encode([i.subject for i in inputs]) * config.subject_weight)
    if config.cues and lexicon is not None:
        index = {c: k for k, c in enumerate(vocabulary)}
        cues = np.zeros((len(inputs), len(vocabulary)), dtype=np.float32)
        for row, item in enumerate(inputs):
            for concept in lexicon.concepts(item.text[:2000], item.lang):
                if concept in index:
                    cues[row, index[concept]] = config.cue_scale
        blocks.append(cues)
    if config.markers:
        marks = np.zeros((len(inputs), len(MARKERS) + 3), dtype=np.float32)
        for row, item in enumerate(inputs):
            for k, marker in enumerate(MARKERS):
                marks[row, k] = 0.5 if marker in item.text else 0.0
            stripped = item.text.strip()
            marks[row, len(MARKERS)] = 0.5 if not stripped else 0.0
            marks[row, len(MARKERS) + 1] = 0.5 if "?" in stripped else 0.0
            marks[row, len(MARKERS) + 2] = min(len(stripped), 2000) / 4000
        blocks.append(marks)
    if config.family:
        fam = np.zeros((len(inputs), len(FAMILY_SLOTS)), dtype=np.float32)
        for row, item in enumerate(inputs):
            fam[row, FAMILY_SLOTS.index(item.family) if item.family in FAMILY_SLOTS else -1] = 0.5
        blocks.append(fam)
    if config.context:
        ctx = np.zeros((len(inputs), len(CONTEXT_TOKENS)), dtype=np.float32)
        for row, item in enumerate(inputs):
            for token in item.context:
                if token in CONTEXT_COLUMN:
                    ctx[row, CONTEXT_COLUMN[token]] = config.context_scale
        blocks.append(ctx)
    return np.hstack(blocks).astype(np.float32)


class EmbedIntentClassifier:
    """predict() has the shape of IntentClassifier.predict, plus subjects and families of the units."""

    kind = "embed"

    def __init__(
        self,
        labels: list[str],
        w: np.ndarray,
        b: np.ndarray,
        config: FeatureConfig,
        lexicon: Lexicon | None,
        vocabulary: list[str],
        threshold: float,
        meta: dict | None = None,
        embedder: IntentEmbedder | None = None,
    ):
        self.labels, self.w, self.b, self.config = labels, w, b, config
        self.lexicon, self.vocabulary, self.threshold = lexicon, vocabulary, threshold
        self.meta = meta or {}
        self.embedder = embedder or shared_embedder()

    @classmethod
    def fit(
        cls,
        inputs: Sequence[ClassifierInput],
        gold: Sequence[str],
        labels: list[str],
        config: FeatureConfig,
        lexicon: Lexicon | None,
        *,
        l2: float = 1e-3,
        threshold: float = 0.0,
        embedder: IntentEmbedder | None = None,
        x: np.ndarray | None = None,
    ) -> "EmbedIntentClassifier":
        embedder = embedder or shared_embedder()
        vocabulary = cue_vocabulary(lexicon) if lexicon is not None else []
        if x is None:
            x = featurize(inputs, config, lexicon, vocabulary, embedder)
        y = np.array([labels.index(g) for g in gold])
        w, b = fit_softmax(x, y, len(labels), l2=l2)
        return cls(labels, w, b, config, lexicon, vocabulary, threshold, {"l2": l2}, embedder)

    def features(self, inputs: Sequence[ClassifierInput]) -> np.ndarray:
        return featurize(inputs, self.config, self.lexicon, self.vocabulary, self.embedder)

    def scores_inputs(self, inputs: Sequence[ClassifierInput]) -> np.ndarray:
        if not inputs:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        return predict_proba(self.features(inputs), self.w, self.b)

    def decide(self, probs: np.ndarray, threshold: float | None = None) -> list[tuple[str, float]]:
        """argmax, but below the threshold the unit is `other` (the calibrated default when threshold is None)."""
        t = self.threshold if threshold is None else threshold
        out = []
        for row in probs:
            best = int(row.argmax())
            conf = float(row[best])
            out.append((self.labels[best] if conf >= t else OTHER, conf))
        return out

    def predict_inputs(self, inputs: Sequence[ClassifierInput], threshold: float | None = None):
        out = self.decide(self.scores_inputs(inputs), threshold)
        return [(OTHER, 0.0) if not (i.text.strip() or i.subject.strip()) else r for i, r in zip(inputs, out)]

    def predict(
        self,
        texts: Sequence[str],
        languages: Sequence[str] | None = None,
        threshold: float | None = None,
        subjects: Sequence[str] | None = None,
        families: Sequence[str] | None = None,
        contexts: Sequence[Sequence[str]] | None = None,
    ):
        return self.predict_inputs(classifier_inputs(texts, languages, subjects, families, contexts), threshold)

    def save(self, out_dir: Path) -> Path:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        np.savez(out_dir / WEIGHTS, w=self.w, b=self.b)
        (out_dir / META).write_text(
            json.dumps(
                {
                    **self.meta,
                    "kind": self.kind,
                    "labels": self.labels,
                    "config": self.config.model_dump(),
                    "vocabulary": self.vocabulary,
                    "threshold": self.threshold,
                    "dim": DIM,
                },
                indent=1,
                sort_keys=True,
            ),
            encoding="utf-8",
        )
        if self.lexicon is not None:
            (out_dir / LEXICON).write_text(
                json.dumps(self.lexicon.source, ensure_ascii=False, sort_keys=True), encoding="utf-8"
            )
        return out_dir

    @classmethod
    def load(cls, path: Path, embedder: IntentEmbedder | None = None) -> "EmbedIntentClassifier":
        path = Path(path)
        meta = json.loads((path / META).read_text(encoding="utf-8"))
        with np.load(path / WEIGHTS, allow_pickle=False) as data:
            w, b = data["w"], data["b"]
        lexicon = Lexicon.from_path(path / LEXICON) if (path / LEXICON).is_file() else None
        return cls(
            meta["labels"],
            w,
            b,
            FeatureConfig(**meta["config"]),
            lexicon,
            meta["vocabulary"],
            float(meta["threshold"]),
            meta,
            embedder,
        )
