"""Confluence connector: space exports (XML, HTML), saved REST responses and the live REST API -> SourceRecord."""

from connectors.confluence.errors import ConfluenceApiError, ConfluenceAuthError, ConfluenceConfigError
from connectors.confluence.export_reader import ConfluenceExportReader, ExportSettings
from connectors.confluence.groups import GroupPolicy, ReadStats
from connectors.confluence.tombstones import Tombstone, missing_pages

__all__ = ["make_reader", "ConfluenceExportReader", "ExportSettings", "GroupPolicy", "ReadStats", "Tombstone", "missing_pages",
           "ConfluenceApiError", "ConfluenceAuthError", "ConfluenceConfigError"]


def make_reader(paths=None, api=None):
    """Export files when paths are given, else the live API (settings required)."""
    if paths:
        return ConfluenceExportReader(paths)
    if api is not None:
        from connectors.confluence.api_reader import ConfluenceApiReader

        return ConfluenceApiReader(api)
    raise ConfluenceConfigError("Confluence needs export paths or API settings (GRAPHFEED_CONFLUENCE_URL, "
                                "GRAPHFEED_CONFLUENCE_USERNAME, GRAPHFEED_CONFLUENCE_API_TOKEN)")
