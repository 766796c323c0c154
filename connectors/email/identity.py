"""Stable identities from mail headers: Message-ID keys and sender/recipient actors.

Keys must be identical whether a message is read from an mbox, an .eml, a zip or an Outlook .msg,
because dedup and threading join on them. Rules (documented in the connector README section of the report):

* A Message-ID is normalised to ``<local@domain>``: surrounding whitespace, comments and angle brackets are
  dropped, folding whitespace inside is removed, the domain part (after the last ``@``) is lower-cased and the
  local part is kept as written (RFC 5322 makes it case-sensitive; the domain is a host name, which is not).
* A message without a usable Message-ID gets ``<sha256hex@graphfeed.invalid>`` over its normalised
  From/To/Cc/Subject/Date headers and its decoded body text, so copies in different archives key the same.
* Addresses are lower-cased as a whole and stripped of whitespace (mail systems treat local parts
  case-insensitively in practice); the display name is kept separately.
"""

import hashlib
import re
from collections.abc import Iterable

from ground.records import Actor

SYNTHETIC_DOMAIN = "graphfeed.invalid"
UNKNOWN_SENDER_ID = "unknown-sender@graphfeed.invalid"

_COMMENT = re.compile(r"\([^()]*\)")
_ID_IN_BRACKETS = re.compile(r"<([^<>]*)>")
_WS = re.compile(r"\s+")

# Local parts that mean "a machine sent this".
_AUTOMATED_LOCAL = re.compile(
    r"^(no[-_.]?reply|do[-_.]?not[-_.]?reply|mailer[-_.]?daemon|postmaster|bounces?|notifications?|"
    r"jira|confluence|jenkins|git(hub|lab)?|builds?|ci|daemon|automailer|auto[-_.]?reply)([-+_.].*)?$",
    re.IGNORECASE,
)


def normalise_message_id(raw: str | None) -> str | None:
    """``' <Abc.1@Example.COM> '`` -> ``'<Abc.1@example.com>'``; None when nothing id-like is there."""
    if not raw:
        return None
    text = _COMMENT.sub(" ", str(raw)).strip()
    match = _ID_IN_BRACKETS.search(text)
    core = match.group(1) if match else text.split()[0] if text.split() else ""
    core = _WS.sub("", core).strip("<>")
    if not core:
        return None
    local, at, domain = core.rpartition("@")
    if at and local:
        core = f"{local}@{domain.lower()}"
    return f"<{core}>"


def message_ids(raw: str | None) -> list[str]:
    """All ids in a References/In-Reply-To value, normalised, de-duplicated, order kept.

    Ids are taken from angle brackets; a value with no brackets at all is split on whitespace (old mailers).
    """
    if not raw:
        return []
    text = _COMMENT.sub(" ", str(raw))
    found = _ID_IN_BRACKETS.findall(text)
    if not found:
        found = [token for token in text.split() if "@" in token]
    seen: set[str] = set()
    ids: list[str] = []
    for item in found:
        key = normalise_message_id(f"<{item}>")
        if key and key not in seen:
            seen.add(key)
            ids.append(key)
    return ids


def synthetic_key(headers: Iterable[tuple[str, str]], body: str) -> str:
    """Deterministic key for a message without Message-ID: independent of line endings and mbox quoting."""
    digest = hashlib.sha256()
    for name, value in headers:
        digest.update(name.lower().encode())
        digest.update(b"\x1f")
        digest.update(_WS.sub(" ", value or "").strip().encode("utf-8", "replace"))
        digest.update(b"\x1e")
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    digest.update("\n".join(line.rstrip() for line in lines).strip().encode("utf-8", "replace"))
    return f"<{digest.hexdigest()}@{SYNTHETIC_DOMAIN}>"


def is_automated(address: str, headers: dict[str, str]) -> bool:
    """No-reply style senders and messages that declare themselves automatic (RFC 3834, Precedence)."""
    local = address.partition("@")[0]
    if _AUTOMATED_LOCAL.match(local):
        return True
    auto = (headers.get("auto-submitted") or "").strip().lower()
    if auto and auto != "no":
        return True
    precedence = (headers.get("precedence") or "").strip().lower()
    if headers.get("list-id"):
        # Mailing lists stamp "Precedence: bulk" on every human post they relay: not a machine signal there.
        return precedence in {"junk", "auto_reply"}
    return precedence in {"bulk", "junk", "auto_reply"}


def actor_for(name: str, address: str, automated: bool = False) -> Actor:
    return Actor(
        type="system" if automated else "human",
        id=address,
        name=name or None,
        email=address if "@" in address else None,
    )
