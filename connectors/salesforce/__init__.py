"""Salesforce CRM connector: Data Export files and the REST/Bulk 2.0 API -> SourceRecord | RecordFailure."""

from collections.abc import Sequence
from pathlib import Path

from ground.contract import Reader
from connectors.salesforce.api import SalesforceApiReader
from connectors.salesforce.api_settings import (
    SalesforceApiCheckpoint,
    SalesforceApiSettings,
    SalesforceAuthError,
    SalesforceConfigError,
    SalesforceLimitError,
    SalesforceUnavailableError,
)
from connectors.salesforce.export_reader import SalesforceExportReader, read_salesforce_exports


def make_reader(paths: Sequence[str | Path] | None = None, api: SalesforceApiSettings | None = None) -> Reader:
    """Export files when paths are given, else the API; both or neither is a configuration error."""
    if paths and api is not None:
        raise SalesforceConfigError("give either export paths or API settings for Salesforce, not both")
    if paths:
        return SalesforceExportReader(paths)
    if api is not None:
        return SalesforceApiReader(api)
    raise SalesforceConfigError("Salesforce needs export paths (Data Export zip/CSV folder or saved REST JSON) or API "
                                "settings (GRAPHFEED_SALESFORCE_LOGIN_URL + credentials)")


__all__ = ["SalesforceApiCheckpoint", "SalesforceApiReader", "SalesforceApiSettings", "SalesforceAuthError",
           "SalesforceConfigError", "SalesforceExportReader", "SalesforceLimitError", "SalesforceUnavailableError",
           "make_reader", "read_salesforce_exports"]
