"""IntentClassifier: load a trained pipeline directory and label texts with (intent, confidence)."""

from collections.abc import Sequence
from pathlib import Path

import numpy
import spacy
from spacy.language import Language

import transforms.intent.features  # noqa: F401  (registers the spaCy factory and thinc architecture)
from transforms.intent.data import OTHER, normalise_lang
from transforms.intent.features import LANG_KEY, MAX_CHARS, detect_language


class IntentClassifier:
    def __init__(self, nlp: Language):
        self.nlp = nlp
        self._textcat = nlp.get_pipe("textcat")
        self._cues = nlp.get_pipe("textcat_cues") if "textcat_cues" in nlp.pipe_names else None
        self.cue_weight = float(nlp.meta.get("graphfeed", {}).get("cue_weight", 0.0)) if self._cues else 0.0
        self.labels: list[str] = list(self._textcat.labels)
        self.meta: dict = dict(nlp.meta)

    @classmethod
    def load(cls, path: Path) -> "IntentClassifier":
        return cls(spacy.load(Path(path)))

    def scores(self, texts: Sequence[str], languages: Sequence[str] | None = None) -> numpy.ndarray:
        """Probability matrix (len(texts) x len(labels)), rows sum to 1."""
        if languages is not None and len(languages) != len(texts):
            raise ValueError(f"got {len(texts)} texts but {len(languages)} languages")
        docs = []
        for i, text in enumerate(texts):
            text = text if isinstance(text, str) else ""
            doc = self.nlp.make_doc(text[:MAX_CHARS])
            lang = languages[i] if languages is not None and languages[i] else detect_language(text[:MAX_CHARS])
            doc.user_data[LANG_KEY] = normalise_lang(lang)
            docs.append(doc)
        for name, proc in self.nlp.pipeline:
            if name.startswith("textcat"):
                break
            docs = [proc(d) for d in docs]
        if not docs:
            return numpy.zeros((0, len(self.labels)), dtype="f")
        probs = numpy.asarray(self._textcat.predict(docs))
        if self._cues is not None and self.cue_weight > 0:
            # Ensemble: the cue-only model knows paraphrases the word model never saw.
            probs = (1 - self.cue_weight) * probs + self.cue_weight * numpy.asarray(self._cues.predict(docs))
        return probs

    def predict(
        self,
        texts: Sequence[str],
        languages: Sequence[str] | None = None,
        threshold: float | None = 0.5,
        subjects: Sequence[str] | None = None,
        families: Sequence[str] | None = None,
        contexts: Sequence[Sequence[str]] | None = None,
    ) -> list[tuple[str, float]]:
        """(label, confidence) per text; a top score below `threshold` becomes ("other", score).

        Blank or non-text input gives ("other", 0.0): nothing to classify is not an error. A blank text with a
        subject is classified by its subject (the weaker input); families and contexts are not used by this model.
        """
        threshold = 0.5 if threshold is None else threshold
        texts = list(texts)
        if subjects is not None:
            texts = [t if isinstance(t, str) and t.strip() else (subjects[i] or t) for i, t in enumerate(texts)]
        probs = self.scores(texts, languages)
        out: list[tuple[str, float]] = []
        for text, row in zip(texts, probs):
            if not isinstance(text, str) or not text.strip():
                out.append((OTHER, 0.0))
                continue
            best = int(row.argmax())
            conf = float(min(1.0, max(0.0, row[best])))
            out.append((self.labels[best] if conf >= threshold else OTHER, conf))
        return out
