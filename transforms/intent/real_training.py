"""Training the shipped intent model from labelled real units (+ the synthetic phrasings), with thread-grouped
cross-validation on the train split only: the L2 strength and the `other` threshold are chosen there, never on eval.

The model is rebuilt at run time and cached under <home>/models/intent/<code version>-<data hash>: a change to any
training file, the taxonomy, the lexicon or this code trains a new one (and the Dagster asset's code version moves,
so episodes go stale).
"""

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from transforms.intent.data import IntentDataError, load_taxonomy
from transforms.intent.embed_model import EmbedIntentClassifier, FeatureConfig, cue_vocabulary, featurize
from transforms.intent.embedding import DiskCache, IntentEmbedder, model_tag, shared_embedder
from transforms.intent.lexicon import Lexicon
from transforms.intent.linear import fit_softmax, predict_proba
from transforms.intent.metrics import macro_f1
from transforms.intent.training import DATA_DIR, DEFAULT_LEXICON, DEFAULT_TAXONOMY, DEFAULT_TRAIN
from transforms.intent.units import LabelledUnit, labelled_files, load_units, prepare
from transforms.intent.version import CODE_VERSION

DEFAULT_LABELLED = DATA_DIR / "labelled"
# The shipped head's inputs: text + subject vectors, cues, markers, family and the record's context (bench/intent_bench.py:
# context lifts CV macro-F1 0.615 -> 0.630 and eval 0.649 -> 0.665 on the real units, 0.660 when eval units carry none)
SHIPPED_FEATURES = FeatureConfig(context=True)
USE_SYNTHETIC = True  # the synthetic phrasings as extra training rows (bench: CV on train)
L2_GRID = (1e-4, 3e-4, 1e-3, 3e-3)
THRESHOLD_GRID = tuple(round(0.05 * k, 2) for k in range(0, 13))
FOLDS = 5


def training_files(
    train_path: Path | None = None, labelled_dir: Path = DEFAULT_LABELLED, synthetic: bool = USE_SYNTHETIC
) -> list[Path]:
    """A user's own labels file replaces ours; by default the real units plus (optionally) the synthetic ones."""
    if train_path is not None:
        return [Path(train_path)]
    files = labelled_files(labelled_dir)
    return files + [DEFAULT_TRAIN] if synthetic or not files else files


def data_version(
    files: Sequence[Path], taxonomy_path: Path = DEFAULT_TAXONOMY, lexicon_path: Path = DEFAULT_LEXICON
) -> str:
    h = hashlib.sha256()
    for tag, p in [*(("train", f) for f in files), ("taxonomy", taxonomy_path), ("lexicon", lexicon_path)]:
        data = Path(p).read_bytes()
        h.update(f"{tag}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def train_units(files: Sequence[Path], taxonomy_path: Path = DEFAULT_TAXONOMY) -> list[LabelledUnit]:
    """Every unit not in an eval split: the eval split is never trained on."""
    units = [u for u in load_units(files, load_taxonomy(taxonomy_path)) if u.split != "eval"]
    if not units:
        raise IntentDataError(f"{', '.join(map(str, files))}: no training units (all are split=eval or empty)")
    return units


def fold_of(unit: LabelledUnit, k: int = FOLDS) -> int:
    """Deterministic fold by thread, so one thread's units are never on both sides of a CV split."""
    key = unit.thread or unit.uid or unit.source_key or (unit.text or unit.raw_text or "")
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % k


def out_of_fold(x: np.ndarray, y: np.ndarray, folds: np.ndarray, n_classes: int, l2: float) -> np.ndarray:
    probs = np.zeros((len(y), n_classes), dtype=np.float32)
    for f in sorted(set(folds.tolist())):
        test = folds == f
        w, b = fit_softmax(x[~test], y[~test], n_classes, l2=l2)
        probs[test] = predict_proba(x[test], w, b)
    return probs


def decide(probs: np.ndarray, labels: Sequence[str], threshold: float) -> list[str]:
    other = labels.index("other")
    best = probs.argmax(axis=1)
    return [labels[other] if probs[i, b] < threshold else labels[b] for i, b in enumerate(best)]


def calibrate(
    x: np.ndarray, gold: Sequence[str], folds: np.ndarray, labels: list[str], scored: np.ndarray | None = None
) -> tuple[float, float, float]:
    """(l2, threshold, CV macro-F1) maximising macro-F1 of out-of-fold predictions on the scored rows."""
    y = np.array([labels.index(g) for g in gold])
    rows = np.ones(len(y), dtype=bool) if scored is None else scored
    best = (L2_GRID[0], 0.0, -1.0)
    for l2 in L2_GRID:
        probs = out_of_fold(x, y, folds, len(labels), l2)
        for t in THRESHOLD_GRID:
            pred = decide(probs[rows], labels, t)
            score = macro_f1([g for g, r in zip(gold, rows) if r], pred, labels)
            if score > best[2] + 1e-9:
                best = (l2, t, score)
    return best


def context_free_copies(units: Sequence[LabelledUnit]) -> list[LabelledUnit]:
    """Each unit that carries context once more without it: the head then also reads text alone well (a mail, a
    user's own labels, a Jira export without issue types), instead of leaning on context it may not get."""
    return [u.model_copy(update={"context": []}) for u in units if u.context]


def fit_units(
    units: Sequence[LabelledUnit],
    labels: list[str],
    lexicon: Lexicon | None,
    config: FeatureConfig | None = None,
    embedder: IntentEmbedder | None = None,
    calibrated: bool = True,
    l2: float = L2_GRID[2],
) -> EmbedIntentClassifier:
    config = config or SHIPPED_FEATURES
    embedder = embedder or shared_embedder()
    originals = len(units)
    units = [*units, *context_free_copies(units)] if config.context else list(units)
    inputs = [prepare(u) for u in units]
    gold = [u.label for u in units]
    vocabulary = cue_vocabulary(lexicon) if lexicon is not None else []
    x = featurize(inputs, config, lexicon, vocabulary, embedder)
    threshold, cv = 0.0, None
    if calibrated:
        folds = np.array([fold_of(u) for u in units])
        # scored on the real units as they are (not on the synthetic ones, nor the context-free copies)
        real = np.array([u.source_family != "synthetic" and n < originals for n, u in enumerate(units)])
        l2, threshold, cv = calibrate(x, gold, folds, labels, real if real.any() else None)
    model = EmbedIntentClassifier.fit(
        inputs, gold, labels, config, lexicon, l2=l2, threshold=threshold, embedder=embedder, x=x
    )
    model.meta.update({"cv_macro_f1": cv, "n_units": originals})
    return model


def fit_lexical(units: Sequence[LabelledUnit], labels: list[str], lexicon_data: dict | None, seed: int = 0):
    """The spaCy cue + n-gram textcat trained on the same prepared units (text, or the subject when it is empty)."""
    from transforms.intent.classifier import IntentClassifier
    from transforms.intent.data import LabelledText
    from transforms.intent.training import build_pipeline, fit

    examples = []
    for unit in units:
        item = prepare(unit)
        text = item.text if item.text.strip() else item.subject
        if text.strip():
            examples.append(LabelledText(text=text, label=unit.label, lang=item.lang))
    return IntentClassifier(fit(build_pipeline(labels, lexicon_data), examples, seed=seed))


def train(
    files: Sequence[Path],
    out_dir: Path,
    taxonomy_path: Path = DEFAULT_TAXONOMY,
    lexicon_path: Path | None = DEFAULT_LEXICON,
    embedder: IntentEmbedder | None = None,
    kind: str = "ensemble",
) -> Path:
    """kind "ensemble" (shipped: embedding head + lexical textcat) or "embed" (the head alone, its own CV threshold)."""
    from transforms.intent.ensemble import EnsembleIntentClassifier

    taxonomy = load_taxonomy(taxonomy_path)
    lexicon = Lexicon.from_path(lexicon_path) if lexicon_path else None
    units = train_units(files, taxonomy_path)
    from transforms.intent.ensemble import EMBED_L2

    model = fit_units(units, taxonomy.names, lexicon, embedder=embedder, calibrated=kind == "embed", l2=EMBED_L2)
    model.meta.update(
        {
            "code_version": CODE_VERSION,
            "taxonomy": [lab.model_dump() for lab in taxonomy.labels],
            "files": [Path(f).name for f in files],
            "data_version": data_version(files, taxonomy_path, lexicon_path or DEFAULT_LEXICON),
        }
    )
    if kind == "embed":
        return model.save(out_dir)
    lexical = fit_lexical(units, taxonomy.names, lexicon.source if lexicon else None)
    return EnsembleIntentClassifier(model, lexical).save(out_dir)


def model_dir(
    home: Path, files: Sequence[Path], taxonomy_path: Path = DEFAULT_TAXONOMY, lexicon_path: Path = DEFAULT_LEXICON
) -> Path:
    version = f"{CODE_VERSION}{model_tag()}-{data_version(files, taxonomy_path, lexicon_path)}"
    return Path(home) / "models" / "intent" / version


def embedding_cache(home: Path) -> DiskCache:
    return DiskCache(Path(home) / "models" / "intent" / "embeddings.npz")


def ensure_model(
    home: Path,
    train_path: Path | None = None,
    taxonomy_path: Path = DEFAULT_TAXONOMY,
    lexicon_path: Path = DEFAULT_LEXICON,
) -> Path:
    """The cached model directory, trained first if missing (into a temp dir, then renamed: races are harmless)."""
    files = training_files(train_path)
    final = model_dir(home, files, taxonomy_path, lexicon_path)
    if (final / "ensemble.json").is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    disk = embedding_cache(home)
    try:
        train(files, tmp / "model", taxonomy_path, lexicon_path, embedder=IntentEmbedder(shared_embedder().model, disk))
        disk.save()
        try:
            os.rename(tmp / "model", final)
        except OSError:
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final
