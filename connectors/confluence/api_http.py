"""HTTP for the Confluence API reader: the atlassian-python-api client and one GET with an outcome per status.

200 -> the JSON; 429/5xx retried with backoff honouring Retry-After, and Server's 403-when-rate-limited retried too;
401 -> ConfluenceAuthError; still rate-limited or unreachable after the retries -> ConfluenceApiError; any other
status is returned with its body for the caller to decide (404 = deleted, others = a RecordFailure).
"""

import time
from typing import Any
from urllib.parse import urlparse

import requests

from connectors.confluence.api_settings import ConfluenceApiSettings
from connectors.confluence.errors import ConfluenceApiError, ConfluenceAuthError
from connectors.confluence.groups import ReadStats
from connectors.safe_json import load_json


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def make_client(s: ConfluenceApiSettings) -> Any:
    from atlassian import Confluence

    auth: dict[str, Any] = (
        {"username": s.username, "password": s.token.get_secret_value()}
        if s.username
        else {"token": s.token.get_secret_value()}
    )
    return Confluence(
        s.base_url,
        cloud=s.cloud,
        backoff_and_retry=True,
        timeout=int(max(1, s.timeout_seconds)),
        retry_status_codes=[429, 500, 502, 503, 504],
        max_backoff_retries=s.max_retries,
        backoff_factor=s.backoff_seconds,
        backoff_jitter=0.0,
        max_backoff_seconds=int(max(1, s.max_backoff_seconds)),
        **auth,
    )


def get_json(
    client: Any, s: ConfluenceApiSettings, stats: ReadStats, path: str, params: dict | None = None
) -> tuple[int, Any]:
    """(status, json) for 200/403/404/other item-level statuses; raises for run-level ones."""
    url = path if path.startswith("http") else f"{s.base_url.rstrip('/')}/{path.lstrip('/')}"
    where = urlparse(url).path
    delay = s.backoff_seconds
    for attempt in range(s.max_retries + 1):
        stats.requests += 1
        try:
            response = client.request("GET", url, params=params, absolute=True, advanced_mode=True)
        except requests.exceptions.RetryError as exc:
            raise ConfluenceApiError(
                f"Confluence kept answering with errors for GET {where} after "
                f"{s.max_retries} retries ({type(exc).__name__}); try again later"
            ) from None
        except (requests.ConnectionError, requests.Timeout) as exc:
            if attempt == s.max_retries:
                raise ConfluenceApiError(f"cannot reach Confluence at {s.base_url}: {type(exc).__name__}") from None
            stats.retries += 1
            time.sleep(min(delay, s.max_backoff_seconds))
            delay *= 2
            continue
        status = response.status_code
        if status == 200:
            try:
                return status, load_json(response.content)  # ValueError too when nested too deep
            except ValueError:
                return 599, {"message": "response is not JSON"}
        if status == 401:
            raise ConfluenceAuthError(
                f"Confluence at {s.base_url} rejected the credentials (401) for user "
                f"{s.username or '<token>'}: check CONFLUENCE_USERNAME and CONFLUENCE_API_TOKEN"
            )
        rate_limited = (
            status == 429
            or status >= 500
            or (
                status == 403
                and (response.headers.get("Retry-After") is not None or "rate limit" in response.text.lower())
            )
        )
        if rate_limited and attempt < s.max_retries:
            stats.retries += 1
            time.sleep(min(_retry_after(response) or delay, s.max_backoff_seconds))
            delay *= 2
            continue
        if rate_limited:
            raise ConfluenceApiError(
                f"Confluence still rate-limits or fails GET {where} (HTTP {status}) after "
                f"{s.max_retries} retries; try again later or lower the page size"
            )
        try:
            body = load_json(response.content)
        except ValueError:
            body = {"message": response.text[:300]}
        return status, body
    raise ConfluenceApiError(f"GET {where}: no answer after {s.max_retries} retries")
