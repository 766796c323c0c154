"""A local OpenAI-compatible /v1/chat/completions + /v1/embeddings server with scripted answers, for tests and the
bench. It answers graphiti's prompts by response schema name (json_schema mode: response_format.json_schema.name;
json_object mode: the schema graphiti appends to the prompt), with `usage` like the real API, and can be told to
misbehave: 429 with Retry-After, malformed JSON, schema-invalid JSON, an answer cut at max_tokens (finish_reason
"length"), slow answers, 5xx.

Default answers are deterministic and content-driven: entities are the capitalised names in the CURRENT MESSAGE,
facts link the first two entities graphiti lists, nothing is a duplicate. Tests override per schema with `answers`.
"""

import json
import math
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STOP = {
    "The",
    "This",
    "That",
    "These",
    "Those",
    "We",
    "I",
    "You",
    "It",
    "Our",
    "Please",
    "Thanks",
    "Thank",
    "Hi",
    "Hello",
    "Dear",
    "Best",
    "Regards",
    "Re",
    "Fwd",
    "Subject",
    "From",
    "To",
    "Cc",
    "Date",
    "And",
    "But",
    "For",
    "With",
    "On",
    "In",
    "At",
    "As",
    "If",
    "So",
    "Also",
    "Kind",
    "Der",
    "Die",
    "Das",
    "Wir",
    "Ich",
    "Sie",
    "Und",
    "Mit",
    "Von",
    "Im",
    "Am",
    "Bitte",
    "Danke",
    "Viele",
    "Gruesse",
    "Grüße",
    "Hallo",
    "Liebe",
    "Lieber",
    "Mfg",
}
_TAGS = ("CURRENT MESSAGE", "CURRENT_MESSAGE", "TEXT", "JSON")
_NAME = re.compile(r"\b[A-ZÄÖÜ][\w\-]+(?:\s+[A-ZÄÖÜ][\w\-]+)*")


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4) if text else 0


def section(text: str, tag: str) -> str | None:
    m = re.search(rf"<{re.escape(tag)}>\s*(.*?)\s*</{re.escape(tag)}>", text, re.S)
    return m.group(1) if m else None


def current_message(text: str) -> str:
    for tag in _TAGS:
        found = section(text, tag)
        if found is not None:
            return found
    return ""


def json_section(text: str, tag: str) -> list:
    raw = section(text, tag)
    try:
        value = json.loads(raw) if raw else []
    except json.JSONDecodeError:
        return []
    return value if isinstance(value, list) else []


def entity_names(message: str, limit: int = 4) -> list[str]:
    seen: list[str] = []
    for m in _NAME.finditer(message):
        words = [w for w in m.group(0).split() if w not in STOP]
        name = " ".join(words)
        if len(name) >= 3 and name not in seen:
            seen.append(name)
        if len(seen) >= limit:
            break
    return seen


def default_answer(schema: str, prompt: str) -> dict[str, Any]:
    if schema == "ExtractedEntities":
        return {"extracted_entities": [{"name": n, "entity_type_id": 0} for n in entity_names(current_message(prompt))]}
    if schema == "NodeResolutions":
        extracted = json_section(prompt, "ENTITIES")
        existing = json_section(prompt, "EXISTING ENTITIES")
        by_name = {
            str(e.get("name", "")).lower(): e.get("candidate_id", e.get("idx", -1))
            for e in existing
            if isinstance(e, dict)
        }
        out = []
        for i, e in enumerate(extracted):
            name = e.get("name", "") if isinstance(e, dict) else str(e)
            out.append(
                {
                    "id": e.get("id", i) if isinstance(e, dict) else i,
                    "name": name,
                    "duplicate_candidate_id": by_name.get(name.lower(), -1),
                }
            )
        return {"entity_resolutions": out}
    if schema == "ExtractedEdges":
        names = [e.get("name") for e in json_section(prompt, "ENTITIES") if isinstance(e, dict) and e.get("name")]
        if len(names) < 2:
            return {"edges": []}
        a, b = names[0], names[1]
        return {
            "edges": [
                {
                    "source_entity_name": a,
                    "target_entity_name": b,
                    "relation_type": "WORKS_WITH",
                    "fact": f"{a} works with {b}",
                    "valid_at": None,
                    "invalid_at": None,
                }
            ]
        }
    if schema == "EdgeTimestamps":
        return {"valid_at": None, "invalid_at": None}
    if schema == "BatchEdgeTimestamps":
        return {"timestamps": []}
    if schema == "EdgeDuplicate":
        return {"duplicate_facts": [], "contradicted_facts": []}
    if schema == "SummarizedEntities":
        return {"summaries": []}
    if schema == "NodeDuplicate":
        return {"id": 0, "name": "", "duplicate_candidate_id": -1}
    return {}


def schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt.get("json_schema", {}).get("name", "")
    last = (body.get("messages") or [{}])[-1].get("content", "")
    marker = "Respond with a JSON object in the following format:"
    if marker in last:
        try:
            return json.loads(last.split(marker, 1)[1].strip()).get("title", "")
        except json.JSONDecodeError:
            return ""
    return ""


class Fault:
    """One scripted misbehaviour, used once (or `times` times) by the next matching request."""

    def __init__(
        self,
        kind: str,
        *,
        schema: str | None = None,
        times: int = 1,
        retry_after: float | None = None,
        delay: float = 0.0,
        status: int = 500,
    ):
        self.kind, self.schema, self.times = kind, schema, times
        self.retry_after, self.delay, self.status = retry_after, delay, status


class ScriptedOpenAI:
    def __init__(self) -> None:
        self.answers: dict[str, Callable[[str], dict] | dict] = {}
        self.faults: list[Fault] = []
        self.requests: list[dict[str, Any]] = []  # {schema, model, status, prompt_tokens, at}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload, headers, delay = server.handle(self.path, body)
                if delay:
                    time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> "ScriptedOpenAI":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "ScriptedOpenAI":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---- what tests look at ---------------------------------------------------------------------------------------

    def schemas(self, status: int | None = 200) -> list[str]:
        return [r["schema"] for r in self.requests if status is None or r["status"] == status]

    def fault(self, kind: str, **kw: Any) -> None:
        with self._lock:
            self.faults.append(Fault(kind, **kw))

    # ---- request handling ------------------------------------------------------------------------------------------

    def _take_fault(self, schema: str) -> Fault | None:
        with self._lock:
            for f in self.faults:
                if f.schema is None or f.schema == schema:
                    f.times -= 1
                    if f.times <= 0:
                        self.faults.remove(f)
                    return f
        return None

    def handle(self, path: str, body: dict[str, Any]) -> tuple[int, dict, dict, float]:
        if path.endswith("/embeddings"):
            inputs = body.get("input") or []
            inputs = [inputs] if isinstance(inputs, str) else inputs
            dim = int(body.get("dimensions") or 8)
            data = [
                {"object": "embedding", "index": i, "embedding": [((hash(t) >> k) % 97) / 97.0 for k in range(dim)]}
                for i, t in enumerate(inputs)
            ]
            used = sum(tokens(str(t)) for t in inputs)
            return (
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model"),
                    "usage": {"prompt_tokens": used, "total_tokens": used},
                },
                {},
                0.0,
            )
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        schema = schema_name(body)
        record = {
            "schema": schema,
            "model": body.get("model"),
            "status": 200,
            "prompt_tokens": tokens(prompt),
            "at": time.monotonic(),
            "json_mode": (body.get("response_format") or {}).get("type"),
            "max_tokens": body.get("max_tokens"),
        }
        fault = self._take_fault(schema)
        delay = fault.delay if fault else 0.0
        content: str | None = None
        if fault and fault.kind == "429":
            record["status"] = 429
            self.requests.append(record)
            headers = {"retry-after": str(fault.retry_after)} if fault.retry_after is not None else {}
            return (
                429,
                {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
                headers,
                0.0,
            )
        if fault and fault.kind == "500":
            record["status"] = fault.status
            self.requests.append(record)
            return fault.status, {"error": {"message": "upstream error", "type": "server_error"}}, {}, 0.0
        finish = "stop"
        if fault and fault.kind == "malformed":
            content = '{"extracted_entities": [{"name": "Acme", '  # truncated JSON
        elif fault and fault.kind == "length":  # what a looping model does: JSON cut where max_tokens ran out
            content = '{"extracted_entities": [{"name": "Acme", "entity_type_id": 0}, {"name": "Acme", "entity_type_'
            finish = "length"
        elif fault and fault.kind == "invalid":
            content = json.dumps({"unexpected": True})
        if content is None:
            answer = self.answers.get(schema)
            if callable(answer):
                answer = answer(prompt)
            content = json.dumps(answer if answer is not None else default_answer(schema, prompt))
        self.requests.append(record)
        completion = tokens(content)
        return (
            200,
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "choices": [
                    {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}
                ],
                "usage": {
                    "prompt_tokens": record["prompt_tokens"],
                    "completion_tokens": completion,
                    "total_tokens": record["prompt_tokens"] + completion,
                },
            },
            {},
            delay,
        )
