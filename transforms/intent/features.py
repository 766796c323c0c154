"""Feature extraction for the intent textcat, as a spaCy component plus a thinc model.

The `graphfeed_intent_features` component writes a list of feature strings to
`doc.user_data["intent_features"]`: lower-cased words and word bigrams (what TextCatBOW sees),
cue-lexicon concepts and concept pairs (paraphrase generalisation), and character n-grams
(German compounds, inflections, Chinese, which the `xx` tokenizer leaves unsplit).
`graphfeed.IntentFeatureBOW.v1` hashes those strings into a sparse linear softmax layer,
the same maths as spaCy's TextCatBOW, just over richer features.
"""

import json
import re
from functools import partial
from pathlib import Path

import numpy
from spacy.language import Language
from spacy.ml.models.textcat import NEG_VALUE, resize_and_set_ref
from spacy.strings import get_string_id
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, SparseLinear_v2, chain, resizable, softmax_activation
from thinc.layers.resizable import resize_linear_weighted

from transforms.intent.lexicon import Lexicon

FEATURES_KEY = "intent_features"
CUES_KEY = "intent_cues"  # concept-only features for the cue model of the ensemble
LANG_KEY = "intent_lang"
FACTORY = "graphfeed_intent_features"
LEXICON_FILE = "cues.json"
# Intent sits in the opening lines of a message; capping keeps long mails within the latency budget.
MAX_CHARS = 600

_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_DIGITS = re.compile(r"\d")
_WORD = re.compile(r"[^\W\d_]{4,}")


def detect_language(text: str) -> str:
    """Cheap en/de/zh guess for callers that do not pass a language (CJK ratio, then py3langid)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    if sum(1 for c in letters if _CJK_RUN.match(c)) / len(letters) > 0.15:
        return "zh"
    if len(letters) < 20:
        return "en"
    return _langid().classify(text)[0]


_LID = None


def _langid():
    global _LID
    if _LID is None:
        import os

        import py3langid.langid as L
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        _LID = LanguageIdentifier.from_modelpath(os.path.join(os.path.dirname(L.__file__), MODEL_FILE), norm_probs=True)
        _LID.set_languages(["en", "de", "zh"])
    return _LID


def text_features(doc: Doc, lexicon: Lexicon | None, lang: str, char_ngrams: tuple[int, int]) -> list[str]:
    """All feature strings of one doc (pure given the lexicon)."""
    text = doc.text[:MAX_CHARS]
    words = [_DIGITS.sub("0", t.lower_) for t in doc if not (t.is_space or t.is_punct) and t.idx < MAX_CHARS]
    feats = [f"w:{w}" for w in words]
    feats += [f"b:{a}|{b}" for a, b in zip(words, words[1:])]
    lo, hi = char_ngrams
    if hi >= lo > 0:
        for word in _WORD.findall(text.lower()):
            padded = f"<{word}>"
            for n in range(lo, hi + 1):
                feats += [f"c:{padded[i : i + n]}" for i in range(len(padded) - n + 1)]
    for run in _CJK_RUN.findall(text):
        feats += [f"z:{ch}" for ch in run]
        feats += [f"z:{run[i : i + 2]}" for i in range(len(run) - 1)]
    if lexicon is not None:
        concepts = lexicon.concepts(text, lang)
        feats += [f"k:{c}" for c in concepts]
        feats += [f"kk:{a}+{b}" for i, a in enumerate(concepts) for b in concepts[i + 1 :]]
    return feats


class IntentFeatures:
    """spaCy component: computes the feature strings once per doc (see module docstring)."""

    def __init__(self, nlp: Language, name: str, char_ngrams: list[int], use_lexicon: bool):
        self.name = name
        self.char_ngrams = (int(char_ngrams[0]), int(char_ngrams[1])) if char_ngrams else (0, 0)
        self.use_lexicon = use_lexicon
        self.lexicon: Lexicon | None = None

    def set_lexicon(self, data: dict) -> None:
        self.lexicon = Lexicon.from_dict(data)

    def __call__(self, doc: Doc) -> Doc:
        lang = doc.user_data.get(LANG_KEY) or detect_language(doc.text[:MAX_CHARS])
        lexicon = self.lexicon if self.use_lexicon else None
        if self.use_lexicon and lexicon is None:
            raise ValueError(f"{self.name}: no cue lexicon loaded (call set_lexicon before use)")
        feats = text_features(doc, lexicon, lang, self.char_ngrams)
        doc.user_data[FEATURES_KEY] = hash_features(feats)
        doc.user_data[CUES_KEY] = hash_features([f for f in feats if f.startswith(("k:", "kk:"))] or ["k:NONE"])
        return doc

    def to_disk(self, path, *, exclude=tuple()):
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        data = self.lexicon.source if self.lexicon is not None else {}
        (path / LEXICON_FILE).write_text(
            json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1), encoding="utf-8"
        )

    def from_disk(self, path, *, exclude=tuple()):
        data = json.loads((Path(path) / LEXICON_FILE).read_text(encoding="utf-8"))
        self.lexicon = Lexicon.from_dict(data) if data else None
        return self


@Language.factory(FACTORY, default_config={"char_ngrams": [3, 5], "use_lexicon": True})
def make_intent_features(nlp: Language, name: str, char_ngrams: list[int], use_lexicon: bool) -> IntentFeatures:
    return IntentFeatures(nlp, name, char_ngrams, use_lexicon)


def hash_features(feats: list[str]) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Feature strings -> (unique uint64 keys, float32 counts), hashed once per doc, not once per epoch."""
    counts: dict[int, int] = {}
    for f in feats:
        h = get_string_id(f)
        counts[h] = counts.get(h, 0) + 1
    return numpy.fromiter(counts.keys(), dtype="uint64", count=len(counts)), numpy.fromiter(
        counts.values(), dtype="float32", count=len(counts)
    )


def _hashed_forward(model: Model, docs: list[Doc], is_train: bool):
    key = model.attrs["features_key"]
    keys, vals, lengths = [], [], []
    for doc in docs:
        hashed = doc.user_data.get(key)
        if hashed is None:
            raise ValueError(f"doc has no {key!r}: the {FACTORY} component must run before the textcat")
        keys.append(hashed[0])
        vals.append(hashed[1])
        lengths.append(len(hashed[0]))
    ops = model.ops
    out = (
        numpy.concatenate(keys) if keys else numpy.zeros((0,), dtype="uint64"),
        ops.asarray1f(numpy.concatenate(vals) if vals else numpy.zeros((0,), dtype="float32")),
        ops.asarray1i(lengths),
    )
    return out, lambda d_out: []


@registry.architectures("graphfeed.IntentFeatureBOW.v1")
def build_intent_feature_bow(
    exclusive_classes: bool = True, length: int = 2**16, features_key: str = FEATURES_KEY, nO: int | None = None
) -> Model:
    """TextCatBOW.v3 with our feature hashing instead of `extract_ngrams(ORTH)`."""
    length = 2 ** (length - 1).bit_length()
    fill_defaults = {"b": NEG_VALUE if exclusive_classes else 0, "W": 0}
    sparse_linear = SparseLinear_v2(nO=nO, length=length)
    resizable_layer = resizable(
        sparse_linear, resize_layer=partial(resize_linear_weighted, fill_defaults=fill_defaults)
    )
    model = chain(Model("intent_feature_hash", _hashed_forward, attrs={"features_key": features_key}), resizable_layer)
    if exclusive_classes:
        model = chain(model, softmax_activation())
    if nO is not None:
        model.set_dim("nO", nO)
    model.set_ref("output_layer", sparse_linear)
    model.attrs["multi_label"] = not exclusive_classes
    model.attrs["resize_output"] = partial(resize_and_set_ref, resizable_layer=resizable_layer)
    return model
