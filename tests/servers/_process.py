"""Small helpers shared by the throwaway test servers: free ports, log tails, process-group teardown."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS just handed out; a tiny race remains, so callers retry on bind errors."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_accepts(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return f"<no log at {path}: {exc}>"
    return "\n".join(text.splitlines()[-lines:])


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a reaped or zombie child counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)


def stop_group(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """Ask nicely (caller closed stdin already), then SIGTERM the whole group, then SIGKILL it."""
    for sig, wait in ((None, grace), (signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if sig is not None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
