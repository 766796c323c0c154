"""Intent classification for episodes: cue lexicon + char n-grams + sparse linear spaCy textcat.

Public API: IntentClassifier, train, ensure_model, data_version, code_version.
"""

import importlib
from typing import Any

# Where each public name lives; imported on first use, so that `transforms.intent.data` (the taxonomy, read by the
# read commands' input checks) does not drag the classifier and spaCy in (issue 29).
_HOMES = {
    "IntentClassifier": "classifier",
    "IntentDataError": "data",
    "Taxonomy": "data",
    "load_examples": "data",
    "load_taxonomy": "data",
    "Lexicon": "lexicon",
    "LexiconError": "lexicon",
    "DEFAULT_HELDOUT": "data",
    "DEFAULT_LEXICON": "data",
    "DEFAULT_TAXONOMY": "data",
    "DEFAULT_TRAIN": "data",
    "data_version": "training",
    "ensure_model": "training",
    "model_dir": "training",
    "train": "training",
    "CODE_VERSION": "version",
}


def __getattr__(name: str) -> Any:
    if name == "code_version":
        name = "CODE_VERSION"
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'transforms.intent' has no attribute {name!r}")
    return getattr(importlib.import_module(f"transforms.intent.{home}"), name)


__all__ = [
    "CODE_VERSION",
    "DEFAULT_HELDOUT",
    "DEFAULT_LEXICON",
    "DEFAULT_TAXONOMY",
    "DEFAULT_TRAIN",
    "IntentClassifier",
    "IntentDataError",
    "Lexicon",
    "LexiconError",
    "Taxonomy",
    "code_version",
    "data_version",
    "ensure_model",
    "load_examples",
    "load_taxonomy",
    "model_dir",
    "train",
]
