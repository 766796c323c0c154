"""E-mail has no API reader and no settings of its own: exports only, under the archive limits every source shares."""

from collections.abc import Mapping
from typing import Any

from connectors.archives import ArchiveLimits
from ground.contract import Reader


def export_options(s: Mapping[str, Any]) -> dict[str, Any]:
    return {"archive_limits": ArchiveLimits.from_env()}


def api_reader(s: Mapping[str, Any]) -> Reader | None:
    return None
