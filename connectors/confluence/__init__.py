"""Confluence connector: space exports (XML, HTML), saved REST responses and the live REST API -> SourceRecord."""

from connectors.confluence.errors import ConfluenceApiError, ConfluenceAuthError, ConfluenceConfigError
from connectors.confluence.export_reader import ConfluenceExportReader, ExportSettings
from connectors.confluence.groups import GroupPolicy, ReadStats

__all__ = [
    "ConfluenceExportReader",
    "ExportSettings",
    "GroupPolicy",
    "ReadStats",
    "ConfluenceApiError",
    "ConfluenceAuthError",
    "ConfluenceConfigError",
]
