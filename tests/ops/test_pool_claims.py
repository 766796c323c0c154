"""A pool of one slot is held by one step at a time even when two runs claim it in the same instant (PostgreSQL).

Dagster's PostgreSQL storage runs `SELECT ... FOR UPDATE SKIP LOCKED` and the `UPDATE` of a slot as two autocommitted
statements, so two runs racing for one free slot could both be told CLAIMED (seen as two `email__raw_records` steps
in one `email_api` pool in tests/ops/test_production_instance.py). pipelines/pool_claims.py closes the window.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

ROUNDS = 60


@pytest.mark.slow
def test_two_runs_racing_for_one_slot_exactly_one_holds_it(postgres_fresh_url):
    # given a PostgreSQL event log with pool "email_api" of one slot
    from dagster_postgres import PostgresEventLogStorage

    import pipelines.definitions  # noqa: F401  (the code location installs pipelines/pool_claims.py)

    storage = PostgresEventLogStorage.create_clean_storage(postgres_fresh_url)
    storage.set_concurrency_slots("email_api", 1)
    wrong = []
    for i in range(ROUNDS):
        runs = (f"night-a-{i}", f"night-b-{i}")
        start = threading.Barrier(2)

        def claim(run_id: str, start: threading.Barrier = start):
            start.wait()
            return storage.claim_concurrency_slot("email_api", run_id, "email__raw_records")

        # when two runs claim it at the same instant
        with ThreadPoolExecutor(max_workers=2) as pool:
            statuses = list(pool.map(claim, runs))
        holders = [run for run, status in zip(runs, statuses) if status.is_claimed]
        if len(holders) != 1:
            wrong.append((i, holders))
        for run in runs:
            storage.free_concurrency_slots_for_run(run)
    # then exactly one of them holds the slot each time (never both, never neither)
    assert not wrong, f"{len(wrong)} of {ROUNDS} races did not give the one slot to exactly one run: {wrong[:3]}"
