"""Salesforce CRM connector: Data Export files and the REST/Bulk 2.0 API -> SourceRecord | RecordFailure."""

from connectors.salesforce.api_reader import SalesforceApiReader
from connectors.salesforce.api_settings import (
    SalesforceApiCheckpoint,
    SalesforceApiSettings,
    SalesforceAuthError,
    SalesforceConfigError,
    SalesforceLimitError,
    SalesforceUnavailableError,
)
from connectors.salesforce.export_reader import SalesforceExportReader, read_salesforce_exports

__all__ = [
    "SalesforceApiCheckpoint",
    "SalesforceApiReader",
    "SalesforceApiSettings",
    "SalesforceAuthError",
    "SalesforceConfigError",
    "SalesforceExportReader",
    "SalesforceLimitError",
    "SalesforceUnavailableError",
    "read_salesforce_exports",
]
