"""A real, throwaway PostgreSQL for tests, from the Debian server binaries (/usr/lib/postgresql/<v>/bin).

initdb refuses to run as root, so as root the cluster is created and run as the `postgres` OS user, in a
directory that user can reach (pytest's tmp dirs under /tmp/pytest-of-root are 0700, so we fall back to a
fresh /tmp dir when needed). TCP only on 127.0.0.1 with a scram password; fsync off since the data is disposable.
"""

import atexit
import glob
import os
import pwd
import re
import secrets
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers._process import free_port, log_tail, pid_alive, wait_gone

SUPERUSER = "graphfeed"
DEFAULT_DB = "graphfeed"
SERVER_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "unix_socket_directories": "''",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "100",
    "shared_buffers": "32MB",
    "log_min_messages": "warning",
}


class PostgresStartError(RuntimeError):
    """PostgreSQL could not be started; the message carries the reason and the tail of the server log."""


def find_pg_bin() -> Path:
    """Newest /usr/lib/postgresql/<v>/bin holding initdb and pg_ctl ($GRAPHFEED_PG_BIN overrides)."""
    override = os.environ.get("GRAPHFEED_PG_BIN")
    candidates = [override] if override else glob.glob("/usr/lib/postgresql/*/bin")
    usable = [Path(c) for c in candidates if (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file()]
    if not usable:
        raise PostgresStartError(
            "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin "
            "(run scripts/install_servers.sh)"
        )

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name)) or (0,)

    return max(usable, key=version)


def _reachable_by(path: Path, uid: int, gid: int) -> bool:
    """Can a process running as uid/gid traverse into `path` (every ancestor searchable)?"""
    for part in [path, *path.parents]:
        st = part.stat()
        if st.st_uid == uid:
            bit = stat.S_IXUSR
        elif st.st_gid == gid:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


@dataclass
class PostgresServer:
    host: str
    port: int
    user: str
    password: str = field(repr=False)
    dbname: str
    data_dir: Path
    log_path: Path
    pg_bin: Path
    run_as: str | None = None  # OS user the server runs as when we are root
    pid: int = 0
    startup_seconds: float = 0.0
    _owned_dir: Path | None = field(default=None, repr=False)

    def url_for(self, dbname: str) -> str:
        return f"postgresql+psycopg2://{self.user}:{self.password}@{self.host}:{self.port}/{dbname}"

    @property
    def url(self) -> str:
        return self.url_for(self.dbname)

    def is_running(self) -> bool:
        return bool(self.pid) and pid_alive(self.pid)

    def create_database(self, name: str) -> str:
        """CREATE DATABASE `name` (a plain identifier) and return its SQLAlchemy URL."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
            raise ValueError(f"not a plain database name: {name!r}")
        import psycopg2  # lazy: only server-backed tests need it

        conn = psycopg2.connect(
            host=self.host, port=self.port, user=self.user, password=self.password, dbname="postgres"
        )
        try:
            conn.autocommit = True  # CREATE DATABASE cannot run inside a transaction
            with conn.cursor() as cur:
                cur.execute(f'CREATE DATABASE "{name}"')
        finally:
            conn.close()
        return self.url_for(name)

    def stop(self) -> None:
        if self.data_dir.exists() and self.is_running():
            _run(
                [str(self.pg_bin / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "30", "stop"],
                self.run_as,
                check=False,
            )
            if not wait_gone(self.pid, 10) and self.pid:
                try:
                    os.kill(self.pid, 9)
                except ProcessLookupError:
                    pass
                wait_gone(self.pid, 5)
        if self._owned_dir is not None:
            shutil.rmtree(self._owned_dir, ignore_errors=True)
            self._owned_dir = None
        atexit.unregister(self.stop)


def _run(cmd: list[str], run_as: str | None, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    if run_as:
        env["HOME"] = pwd.getpwnam(run_as).pw_dir
    done = subprocess.run(
        cmd, capture_output=True, text=True, user=run_as, env=env, timeout=timeout, cwd="/", start_new_session=True
    )
    if check and done.returncode != 0:
        raise PostgresStartError(f"{Path(cmd[0]).name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done


def _prepare_dir(workdir: Path, run_as: str | None) -> tuple[Path, Path | None]:
    """Directory that will hold the cluster, owned by the server's OS user; second value: ours to delete."""
    if run_as is None:
        return workdir, None
    entry = pwd.getpwnam(run_as)
    if _reachable_by(workdir, entry.pw_uid, entry.pw_gid):
        base, owned = workdir, None
    else:
        base = Path(tempfile.mkdtemp(prefix="graphfeed-pg-", dir="/tmp"))
        owned = base
        (workdir / "postgres-location.txt").write_text(f"{base}\n")
    os.chown(base, entry.pw_uid, entry.pw_gid)
    return base, owned


def start_postgres(workdir: Path, timeout: float = 60) -> PostgresServer:
    """initdb + pg_ctl start a private cluster on a free 127.0.0.1 port; database `graphfeed` is created."""
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    pg_bin = find_pg_bin()
    run_as = None
    if os.geteuid() == 0:
        run_as = "postgres"
        try:
            pwd.getpwnam(run_as)
        except KeyError as exc:
            raise PostgresStartError("running as root but there is no `postgres` OS user for initdb") from exc

    started = time.monotonic()
    base, owned = _prepare_dir(workdir, run_as)
    port = free_port()
    runtime = base / f"pg-{port}"
    data_dir, log_path, pwfile = runtime / "data", runtime / "postgres.log", runtime / "pwfile"
    runtime.mkdir(mode=0o700)
    password = secrets.token_urlsafe(18)
    pwfile.write_text(password + "\n")
    pwfile.chmod(0o600)
    if run_as:
        entry = pwd.getpwnam(run_as)
        for path in (runtime, pwfile):
            os.chown(path, entry.pw_uid, entry.pw_gid)

    server = PostgresServer(
        host="127.0.0.1",
        port=port,
        user=SUPERUSER,
        password=password,
        dbname=DEFAULT_DB,
        data_dir=data_dir,
        log_path=log_path,
        pg_bin=pg_bin,
        run_as=run_as,
        _owned_dir=owned,
    )
    try:
        _run(
            [
                str(pg_bin / "initdb"),
                "-D",
                str(data_dir),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
            run_as,
        )
        pwfile.unlink()
        with open(data_dir / "postgresql.conf", "a") as conf:
            conf.write("\n# graphfeed test server\n")
            conf.write("".join(f"{key} = {value}\n" for key, value in {**SERVER_SETTINGS, "port": str(port)}.items()))
        atexit.register(server.stop)
        done = _run(
            [str(pg_bin / "pg_ctl"), "-D", str(data_dir), "-l", str(log_path), "-w", "-t", str(int(timeout)), "start"],
            run_as,
            check=False,
            timeout=timeout + 10,
        )
        if done.returncode != 0:
            raise PostgresStartError(f"pg_ctl start failed ({done.returncode}): {done.stdout}{done.stderr}")
        server.pid = int((data_dir / "postmaster.pid").read_text().split()[0])
        server.create_database(DEFAULT_DB)
    except Exception as exc:
        server.stop()
        raise PostgresStartError(f"{exc}\n--- {log_path} (tail) ---\n{log_tail(log_path)}") from exc
    server.startup_seconds = time.monotonic() - started
    return server
