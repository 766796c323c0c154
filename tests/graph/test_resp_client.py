"""The read side's RESP client (graph/resp.py, falkor_read.py) against falkordb-py, on a real embedded
FalkorDB: the same parameter text, hostile strings that come back unchanged, the same typed values, every read
answering the same through both clients, clear errors, timeouts as timeouts, and LOADING waited on."""

import asyncio
import datetime as dt
import subprocess
import time

import pytest
from falkordb.asyncio import FalkorDB
from falkordb.graph import Graph
from falkordb.helpers import stringify_param_value as falkordb_stringify

from connectors.registry import fact_extractor
from graph.config import GraphConfig
from graph.embedded_falkor import EmbeddedFalkor, _redis_args, wait_loaded
from graph.falkor_read import params_header, stringify_param_value
from graph.read.episode_read import EpisodeFilters
from graph.read.reader import GraphReader
from graph.resp import FalkorReadClient, ProtocolError, ResponseError, RespParser, _Incomplete, probe
from graph.write.writer import GraphWriter
from tests.graph.scenario import contact_change
from tests.graph.test_episode_read import episodes
from tests.servers._process import free_port, port_accepts

HOSTILE = [
    "",
    'say "hi"',
    "back\\slash",
    "ends with a backslash\\",
    '\\"',
    '" RETURN 1 AS injected //',
    "'single' and `backtick`",
    '"} , `x`: 1, {"',
    "line one\nline two\r\n",
    "tab\there",
    "CYPHER s=1 RETURN 2",
    "$s",
    "*1\r\n$4\r\nPING\r\n",
    "unicode: Grüße, 日本語, emoji 🙂, RTL \u202e",
]


def run(coro):
    return asyncio.run(coro)


@pytest.fixture
def server(graph_home):
    """A real embedded FalkorDB with one small graph "g" (written through falkordb-py)."""
    with EmbeddedFalkor(graph_home / "falkordb", idle_timeout=0) as falkor:

        async def create():
            db = FalkorDB(unix_socket_path=str(falkor.socket))
            await db.select_graph("g").query("CREATE (:Thing {name: 'x', n: 1})")
            await db.aclose()

        run(create())
        yield falkor


# A reply as the server frames it, and the value the parser must give back (FalkorDB's compact rows, nulls, empty and
# nested arrays, an error inside an array, multi-byte UTF-8 a chunk boundary can split).
REPLY = (
    b"*3\r\n*2\r\n*2\r\n:1\r\n$4\r\nuuid\r\n*2\r\n:1\r\n$4\r\nfact\r\n"
    b"*2\r\n*2\r\n*2\r\n:2\r\n$6\r\nabc-12\r\n*2\r\n:2\r\n$12\r\nGr\xc3\xbc\xc3\x9fe \xf0\x9f\x99\x82\r\n"
    b"*2\r\n*2\r\n:3\r\n:-42\r\n*2\r\n:1\r\n$-1\r\n"
    b"*4\r\n+OK\r\n*0\r\n*-1\r\n-ERR boom\r\n"
)
PARSED = [
    [[1, "uuid"], [1, "fact"]],
    [[[2, "abc-12"], [2, "Grüße 🙂"]], [[3, -42], [1, None]]],
    ["OK", [], None, "boom"],
]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, len(REPLY)])
def test_given_a_reply_in_chunks_when_parsed_then_every_value_comes_back_once_whole(chunk):
    # given a reply (and the start of the next) fed in chunks of `chunk` bytes
    parser, replies = RespParser(), []
    for start in range(0, len(REPLY), chunk):
        parser.feed(REPLY[start : start + chunk])
        try:
            replies.append(parser.reply())
        except _Incomplete:
            pass
    # when it is whole, then it is parsed once, as the server said it (the error reply a value inside the array)
    assert len(replies) == 1
    value = replies[0]
    assert isinstance(value[2][3], ResponseError) and str(value[2][3]) == "ERR boom"
    value[2][3] = "boom"
    assert value == PARSED
    # and the next reply starts clean; bytes that are not RESP are a protocol error
    parser.feed(b":7\r\n")
    assert parser.reply() == 7
    parser.feed(b"?x\r\n")
    with pytest.raises(ProtocolError):
        parser.reply()


def test_given_hostile_values_when_serialised_then_the_header_is_falkordb_pys_own():
    params = {f"p{i}": value for i, value in enumerate(HOSTILE)}
    params |= {"items": HOSTILE, "nested": {"k": HOSTILE[1:4], "n": None, "b": True, "f": 1.5, "i": -3}}
    assert params_header(params) == Graph._build_params_header(None, params)  # type: ignore[arg-type]
    assert all(stringify_param_value(v) == falkordb_stringify(v) for v in HOSTILE + [None, 7, 2.5, [1, "a"]])
    with pytest.raises(ValueError, match="backtick"):
        params_header({"a`b": 1})


def test_given_hostile_strings_when_passed_as_parameters_then_they_come_back_unchanged(server):
    async def go():
        client = FalkorReadClient(unix_socket_path=str(server.socket))
        try:
            graph = client.select_graph("g")
            singles = [(await graph.ro_query("RETURN $s AS s", {"s": s})).result_set[0][0] for s in HOSTILE]
            listed = (await graph.ro_query("RETURN $l AS l, size($l) AS n", {"l": HOSTILE})).result_set[0]
            matched = await graph.ro_query("MATCH (t:Thing) WHERE t.name = $s RETURN count(t) AS c", {"s": HOSTILE[5]})
            return singles, listed, matched.result_set
        finally:
            await client.aclose()

    singles, listed, matched = run(go())
    assert singles == HOSTILE
    assert listed == [HOSTILE, len(HOSTILE)]
    assert matched == [[0]]  # the quote did not end the string: nothing injected, nothing matched


TYPED = (
    "RETURN 1 AS i, -9007199254740993 AS big, 1.5 AS f, -0.0 AS negzero, 1e300 AS huge, true AS t, false AS no, "
    "null AS nothing, 'Grüße 🙂' AS s, [1, 'a', [2.5, null]] AS l, {a: 1, b: [true, 'x'], c: {d: null}} AS m, "
    "point({latitude: 1.5, longitude: 2.5}) AS p, vecf32([1.0, -2.0, 0.5]) AS v, [] AS empty, {} AS nomap"
)


def test_given_every_value_type_the_readers_return_when_read_by_both_clients_then_they_are_equal(server):
    async def go():
        new = FalkorReadClient(unix_socket_path=str(server.socket))
        old = FalkorDB(unix_socket_path=str(server.socket))
        try:
            ours = await new.select_graph("g").ro_query(TYPED)
            theirs = await old.select_graph("g").ro_query(TYPED)
            return ours, theirs
        finally:
            await new.aclose()
            await old.aclose()

    ours, theirs = run(go())
    assert ours.header == theirs.header
    assert ours.result_set == theirs.result_set
    row = dict(zip([h[1] for h in ours.header], ours.result_set[0]))
    assert row["big"] == -9007199254740993 and row["t"] is True and row["m"]["c"] == {"d": None}


def test_given_a_bad_query_when_run_then_a_clear_error_and_the_client_still_answers(server):
    async def go():
        client = FalkorReadClient(unix_socket_path=str(server.socket))
        graph = client.select_graph("g")
        try:
            with pytest.raises(ResponseError) as syntax:
                await graph.ro_query("MATCH (n RETURN n")
            with pytest.raises(ResponseError) as write:
                await graph.ro_query("CREATE (:Nope)")
            with pytest.raises(ResponseError, match="node"):
                await graph.ro_query("MATCH (t:Thing) RETURN t")
            after = (await graph.ro_query("MATCH (t:Thing) RETURN t.name AS name")).result_set
            return str(syntax.value), str(write.value), after, await client.exists("g"), await client.exists("nope")
        finally:
            await client.aclose()

    syntax, write, after, has_g, has_nope = run(go())
    assert "Invalid input" in syntax or "errMsg" in syntax or "syntax" in syntax.lower()
    assert "read-only" in write.lower() or "read only" in write.lower()
    assert after == [["x"]]
    assert (has_g, has_nope) == (True, False)


def test_given_a_client_deadline_shorter_than_the_query_when_run_then_it_raises_timeout(server):
    slow = "UNWIND range(1, 20000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS c"

    async def go():
        client = FalkorReadClient(unix_socket_path=str(server.socket), socket_timeout=0.05)
        try:
            with pytest.raises(TimeoutError):
                await client.select_graph("g").ro_query(slow)
            client.socket_timeout = None
            return (await client.select_graph("g").ro_query("RETURN 1 AS one")).result_set
        finally:
            await client.aclose()

    assert run(go()) == [[1]]


@pytest.fixture
def loading_server(graph_home):
    """A real FalkorDB restarted on a dump it loads slowly (redis' key-load-delay: 40 ms per key, ~2.4 s): yields its
    socket while it still answers LOADING."""
    falkor_dir = graph_home / "slow"
    falkor_dir.mkdir()
    socket_path = falkor_dir / "s.sock"
    args = [*_redis_args(falkor_dir, socket_path), "--appendonly", "no"]

    async def fill():
        client = FalkorReadClient(unix_socket_path=str(socket_path))
        await client.execute("GRAPH.QUERY", "g", "CREATE (:Thing {name: 'loaded'})")
        for i in range(60):
            await client.execute("SET", f"k{i}", "x" * 2000)
        await client.execute("SAVE")
        await client.aclose()

    first = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    try:
        _wait_for(lambda: probe(str(socket_path)) == "PONG")
        run(fill())
    finally:
        first.terminate()
        first.wait()
    slow = [*args, "--key-load-delay", "40000", "--loading-process-events-interval-bytes", "1024"]
    second = subprocess.Popen(slow, stdout=subprocess.DEVNULL)
    try:
        _wait_for(lambda: probe(str(socket_path), timeout=3.0) is not None)
        assert probe(str(socket_path), timeout=3.0) == "LOADING"
        yield socket_path
    finally:
        second.terminate()
        second.wait()


def test_given_a_server_still_loading_its_data_when_queried_then_the_client_waits_and_says_so(loading_server, capsys):
    async def read():
        client = FalkorReadClient(unix_socket_path=str(loading_server))
        try:
            return (await client.select_graph("g").ro_query("MATCH (t:Thing) RETURN t.name AS n")).result_set
        finally:
            await client.aclose()

    assert run(read()) == [["loaded"]]
    assert "graph is loading, waited" in capsys.readouterr().err


def test_given_a_loading_server_when_attaching_then_the_attach_waits_for_it_and_says_so(loading_server, capsys):
    wait_loaded(loading_server)
    assert probe(str(loading_server)) == "PONG"
    assert "graph is loading, waited" in capsys.readouterr().err


def test_given_a_remote_falkordb_with_a_password_when_connecting_over_tcp_then_auth_is_sent_and_never_shown(graph_home):
    """Remote FalkorDB (backend "falkordb"): TCP, AUTH on each new connection; a wrong password is refused clearly and
    the error does not carry it."""
    falkor_dir = graph_home / "remote"
    falkor_dir.mkdir()
    port = free_port()
    args = [*_redis_args(falkor_dir, falkor_dir / "s.sock"), "--port", str(port), "--requirepass", "s3cret-pw"]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL)

    async def ask(password):
        client = FalkorReadClient(host="127.0.0.1", port=port, password=password)
        try:
            await client.execute("GRAPH.QUERY", "g", "CREATE (:Thing {name: 'remote'})")
            return (await client.select_graph("g").ro_query("MATCH (t:Thing) RETURN t.name AS n")).result_set
        finally:
            await client.aclose()

    try:
        _wait_for(lambda: port_accepts("127.0.0.1", port))
        rows = run(ask("s3cret-pw"))
        with pytest.raises(ResponseError) as refused:
            run(ask("wrong-pw"))
    finally:
        server.terminate()
        server.wait()
    assert rows == [["remote"]]
    assert "refused the password" in str(refused.value) and "wrong-pw" not in str(refused.value)


def _wait_for(ready, limit_s: float = 15.0) -> None:
    deadline = time.monotonic() + limit_s
    while not ready():
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.02)


class LegacyClient:
    """falkordb-py's client in the read client's shape (what ReadBackend used before): the old side of the comparison."""

    def __init__(self, db: FalkorDB):
        self.db = db

    async def exists(self, key: str) -> bool:
        return bool(await self.db.connection.exists(key))

    def select_graph(self, name: str):
        return self.db.select_graph(name)

    async def aclose(self) -> None:
        await self.db.aclose()


async def read_everything(reader: GraphReader, group_id: str) -> list:
    """Each read command's and MCP tool's reader call (search, history, episodes search/get/list), as JSON."""
    question = "Who sent the warehouse migration budget?"
    answers = [
        await reader.search_facts(question, group_id=group_id, limit=5),
        await reader.search_facts("Acme contact", group_id=group_id, as_of=dt.datetime(2026, 4, 1, tzinfo=dt.UTC)),
        await reader.search_facts(question, group_id=group_id, known_at=dt.datetime(2999, 1, 1, tzinfo=dt.UTC)),
        await reader.search_facts("budget", group_id=group_id, intents=["escalate_risk"], sources=["email"]),
        await reader.fact_history("org:acme.example", group_id=group_id, relation="contact"),
        await reader.search_episodes("warehouse migration", group_id=group_id),
        await reader.search_episodes("budget", group_id=group_id, filters=EpisodeFilters(intents=["escalate_risk"])),
        await reader.get_episode("<e3@acme.example>", group_id=group_id),
        await reader.list_episodes(group_id=group_id, limit=2),
        await reader.list_episodes(group_id=group_id, filters=EpisodeFilters(actor="tom.berger@globex.example")),
        await reader.search_facts("anything", group_id="nothing_written_here"),
    ]

    def dump(value):
        if isinstance(value, list):
            return {"items": [dump(v) for v in value], "degraded": getattr(value, "degraded", None)}
        return value.model_dump(mode="json") if value is not None else None

    return [dump(a) for a in answers]


def test_given_a_written_graph_when_every_read_runs_through_both_clients_then_the_answers_are_equal(
    graph_home, group_id
):
    config = GraphConfig(home=graph_home, domain_orgs={"acme.example": "Acme Corp"})

    async def go():
        async with GraphWriter(config, extractor=fact_extractor()) as writer:
            await writer.write_batch(episodes(group_id))
            for episode, facts in contact_change(group_id):
                await writer.write_batch([episode], {group_id: facts})
            embedder = writer.embedder
        async with GraphReader(config, embedder=embedder) as new:
            ours = await read_everything(new, group_id)
        async with GraphReader(config, embedder=embedder) as old:
            assert type(old.backend._falkor).__name__ == "FalkorReadClient"
            await old.backend._falkor.aclose()
            old.backend._falkor = LegacyClient(FalkorDB(unix_socket_path=str(old.backend.embedded.socket)))
            theirs = await read_everything(old, group_id)
        return ours, theirs

    ours, theirs = run(go())
    assert ours == theirs
    assert ours[0]["items"] and ours[4]["values"] and ours[5]["items"] and ours[7] is not None  # real answers
