"""The Confluence source as the pipeline and the transforms see it: its settings (GRAPHFEED_CONFLUENCE_*), readers,
facts and traits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr, ValidationError
from pydantic_settings import SettingsConfigDict

from connectors.source_spec import SourceSettings, SourceSpec, secret
from ground.source_traits import MentionKind, SourceTraits

if TYPE_CHECKING:
    from connectors.confluence.groups import GroupPolicy
    from ground.contract import Reader
    from transforms.fact_extractors import SourceFacts

TRAITS = SourceTraits(
    name="confluence",
    intent_family="confluence",
    # attachments stay unscoped: connectors/confluence/facts.py writes its attachment entities by name alone
    mention=MentionKind(label="Document", relation="MENTIONS_DOCUMENT"),
)
MENTIONS = {TRAITS.name: TRAITS.mention}  # its own namespace, for the entities its facts key by page


class ConfluenceSettings(SourceSettings):
    """GRAPHFEED_CONFLUENCE_*: a URL reads the REST API for each partition's window, else the export files are read.
    The group policy and ignored property keys apply to both."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFEED_CONFLUENCE_")

    url: str = ""  # Confluence base URL
    username: str | None = None
    api_token: SecretStr | None = None  # secret
    cloud: bool = True  # false for Server/Data Center
    spaces: list[str] = []  # space keys to read
    timezone: str = "UTC"  # the API user's profile time zone (CQL dates are read in it)
    include_labels: list[str] = []
    exclude_labels: list[str] = []
    history_versions: int = 20  # earlier versions saved inside the window, per page (0 = current only)
    # Which group a page goes to, for API and export reads alike (connectors/confluence/groups.py).
    restricted: str = "skip"  # skip | separate_group
    group_template: str = ""  # "" = the pipeline's group; e.g. "confluence_{space}"
    restricted_template: str = "confluence_{space}_restricted"
    space_groups: dict[str, str] = {}
    restricted_space_groups: dict[str, str] = {}
    export_timezone: str = "UTC"  # XML space exports carry the server's local time
    ignore_property_keys: list[str] = []  # page-properties keys that make no facts (case-insensitive)


def groups(s: ConfluenceSettings) -> GroupPolicy:
    """Which graph group a page goes to; a bad setting names its field and variable."""
    from connectors.confluence.groups import GroupPolicy

    try:
        return GroupPolicy(
            restricted=s.restricted,
            group_template=s.group_template,
            restricted_template=s.restricted_template,
            space_groups=s.space_groups,
            restricted_space_groups=s.restricted_space_groups,
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"confluence_{e['loc'][0]} (GRAPHFEED_CONFLUENCE_{str(e['loc'][0]).upper()}): {e['msg']}"
            for e in exc.errors()
        )
        raise ValueError(problems) from None


def property_keys_ignored(s: ConfluenceSettings) -> frozenset[str]:
    from connectors.confluence.page_properties import normalise_key

    return frozenset(normalise_key(k) for k in s.ignore_property_keys if normalise_key(k))


def export_reader(paths: Sequence[str | Path], s: ConfluenceSettings) -> Reader:
    from connectors.archives import ArchiveLimits
    from connectors.confluence.export_reader import ConfluenceExportReader, ExportSettings

    settings = ExportSettings(
        timezone=s.export_timezone,
        base_url=s.url or None,
        groups=groups(s),
        ignore_property_keys=property_keys_ignored(s),
    )
    return ConfluenceExportReader(paths, archive_limits=ArchiveLimits.from_env(), settings=settings)


def api_reader(s: ConfluenceSettings) -> Reader | None:
    """The REST reader when a Confluence URL is set, else None (the export files are read)."""
    if not s.url:
        return None
    from connectors.confluence.api_reader import ConfluenceApiReader
    from connectors.confluence.api_settings import ConfluenceApiSettings

    return ConfluenceApiReader(
        ConfluenceApiSettings(
            base_url=s.url,
            username=s.username,
            token=secret(s.api_token),
            cloud=s.cloud,
            spaces=s.spaces,
            user_timezone=s.timezone,
            include_labels=s.include_labels,
            exclude_labels=s.exclude_labels,
            history_versions=s.history_versions,
            groups=groups(s),
            ignore_property_keys=property_keys_ignored(s),
        )
    )


def facts() -> SourceFacts:
    from connectors.confluence.facts import confluence_facts, page_subject
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(confluence_facts, page_subject, TRAITS)


SPEC = SourceSpec(
    name="confluence",
    traits=TRAITS,
    settings=ConfluenceSettings,
    export_reader=export_reader,
    api_reader=api_reader,
    facts=facts,
)
