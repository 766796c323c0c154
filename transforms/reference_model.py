"""What a reference is (kind, canonical id, span) and what the extractor knows about the source systems (ReferenceConfig,
prepared once per config: Jira project keys, base URLs, the name map)."""

import unicodedata
from typing import Any, Literal, NamedTuple
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

ReferenceKind = Literal[
    "jira_issue",
    "confluence_page",
    "salesforce_record",
    "url",
    "email_message",
    "attachment",
    "person",
    "organization",
    "date",
    "money",
    "email_address",
    "version",
]


class ReferenceConfig(BaseModel):
    """What the ETL knows about the source systems. Treat as immutable: derived lookups are cached on it."""

    model_config = ConfigDict(frozen=True)

    jira_project_keys: list[str] = Field(default_factory=list)
    jira_base_urls: list[str] = Field(default_factory=list)
    confluence_base_urls: list[str] = Field(default_factory=list)
    salesforce_base_urls: list[str] = Field(default_factory=list)
    # A name (file name, "Acme Corp", "Sarah Miller") -> canonical id; matched exactly, then casefolded.
    name_map: dict[str, str] = Field(default_factory=dict)
    ner: bool = True
    # NER persons/organisations: below name_min_confidence a candidate is dropped; below entity_confidence it stays
    # a reference on the episode but becomes a graph node only if it resolves to a known party (transforms/facts.py).
    name_min_confidence: float = 0.5
    entity_confidence: float = 0.8
    # An organisation NER alone proposes needs more: a lone capitalised word tagged ORG (0.6) was a product, device
    # brand or foreign word in every case of the labelled dev split ("Google search", "Samsung", "Documentviewer").
    org_min_confidence: float = 0.7
    stop_names_files: list[str] = Field(default_factory=list)  # users' stop lists (data/references/stop_names.txt)
    stop_names: list[str] = Field(default_factory=list)

    _prepared: Any = PrivateAttr(default=None)


class Reference(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ReferenceKind
    id: str  # canonical and globally unique, versioned where the source has versions
    text: str  # surface form (for metadata references: the name or id given)
    start: int | None = None  # char offsets into the text; None when the reference came from metadata
    end: int | None = None
    confidence: float = 1.0  # rules and metadata 1.0; NER names by transforms/name_check.py


# --------------------------------------------------------------------------------------------------- config


class _Base(NamedTuple):
    host: str
    path: str  # without trailing slash


def _base(url: str) -> _Base | None:
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
        host = (parts.hostname or "").lower()
        if parts.port:
            host = f"{host}:{parts.port}"
    except ValueError:
        return None
    return _Base(host, parts.path.rstrip("/")) if host else None


class _Prepared(NamedTuple):
    source: tuple  # the config field objects this was built from (identity-checked)
    project_keys: frozenset[str]
    jira_bases: tuple[_Base, ...]
    confluence_bases: tuple[_Base, ...]
    salesforce_bases: tuple[_Base, ...]
    names: dict[str, str]  # exact names
    folded_names: dict[str, str]  # casefolded names
    # Known people of two words or more and known organisations (name_map entries) by their first word, casefolded:
    # the token scan in reference_names.known_names finds them where NER did not.
    parties: dict[str, list[tuple[tuple[str, ...], str]]]
    # Given names (casefolded) that begin exactly one known person's name and no organisation's: in the same export
    # a lone "Ingo" or "Martin's" names a person (reference_addressing.given_names).
    given: frozenset[str]


def _prepare(config: ReferenceConfig) -> _Prepared:
    source = (
        config.jira_project_keys,
        config.jira_base_urls,
        config.confluence_base_urls,
        config.salesforce_base_urls,
        config.name_map,
    )
    cached = config._prepared
    if cached is not None and all(a is b for a, b in zip(cached.source, source)):
        return cached

    def bases(urls):
        return tuple(b for b in map(_base, urls) if b is not None)

    prepared = _Prepared(
        source=source,
        project_keys=frozenset(k.strip().upper() for k in config.jira_project_keys if k.strip()),
        jira_bases=bases(config.jira_base_urls),
        confluence_bases=bases(config.confluence_base_urls),
        salesforce_bases=bases(config.salesforce_base_urls),
        names=dict(config.name_map),
        folded_names={_fold(k): v for k, v in config.name_map.items()},
        parties=(parties := _parties(config.name_map)),
        given=_given(parties),
    )
    config._prepared = prepared
    return prepared


def _parties(name_map: dict[str, str]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for name, ref in name_map.items():
        words = tuple(w.rstrip(".") for w in _fold(name).split())
        if (len(words) >= 2 and ref.startswith("person:")) or (words and ref.startswith("org:")):
            index.setdefault(words[0], []).append((words, ref))
    for entries in index.values():
        entries.sort(key=lambda e: -len(e[0]))  # the longest name first
    return index


def _given(parties: dict[str, list[tuple[tuple[str, ...], str]]]) -> frozenset[str]:
    return frozenset(
        word
        for word, entries in parties.items()
        if len({ref for words, ref in entries if ref.startswith("person:")}) == 1
        and not any(ref.startswith("org:") for _, ref in entries)
    )


def _fold(name: str) -> str:
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def _mapped(name: str, prepared: _Prepared) -> str | None:
    return prepared.names.get(name) or prepared.folded_names.get(_fold(name))
