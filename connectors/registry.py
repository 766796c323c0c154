"""Which export reader serves which source. Each source issue adds its reader here (and so to `--source`).

Options are the reader's own keyword arguments (a Confluence ExportSettings, a Jira CSV time zone, ...); the
pipeline's resource supplies them from its settings.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ground.contract import Reader


def _email(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.email import EmailExportReader

    return EmailExportReader(paths, **options)


def _confluence(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.confluence import ConfluenceExportReader

    return ConfluenceExportReader(paths, **options)


def _jira(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.jira import JiraExportReader

    return JiraExportReader(paths, **options)


def _salesforce(paths: Sequence[str | Path], **options: Any) -> Reader:
    from connectors.salesforce import SalesforceExportReader

    return SalesforceExportReader(paths, **options)


EXPORT_READERS: dict[str, Callable[..., Reader]] = {
    "email": _email,
    "jira": _jira,
    "confluence": _confluence,
    "salesforce": _salesforce,
}


def export_reader(source: str, paths: Sequence[str | Path], **options: Any) -> Reader:
    try:
        factory = EXPORT_READERS[source]
    except KeyError:
        raise ValueError(f"unknown source {source!r}; known: {', '.join(sorted(EXPORT_READERS))}") from None
    return factory(paths, **options)
