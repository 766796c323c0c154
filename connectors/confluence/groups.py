"""Which graph group a page goes to, and restricted pages: never into a group others can read.

A space maps to a group id by a rule (a template over the space key, overridable per space); by default open pages
go to the pipeline's own group (""), so one search sees mail, tickets, pages and CRM together. A page with read
restrictions is skipped (default) or written into the space's separate restricted group; skips are counted.
"""

import re
from typing import Literal

from pydantic import BaseModel, Field

from ground.identity import validate_group_id


def _safe(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", value) or "_"


class GroupPolicy(BaseModel):
    restricted: Literal["skip", "separate_group"] = "skip"
    group_template: str = ""  # "" = the pipeline's group; e.g. "confluence_{space}" (key made [A-Za-z0-9_])
    restricted_template: str = "confluence_{space}_restricted"
    space_groups: dict[str, str] = Field(default_factory=dict)  # space key -> group id (overrides)
    restricted_space_groups: dict[str, str] = Field(default_factory=dict)  # space key -> restricted group id

    def group_for(self, space_key: str | None, restricted: bool) -> str | None:
        """The group id ("" = the pipeline's group), or None when the page must be skipped.
        Raises ConfigError for an invalid group id."""
        space = space_key or "unknown"
        if restricted:
            if self.restricted == "skip":
                return None
            group = self.restricted_space_groups.get(space) or self.restricted_template.format(space=_safe(space))
            open_group = self.group_for(space_key, False)
            if group == open_group:
                from ground.errors import ConfigError

                raise ConfigError(
                    f"restricted pages of space {space!r} would go into the open group {group!r}; "
                    "set a different restricted group"
                )
            return validate_group_id(group)
        group = self.space_groups.get(space) or self.group_template.format(space=_safe(space))
        return validate_group_id(group) if group else ""


class ReadStats(BaseModel):
    """What a read did besides yielding records: the lead reports these."""

    records: int = 0
    failures: int = 0
    skipped_restricted: int = 0
    skipped_restricted_keys: list[str] = Field(default_factory=list)
    skipped_by_label: int = 0
    requests: int = 0
    retries: int = 0

    def skip_restricted(self, key: str) -> None:
        self.skipped_restricted += 1
        if key not in self.skipped_restricted_keys:
            self.skipped_restricted_keys.append(key)
