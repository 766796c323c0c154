"""Confluence users -> Actor. A user with a known email becomes the same node as in mail, Jira and Salesforce."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from ground.identity import normalise_email
from ground.records import Actor

UNKNOWN_USER_ID = "confluence:unknown-user"


class ConfluenceUser(BaseModel):
    """What any Confluence payload says about a user: an account id (Cloud), a user key / user name (Server)."""

    model_config = ConfigDict(frozen=True)

    key: str  # account id, user key or user name: whatever the payload identifies users by
    name: str | None = None  # display name
    email: str | None = None
    username: str | None = None

    def actor(self) -> Actor:
        email = normalise_email(self.email)
        ident = email or f"confluence:{self.key}"
        kind = "system" if self.key.startswith(("system", "anonymous")) else "human"
        return Actor(type=kind, id=ident, name=self.name or self.username or None, email=email)

    def as_field(self) -> dict[str, str]:
        out = {"key": self.key, "id": self.actor().id}
        if self.name:
            out["name"] = self.name
        if self.email:
            out["email"] = normalise_email(self.email) or self.email
        return out


def user_from_json(value: Any) -> ConfluenceUser | None:
    """A REST user object (v1 `by`/`createdBy`, Server user, v2 author stub) -> ConfluenceUser."""
    if not isinstance(value, Mapping):
        return None
    key = value.get("accountId") or value.get("userKey") or value.get("username") or value.get("id")
    if not key:
        return None
    email = value.get("email") or None
    return ConfluenceUser(
        key=str(key),
        name=value.get("displayName") or value.get("publicName") or None,
        email=email if email and "@" in email else None,
        username=value.get("username"),
    )


class UserDirectory:
    """Users known to one read (from an export's user table or API payloads); looks up by any identifier."""

    def __init__(self) -> None:
        self._by_key: dict[str, ConfluenceUser] = {}

    def add(self, user: ConfluenceUser | None) -> ConfluenceUser | None:
        if user is None:
            return None
        old = self._by_key.get(user.key)
        if old is not None and (old.email or not user.email) and (old.name or not user.name):
            return old
        if old is not None:
            user = ConfluenceUser(
                key=user.key,
                name=user.name or old.name,
                email=user.email or old.email,
                username=user.username or old.username,
            )
        for k in {user.key, user.username} - {None}:
            self._by_key[k] = user
        return user

    def get(self, key: str | None) -> ConfluenceUser | None:
        if not key:
            return None
        return self._by_key.get(key)

    def resolve(self, key: str | None) -> ConfluenceUser:
        """Never None: an unknown id still becomes a stable (nameless) user."""
        return self.get(key) or ConfluenceUser(key=key or UNKNOWN_USER_ID.split(":", 1)[1])

    def display_name(self, attrs: Mapping[str, str]) -> str | None:
        """Storage-format ri:user attributes -> display name (converter callback)."""
        for k in ("account-id", "userkey", "username"):
            user = self.get(attrs.get(k))
            if user is not None:
                return user.name or user.username
        return None
