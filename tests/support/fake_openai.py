"""A local stand-in of an OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`, `GET /v1/models`) for
tests, on 127.0.0.1: what Ollama, llama.cpp's server or vLLM answer, with the real `openai` client pointed at it.

It plays the same scripts as the Messages API stand-in (tests/support/fake_anthropic.py): each responder gets the
request as a Messages-API view (`messages_view`: tool messages as `tool_result` blocks, tool calls as `tool_use`
blocks, the system prompt apart), so one script serves both providers, and its `Reply` (text and tool_use blocks,
a stop reason) goes back as a chat completion — streamed as `chat.completion.chunk` events when the request asks,
the tool calls' arguments in pieces, the usage last. Every request is kept as it arrived (`wire`) and checked: no
forbidden string (a secret's value) anywhere in the body, no `cache_control` (not this API's), every tool call
answered by a tool message right after it. Problems are collected in `problems` for the test to assert empty.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.fake_anthropic import NOT_FOUND, Answer, Reply, Responder, ScriptedModel, text

FINISH = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length", "refusal": "content_filter"}
USAGE = {"prompt_tokens": 1200, "completion_tokens": 30, "total_tokens": 1230,
         "prompt_tokens_details": {"cached_tokens": 0}}


def messages_view(request: dict[str, Any]) -> dict[str, Any]:
    """A chat completions request as the Messages API would carry it (for the shared scripts)."""
    system = ""
    messages: list[dict[str, Any]] = []
    for message in request.get("messages") or []:
        role, content = message["role"], message.get("content")
        if role == "system":
            system = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [text(content)] if content else []
            blocks += [{"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                        "input": json.loads(call["function"]["arguments"] or "{}")}
                       for call in message.get("tool_calls") or []]
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"],
                     "content": [{"type": "text", "text": content}]}
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list) and \
                    all(b.get("type") == "tool_result" for b in messages[-1]["content"]):
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        else:
            parts = [text(content)] if isinstance(content, str) else \
                [text(p["text"]) if p.get("type") == "text" else {"type": "image", "url": p["image_url"]["url"]}
                 for p in content]
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].extend(parts)
            else:
                messages.append({"role": "user", "content": content if isinstance(content, str) else parts})
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "input_schema": t["function"].get("parameters")} for t in request.get("tools") or []]
    view = {"model": request.get("model"), "system": system, "messages": messages, "stream": request.get("stream")}
    if tools:
        view["tools"] = tools
    return view


class FakeOpenAI(ScriptedModel):
    def __init__(self, script: list[Responder | Reply], forbidden: list[str] | None = None,
                 judge: Reply | None = None, models: list[str] | None = None,
                 refuse: tuple[str, ...] = ()) -> None:
        super().__init__(script, forbidden, judge)
        self.url = f"{self.root}/v1"
        self.refuse = refuse  # request fields answered with 400 naming them, as some servers do
        self.models = list(models or ["local-model"])
        self.wire: list[dict[str, Any]] = []  # the requests as they arrived (`requests`: their Messages-API views)
        self.keys: list[str] = []  # the Authorization header of each request
        self.refused: list[str] = []  # the fields of `refuse` that requests carried
        self._ids = iter(range(1, 1_000_000))

    def get(self, path: str) -> Answer:
        if not path.rstrip("/").endswith("/v1/models"):
            return NOT_FOUND
        data = [{"id": name, "object": "model", "created": 0, "owned_by": "local"} for name in self.models]
        return 200, "application/json", json.dumps({"object": "list", "data": data}).encode()

    def post(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        if not path.rstrip("/").endswith("/chat/completions"):
            return NOT_FOUND
        request = json.loads(body)
        refused = next((name for name in self.refuse if name in request), None)
        if refused is not None:
            self.refused.append(refused)
            hint = " Use 'max_completion_tokens' instead." if refused == "max_tokens" else ""
            message = {"error": {"message": f"Unsupported parameter: '{refused}'.{hint}",
                                 "type": "invalid_request_error", "param": refused}}
            return 400, "application/json", json.dumps(message).encode()
        self.keys.append(next((value for name, value in headers.items() if name.lower() == "authorization"), ""))
        self.wire.append(request)
        reply = self.play(body, request, messages_view(request))
        if request.get("stream"):
            return 200, "text/event-stream", self._sse(request, reply).encode("utf-8")
        return 200, "application/json", json.dumps(self._completion(request, reply)).encode("utf-8")

    def check(self, decoded: str, request: dict[str, Any]) -> None:
        number = len(self.requests)
        if '"cache_control"' in decoded:
            self.problems.append(f"request {number} has cache_control, which this API does not know")
        messages = request.get("messages") or []
        for i, message in enumerate(messages):
            calls = {c["id"] for c in message.get("tool_calls") or []}
            answered: set[str] = set()
            for following in messages[i + 1:]:
                if following["role"] != "tool":
                    break
                answered.add(following["tool_call_id"])
            if calls - answered:
                self.problems.append(f"request {number}: tool calls {sorted(calls - answered)} unanswered")

    def _calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [{"id": f"call_{next(self._ids):04d}", "type": "function",
                 "function": {"name": b["name"], "arguments": json.dumps(b["input"])}}
                for b in reply.content if b["type"] == "tool_use"]

    def _completion(self, request: dict[str, Any], reply: Reply) -> dict[str, Any]:
        words = "".join(b["text"] for b in reply.content if b["type"] == "text")
        message: dict[str, Any] = {"role": "assistant", "content": words or None}
        calls = self._calls(reply)
        if calls:
            message["tool_calls"] = calls
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": request.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": FINISH[reply.stop_reason]}],
                "usage": USAGE}

    def _sse(self, request: dict[str, Any], reply: Reply) -> str:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                    "model": request.get("model"), "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        chunks = [chunk({"role": "assistant", "content": ""})]
        words = "".join(b["text"] for b in reply.content if b["type"] == "text")
        for piece in (words[: len(words) // 2], words[len(words) // 2:]):
            if piece:
                chunks.append(chunk({"content": piece}))
        for index, call in enumerate(self._calls(reply)):
            arguments = call["function"]["arguments"]
            chunks.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                                 "function": {"name": call["function"]["name"], "arguments": ""}}]}))
            for piece in (arguments[: len(arguments) // 2], arguments[len(arguments) // 2:]):
                chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        chunks.append(chunk({}, FINISH[reply.stop_reason]))
        if (request.get("stream_options") or {}).get("include_usage"):
            chunks.append({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                           "model": request.get("model"), "choices": [], "usage": USAGE})
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def openai_env(monkeypatch: pytest.MonkeyPatch, fake: FakeOpenAI) -> None:
    """The app's `openai` client talks to `fake` for the rest of the test (OPENAI_BASE_URL, a key it accepts)."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
