"""A real Neo4j 5.26 for tests: the embedded DBMS from Maven jars, started by Neo4jLauncher (no Docker, no tarball).

Jars, the launcher jar and a class-data-sharing archive come from scripts/fetch_neo4j.sh (cache:
~/.cache/graphfeed/neo4j-5.26); JVM options live in tests/servers/neo4j/jvm.options, shared with that script.
The password travels in the child's environment only, never on its command line.
"""

import atexit
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers._process import free_port, log_tail, pid_alive, port_accepts, stop_group

REPO_ROOT = Path(__file__).resolve().parents[2]
LAUNCHER_SOURCE = Path(__file__).resolve().parent / "neo4j" / "Neo4jLauncher.java"
FETCH_SCRIPT = REPO_ROOT / "scripts" / "fetch_neo4j.sh"
PASSWORD_ENV = "GRAPHFEED_NEO4J_PASSWORD"
# C1 only (jvm.options) starts fastest, for tests; a long-running server (the search bench) wants C2's peak speed.
C1_ONLY = "-XX:TieredStopAtLevel=1"
HOME_ENV = "GRAPHFEED_NEO4J_HOME"
USER = "neo4j"

JVM_OPTIONS_FILE = Path(__file__).resolve().parent / "neo4j" / "jvm.options"


def jvm_options(peak: bool = False) -> list[str]:
    """Options shared with fetch_neo4j.sh (which builds the CDS archive with exactly these); peak: without C1_ONLY."""
    lines = JVM_OPTIONS_FILE.read_text().splitlines()
    options = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return [o for o in options if not (peak and o == C1_ONLY)]


class Neo4jStartError(RuntimeError):
    """Neo4j could not be started; the message carries the reason and the tail of the server log."""


def default_home() -> Path:
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".cache" / "graphfeed" / "neo4j-5.26")


def ensure_neo4j_jars(home: Path | None = None) -> Path:
    """Run scripts/fetch_neo4j.sh (a no-op taking milliseconds when the cache is complete); return the cache dir."""
    home = home or default_home()
    done = subprocess.run(
        ["bash", str(FETCH_SCRIPT), str(home)], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0:
        raise Neo4jStartError(f"fetch_neo4j.sh failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-4000:]}")
    return home


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    search = os.pathsep.join(
        filter(None, [os.path.join(java_home, "bin") if java_home else None, os.environ.get("PATH")])
    )
    java = shutil.which("java", path=search)
    if java is None:
        raise Neo4jStartError("no `java` on PATH or in $JAVA_HOME/bin (run scripts/install_servers.sh)")
    return java


def _launch_command(jars_dir: Path, peak: bool = False) -> list[str]:
    """Launcher jar (+ CDS archive) from the fetch cache when present, else the single-file source program."""
    cache = jars_dir.parent
    launcher_jar = cache / "launcher" / "neo4j-launcher.jar"
    if jars_dir.name == "jars" and launcher_jar.is_file():
        archive = cache / "neo4j.jsa"
        cds = [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"] if archive.is_file() else []
        options = jvm_options(peak)
        return [_java(), *options, *cds, "-cp", f"{jars_dir}/*{os.pathsep}{launcher_jar}", "Neo4jLauncher"]
    return [_java(), *jvm_options(peak), "-cp", f"{jars_dir}/*", str(LAUNCHER_SOURCE)]


def _resolve_jars(jars_dir: Path | None) -> Path:
    base = Path(jars_dir) if jars_dir is not None else default_home()
    candidate = base / "jars" if (base / "jars").is_dir() else base
    if not any(candidate.glob("neo4j-kernel-*.jar")):
        raise Neo4jStartError(
            f"no Neo4j jars in {candidate} (run scripts/fetch_neo4j.sh or scripts/install_servers.sh)"
        )
    return candidate


@dataclass
class Neo4jServer:
    """A running Neo4j child process; `stop()` closes its stdin (clean shutdown) and escalates if needed."""

    uri: str
    user: str
    password: str = field(repr=False)
    port: int
    data_dir: Path
    log_path: Path
    process: subprocess.Popen = field(repr=False)
    startup_seconds: float = 0.0

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    def is_running(self) -> bool:
        return self.process.poll() is None and pid_alive(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
            except OSError:
                pass
            stop_group(self.process, grace=30.0)
        atexit.unregister(self.stop)


def _check_query(uri: str, auth: tuple[str, str]) -> None:
    from neo4j import GraphDatabase  # lazy: only server-backed tests need the driver

    with GraphDatabase.driver(uri, auth=auth, connection_timeout=5) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one")
        if records[0]["one"] != 1:
            raise Neo4jStartError(f"RETURN 1 gave {records!r}")


def _start_once(
    workdir: Path, jars_dir: Path, timeout: float, peak: bool, memory: tuple[str, int] | None = None
) -> Neo4jServer:
    port = free_port()
    data_dir = workdir / f"neo4j-{port}"
    data_dir.mkdir(parents=True)
    log_path = workdir / f"neo4j-{port}.log"
    password = secrets.token_urlsafe(18)
    env = {**os.environ, PASSWORD_ENV: password}
    command = _launch_command(jars_dir, peak)
    if memory:  # the last -Xmx wins; the launcher reads the page cache size from its environment
        command.insert(command.index("-cp"), f"-Xmx{memory[0]}")
        env["GRAPHFEED_NEO4J_PAGECACHE_MB"] = str(memory[1])
    started = time.monotonic()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [*command, str(data_dir), str(port)],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=workdir,
            start_new_session=True,  # own process group: stop() can signal the JVM and nothing else
        )
    server = Neo4jServer(
        uri=f"bolt://127.0.0.1:{port}",
        user=USER,
        password=password,
        port=port,
        data_dir=data_dir,
        log_path=log_path,
        process=process,
    )
    atexit.register(server.stop)
    deadline = started + timeout
    last_error: Exception | None = None
    try:
        while True:
            if process.poll() is not None:
                raise Neo4jStartError(f"Neo4j exited with code {process.returncode} during start-up")
            if time.monotonic() > deadline:
                raise Neo4jStartError(f"Neo4j not ready after {timeout:.0f} s (last error: {last_error!r})")
            if port_accepts("127.0.0.1", port) and b"READY" in log_path.read_bytes():
                try:
                    _check_query(server.uri, server.auth)
                    break
                except Neo4jStartError:
                    raise
                except Exception as exc:  # driver errors while the DBMS finishes starting
                    last_error = exc
            time.sleep(0.2)
    except Neo4jStartError as exc:
        server.stop()
        raise Neo4jStartError(f"{exc}\n--- {log_path} (tail) ---\n{log_tail(log_path)}") from exc
    server.startup_seconds = time.monotonic() - started
    return server


def start_neo4j(
    workdir: Path,
    jars_dir: Path | None = None,
    timeout: float = 120,
    *,
    peak: bool = False,
    memory: tuple[str, int] | None = None,
) -> Neo4jServer:
    """Start Neo4j 5.26 on a free 127.0.0.1 port with auth (user neo4j, random password) and wait for `RETURN 1`.

    `jars_dir` is the fetch_neo4j.sh cache dir or its `jars/` subfolder (default: $GRAPHFEED_NEO4J_HOME or
    ~/.cache/graphfeed/neo4j-5.26). Retries once with another port if the first one was taken in between.
    peak: the C2 JIT too (slower start and warm-up, ~2x faster queries once warm: the search bench).
    memory: (heap, page cache MB), e.g. ("4g", 6144), for a large bench graph; default the tests' 1 GB and 64 MB.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    jars = _resolve_jars(jars_dir)
    try:
        return _start_once(workdir, jars, timeout, peak, memory)
    except Neo4jStartError as exc:
        if "BindException" not in str(exc) and "Address already in use" not in str(exc):
            raise
        return _start_once(workdir, jars, timeout, peak, memory)
