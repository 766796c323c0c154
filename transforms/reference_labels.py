"""The labelled reference set (data/references/labelled/*.jsonl): one episode per line with every reference its
content names, labelled by hand (docs/references.md). The loader checks what a labeller gets wrong most easily
(a surface text that is not in the content, a content that no longer matches its hash, a split that is not the
frozen rule's, a value in the wrong shape) and names file and line.
"""

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from transforms.jsonl_lines import numbered_lines
from transforms.reference_model import ReferenceKind

# Every kind the extractor knows plus `version` (labelled before the extractor has it: its recall is measured).
LABEL_KINDS: tuple[str, ...] = tuple(dict.fromkeys([*get_args(ReferenceKind), "version"]))
LabelKind = Literal[LABEL_KINDS]  # type: ignore[valid-type]
Split = Literal["dev", "eval"]

_ISSUE_KEY = re.compile(r"[A-Z][A-Z0-9_]{1,9}-[1-9]\d{0,6}")
_MONEY = re.compile(r"[A-Z]{3} \d+(?:\.\d+)?")


class ReferenceLabelError(ValueError):
    """A labelled file or line that cannot be used; the message names the file and line."""


def split_of(group: str) -> Split:
    """The frozen split rule: a group (issue key, page id, thread) is on one side only."""
    return "eval" if int(hashlib.sha256(group.encode()).hexdigest(), 16) % 2 == 0 else "dev"


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class LabelledReference(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: LabelKind
    text: str  # the surface form exactly as the content has it
    value: str  # normalised as docs/references.md says per kind
    product: str | None = None  # version only: the product the text ties it to

    @model_validator(mode="after")
    def _value_shape(self) -> "LabelledReference":
        kind, value = self.kind, self.value
        if not self.text.strip() or not value.strip():
            raise ValueError(f"{kind}: text and value must not be empty")
        if self.product is not None and kind != "version":
            raise ValueError(f"{kind} {value!r}: only a version has a product")
        if kind == "date":
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"date {value!r} is not YYYY-MM-DD") from None
        elif kind == "jira_issue" and not _ISSUE_KEY.fullmatch(value):
            raise ValueError(f"jira_issue {value!r} is not an upper-case issue key")
        elif kind == "money" and not _MONEY.fullmatch(value):
            raise ValueError(f"money {value!r} is not 'CUR amount' (e.g. 'USD 1200')")
        elif kind == "email_address" and value != value.lower():
            raise ValueError(f"email_address {value!r} is not lower-case")
        elif kind == "version" and value[:1] in ("v", "V") and value[1:2].isdigit():
            raise ValueError(f"version {value!r}: write it without the leading 'v'")
        return self


class LabelledEpisode(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    uid: str
    source: Literal["email", "jira", "confluence", "salesforce"]
    corpus_file: str  # relative to ../shared/corpus
    source_key: str
    group: str
    split: Split
    record_time: dt.datetime
    lang: str
    content_sha256: str
    content: str
    references: list[LabelledReference]

    @field_validator("record_time")
    @classmethod
    def _aware(cls, value: dt.datetime) -> dt.datetime:
        if value.tzinfo is None:
            raise ValueError("record_time needs a time zone (the episode's timestamp)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "LabelledEpisode":
        expected_uid = f"{self.source}:{self.corpus_file}#{self.source_key}"
        if self.uid != expected_uid:
            raise ValueError(f"uid {self.uid!r} is not {expected_uid!r} (source:corpus_file#source_key)")
        if self.split != split_of(self.group):
            raise ValueError(f"split {self.split!r} is not the frozen rule's {split_of(self.group)!r}")
        if content_sha256(self.content) != self.content_sha256:
            raise ValueError("content_sha256 is not the sha256 of content")
        seen: set[tuple[str, str]] = set()
        for ref in self.references:
            if ref.text not in self.content:
                raise ValueError(f"{ref.kind} text {ref.text!r} does not occur in content")
            key = (ref.kind, ref.value)
            if key in seen:
                raise ValueError(f"{ref.kind} {ref.value!r} is listed twice")
            seen.add(key)
        return self


def labelled_files(where: Path | str | Iterable[Path | str]) -> list[Path]:
    """The *.jsonl files of a folder (sorted), or the given files."""
    paths = [where] if isinstance(where, (str, Path)) else list(where)
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out += sorted(path.glob("*.jsonl"))
        elif path.is_file():
            out.append(path)
        else:
            raise ReferenceLabelError(f"{path}: no such labelled file or folder")
    return out


def load_labelled(where: Path | str | Iterable[Path | str]) -> list[LabelledEpisode]:
    """Every labelled episode of a folder or files, in file then line order; a uid labelled twice is an error."""
    episodes: list[LabelledEpisode] = []
    first_seen: dict[str, str] = {}
    for path in labelled_files(where):
        for lineno, line in numbered_lines(path, ReferenceLabelError, "labelled references"):
            try:
                episode = LabelledEpisode.model_validate(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ReferenceLabelError(f"{path}:{lineno}: not JSON: {exc}") from exc
            except ValidationError as exc:
                err = exc.errors()[0]
                where_ = ".".join(str(p) for p in err["loc"])
                raise ReferenceLabelError(
                    f"{path}:{lineno}: invalid labelled episode: {where_ + ': ' if where_ else ''}{err['msg']}"
                ) from exc
            if episode.uid in first_seen:
                raise ReferenceLabelError(
                    f"{path}:{lineno}: {episode.uid} is labelled twice (first at {first_seen[episode.uid]})"
                )
            first_seen[episode.uid] = f"{path}:{lineno}"
            episodes.append(episode)
    return episodes
