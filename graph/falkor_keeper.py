"""The keeper of a home's shared FalkorDB: starts redis-server as its child, then stops it once nobody has used it for
the idle timeout, and cleans up after it if it dies (kill -9, OOM).

Run as a script by embedded_falkor.py (stdlib only: it starts in a few tens of ms and holds no client). "In use" is a
shared flock on <dir>/falkordb.lock that every process using the server holds (released by the kernel even on kill -9);
the keeper stops the server only while it holds both that lock and the start lock exclusively, so no command can attach
to a server that is going away. It also stops the server when the home directory is removed.

    python falkor_keeper.py DIR IDLE_SECONDS -- REDIS_ARGS...     start redis-server and keep it
    python falkor_keeper.py DIR IDLE_SECONDS --adopt PID          keep a server whose keeper was killed
"""

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SOCKET_NAME = "falkor.sock"
PID_NAME = "falkordb.pid"
KEEPER_PID_NAME = "falkordb.keeper.pid"
LOG_NAME = "falkordb.log"
USE_LOCK = "falkordb.lock"
START_LOCK = "falkordb.start.lock"
STOP_WAIT_S = 15.0


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def is_redis(pid: int) -> bool:
    """A live redis-server (not a zombie, not another program that reused the pid)."""
    try:
        program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False
    return b"redis-server" in program  # argv[0]: the keeper names redis-server only among its arguments


def try_lock(path: Path, mode: int) -> int | None:
    """An fd holding the flock, or None when another process holds it (never blocks)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def idle_locks(home: Path) -> tuple[int, int] | None:
    """Both locks exclusively (nobody starting, nobody using the server), else None."""
    start = try_lock(home / START_LOCK, fcntl.LOCK_EX)
    if start is None:
        return None
    use = try_lock(home / USE_LOCK, fcntl.LOCK_EX)
    if use is None:
        os.close(start)
        return None
    return start, use


def forget(home: Path, pid: int) -> None:
    """Remove the pid and socket files if they still name this server."""
    if read_pid(home / PID_NAME) == pid:
        (home / PID_NAME).unlink(missing_ok=True)
        (home / SOCKET_NAME).unlink(missing_ok=True)


def stop_server(home: Path, pid: int, proc: subprocess.Popen | None = None) -> None:
    """SIGTERM (redis flushes its append-only file), SIGKILL after STOP_WAIT_S; then forget its files."""
    if is_redis(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_S
        while time.monotonic() < deadline and (proc.poll() is None if proc else is_redis(pid)):
            time.sleep(0.02)
        if proc.poll() is None if proc else is_redis(pid):
            os.kill(pid, signal.SIGKILL)
        if proc is not None:
            proc.wait()
    forget(home, pid)


def keep(home: Path, idle_s: float, pid: int, proc: subprocess.Popen | None) -> int:
    """Poll until the server exits or has been idle for idle_s; returns the server's exit code (0 when stopped)."""
    poll_s = min(1.0, max(0.05, idle_s / 4))
    idle_since: float | None = None
    while True:
        time.sleep(poll_s)
        if (proc.poll() is not None) if proc else not is_redis(pid):
            forget(home, pid)  # died under us (kill -9, crash): no stale files for the next command
            return proc.returncode if proc else 1
        if not home.is_dir():
            stop_server(home, pid, proc)  # the home was removed: nobody can use this server any more
            return 0
        locks = idle_locks(home)
        if locks is None:
            idle_since = None
            continue
        try:
            now = time.monotonic()
            idle_since = now if idle_since is None else idle_since
            if now - idle_since >= idle_s:
                stop_server(home, pid, proc)
                return 0
        finally:
            for fd in locks:
                os.close(fd)


def main(argv: list[str]) -> int:
    home, idle_s = Path(argv[0]), float(argv[1])
    write_atomic(home / KEEPER_PID_NAME, f"{os.getpid()}\n")
    if argv[2] == "--adopt":
        return keep(home, idle_s, int(argv[3]), None)
    with open(home / LOG_NAME, "ab") as out:
        proc = subprocess.Popen(argv[3:], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    write_atomic(home / PID_NAME, f"{proc.pid}\n")
    signal.signal(signal.SIGTERM, lambda *_: stop_server(home, proc.pid, proc) or sys.exit(0))
    return keep(home, idle_s, proc.pid, proc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
