"""How the pipeline's Confluence settings (the API resource's `confluence_*` fields, prefix removed) build its readers."""

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from connectors.archives import ArchiveLimits
from connectors.confluence.groups import GroupPolicy
from connectors.confluence.page_properties import normalise_key
from ground.contract import Reader


def groups(s: Mapping[str, Any]) -> GroupPolicy:
    """Which graph group a page goes to; a bad setting names its field and variable."""
    try:
        return GroupPolicy(
            restricted=s["restricted"],
            group_template=s["group_template"],
            restricted_template=s["restricted_template"],
            space_groups=s["space_groups"],
            restricted_space_groups=s["restricted_space_groups"],
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"confluence_{e['loc'][0]} (GRAPHFEED_CONFLUENCE_{str(e['loc'][0]).upper()}): {e['msg']}"
            for e in exc.errors()
        )
        raise ValueError(problems) from None


def property_keys_ignored(s: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(normalise_key(k) for k in s["ignore_property_keys"] if normalise_key(k))


def export_options(s: Mapping[str, Any]) -> dict[str, Any]:
    from connectors.confluence.export_reader import ExportSettings

    settings = ExportSettings(
        timezone=s["export_timezone"],
        base_url=s["url"] or None,
        groups=groups(s),
        ignore_property_keys=property_keys_ignored(s),
    )
    return {"archive_limits": ArchiveLimits.from_env(), "settings": settings}


def api_reader(s: Mapping[str, Any]) -> Reader | None:
    """The REST reader when a Confluence URL is set, else None (the export files are read)."""
    if not s["url"]:
        return None
    from connectors.confluence.api_reader import ConfluenceApiReader
    from connectors.confluence.api_settings import ConfluenceApiSettings

    return ConfluenceApiReader(
        ConfluenceApiSettings(
            base_url=s["url"],
            username=s["username"],
            token=s["api_token"] or "",
            cloud=s["cloud"],
            spaces=s["spaces"],
            user_timezone=s["timezone"],
            include_labels=s["include_labels"],
            exclude_labels=s["exclude_labels"],
            history_versions=s["history_versions"],
            groups=groups(s),
            ignore_property_keys=property_keys_ignored(s),
        )
    )
