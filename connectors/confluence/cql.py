"""The incremental CQL query: `lastmodified >= "A" and lastmodified < "B"` in the API user's time zone.

CQL dates are minute strings in the *user's* time zone. A UTC window becomes local wall-clock minutes widened so that
every reading the server may give an ambiguous (autumn fold) or non-existent (spring gap) wall time still covers
the window: the start moves back until all readings are <= start, the end forward until all are >= end.
"""

import datetime as dt
import zoneinfo
from collections.abc import Sequence

from ground.contract import TimeWindow

UTC = dt.UTC
_MINUTE = dt.timedelta(minutes=1)


def _readings(wall: dt.datetime, tz: dt.tzinfo) -> list[dt.datetime]:
    return [wall.replace(tzinfo=tz, fold=f).astimezone(UTC) for f in (0, 1)]


def wall_minute(moment: dt.datetime, tz_name: str, *, at_or_before: bool) -> str:
    tz = zoneinfo.ZoneInfo(tz_name)
    moment = moment.astimezone(UTC)
    wall = moment.astimezone(tz).replace(tzinfo=None, second=0, microsecond=0, fold=0)
    if not at_or_before and wall.replace(tzinfo=tz).astimezone(UTC) < moment:
        wall += _MINUTE
    for _ in range(24 * 60):
        readings = _readings(wall, tz)
        if at_or_before and max(readings) <= moment:
            break
        if not at_or_before and min(readings) >= moment:
            break
        wall += -_MINUTE if at_or_before else _MINUTE
    return wall.strftime("%Y-%m-%d %H:%M")


def _quoted(values: Sequence[str]) -> str:
    return ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)


def window_cql(
    window: TimeWindow | None,
    *,
    timezone: str = "UTC",
    overlap: dt.timedelta = dt.timedelta(0),
    spaces: Sequence[str] = (),
    include_labels: Sequence[str] = (),
    exclude_labels: Sequence[str] = (),
    types: Sequence[str] = ("page", "blogpost"),
) -> str:
    parts = [f"type in ({', '.join(types)})"]
    if spaces:
        parts.append(f"space in ({_quoted(spaces)})")
    if include_labels:
        parts.append(f"label in ({_quoted(include_labels)})")
    if exclude_labels:
        parts.append(f"label not in ({_quoted(exclude_labels)})")
    if window is not None:
        wide = window.widened(overlap) if overlap else window
        parts.append(f'lastmodified >= "{wall_minute(wide.start, timezone, at_or_before=True)}"')
        parts.append(f'lastmodified < "{wall_minute(wide.end, timezone, at_or_before=False)}"')
    return " and ".join(parts) + " order by lastmodified asc"
