"""Taxonomy and labelled-example files: loading and validation with messages that name file and line.

Users may bring their own labels file and taxonomy, so every error says exactly what to fix.
"""

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from transforms.jsonl_lines import numbered_lines

# The bundled labelled data; here (not in training.py) so that reading the taxonomy does not import spaCy.
DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "intent"
DEFAULT_TRAIN = DATA_DIR / "train.jsonl"
DEFAULT_TAXONOMY = DATA_DIR / "taxonomy.json"
DEFAULT_LEXICON = DATA_DIR / "cues.json"
DEFAULT_HELDOUT = DATA_DIR / "heldout.jsonl"

OTHER = "other"


class IntentDataError(ValueError):
    """A taxonomy or labels file that cannot be used; the message names the file (and line)."""


class IntentLabel(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    description: str = ""


class Taxonomy(BaseModel):
    model_config = ConfigDict(frozen=True)

    labels: list[IntentLabel]

    @property
    def names(self) -> list[str]:
        return [lab.name for lab in self.labels]


class LabelledText(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    label: str
    lang: str = "en"

    @field_validator("lang")
    @classmethod
    def _short_lang(cls, v: str) -> str:
        return normalise_lang(v)


def normalise_lang(lang: str | None) -> str:
    """'de-DE', 'zh_Hans', 'EN' -> 'de', 'zh', 'en'."""
    return (lang or "en").strip().lower().replace("_", "-").split("-")[0] or "en"


def load_taxonomy(path: Path) -> Taxonomy:
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise IntentDataError(f"{path}: cannot read taxonomy: {exc}") from exc
    try:
        taxonomy = Taxonomy.model_validate(raw)
    except ValidationError as exc:
        raise IntentDataError(
            f"{path}: invalid taxonomy (expected {{'labels': [{{'name': ..., 'description': ...}}]}}): {exc}"
        ) from exc
    names = taxonomy.names
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise IntentDataError(f"{path}: duplicate label names in taxonomy: {dupes}")
    if OTHER not in names:
        raise IntentDataError(
            f"{path}: the taxonomy must contain the label {OTHER!r} (low-confidence predictions fall back to it)"
        )
    return taxonomy


def load_examples(path: Path, taxonomy: Taxonomy, taxonomy_path: Path | str = "taxonomy") -> list[LabelledText]:
    """Read a labels JSONL file; any bad line is an error naming file and line (training must not guess)."""
    path = Path(path)
    known = set(taxonomy.names)
    out: list[LabelledText] = []
    for lineno, line in numbered_lines(path, IntentDataError, "labels file"):
        try:
            item = LabelledText.model_validate_json(line)
        except ValidationError as exc:
            raise IntentDataError(
                f"{path}:{lineno}: invalid labelled example (need text, label, optional lang): {exc.errors()[0]['msg']}"
            ) from exc
        if item.label not in known:
            raise IntentDataError(
                f"{path}:{lineno}: label {item.label!r} is not in the taxonomy {taxonomy_path} (known labels: {', '.join(sorted(known))})"
            )
        out.append(item)
    if not out:
        raise IntentDataError(f"{path}: no labelled examples")
    return out
