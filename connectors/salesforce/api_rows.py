"""API rows made to look like Data Export rows, so ``convert_row`` gives the same record however a row arrived.

describe() says which columns exist and their types. Compound fields (address, location) and base64 blobs are left
out: Bulk 2.0 refuses them and their components (BillingCity, ...) are columns of their own. Values are written the
way the weekly export writes them: booleans ``true``/``false``, numbers without a trailing ``.0``, datetimes
``2026-06-24T19:00:00.000Z`` (REST says ``+0000``), nulls as empty cells. Relationship columns (``Owner.Email``) fill
the Directory and are then dropped, so ``fields['values']`` holds the object's own columns only.
"""

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from connectors.salesforce.directory import Directory, sid
from connectors.salesforce.objects import COMMENT_CHILDREN, HISTORY_CHILDREN
from connectors.salesforce.values import Row, is_null, parse_datetime

SKIPPED_TYPES = {"address", "location", "base64"}
NUMBER_TYPES = {"int", "double", "currency", "percent", "long"}
UPDATED_CANDIDATES = ("SystemModstamp", "LastModifiedDate", "CreatedDate")

# Relationship name -> columns read through it (what the Directory needs to name people, accounts, parents).
RELATIONSHIP_COLUMNS: dict[str, tuple[str, ...]] = {
    "Owner": ("Name", "Email"),
    "CreatedBy": ("Name", "Email"),
    "LastModifiedBy": ("Name", "Email"),
    "Contact": ("Name", "Email"),
    "Who": ("Name", "Email"),
    "What": ("Name",),
    "RelatedTo": ("Name",),
    "Parent": ("Name",),
    "Account": ("Name", "Website"),
    "Opportunity": ("Name", "AccountId", "Account.Name", "Account.Website"),
}
NAME_RELATIONS = ("What", "RelatedTo", "Parent", "Opportunity", "Account", "Contact", "Who", "Owner")

# Child rows folded into their parent: fixed columns (the same in every org that has the object).
CHILD_COLUMNS: dict[str, list[str]] = {
    "OpportunityHistory": [
        "Id",
        "OpportunityId",
        "StageName",
        "Amount",
        "ExpectedRevenue",
        "CloseDate",
        "Probability",
        "ForecastCategory",
        "CreatedById",
        "CreatedDate",
        "IsDeleted",
        "SystemModstamp",
    ],
    "CaseComment": ["Id", "ParentId", "CommentBody", "IsPublished", "CreatedById", "CreatedDate", "IsDeleted"],
}
FIELD_HISTORY_COLUMNS = ["Id", "Field", "OldValue", "NewValue", "CreatedById", "CreatedDate", "IsDeleted"]


class ObjectPlan(BaseModel):
    """One object's query: its columns, their types and the column that dates a change."""

    name: str
    columns: list[str]
    types: dict[str, str] = Field(default_factory=dict)
    updated_field: str = "SystemModstamp"
    bulk_columns: list[str] = Field(default_factory=list)  # without what Bulk 2.0 cannot select


def plan_object(name: str, describe: Mapping[str, Any], extra: Iterable[str] = ()) -> ObjectPlan:
    """describe() -> the columns to select: every plain field, relationship columns the Directory reads, extras."""
    fields = [f for f in describe.get("fields") or [] if isinstance(f, Mapping) and f.get("name")]
    types = {str(f["name"]): str(f.get("type") or "string") for f in fields}
    columns = [str(f["name"]) for f in fields if types[str(f["name"])] not in SKIPPED_TYPES]
    for field in fields:
        rel = field.get("relationshipName")
        if field.get("type") == "reference" and rel in RELATIONSHIP_COLUMNS:
            columns.extend(f"{rel}.{column}" for column in RELATIONSHIP_COLUMNS[str(rel)])
    for column in extra:
        if column not in columns:
            columns.append(column)
    updated = next((c for c in UPDATED_CANDIDATES if c in types), "")
    return ObjectPlan(name=name, columns=columns, types=types, updated_field=updated, bulk_columns=columns)


def soql(
    obj: str,
    columns: list[str],
    updated_field: str,
    start: dt.datetime | None,
    end: dt.datetime | None,
    order: bool = True,
) -> str:
    where = []
    if updated_field and start is not None:
        where.append(f"{updated_field} >= {soql_datetime(start)}")
    if updated_field and end is not None:
        where.append(f"{updated_field} < {soql_datetime(end)}")
    text = f"SELECT {', '.join(columns)} FROM {obj}"
    if where:
        text += " WHERE " + " AND ".join(where)
    if order and updated_field:
        text += f" ORDER BY {updated_field} ASC, Id ASC"
    return text


def count_soql(obj: str, updated_field: str, start: dt.datetime | None, end: dt.datetime | None) -> str:
    return soql(obj, ["COUNT()"], updated_field, start, end, order=False)


def soql_datetime(moment: dt.datetime) -> str:
    """SOQL datetime literal (unquoted, UTC)."""
    utc = moment.astimezone(dt.UTC) if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def child_queries(parent: str) -> list[tuple[str, str, list[str]]]:
    """(child object, parent id column, columns) for every history/comment object folded into ``parent``."""
    out = []
    for child, (owner, parent_field) in {**HISTORY_CHILDREN, **COMMENT_CHILDREN}.items():
        if owner != parent:
            continue
        columns = CHILD_COLUMNS.get(child) or [FIELD_HISTORY_COLUMNS[0], parent_field, *FIELD_HISTORY_COLUMNS[1:]]
        out.append((child, parent_field, columns))
    return out


def child_soql(child: str, parent_field: str, columns: list[str], parent_ids: list[str]) -> str:
    ids = ", ".join(f"'{i}'" for i in parent_ids)
    return f"SELECT {', '.join(columns)} FROM {child} WHERE {parent_field} IN ({ids}) ORDER BY CreatedDate ASC, Id ASC"


def export_number(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        number = float(str(value).replace(",", ""))
    except ValueError:
        return str(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def export_datetime(value: Any) -> str:
    """REST ``...+0000`` and Bulk ``...Z`` -> the export's ``YYYY-MM-DDTHH:MM:SS.fffZ``; garbage left for the
    converter to report."""
    try:
        moment = parse_datetime(value)
    except (ValueError, TypeError):
        return str(value)
    if moment is None:
        return ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def export_value(value: Any, kind: str | None) -> Any:
    """One cell as the Data Export writes it."""
    if is_null(value):
        return ""
    if isinstance(value, bool) or kind == "boolean":
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value).strip().lower()
    if kind in NUMBER_TYPES or (kind in (None, "anyType") and isinstance(value, (int, float))):
        return export_number(value)
    if kind == "datetime":
        return export_datetime(value)
    if isinstance(value, (list, dict)):
        return value
    return str(value)


def export_row(flat: Mapping[str, Any], types: Mapping[str, str]) -> dict[str, Any]:
    return {k: export_value(v, types.get(k)) for k, v in flat.items() if not k.startswith("_")}


def learn_relationships(directory: Directory, row: dict[str, Any]) -> dict[str, Any]:
    """Relationship columns into the Directory (people, accounts, names of parents); the row without them."""
    view = Row(row)
    directory.learn_relations(view)
    for rel in NAME_RELATIONS:
        rid = sid(view.get(f"{rel}Id"))
        name = view.text(f"{rel}.Name")
        if rid and name and rid not in directory.names:
            directory.names[rid] = name
    opp, opp_account = sid(view.get("OpportunityId")), sid(view.get("Opportunity.AccountId"))
    if opp and opp_account:
        directory.record_account.setdefault(opp, opp_account)
    return {k: v for k, v in row.items() if "." not in k}
