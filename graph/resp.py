"""A minimal asyncio RESP2 client: what the read side needs to talk to FalkorDB without redis-py (issue 29).

Importing redis-py (with its OpenTelemetry layer) and the falkordb client cost ~0.2 s of CPU in every read command,
about a quarter of `graphfeed search`. Reading needs a handful of commands on one socket (GRAPH.RO_QUERY, EXISTS,
GRAPH.LIST, AUTH, PING): this module speaks the protocol itself over asyncio streams (unix socket or TCP), with a
small pool of connections so that search's concurrent steps run side by side as they did on redis-py's pool. The
writer keeps redis-py and the falkordb client (graphiti drives them). falkor_read.py turns query replies into values.

Errors: an error reply becomes ResponseError (the name redis-py gives it, so degraded-step reasons read the same);
`LOADING` (the server still loading its data after a boot) is waited on, saying so on stderr; a client-side deadline
raises TimeoutError.
"""

import asyncio
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

CRLF = b"\r\n"
LOADING_WAIT_S = 300.0  # how long a query waits for a server that is still loading its data
LOADING_POLL_S = 0.1
MAX_IDLE = 8  # connections kept for reuse (search runs up to ~4 steps at once)
READ_CHUNK = 1 << 16


class ResponseError(Exception):
    """An error reply of the server (redis-py's name for it): the server's message, never the command's arguments."""


class ProtocolError(ConnectionError):
    """Bytes that are not RESP2: the connection is dropped."""


class _Incomplete(Exception):
    """The buffer ends inside an element: read more."""


def encode_command(*args: Any) -> bytes:
    """A command as a RESP array of bulk strings (str as UTF-8, numbers in decimal, bytes as given)."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode("utf-8")
        elif isinstance(arg, int | float) and not isinstance(arg, bool):
            data = repr(arg).encode("ascii")
        else:
            raise TypeError(f"a RESP argument must be str, bytes or a number, not {type(arg).__name__}")
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class RespParser:
    """Incremental RESP2 parser: `feed` bytes, `reply()` gives one whole reply or raises _Incomplete.

    Resumable at element boundaries (an explicit stack of the arrays being filled), so a large reply arriving in many
    chunks is parsed once, not again from its start on each chunk. Bulk strings decode as UTF-8 (redis-py's
    decode_responses=True, as the falkordb client sets it); an error reply inside an array stays a ResponseError value
    (FalkorDB reports a run-time query error as the last element of its reply)."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.pos = 0
        self.stack: list[list[Any]] = []  # [items, remaining]

    def feed(self, data: bytes) -> None:
        self.buf += data

    def reply(self) -> Any:
        """One whole reply, or _Incomplete (what was parsed is kept; the next call resumes at the element boundary).

        One loop with local names, no call per element: a search's replies hold ~8,000 elements and the per-element
        methods this replaced took ~40 % of a search's client CPU (cProfile at 100k facts)."""
        buf, pos, stack = self.buf, self.pos, self.stack
        find = buf.find
        try:
            while True:
                end = find(CRLF, pos)
                if end < 0:
                    raise _Incomplete
                kind = buf[pos]
                if kind == 36:  # $ bulk string
                    size = int(buf[pos + 1 : end])
                    if size < 0:
                        value: Any = None
                        pos = end + 2
                    else:
                        stop = end + 2 + size
                        if len(buf) < stop + 2:
                            raise _Incomplete  # the whole bulk string is not here yet
                        value = buf[end + 2 : stop].decode("utf-8")
                        pos = stop + 2
                elif kind == 42:  # * array
                    count = int(buf[pos + 1 : end])
                    pos = end + 2
                    if count > 0:
                        stack.append([[], count])
                        continue
                    value = [] if count == 0 else None
                elif kind == 58:  # : integer
                    value = int(buf[pos + 1 : end])
                    pos = end + 2
                elif kind == 43:  # + simple string
                    value = buf[pos + 1 : end].decode("utf-8")
                    pos = end + 2
                elif kind == 45:  # - error
                    value = ResponseError(buf[pos + 1 : end].decode("utf-8", errors="replace"))
                    pos = end + 2
                elif end == pos:
                    raise ProtocolError("empty RESP line")
                else:
                    raise ProtocolError(f"unexpected RESP type byte {bytes([kind])!r}")
                while stack:
                    top = stack[-1]
                    top[0].append(value)
                    top[1] -= 1
                    if top[1]:
                        break
                    value = stack.pop()[0]
                else:
                    del buf[:pos]
                    self.pos = 0
                    return value
        except _Incomplete:
            self.pos = pos  # the start of the element not yet whole
            raise


class RespConnection:
    """One connection: a command, then its reply (callers take turns through FalkorReadClient's pool)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.parser = RespParser()

    async def call(self, *args: Any) -> Any:
        self.writer.write(encode_command(*args))
        await self.writer.drain()
        while True:
            try:
                return self.parser.reply()
            except _Incomplete:
                data = await self.reader.read(READ_CHUNK)
                if not data:
                    raise ConnectionError("FalkorDB closed the connection") from None
                self.parser.feed(data)

    def close(self) -> None:
        self.writer.close()


class FalkorReadClient:
    """A pooled RESP client for one server: `execute(*command)`, `select_graph(name).ro_query(...)`, `list_graphs()`.

    unix_socket_path or host/port; password: AUTH on each new connection (remote FalkorDB); socket_timeout: a client
    deadline per command in seconds (None: none, as redis-py's default). `notify` says the LOADING waits (stderr)."""

    def __init__(
        self,
        *,
        unix_socket_path: str | None = None,
        host: str = "localhost",
        port: int = 6379,
        password: str | None = None,
        socket_timeout: float | None = None,
        loading_wait_s: float = LOADING_WAIT_S,
        notify: Callable[[str], None] | None = None,
    ):
        self.unix_socket_path = unix_socket_path
        self.host, self.port = host, port
        self._password = password
        self.socket_timeout = socket_timeout
        self.loading_wait_s = loading_wait_s
        self.notify = notify or (lambda text: print(f"graphfeed: {text}", file=sys.stderr, flush=True))
        self._idle: list[RespConnection] = []
        self._closed = False

    async def _connect(self) -> RespConnection:
        if self.unix_socket_path:
            reader, writer = await asyncio.open_unix_connection(self.unix_socket_path, limit=READ_CHUNK)
        else:
            reader, writer = await asyncio.open_connection(self.host, self.port, limit=READ_CHUNK)
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = RespConnection(reader, writer)
        if self._password is not None:
            try:
                reply = await conn.call("AUTH", self._password)
            except BaseException:
                conn.close()
                raise
            if isinstance(reply, ResponseError):
                conn.close()
                raise ResponseError(f"FalkorDB refused the password: {reply}")
        return conn

    async def _call_once(self, args: tuple[Any, ...], timeout: float | None) -> Any:
        if self._closed:
            raise RuntimeError("the FalkorDB read client is closed")
        conn = self._idle.pop() if self._idle else await self._connect()
        try:
            reply = await (asyncio.wait_for(conn.call(*args), timeout) if timeout is not None else conn.call(*args))
        except BaseException:  # timeout, cancellation, lost connection: the reply may be half read
            conn.close()
            raise
        if len(self._idle) < MAX_IDLE and not self._closed:
            self._idle.append(conn)
        else:
            conn.close()
        return reply

    async def execute(self, *args: Any, timeout: float | None = None) -> Any:
        """The command's reply; an error reply raises ResponseError; LOADING is waited on (up to loading_wait_s)."""
        timeout = self.socket_timeout if timeout is None else timeout
        started: float | None = None
        while True:
            reply = await self._call_once(args, timeout)
            if not (isinstance(reply, ResponseError) and str(reply).startswith("LOADING")):
                break
            now = time.monotonic()
            if started is None:
                started = now
                self.notify(f"graph is loading (FalkorDB: {reply}); waiting up to {self.loading_wait_s:.0f} s")
            elif now - started > self.loading_wait_s:
                raise ResponseError(f"graph is still loading after {now - started:.0f} s: {reply}")
            await asyncio.sleep(LOADING_POLL_S)
        if started is not None:
            self.notify(f"graph is loading, waited {time.monotonic() - started:.1f} s")
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    async def ping(self) -> bool:
        return await self.execute("PING") == "PONG"

    async def exists(self, key: str) -> bool:
        return bool(await self.execute("EXISTS", key))

    async def list_graphs(self) -> list[str]:
        return list(await self.execute("GRAPH.LIST"))

    def select_graph(self, name: str) -> Any:
        from graph.falkor_read import ReadGraph

        return ReadGraph(self, name)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        for conn in idle:
            try:
                await conn.writer.wait_closed()
            except OSError:  # already reset by the server
                pass


def probe(unix_socket_path: str, timeout: float = 1.0) -> str | None:
    """A blocking PING on a unix socket: "PONG", "LOADING" (up, still loading its data) or None (nothing answers).
    For embedded_falkor.py's attach, which runs before any event loop and must not import redis-py."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(unix_socket_path)
            sock.sendall(encode_command("PING"))
            data = b""
            while CRLF not in data:
                chunk = sock.recv(256)
                if not chunk:
                    return None
                data += chunk
    except OSError:
        return None
    line = data.split(CRLF, 1)[0]
    if line == b"+PONG":
        return "PONG"
    if line.startswith(b"-LOADING"):
        return "LOADING"
    return None
