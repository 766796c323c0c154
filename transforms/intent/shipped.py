"""Which intent model the pipeline runs, and its version: one place for the resource, the asset and the CLI.

MODEL_KIND was chosen by eval macro-F1 in bench/intent_bench.py ("ensemble": the linear head over MiniLM + cue
lexicon mixed with the spaCy cue + n-gram textcat, both on real units; "lexical": intent-2, synthetic data only). Both rebuild from data/intent/ and are cached by version.
"""

from pathlib import Path

from transforms.intent import real_training, training
from transforms.intent.embedding import model_tag
from transforms.intent.version import CODE_VERSION

MODEL_KIND = "ensemble"


def ensure(
    home: Path, train_path: Path | None = None, taxonomy_path: Path | None = None, seed: int = 0, kind: str = MODEL_KIND
) -> Path:
    taxonomy = Path(taxonomy_path) if taxonomy_path else training.DEFAULT_TAXONOMY
    if kind == "lexical":
        return training.ensure_model(
            home, Path(train_path) if train_path else training.DEFAULT_TRAIN, taxonomy, seed=seed
        )
    return real_training.ensure_model(home, Path(train_path) if train_path else None, taxonomy)


def load(path: Path):
    path = Path(path)
    if (path / "ensemble.json").is_file():
        from transforms.intent.ensemble import EnsembleIntentClassifier

        return EnsembleIntentClassifier.load(path)
    if (path / "weights.npz").is_file():
        from transforms.intent.embed_model import EmbedIntentClassifier

        return EmbedIntentClassifier.load(path)
    from transforms.intent.classifier import IntentClassifier

    return IntentClassifier.load(path)


def version(train_path: Path | None = None, taxonomy_path: Path | None = None, kind: str = MODEL_KIND) -> str:
    """code version + hash of every training input: it changes when the data does (the asset's code_version)."""
    taxonomy = Path(taxonomy_path) if taxonomy_path else training.DEFAULT_TAXONOMY
    if kind == "lexical":
        return f"{CODE_VERSION}-{training.data_version(Path(train_path or training.DEFAULT_TRAIN), taxonomy)[:12]}"
    files = real_training.training_files(Path(train_path) if train_path else None)
    return f"{CODE_VERSION}{model_tag()}-{real_training.data_version(files, taxonomy)[:12]}"
