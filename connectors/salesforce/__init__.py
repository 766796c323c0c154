"""Salesforce CRM connector: Data Export files and the REST/Bulk 2.0 API -> SourceRecord | RecordFailure."""

from connectors.salesforce.export_reader import SalesforceExportReader, read_salesforce_exports

__all__ = ["SalesforceExportReader", "read_salesforce_exports"]

from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402


def make_reader(paths: Sequence[str | Path] | None = None) -> SalesforceExportReader:
    """Export files only for now (the API reader is not written yet: see the issue #6 report)."""
    if not paths:
        raise ValueError("salesforce: give export paths (Data Export zip/CSV folder or saved REST JSON)")
    return SalesforceExportReader(paths)


__all__ += ["make_reader"]
