"""Page Properties: the key/value rows teams keep on a Confluence page as a record (Owner, Status, Due date...).

Read from a `details` (Page Properties) macro, and from any other table whose every row is a header cell and one
value cell (the same shape, without the macro). Each row keeps its key as written (for the fact sentence) and a
normalised slot (case-folded, trailing colon dropped) so "Owner:" and "owner" are one slot. Values are rendered for a
sentence: a date as its ISO date, a status lozenge as its title, a user by name; the people a value names are kept
with whatever identifies them (e-mail from a mailto link, account id / user key from a user link).
"""

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field


class PropertyRow(BaseModel):
    key: str                                     # as written on the page
    slot: str                                    # normalised key
    value: str                                   # rendered for a sentence
    kind: str = "text"                           # text | date | status | person
    people: list[dict[str, str]] = Field(default_factory=list)   # {account-id|userkey|username|email, name}
    source: str = "details"                      # details | table


def normalise_key(key: str) -> str:
    return " ".join(key.split()).rstrip(":").strip().casefold()


def iso_date(value: str) -> str:
    """A <time datetime> value as an ISO date; left as written when it is not a date."""
    text = (value or "").strip()
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        return text


def is_key_value_table(rows: list[list[tuple[str, Any]]]) -> bool:
    """Every row: a header cell then one data cell (a vertical key/value table), at least one row."""
    return bool(rows) and all(len(r) == 2 and r[0][0] == "th" and r[1][0] == "td" for r in rows)


def row_kind(people: list[dict[str, str]], dates: int, statuses: int) -> str:
    if people:
        return "person"
    if statuses and not dates:
        return "status"
    if dates and not statuses:
        return "date"
    return "text"


def keep_rows(rows: list[PropertyRow], ignore: set[str] | frozenset[str] = frozenset()) -> list[PropertyRow]:
    """One row per slot (the first on the page wins), without ignored keys or empty values."""
    seen: set[str] = set()
    out = []
    for row in rows:
        if not row.slot or not row.value or row.slot in ignore or row.slot in seen:
            continue
        seen.add(row.slot)
        out.append(row)
    return out
