"""One slot of a pool, one step: closes Dagster's race for a free slot on PostgreSQL.

Dagster (1.13) claims a slot with `SELECT ... FOR UPDATE SKIP LOCKED` and then `UPDATE ... WHERE id = ?`, each
autocommitted on PostgreSQL, so the row lock is gone before the update and two runs racing for the last free slot are
both told CLAIMED: tests/ops/test_pool_claims.py saw it in 9 of 60 races, and two nights ran `email__raw_records` in
the one-slot `email_api` pool at once. Here the select and the update are one transaction and the update only takes a
slot still free; the loser is BLOCKED and Dagster retries it as it does any blocked step. Upstream has the same
finding on its weighted-pools pull request (dagster-io/dagster#34092); drop this module once a release fixes it.
`install()` runs when the code location is imported (pipelines/definitions.py), so every run worker has it.
"""

from typing import Any

from pipelines.dagster_private import ConcurrencySlotsTable, ConcurrencySlotStatus


def _claim_slot(storage: Any, concurrency_key: str, run_id: str, step_key: str) -> ConcurrencySlotStatus:
    import sqlalchemy as db

    table = ConcurrencySlotsTable
    free = db.and_(table.c.concurrency_key == concurrency_key, table.c.step_key.is_(None), table.c.deleted.is_(False))
    with storage.index_transaction() as conn:
        row = conn.execute(db.select(table.c.id).where(free).with_for_update(skip_locked=True).limit(1)).fetchone()
        if not row:
            return ConcurrencySlotStatus.BLOCKED
        taken = conn.execute(
            table.update().values(run_id=run_id, step_key=step_key).where(table.c.id == row[0], free)
        ).rowcount
    return ConcurrencySlotStatus.CLAIMED if taken else ConcurrencySlotStatus.BLOCKED


def install() -> None:
    """Patch PostgreSQL's event log storage (SQLite serialises its writes and keeps Dagster's own claim)."""
    try:
        from dagster_postgres import PostgresEventLogStorage
    except ImportError:  # no production storage installed: nothing to fix
        return
    if not hasattr(PostgresEventLogStorage, "_claim_concurrency_slot"):
        raise RuntimeError("Dagster renamed _claim_concurrency_slot: re-check pipelines/pool_claims.py against it")
    PostgresEventLogStorage._claim_concurrency_slot = _claim_slot  # type: ignore[method-assign,assignment]
