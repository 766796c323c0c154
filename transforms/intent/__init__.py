"""Intent classification for episodes: cue lexicon + char n-grams + sparse linear spaCy textcat.

Public API: IntentClassifier, train, ensure_model, data_version, code_version.
"""

from transforms.intent.classifier import IntentClassifier
from transforms.intent.data import IntentDataError, Taxonomy, load_examples, load_taxonomy
from transforms.intent.lexicon import Lexicon, LexiconError
from transforms.intent.training import (
    DEFAULT_HELDOUT,
    DEFAULT_LEXICON,
    DEFAULT_TAXONOMY,
    DEFAULT_TRAIN,
    data_version,
    ensure_model,
    model_dir,
    train,
)
from transforms.intent.version import CODE_VERSION

code_version: str = CODE_VERSION

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
