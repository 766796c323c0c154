"""A logged-in Salesforce org and one API call with an explicit outcome per answer (the list is in the docstring of
connectors/salesforce/api_reader.py): retries with backoff honouring Retry-After, one fresh login on an expired session, a stop
before the org's daily allowance runs out, and errors that name the setting to fix.
"""

import logging
import time
from collections.abc import Callable
from typing import Any

import requests
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceError

from connectors.salesforce.api_http import ResponseWatch, error_code, login, make_session
from connectors.salesforce.api_settings import (
    ENV_PREFIX,
    SalesforceApiSettings,
    SalesforceAuthError,
    SalesforceConfigError,
    SalesforceLimitError,
    SalesforceUnavailableError,
)

log = logging.getLogger(__name__)

RETRY_STATUSES = (429, 500, 502, 503, 504)
RETRY_CODES = {"SERVER_UNAVAILABLE", "UNABLE_TO_LOCK_ROW", "QUERY_TIMEOUT"}


class SalesforceApiSession:
    """The session half of SalesforceApiReader: login, the allowance guard, and `_call` with its outcomes."""

    def __init__(self, settings: SalesforceApiSettings, *, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.sleep = sleep
        self.watch = ResponseWatch()
        self.session = make_session(settings, self.watch)
        self.client: Salesforce | None = None
        self.instance_url: str | None = None
        self.logins = 0

    def connect(self) -> None:
        token, instance = login(self.settings, self.session)
        self.logins += 1
        instance = instance if "//" in instance else f"https://{instance}"
        self.instance_url = instance.rstrip("/")
        self.client = Salesforce(
            instance_url=self.instance_url, session_id=token, session=self.session, version=self.settings.api_version
        )

    def _guard_limit(self, what: str) -> None:
        used, total = self.watch.used, self.watch.total
        if used is not None and total is not None and total - used <= self.settings.api_reserve:
            raise SalesforceLimitError(
                f"stopped before {what}: {used:,} of the org's {total:,} daily API requests are used and "
                f"{self.settings.api_reserve:,} are kept in reserve ({ENV_PREFIX}API_RESERVE); rerun after the rolling "
                "24-hour allowance frees up (the checkpoint resumes where this stopped)"
            )

    def _delay(self, attempt: int) -> float:
        wait = self.watch.retry_after
        if wait is None:
            wait = self.settings.backoff_seconds * (2**attempt)
        return min(wait, self.settings.max_backoff_seconds)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        """One API call with the outcomes listed in the api.py module docstring; 400/403/404 are left to the caller."""
        relogged = False
        attempt = 0
        while True:
            self._guard_limit(what)
            try:
                return fn()
            except SalesforceError as exc:
                status = exc.status
                code, message = error_code(exc.content)
                if status == 401 or code == "INVALID_SESSION_ID":
                    if relogged:
                        raise SalesforceAuthError(
                            f"Salesforce refused the session for {what} again right after a fresh login ({code}): "
                            f"check that {ENV_PREFIX}USERNAME may use the API (API Enabled) and that "
                            f"{ENV_PREFIX}INSTANCE_URL / {ENV_PREFIX}LOGIN_URL point at the same org"
                        ) from None
                    log.info("salesforce session expired during %s; logging in again", what)
                    self.connect()
                    relogged = True
                    continue
                if code == "REQUEST_LIMIT_EXCEEDED":
                    raise SalesforceLimitError(
                        f"Salesforce refused {what}: REQUEST_LIMIT_EXCEEDED ({message}); the org's API allowance is "
                        "used up. Not retrying; rerun after it frees up (the checkpoint resumes)"
                    ) from None
                if status in RETRY_STATUSES or code in RETRY_CODES:
                    if attempt >= self.settings.max_retries:
                        raise SalesforceUnavailableError(
                            f"Salesforce answered {status} {code or ''} for {what} after "
                            f"{self.settings.max_retries} retries: {message}"
                        ) from None
                    delay = self._delay(attempt)
                    log.warning("salesforce answered %s for %s; retry %d in %.2fs", status, what, attempt + 1, delay)
                    self.sleep(delay)
                    attempt += 1
                    continue
                raise
            except (requests.Timeout, requests.ConnectionError) as exc:
                if attempt >= self.settings.max_retries:
                    raise SalesforceUnavailableError(
                        f"Salesforce did not answer {what} after {self.settings.max_retries} retries "
                        f"({type(exc).__name__})"
                    ) from None
                self.sleep(self._delay(attempt))
                attempt += 1
            except ValueError as exc:
                raise SalesforceConfigError(
                    f"{self.instance_url} did not answer {what} with Salesforce JSON ({exc}): check "
                    f"{ENV_PREFIX}INSTANCE_URL / {ENV_PREFIX}LOGIN_URL (a proxy or login page answers like this)"
                ) from None

    def _config_error(self, what: str, exc: SalesforceError, obj: str) -> SalesforceConfigError:
        code, message = error_code(exc.content)
        hint = {
            400: f"check {ENV_PREFIX}OBJECTS and {ENV_PREFIX}EXTRA_FIELDS for {obj}",
            403: f"the user may not read {obj} through the API: check the profile (API Enabled, object access) "
            f"or remove it from {ENV_PREFIX}OBJECTS",
            404: f"{obj} does not exist or is not visible to the user: check {ENV_PREFIX}OBJECTS, "
            f"{ENV_PREFIX}API_VERSION and {ENV_PREFIX}INSTANCE_URL",
        }.get(exc.status, f"unexpected answer {exc.status}")
        return SalesforceConfigError(f"Salesforce refused {what} ({exc.status} {code or ''}: {message}): {hint}")
