"""The shipped intent model: the embedding head (embed_model.py) and the lexical cue + n-gram textcat (classifier.py),
both trained on the same prepared units, their probabilities mixed.

Why both: the embedding generalises over paraphrases, the lexical model keeps exact forms the vector blurs ("+1",
"won't fix", "-1"). WEIGHT, EMBED_L2 and THRESHOLD were chosen by thread-grouped 5-fold cross-validation on the train split in
bench/intent_bench.py (never on eval); a user with their own labels may set GRAPHFEED_INTENT_THRESHOLD instead.
"""

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from transforms.intent.classifier import IntentClassifier
from transforms.intent.data import OTHER
from transforms.intent.embed_model import EmbedIntentClassifier
from transforms.intent.units import ClassifierInput, classifier_inputs

WEIGHT = 0.7  # share of the embedding head (bench/intent_bench.py, CV on train)
EMBED_L2 = 1e-4  # L2 of the embedding head (same CV)
THRESHOLD = 0.25  # top probability below this -> other (same CV)
META = "ensemble.json"


class EnsembleIntentClassifier:
    kind = "ensemble"

    def __init__(
        self,
        embed: EmbedIntentClassifier,
        lexical: IntentClassifier,
        weight: float = WEIGHT,
        threshold: float = THRESHOLD,
    ):
        if embed.labels != lexical.labels:
            raise ValueError(f"the two models disagree on labels: {embed.labels} vs {lexical.labels}")
        self.embed, self.lexical, self.weight, self.threshold = embed, lexical, weight, threshold
        self.labels = embed.labels
        self.meta = {"kind": self.kind, "weight": weight, "threshold": threshold, "embed": embed.meta}

    def scores_inputs(self, inputs: Sequence[ClassifierInput]) -> np.ndarray:
        if not inputs:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        texts = [i.text if i.text.strip() else i.subject for i in inputs]
        lexical = np.asarray(self.lexical.scores(texts, [i.lang for i in inputs]))
        return self.weight * self.embed.scores_inputs(inputs) + (1 - self.weight) * lexical

    def predict_inputs(self, inputs: Sequence[ClassifierInput], threshold: float | None = None):
        t = self.threshold if threshold is None else threshold
        out = []
        for item, row in zip(inputs, self.scores_inputs(inputs)):
            if not (item.text.strip() or item.subject.strip()):
                out.append((OTHER, 0.0))
                continue
            best = int(row.argmax())
            conf = float(min(1.0, max(0.0, row[best])))
            out.append((self.labels[best] if conf >= t else OTHER, conf))
        return out

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
        self.embed.save(out_dir / "embed")
        self.lexical.nlp.to_disk(out_dir / "lexical")
        (out_dir / META).write_text(json.dumps(self.meta, indent=1, sort_keys=True), encoding="utf-8")
        return out_dir

    @classmethod
    def load(cls, path: Path) -> "EnsembleIntentClassifier":
        path = Path(path)
        meta = json.loads((path / META).read_text(encoding="utf-8"))
        return cls(
            EmbedIntentClassifier.load(path / "embed"),
            IntentClassifier.load(path / "lexical"),
            float(meta["weight"]),
            float(meta["threshold"]),
        )
