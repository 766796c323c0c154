"""FalkorDB read queries over the RESP client (resp.py): the parameter header and the compact reply's values, as the
falkordb client (1.8.1) builds and parses them, without importing it (it imports redis-py: ~0.2 s per read command).

Parameters travel the way falkordb-py sends them: a `CYPHER k=v ...` prefix of the query text, strings double-quoted
with backslash and double quote escaped (tests/graph/test_resp_client.py pins this to falkordb-py's own output and
round-trips hostile strings through a real server). Values come back typed (`--compact`): the same Python values
falkordb-py returns for the scalars, lists and maps the readers return. Nodes, edges and paths would need the graph's
schema (label and property ids); no reader returns them, so they raise a clear error instead.
"""

import datetime as dt
from typing import Any

from graph.resp import ResponseError

# Slack between the server's own query timeout and the client's deadline: the server's "Query timed out" reply wins.
CLIENT_DEADLINE_SLACK_S = 2.0


def quote_string(value: Any) -> Any:
    """falkordb.helpers.quote_string: a str (or bytes) double-quoted, backslashes and double quotes escaped."""
    if isinstance(value, bytes):
        value = value.decode()
    elif not isinstance(value, str):
        return value
    if len(value) == 0:
        return '""'
    value = value.replace("\\", "\\\\")
    value = value.replace('"', '\\"')
    return f'"{value}"'


def _key(key: Any, what: str) -> str:
    text = key.decode() if isinstance(key, bytes) else str(key)
    if text == "":
        raise ValueError(f"Cypher {what} cannot be empty")
    if "`" in text:
        raise ValueError(
            f"Cypher {what} cannot contain a backtick: {text!r} (FalkorDB does not support escaped backticks in "
            "identifiers)"
        )
    return text


def stringify_param_value(value: Any) -> str:
    """falkordb.helpers.stringify_param_value: strings quoted, None as null, lists, maps with backticked keys."""
    if isinstance(value, str):
        return quote_string(value)
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        if all(type(item) is float for item in value):  # a question's vector (384 floats, 3-4 queries a search)
            return f"[{','.join(map(str, value))}]"
        return f"[{','.join(map(stringify_param_value, value))}]"
    if isinstance(value, dict):
        parts = [f"`{_key(k, 'map key')}`:{stringify_param_value(v)}" for k, v in value.items()]
        return "{" + ",".join(parts) + "}"
    return str(value)


def params_header(params: dict[str, Any] | None) -> str:
    """falkordb's Graph._build_params_header: `CYPHER `k`=v ... ` ('' without parameters)."""
    if params is None:
        return ""
    if not isinstance(params, dict):
        raise TypeError("'params' must be a dict")
    return "CYPHER " + "".join(f"`{_key(k, 'parameter name')}`={stringify_param_value(v)} " for k, v in params.items())


# ------------------------------------------------------------------ compact values (FalkorDB's ResultSetScalarTypes)


def _unsupported(kind: str) -> Any:
    def parse(value: Any) -> Any:
        raise ResponseError(
            f"the read client does not decode graph {kind}s (they need the graph's schema); return their properties"
        )

    return parse


def _boolean(value: Any) -> bool:
    return value == "true"


def _duration(value: Any) -> Any:
    from dateutil.relativedelta import relativedelta

    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return relativedelta(dt.datetime.fromtimestamp(value, tz=dt.UTC), epoch)


def _map(value: list[Any]) -> dict[str, Any]:
    return {str(value[i]): parse_scalar(value[i + 1]) for i in range(0, len(value), 2)}


PARSERS: dict[int, Any] = {
    0: lambda value: None,  # unknown
    1: lambda value: None,  # null
    2: lambda value: value if isinstance(value, str) else str(value),
    3: int,
    4: _boolean,
    5: float,
    6: lambda value: [parse_scalar(item) for item in value],
    7: _unsupported("edge"),
    8: _unsupported("node"),
    9: _unsupported("path"),
    10: _map,
    11: lambda value: {"latitude": float(value[0]), "longitude": float(value[1])},
    12: lambda value: [float(v) for v in value],
    13: lambda value: dt.datetime.fromtimestamp(value, tz=dt.UTC),
    14: lambda value: dt.datetime.fromtimestamp(value, tz=dt.UTC).date(),
    15: lambda value: dt.datetime.fromtimestamp(value, tz=dt.UTC).time(),
    16: _duration,
}


def parse_scalar(cell: list[Any]) -> Any:
    """One compact cell, [type, value], as falkordb-py's parse_scalar returns it."""
    kind = int(cell[0])
    parser = PARSERS.get(kind)
    if parser is None:
        raise ResponseError(f"unknown FalkorDB value type {kind}")
    return parser(cell[1])


class QueryResult:
    """What readers use of falkordb-py's QueryResult: `header` ([type, name] pairs) and `result_set` (rows)."""

    def __init__(self, response: list[Any]):
        self.header: list[Any] = []
        self.result_set: list[list[Any]] = []
        if response and isinstance(response[0], ResponseError):
            raise response[0]
        if response and isinstance(response[-1], ResponseError):  # a run-time error ends the reply
            raise response[-1]
        if len(response) == 1:
            self.statistics = response[0]
            return
        self.statistics = response[-1]
        self.header = response[0]
        if self.header:
            self.result_set = [[parse_scalar(cell) for cell in row] for row in response[1]]


class ReadGraph:
    """One graph of a FalkorReadClient: read-only queries (GRAPH.RO_QUERY ... --compact), as AsyncGraph.ro_query."""

    def __init__(self, client: Any, name: str):
        self.client = client
        self.name = name

    async def ro_query(self, q: str, params: dict[str, Any] | None = None, timeout: int | None = None) -> QueryResult:
        """timeout: the server's limit in ms (the client waits that plus CLIENT_DEADLINE_SLACK_S, then TimeoutError)."""
        command: list[Any] = ["GRAPH.RO_QUERY", self.name, params_header(params) + q, "--compact"]
        deadline = None
        if isinstance(timeout, int) and not isinstance(timeout, bool):
            command.extend(["timeout", timeout])
            deadline = timeout / 1000 + CLIENT_DEADLINE_SLACK_S
        elif timeout is not None:
            raise TypeError("timeout must be an integer of milliseconds")
        return QueryResult(await self.client.execute(*command, timeout=deadline))
