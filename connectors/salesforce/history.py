"""Field changes out of a record's history list: one entry per real change, oldest first.

OpportunityHistory snapshots repeat every field on every stage change and a field-history row may repeat what the
snapshot already said; a change is only where a field's value differs from its previous value.
"""


def field_changes(history: list[dict], fields: tuple[str, ...] | None = None) -> list[dict]:
    last: dict[str, object] = {}
    out = []
    for change in sorted(history, key=lambda c: (c.get("at") or "", c.get("field") or "")):
        field = change.get("field")
        if not field or (fields is not None and field not in fields):
            continue
        value = change.get("value")
        if field in last and last[field] == value:
            continue
        last[field] = value
        out.append(change)
    return out
