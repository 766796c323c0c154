"""The HTTP side of the Salesforce API reader: one requests session (timeouts, CA bundle, a response hook that keeps
Retry-After and Sforce-Limit-Info), the login that yields an access token, and Salesforce's error bodies read once.
"""

import email.utils
import logging
import re
import time
from typing import Any

import requests

from connectors.salesforce.api_settings import ENV_PREFIX, SalesforceApiSettings, SalesforceAuthError

log = logging.getLogger(__name__)
_USAGE = re.compile(r"api-usage=(\d+)/(\d+)")


class TimeoutSession(requests.Session):
    """simple-salesforce's Bulk 2.0 calls take no timeout argument: the session supplies one to every request."""

    def __init__(self, timeout: float):
        super().__init__()
        self.default_timeout = timeout

    def request(self, method, url, **kwargs):  # noqa: ANN001, ANN201 - requests' own signature
        kwargs.setdefault("timeout", self.default_timeout)
        if isinstance(self.verify, str):  # REQUESTS_CA_BUNDLE would otherwise win over session.verify
            kwargs.setdefault("verify", self.verify)
        return super().request(method, url, **kwargs)


class ResponseWatch:
    """Response hook: what the last answer said about waiting (Retry-After) and the org's daily allowance."""

    def __init__(self) -> None:
        self.retry_after: float | None = None
        self.used: int | None = None
        self.total: int | None = None
        self.requests = 0

    def __call__(self, response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        self.requests += 1
        self.retry_after = parse_retry_after(response.headers.get("Retry-After"))
        usage = parse_limit_info(response.headers.get("Sforce-Limit-Info"))
        if usage is not None:
            self.used, self.total = usage
        return response


def parse_retry_after(value: str | None) -> float | None:
    """Seconds (``120``) or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def parse_limit_info(value: str | None) -> tuple[int, int] | None:
    """``api-usage=4990/5000`` (optionally ``; per-app-api-usage=...``) -> (4990, 5000)."""
    match = _USAGE.search(value or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def make_session(settings: SalesforceApiSettings, watch: ResponseWatch) -> TimeoutSession:
    session = TimeoutSession(settings.timeout_seconds)
    if settings.ca_bundle:
        session.verify = settings.ca_bundle
    session.hooks["response"].append(watch)
    return session


def error_code(content: Any) -> tuple[str | None, str]:
    """Salesforce error bodies: ``[{"errorCode": ..., "message": ...}]`` (REST/Bulk) or ``{"error": ...}`` (OAuth)."""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return content[0].get("errorCode"), str(content[0].get("message") or "")[:300]
    if isinstance(content, dict):
        code = content.get("errorCode") or content.get("error")
        return code, str(content.get("message") or content.get("error_description") or "")[:300]
    return None, (content.decode("utf-8", "replace") if isinstance(content, bytes) else str(content or ""))[:300]


def login(settings: SalesforceApiSettings, session: requests.Session) -> tuple[str, str]:
    """-> (access token, instance URL). A connected app (client id) uses the OAuth token endpoint at login_url;
    without one, simple-salesforce's SOAP login at ``<domain>.salesforce.com``. Failures name the settings, never
    their values."""
    if settings.client_id is None:
        from simple_salesforce import SalesforceAuthenticationFailed, SalesforceLogin

        try:
            return SalesforceLogin(
                session=session,
                username=settings.username,
                password=settings.password.get_secret_value() if settings.password else "",
                security_token=settings.security_token.get_secret_value(),
                domain=settings.domain,
                sf_version=settings.api_version,
            )
        except SalesforceAuthenticationFailed as exc:
            raise SalesforceAuthError(
                f"Salesforce SOAP login at {settings.domain}.salesforce.com refused the user ({exc.code}): check "
                f"{ENV_PREFIX}USERNAME, {ENV_PREFIX}PASSWORD and {ENV_PREFIX}SECURITY_TOKEN (a reset password "
                f"issues a new token), or {ENV_PREFIX}DOMAIN (test for a sandbox)"
            ) from None
    data = {
        "client_id": settings.client_id,
        "client_secret": settings.client_secret.get_secret_value() if settings.client_secret else "",
    }
    if settings.username:
        data.update(
            grant_type="password",
            username=settings.username,
            password=(settings.password.get_secret_value() if settings.password else "")
            + settings.security_token.get_secret_value(),
        )
    else:
        data["grant_type"] = "client_credentials"
    try:
        response = session.post(settings.token_url, data=data, headers={"Accept": "application/json"})
    except requests.RequestException as exc:
        raise SalesforceAuthError(
            f"no answer from the Salesforce login at {settings.token_url} "
            f"({type(exc).__name__}): check {ENV_PREFIX}LOGIN_URL"
        ) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code == 200 and isinstance(body, dict) and body.get("access_token"):
        instance = body.get("instance_url") or settings.instance_url
        if not instance:
            raise SalesforceAuthError(f"the login answered without an instance_url: set {ENV_PREFIX}INSTANCE_URL")
        return str(body["access_token"]), str(instance)
    code, message = error_code(body)
    hint = {
        "invalid_client_id": f"{ENV_PREFIX}CLIENT_ID is not a connected app of this org",
        "invalid_client": f"check {ENV_PREFIX}CLIENT_ID and {ENV_PREFIX}CLIENT_SECRET",
        "invalid_grant": f"check {ENV_PREFIX}USERNAME, {ENV_PREFIX}PASSWORD and {ENV_PREFIX}SECURITY_TOKEN "
        "(or the connected app's IP relaxation / permitted users)",
        "unsupported_grant_type": "the connected app does not allow this OAuth flow",
    }
    raise SalesforceAuthError(
        f"Salesforce login at {settings.token_url} failed ({response.status_code} {code or 'no error code'}: "
        f"{message or 'no message'}): {hint.get(code or '', f'check {ENV_PREFIX}LOGIN_URL and the credentials')}"
    )
