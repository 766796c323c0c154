"""Email export connector: mbox, .eml, Outlook .msg and zip archives of them -> SourceRecord | RecordFailure."""

from connectors.email.export_reader import EmailExportReader, read_email_exports

__all__ = ["EmailExportReader", "read_email_exports"]
