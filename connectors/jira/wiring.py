"""How the pipeline's Jira settings (the API resource's `jira_*` fields, prefix removed) build Jira's readers."""

import datetime as dt
from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from ground.contract import Reader


def export_options(s: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword options of the export reader: the CSV export's time zone, the site URL, content fields."""
    try:
        zone = ZoneInfo(s["csv_timezone"])
    except (ValueError, KeyError):
        raise ValueError(
            f"jira_csv_timezone (GRAPHFEED_JIRA_CSV_TIMEZONE) {s['csv_timezone']!r} is not "
            "an IANA time zone such as Europe/Berlin"
        ) from None
    return {"base_url": s["url"] or None, "content_fields": s["content_fields"], "csv_timezone": zone}


def api_reader(s: Mapping[str, Any]) -> Reader | None:
    """The REST reader when a Jira URL is set, else None (the export files are read)."""
    if not s["url"]:
        return None
    from connectors.jira import JiraApiReader, JiraApiSettings

    days = s["full_listing_days"]
    return JiraApiReader(
        JiraApiSettings(
            base_url=s["url"],
            username=s["username"],
            token=s["api_token"] or "",
            cloud=s["cloud"],
            project_keys=s["project_keys"],
            extra_jql=s["extra_jql"],
            content_fields=s["content_fields"],
            full_listing_every=None if days is None else dt.timedelta(days=days),
        )
    )
