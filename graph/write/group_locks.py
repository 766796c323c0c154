"""One writer per group: the lock a GraphWriter holds while it writes a batch into a group.

Groups never share nodes (on FalkorDB a group is its own graph; on Neo4j every node and edge carries its group_id and
every write filters on it), so writes to different groups may run at once; writes within a group must not (a
bi-temporal merge reads a slot's edges, then rewrites their ends). The lock lives where the ledger lives, so every
writer that shares a ledger (the nightly run, a Dagster backfill, `graphfeed run`) shares the locks:

- SQLite ledger (one machine, one home): an flock on `<home>/locks/graph-write-<group>.lock`;
- PostgreSQL ledger (workers on several machines): a session-level advisory lock on that server.

Both die with their holder (the kernel drops an flock when the process's descriptors close, PostgreSQL ends the
session when its socket closes), so a kill -9 leaves no stale lock and there is nothing to clean up. A waiter polls
(`poll_seconds`) instead of blocking a thread, so a cancelled write stops waiting at once.
"""

import asyncio
import contextlib
import fcntl
import hashlib
import os
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any, Protocol

from ground.identity import validate_group_id

POLL_SECONDS = 0.02


class GroupLocks(Protocol):
    def hold(self, group_ids: Iterable[str]) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the write lock of every group (taken in sorted order: two writers never deadlock)."""
        ...


class FileGroupLocks:
    """flock per group under one folder (the home's `locks/`): every process on this machine sharing the home."""

    def __init__(self, folder: Path, poll_seconds: float = POLL_SECONDS):
        self.folder = Path(folder)
        self.poll_seconds = poll_seconds

    def path(self, group_id: str) -> Path:
        return self.folder / f"graph-write-{validate_group_id(group_id)}.lock"

    async def _acquire(self, group_id: str) -> int:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path(group_id), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    await asyncio.sleep(self.poll_seconds)
        except BaseException:
            os.close(fd)
            raise

    @contextlib.asynccontextmanager
    async def hold(self, group_ids: Iterable[str]) -> AsyncIterator[None]:
        fds: list[int] = []
        try:
            for group_id in sorted(set(group_ids)):
                fds.append(await self._acquire(group_id))
            yield
        finally:
            for fd in reversed(fds):
                os.close(fd)  # closing the last descriptor releases the flock


def advisory_key(group_id: str) -> int:
    """A stable signed 64-bit key per group (pg_advisory_lock's bigint), namespaced so other users of the server's
    advisory locks do not collide with ours."""
    digest = hashlib.blake2b(f"graphfeed.graph_write:{group_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresGroupLocks:
    """pg_try_advisory_lock per group on the ledger's PostgreSQL, one session per held group (the lock is the
    session's: it ends with the connection, so a dead writer releases it)."""

    def __init__(self, url: str, poll_seconds: float = POLL_SECONDS):
        import sqlalchemy as sa

        # autocommit: the session holds the lock, not a transaction left open (which idle_in_transaction_session_timeout
        # would end, and the lock with it); NullPool: closing the connection really ends the session.
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
        self.poll_seconds = poll_seconds

    def _try(self, conn: Any, key: int) -> bool:
        import sqlalchemy as sa

        return bool(conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar())

    async def _acquire(self, group_id: str) -> Any:
        key = advisory_key(validate_group_id(group_id))
        conn = await asyncio.to_thread(self.engine.connect)
        try:
            while not await asyncio.to_thread(self._try, conn, key):
                await asyncio.sleep(self.poll_seconds)
            return conn
        except BaseException:
            await asyncio.to_thread(conn.close)
            raise

    @contextlib.asynccontextmanager
    async def hold(self, group_ids: Iterable[str]) -> AsyncIterator[None]:
        conns: list[Any] = []
        try:
            for group_id in sorted(set(group_ids)):
                conns.append(await self._acquire(group_id))
            yield
        finally:
            for conn in reversed(conns):
                await asyncio.to_thread(_release, conn)


def _release(conn: Any) -> None:
    import sqlalchemy as sa

    try:
        conn.execute(sa.text("SELECT pg_advisory_unlock_all()"))
    finally:
        conn.close()  # a closed session holds nothing, whatever the unlock did


def group_locks(home: Path, lock_url: str | None) -> GroupLocks:
    """The locks for a writer: advisory locks when the ledger is on PostgreSQL, else flock files under the home."""
    if lock_url and lock_url.startswith("postgresql"):
        return PostgresGroupLocks(lock_url)
    return FileGroupLocks(Path(home) / "locks")
