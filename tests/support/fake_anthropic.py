"""A local stand-in of the Anthropic Messages API (`POST /v1/messages`) for tests, on 127.0.0.1.

Answers come from a script: a list of responders, each taking the request's JSON and returning a `Reply`
(content blocks and a stop reason). A request with `"stream": true` gets Server-Sent Events in the API's
format (message_start, content_block_start/delta/stop, message_delta, message_stop); others get the plain
JSON message. Every request is kept, and checked as it arrives: no forbidden string (a secret's value)
anywhere in the body, at most four `cache_control` breakpoints, every `tool_use` answered by a
`tool_result` in the next message. Problems are collected in `problems` for the test to assert empty.
`ApiStandIn` (the server) and `ScriptedModel` (playing the script, the checks) serve the Chat Completions
stand-in too (tests/support/fake_openai.py).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Self

import pytest


@dataclass
class Reply:
    content: list[dict[str, Any]]
    stop_reason: str = "tool_use"
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 120, "output_tokens": 30,
                                                           "cache_read_input_tokens": 900,
                                                           "cache_creation_input_tokens": 50})


Responder = Callable[[dict[str, Any]], Reply]


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


_ids = iter(range(1, 1_000_000))


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": name, "input": arguments}


def last_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the request's last user message."""
    content = request["messages"][-1]["content"]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(content, list) else []


PAGE_DATA = re.compile(r"^<(page_data_[0-9a-f]+)>\n(.*)\n</\1>$", re.S)


def page_data(part: str) -> str:
    """A text part of a tool result without its untrusted-data delimiters (unchanged when it has none)."""
    match = PAGE_DATA.match(part)
    return match.group(2) if match else part


def result_text(block: dict[str, Any]) -> str:
    return "\n".join(page_data(part.get("text", "")) for part in block.get("content") or []
                     if part.get("type") == "text")


def result_json(block: dict[str, Any]) -> dict[str, Any]:
    return json.loads(page_data(block["content"][0]["text"]))


def ref_of(snapshot: str, role: str, name: str) -> str:
    """The ref of the element with this role and name in a page_snapshot's outline."""
    match = re.search(rf'- {role} "{re.escape(name)}"[^\n]*\[ref=(e\d+)\]', snapshot)
    assert match, snapshot
    return match.group(1)


Answer = tuple[int, str, bytes]  # status, content type, payload
NOT_FOUND: Answer = (404, "application/json", b'{"error": {"message": "not found"}}')


class ApiStandIn:
    """The HTTP side of a stand-in for an API outside this machine: a threaded server on 127.0.0.1 (port 0) whose
    `get` and `post` (a subclass's) answer each request; `root` is its address."""

    def __init__(self) -> None:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _reply(self, answer: Answer) -> None:
                status, kind, payload = answer
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802
                self._reply(stand_in.get(self.path))

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._reply(stand_in.post(self.path, dict(self.headers), body))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.root = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def get(self, path: str) -> Answer:
        return NOT_FOUND

    def post(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        return NOT_FOUND

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class ScriptedModel(ApiStandIn):
    """A model's API that plays a script: the agent's requests (those with tools) get the script's answers in turn,
    the judge's (without) its verdict. Every request is kept as the script saw it (`requests`, and the bytes in
    `raw`) and checked as it arrives (no forbidden string anywhere, then `check`, the API's own rules); problems
    are collected in `problems`."""

    def __init__(self, script: list[Responder | Reply], forbidden: list[str] | None = None,
                 judge: Reply | None = None) -> None:
        super().__init__()
        self.script = list(script)
        self.forbidden = list(forbidden or [])
        self.judge = judge or Reply([text('{"verdict": "pass", "reason": "the page shows it done"}')], "end_turn")
        self.requests: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.problems: list[str] = []
        self._lock = threading.Lock()

    @property
    def agent_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("tools")]

    def play(self, body: bytes, request: dict[str, Any], view: dict[str, Any]) -> Reply:
        """The answer to a request (`view`: as the script reads it)."""
        with self._lock:
            self.requests.append(view)
            self.raw.append(body)
            decoded = body.decode("utf-8")
            for secret in self.forbidden:
                if secret in decoded or json.dumps(secret)[1:-1] in decoded:
                    self.problems.append(f"request {len(self.requests)} contains a secret value")
            self.check(decoded, request)
            if not request.get("tools"):
                return self.judge
            if not self.script:
                self.problems.append("the agent asked for more answers than the script has")
                return Reply([text("out of script")], "refusal")
            step = self.script.pop(0)
        return step(view) if callable(step) else step

    def check(self, decoded: str, request: dict[str, Any]) -> None:
        """The API's own rules (a subclass's), adding to `problems`."""


class FakeAnthropic(ScriptedModel):
    def __init__(self, script: list[Responder | Reply], forbidden: list[str] | None = None,
                 judge: Reply | None = None) -> None:
        super().__init__(script, forbidden, judge)
        self.url = self.root

    def post(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        request = json.loads(body)
        reply = self.play(body, request, request)
        if request.get("stream"):
            return 200, "text/event-stream", self._sse(request, reply).encode("utf-8")
        return 200, "application/json", json.dumps(self._message(request, reply)).encode("utf-8")

    def check(self, decoded: str, request: dict[str, Any]) -> None:
        marks = decoded.count('"cache_control"')
        if marks > 4:
            self.problems.append(f"request {len(self.requests)} has {marks} cache_control breakpoints")
        messages = request.get("messages") or []
        for i, message in enumerate(messages):
            if message["role"] != "assistant" or not isinstance(message["content"], list):
                continue
            uses = {b["id"] for b in message["content"] if b.get("type") == "tool_use"}
            if not uses:
                continue
            following = messages[i + 1]["content"] if i + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in following if isinstance(b, dict)} if isinstance(following, list) else set()
            if i + 1 < len(messages) and uses - answered:
                self.problems.append(f"request {len(self.requests)}: tool_use {sorted(uses - answered)} unanswered")

    @staticmethod
    def _message(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": request.get("model"),
                "content": reply.content, "stop_reason": reply.stop_reason, "stop_sequence": None,
                "usage": reply.usage}

    @staticmethod
    def _sse(request: dict[str, Any], reply: Reply) -> str:
        events: list[tuple[str, dict[str, Any]]] = []
        start_usage = {**reply.usage, "output_tokens": 1}
        events.append(("message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": request.get("model"), "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}}))
        for index, block in enumerate(reply.content):
            if block["type"] == "text":
                events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {"type": "text", "text": ""}}))
                words = block["text"]
                for piece in (words[: len(words) // 2], words[len(words) // 2:]):
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "text_delta", "text": piece}}))
            else:
                events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {**block, "input": {}}}))
                arguments = json.dumps(block["input"])
                for piece in (arguments[: len(arguments) // 2], arguments[len(arguments) // 2:]):
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "input_json_delta", "partial_json": piece}}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": reply.stop_reason,
                                                                            "stop_sequence": None},
                                         "usage": {"output_tokens": reply.usage["output_tokens"]}}))
        events.append(("message_stop", {"type": "message_stop"}))
        return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def model_env(monkeypatch: pytest.MonkeyPatch, fake: FakeAnthropic) -> None:
    """The app's `anthropic` client talks to `fake` (with a key it accepts) for the rest of the test."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
