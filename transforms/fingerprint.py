"""Fingerprint: the same event recorded twice (one mail in several archives, a CRM note and the mail it came from)
hashes the same, whatever the source, so it becomes one episode."""

import hashlib

from transforms.text import fold_for_fingerprint


def fingerprint(intent: str, content: str, actor_id: str) -> str:
    """sha256 over intent + folded content (NFKC, casefolded, whitespace folded) + actor id."""
    payload = "\x1f".join((intent, fold_for_fingerprint(content), actor_id.strip().casefold()))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
