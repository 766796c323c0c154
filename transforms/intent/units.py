"""Labelled real units (data/intent/labelled/*.jsonl) and what the classifier reads of each.

One schema for our data and a user's own: a unit carries its raw text as the source has it (quotes and signatures
included), its subject, source family, label and split; `prepare` turns it into the classifier's input with
transforms.author_text. The older synthetic shape {"text", "label", "lang"} loads too (its text is already prose).
Every bad line is an error naming file and line.
"""

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ground.source_traits import SYNTHETIC_FAMILY, SourceTraits
from transforms.author_text import author_text
from transforms.intent.data import IntentDataError, Taxonomy, normalise_lang
from transforms.jsonl_lines import numbered_lines

FAMILIES = ("mail", "jira_description", "jira_comment", "confluence", "crm")  # the labelled data's families
SYNTHETIC = SYNTHETIC_FAMILY
# Which author_text rules a family gets: mail reply rules for mails and CRM e-mail messages.
_FAMILY_KIND = {
    "mail": "email",
    "crm": "email",
    "jira_description": "issue",
    "jira_comment": "comment",
    "confluence": "page",
    SYNTHETIC: "note",
}


class LabelledUnit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    uid: str = ""
    source_family: str = SYNTHETIC
    corpus_file: str | None = None
    source_key: str = ""
    thread: str = ""
    subject: str | None = None
    raw_text: str | None = None
    text: str | None = None  # synthetic / already prepared text
    label: str
    lang: str = "en"
    written: bool = False
    split: Literal["train", "eval"] = "train"
    references: dict[str, list[str]] | None = None
    context: list[str] = []  # what the record's fields say (transforms.intent.context), e.g. ["issue:bug"]

    @model_validator(mode="after")
    def _has_text(self) -> "LabelledUnit":
        if self.raw_text is None and self.text is None:
            raise ValueError("a unit needs raw_text (or text)")
        return self


class ClassifierInput(NamedTuple):
    text: str  # author's own prose
    subject: str  # the weaker second input
    family: str
    lang: str
    context: tuple[str, ...] = ()  # transforms.intent.context tokens of the record


def family_of(traits: SourceTraits, kind: str) -> str:
    """The source family of a record (what per-family figures and the family feature use), as its source declares."""
    return traits.family(kind)


def prepare(unit: LabelledUnit) -> ClassifierInput:
    lang = normalise_lang(unit.lang)
    if unit.raw_text is None:
        return ClassifierInput(unit.text or "", "", unit.source_family, lang, tuple(unit.context))
    prepared = author_text(unit.raw_text, unit.subject, kind=_FAMILY_KIND.get(unit.source_family, "note"))
    return ClassifierInput(prepared.text, prepared.subject, unit.source_family, lang, tuple(unit.context))


def prepare_record(
    body: str, subject: str | None, traits: SourceTraits, kind: str, lang: str, context: Sequence[str] = ()
) -> ClassifierInput:
    """A record's classifier input. Kinds the source does not declare prose (CRM field summaries the reader wrote from
    structured data) are read as they are: nothing to strip, and "Stage: Closed Won" lines must not collapse."""
    family = family_of(traits, kind)
    if not traits.is_prose(kind):
        return ClassifierInput(
            (body or "").strip(), (subject or "").strip(), family, normalise_lang(lang), tuple(context)
        )
    prepared = author_text(body, subject, kind=kind)
    return ClassifierInput(prepared.text, prepared.subject, family, normalise_lang(lang), tuple(context))


def load_units(paths: Iterable[Path], taxonomy: Taxonomy | None = None) -> list[LabelledUnit]:
    """All units of the given JSONL files, in file then line order."""
    known = set(taxonomy.names) if taxonomy else None
    out: list[LabelledUnit] = []
    for path in paths:
        path = Path(path)
        for lineno, line in numbered_lines(path, IntentDataError, "labelled units"):
            try:
                unit = LabelledUnit.model_validate(json.loads(line))
            except (ValidationError, json.JSONDecodeError) as exc:
                msg = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                raise IntentDataError(
                    f"{path}:{lineno}: invalid labelled unit (need label and raw_text or text): {msg}"
                ) from exc
            if known is not None and unit.label not in known:
                raise IntentDataError(
                    f"{path}:{lineno}: label {unit.label!r} is not in the taxonomy "
                    f"(known labels: {', '.join(sorted(known))})"
                )
            out.append(unit)
    return out


def labelled_files(directory: Path) -> list[Path]:
    return sorted(Path(directory).glob("*.jsonl")) if Path(directory).is_dir() else []


def split(units: Sequence[LabelledUnit], name: str) -> list[LabelledUnit]:
    return [u for u in units if u.split == name]


def unit_key(unit: LabelledUnit) -> str:
    return unit.uid or unit.source_key


__all__ = [
    "FAMILIES",
    "SYNTHETIC",
    "ClassifierInput",
    "LabelledUnit",
    "family_of",
    "labelled_files",
    "load_units",
    "prepare",
    "prepare_record",
    "split",
    "unit_key",
]


def classifier_inputs(
    texts: Sequence[str],
    languages: Sequence[str] | None = None,
    subjects: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    contexts: Sequence[Sequence[str]] | None = None,
) -> list[ClassifierInput]:
    """The classifiers' `predict(texts, ...)` arguments as inputs (no subject, the synthetic family, detected language,
    no context when a field is not given)."""
    from transforms.intent.features import detect_language

    texts = [t if isinstance(t, str) else "" for t in texts]
    return [
        ClassifierInput(
            t,
            subjects[i] if subjects else "",
            families[i] if families else SYNTHETIC,
            normalise_lang(languages[i] if languages and languages[i] else detect_language(t)),
            tuple(contexts[i]) if contexts else (),
        )
        for i, t in enumerate(texts)
    ]
