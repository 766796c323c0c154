"""How the pipeline's Salesforce settings (the API resource's `salesforce_*` fields, prefix removed) build its readers."""

from collections.abc import Mapping
from typing import Any

from connectors.archives import ArchiveLimits
from ground.contract import Reader


def export_options(s: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "archive_limits": ArchiveLimits.from_env(),
        "instance_url": s["instance_url"],
        "currency": s["currency"] or None,
    }


def api_reader(s: Mapping[str, Any]) -> Reader | None:
    """The REST reader when a login or instance URL is set, else None (the export files are read)."""
    if not (s["login_url"] or s["instance_url"]):
        return None
    from connectors.salesforce import SalesforceApiReader, SalesforceApiSettings

    return SalesforceApiReader(
        SalesforceApiSettings(
            login_url=s["login_url"] or None,
            instance_url=s["instance_url"],
            username=s["username"],
            client_id=s["client_id"],
            password=s["password"],
            security_token=s["security_token"] or "",
            client_secret=s["client_secret"],
            domain=s["domain"],
            extra_fields=s["extra_fields"],
            api_reserve=s["api_reserve"],
            bulk_threshold=s["bulk_threshold"],
            currency=s["currency"] or None,
            **({"objects": s["objects"]} if s["objects"] else {}),
        )
    )
