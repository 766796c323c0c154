"""The shape of a source: one `SourceSpec` per source package (connectors/<source>/spec.py), listed in
connectors/registry.py. Everything the pipeline, the CLI and the transforms need of a source comes from its spec: its
settings (declared once, read from GRAPHFEED_<SOURCE>_*), its export and API readers, its facts, the checkpoint it
carries between nights and its traits.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, ClassVar, Union, get_args, get_origin

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ground.source_traits import SourceTraits

if TYPE_CHECKING:
    from ground.contract import Checkpoint, Reader
    from transforms.fact_extractors import SourceFacts

_UNSET = object()


def _key_values(raw: str) -> dict[str, str]:
    """`a=b,c=d` -> {"a": "b", "c": "d"}."""
    pairs = (item.split("=", 1) for item in raw.split(",") if "=" in item)
    return {key.strip(): value.strip() for key, value in pairs}


def _items(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def _grouped(raw: str, env: str) -> dict[str, list[str]]:
    """`Account.Industry,Opportunity.Region__c` -> {"Account": ["Industry"], "Opportunity": ["Region__c"]}."""
    out: dict[str, list[str]] = {}
    for item in _items(raw):
        key, _, value = item.partition(".")
        if not value:
            raise ValueError(f"{env}: {item!r} is not Object.Field")
        out.setdefault(key, []).append(value)
    return out


def _optional(annotation: Any) -> Any:
    """`X | None` -> X (None for anything else)."""
    if get_origin(annotation) in (Union, UnionType):
        args = [a for a in get_args(annotation) if a is not NoneType]
        if len(args) == 1 and len(get_args(annotation)) == 2:
            return args[0]
    return None


def parse_env_value(annotation: Any, raw: str, env: str) -> Any:
    """One variable's text by its field's type, as graphfeed's variables are written (docs/configuration.md): lists
    comma-separated, maps `key=value,...`, booleans false/0/no for false; an empty number is the field's default
    (`_UNSET`), an empty optional is None."""
    inner = _optional(annotation)
    if inner is not None:
        if raw == "":
            return None
        return parse_env_value(inner, raw, env)
    if annotation is bool:
        return raw.strip().lower() not in ("false", "0", "no")
    if annotation in (int, float):
        return annotation(raw) if raw != "" else _UNSET
    if annotation == list[str]:
        return _items(raw)
    if annotation == dict[str, str]:
        return _key_values(raw)
    if annotation == dict[str, list[str]]:
        return _grouped(raw, env)
    return raw  # str, SecretStr


class _GraphfeedEnv(PydanticBaseSettingsSource):
    """GRAPHFEED_<SOURCE>_<FIELD> variables, parsed as graphfeed writes them (not as JSON)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads every field itself

    def __call__(self) -> dict[str, Any]:
        prefix = str(self.config.get("env_prefix") or "")
        out: dict[str, Any] = {}
        for name, field in self.settings_cls.model_fields.items():
            env = (prefix + name).upper()
            raw = os.environ.get(env)
            if raw is None:
                continue
            try:
                value = parse_env_value(field.annotation, raw, env)
            except ValueError as exc:
                raise ValueError(f"{env}: {exc}" if not str(exc).startswith(env) else str(exc)) from None
            if value is not _UNSET:
                out[name] = value
        return out


class SourceSettings(BaseSettings):
    """A source's settings, declared once: subclasses set env_prefix GRAPHFEED_<SOURCE>_ and their fields; the
    variables, their defaults and the docs table (docs/configuration.md, checked by a test) all come from them.
    Secrets are SecretStr: never in a log line, an exception text or Dagster's config."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid")
    source: ClassVar[str] = ""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _GraphfeedEnv(settings_cls))

    @classmethod
    def env_name(cls, field: str) -> str:
        return (str(cls.model_config.get("env_prefix") or "") + field).upper()

    @classmethod
    def from_env(cls, **overrides: Any) -> SourceSettings:
        """The settings the environment gives, `overrides` (field=value) winning (ValueError naming the variable when
        one is unusable)."""
        from pydantic import ValidationError

        try:
            return cls(**overrides)
        except ValidationError as exc:
            problems = "; ".join(
                f"{cls.env_name(str(e['loc'][0]))}: {e['msg']}" if e["loc"] else e["msg"] for e in exc.errors()
            )
            raise ValueError(problems) from None


def secret(value: SecretStr | None) -> str:
    """A secret's text for the client that sends it ("" when unset)."""
    return value.get_secret_value() if value is not None else ""


class NoSettings(SourceSettings):
    """A source with nothing to set (exports only)."""


@dataclass(frozen=True)
class SourceSpec:
    """One source: everything the rest of graphfeed asks of it. Readers and facts are imported on first use, so the
    registry's list of names costs nothing (`graphfeed --help`)."""

    name: str
    traits: SourceTraits
    settings: type[SourceSettings]
    # (export files/folders, settings) -> Reader; ValueError naming the variable when a setting is unusable
    export_reader: Callable[[Sequence[str | Path], Any], Reader[Any]]
    # settings -> the API reader when the settings name an endpoint, else None (the export files are read)
    api_reader: Callable[[Any], Reader[Any] | None]
    facts: Callable[[], SourceFacts]
    # The API checkpoint type whose finished state carries across nights (Jira: the keys of its last full listing, so
    # a key gone from the next listing is a deletion); None: every night's API read starts from its window.
    carried_checkpoint: Callable[[], type[Checkpoint]] | None = None


def no_api(settings: Any) -> Reader[Any] | None:
    """A source read from export files only."""
    return None
