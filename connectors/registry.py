"""Which export reader serves which source. Each source issue adds its reader here (and so to `--source`)."""

from collections.abc import Callable, Sequence
from pathlib import Path

from connectors.contract import Reader


def _email(paths: Sequence[str | Path]) -> Reader:
    from connectors.email import EmailExportReader

    return EmailExportReader(paths)


def _confluence(paths: Sequence[str | Path]) -> Reader:
    from connectors.confluence import ConfluenceExportReader

    return ConfluenceExportReader(paths)


def _jira(paths: Sequence[str | Path]) -> Reader:
    from connectors.jira import JiraExportReader

    return JiraExportReader(paths)


def _salesforce(paths: Sequence[str | Path]) -> Reader:
    from connectors.salesforce import SalesforceExportReader

    return SalesforceExportReader(paths)


EXPORT_READERS: dict[str, Callable[[Sequence[str | Path]], Reader]] = {
    "email": _email,
    "jira": _jira,
    "confluence": _confluence,
    "salesforce": _salesforce,
}


def export_reader(source: str, paths: Sequence[str | Path]) -> Reader:
    try:
        factory = EXPORT_READERS[source]
    except KeyError:
        raise ValueError(f"unknown source {source!r}; known: {', '.join(sorted(EXPORT_READERS))}") from None
    return factory(paths)
