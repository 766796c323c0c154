"""One error taxonomy for sources: what stops a whole pull (a bad setting, refused credentials, an unreachable API).

A single bad record is never one of these: it is a RecordFailure (ground.records) and the run goes on.
Each source subclasses these, so the flow layer and the CLI handle every source the same way.
"""


class ConfigError(ValueError):
    """A setting that cannot work; the message says which and what to do (the CLI exits 2 with it)."""


class SourceConfigError(ConfigError):
    """A setting is missing or wrong; retrying will not help until the user changes it."""


class SourceAuthError(SourceConfigError):
    """The source refused the credentials (401/403, invalid token)."""


class SourceUnavailable(RuntimeError):
    """The source could not be reached or kept failing (timeouts, 5xx, rate limits past the retries)."""
