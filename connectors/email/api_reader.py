"""E-mail has no API reader: mail arrives as export files (mbox, .eml, .msg, zip). The spec's `api_reader` is this."""

from connectors.source_spec import no_api

api_reader = no_api

__all__ = ["api_reader"]
