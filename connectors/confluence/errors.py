"""Errors that stop a Confluence run: each message names what to fix and never carries a secret."""

from ground.errors import SourceAuthError, SourceConfigError, SourceUnavailable


class ConfluenceConfigError(SourceConfigError):
    """A setting cannot work (bad URL, unknown space, malformed CQL): fix the configuration."""


class ConfluenceAuthError(SourceAuthError):
    """Confluence refused the credentials (401): fix the user name / API token."""


class ConfluenceApiError(SourceUnavailable):
    """Confluence kept failing after the configured retries (rate limit or server errors)."""
