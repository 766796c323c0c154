"""Jira users -> one identity per person: the normalised email where Jira shows it, else the account id / user name.

Changelog items name people only by account id (Cloud) or user name (Server) plus a display name, so every user object
seen in an issue goes into a directory; history values are resolved through it to the same person as mail headers.
"""

from typing import Any

from ground.identity import normalise_email
from ground.records import Actor

SYSTEM_NAMES = {"automation for jira", "jira", "system", "jira automation"}


def account_of(user: dict) -> str | None:
    for key in ("accountId", "name", "key", "username"):
        value = user.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def person(user: Any) -> dict[str, str] | None:
    """A JSON-safe person dict {'id', 'name', 'email', 'account'} from a Jira user object, or None."""
    if not isinstance(user, dict):
        return None
    email = normalise_email(user.get("emailAddress") if isinstance(user.get("emailAddress"), str) else None)
    account = account_of(user)
    name = user.get("displayName") if isinstance(user.get("displayName"), str) else None
    if not (email or account or name):
        return None
    ident = email or (f"jira:{account}" if account else f"jira-name:{name.strip().casefold()}")
    out = {"id": ident}
    if name:
        out["name"] = name.strip()
    if email:
        out["email"] = email
    if account:
        out["account"] = account
    return out


def named_person(name: str | None, account: str | None, directory: dict[str, dict[str, str]]) -> dict[str, str] | None:
    """A person from a changelog value: resolved by account id, then by display name, through the directory."""
    if account and account in directory:
        return directory[account]
    if name:
        for known in directory.values():
            if known.get("name", "").casefold() == name.strip().casefold():
                return known
    if not (account or name):
        return None
    return person({"accountId": account, "displayName": name})


def actor(p: dict[str, str] | None) -> Actor:
    if not p:
        return Actor(type="system", id="jira:unknown", name="Unknown Jira user")
    kind = "system" if p.get("name", "").casefold() in SYSTEM_NAMES else "human"
    return Actor(type=kind, id=p["id"], name=p.get("name"), email=p.get("email"))


def collect_users(value: Any, directory: dict[str, dict[str, str]], depth: int = 0) -> None:
    """Every user object (has displayName and an account/name/email) anywhere in value -> directory[account]."""
    if depth > 12:
        return
    if isinstance(value, dict):
        if isinstance(value.get("displayName"), str) and (
            value.get("accountId") or value.get("name") or value.get("emailAddress")
        ):
            p = person(value)
            if p:
                for key in dict.fromkeys(k for k in (p.get("account"), p.get("email")) if k):  # ordered: stable JSON
                    best = directory.get(key)
                    if best is None or (not best.get("email") and p.get("email")):
                        directory[key] = p
        for child in value.values():
            if isinstance(child, (dict, list)):
                collect_users(child, directory, depth + 1)
    elif isinstance(value, list):
        for child in value:
            collect_users(child, directory, depth + 1)
