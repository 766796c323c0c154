"""Errors that stop a Confluence run: each message names what to fix and never carries a secret."""


class ConfluenceConfigError(ValueError):
    """A setting cannot work (bad URL, unknown space, malformed CQL): fix the configuration."""


class ConfluenceAuthError(RuntimeError):
    """Confluence refused the credentials (401): fix the user name / API token."""


class ConfluenceApiError(RuntimeError):
    """Confluence kept failing after the configured retries (rate limit or server errors)."""
