"""Identity helpers every layer shares: one normalised e-mail per person across sources, Salesforce ids in their
checked 18-character form (the key a record keeps whichever form a source wrote), graph group ids."""

import re

from ground.errors import ConfigError

GROUP_ID_PATTERN = re.compile(r"^[A-Za-z0-9_]+$")


def normalise_email(value: str | None) -> str | None:
    """The address lower-cased without <>, mailto: or spaces, or None when it is not one address."""
    if not value:
        return None
    value = value.strip().strip("<>").strip().lower()
    if value.startswith("mailto:"):
        value = value[len("mailto:") :]
    if value.count("@") != 1:
        return None
    local, domain = value.split("@")
    if not local or "." not in domain:
        return None
    return f"{local}@{domain}"


_SF_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
SALESFORCE_PREFIXES = {
    "001": "Account",
    "003": "Contact",
    "006": "Opportunity",
    "00Q": "Lead",
    "500": "Case",
    "00T": "Task",
    "00U": "Event",
    "005": "User",
    "02s": "EmailMessage",
}
_SF_SHAPE = re.compile(r"[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?")
_SF_PREFIX_SHAPE = re.compile(r"0[0-9A-Za-z]{2}|a[0-9A-Za-z]{2}|500")


def salesforce_checksum(id15: str) -> str:
    """The 3-char suffix that makes a 15-char (case-sensitive) id an 18-char (case-insensitive) one."""
    return "".join(
        _SF_ALPHABET[sum(1 << j for j, c in enumerate(id15[i * 5 : (i + 1) * 5]) if "A" <= c <= "Z")] for i in range(3)
    )


def salesforce_id18(candidate: str, *, strict: bool = True) -> str | None:
    """The 18-char form of a Salesforce id, or None if it is not one.

    18 chars must pass the checksum. 15 chars cannot be checked, so with `strict` they must also look like an id
    (a digit in the prefix part, a letter, a known prefix shape); URLs on Salesforce hosts pass strict=False.
    """
    if not _SF_SHAPE.fullmatch(candidate) or not any(c.isdigit() for c in candidate[:5]):
        return None
    if len(candidate) == 18:
        checksum = salesforce_checksum(candidate[:15])
        return candidate[:15] + checksum if checksum == candidate[15:].upper() else None
    if strict:
        if not any(c.isalpha() for c in candidate):
            return None
        if candidate[:3] not in SALESFORCE_PREFIXES and not (
            _SF_PREFIX_SHAPE.match(candidate) and "0" in candidate[3:8]
        ):
            return None
    return candidate + salesforce_checksum(candidate)


def salesforce_ref_id(id18: str) -> str:
    object_type = SALESFORCE_PREFIXES.get(id18[:3])
    return f"salesforce:{object_type}:{id18}" if object_type else f"salesforce:record:{id18}"


def validate_group_id(group_id: str) -> str:
    """Only [A-Za-z0-9_]: a hyphen silently breaks BM25 on FalkorDB and the id is also the FalkorDB graph name."""
    if not isinstance(group_id, str) or not GROUP_ID_PATTERN.match(group_id):
        raise ConfigError(
            f"group id {group_id!r} is not allowed: use only letters, digits and '_' "
            "(e.g. 'confluence_PHX', not 'confluence:PHX' or 'acme-prod')"
        )
    return group_id
