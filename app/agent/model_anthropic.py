"""The model port over Anthropic's Messages API, with the `anthropic` SDK's sync client on the port's worker thread.

The neutral conversation is the Messages API's own block shape, so the request goes nearly as it is; what this
adapter adds is prompt caching: with `request.cache`, `cache_control` on the last tool, on the system prompt and
on the last two user turns — four breakpoints, never more. Images are sent as they are. The SDK reads
`ANTHROPIC_BASE_URL` itself; a base URL of the choice wins over it.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import anthropic
from anthropic.types import Message

from app.agent.model import Capabilities, ModelError, ModelReply, ModelRequest, ModelWorker, StreamEvent
from app.agent.records import Usage
from app.agent.settings import ModelChoice, cost_usd

CACHE = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
STOP_REASONS = {"tool_use", "end_turn", "max_tokens", "pause_turn", "refusal"}


def wire_request(request: ModelRequest) -> dict[str, Any]:
    """The Messages API request: the neutral one, with the cache breakpoints when asked for."""
    messages = copy.deepcopy(request.messages)
    tools = copy.deepcopy(request.tools)
    system: Any = request.system
    if request.cache:
        for message in [m for m in messages if m["role"] == "user"][-2:]:
            content = message["content"]
            if isinstance(content, str):
                message["content"] = content = [{"type": "text", "text": content}]
            content[-1]["cache_control"] = CACHE
        if tools:
            tools[-1]["cache_control"] = CACHE
        system = [{"type": "text", "text": request.system, "cache_control": CACHE}]
    wire: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens, "system": system,
                            "messages": messages}
    if tools:
        wire["tools"] = tools
    if request.tool_choice:
        wire["tool_choice"] = {"type": "tool", "name": request.tool_choice}
    assert json.dumps(wire).count('"cache_control"') <= MAX_BREAKPOINTS
    return wire


def reply_of(message: Message, model: str) -> ModelReply:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if block.type == "text":
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
    u = message.usage
    read = int(getattr(u, "cache_read_input_tokens", 0) or 0)
    write = int(getattr(u, "cache_creation_input_tokens", 0) or 0)
    usage = Usage(input_tokens=int(u.input_tokens or 0), output_tokens=int(u.output_tokens or 0),
                  cache_read_input_tokens=read, cache_creation_input_tokens=write, requests=1)
    usage.cost_usd = cost_usd(model, usage.input_tokens, usage.output_tokens, read, write)
    reason = message.stop_reason if message.stop_reason in STOP_REASONS else "end_turn"
    return ModelReply(blocks=blocks, stop_reason=reason, usage=usage)  # type: ignore[arg-type]


class AnthropicModel:
    provider = "anthropic"
    capabilities = Capabilities(prompt_caching=True, images=True)

    def __init__(self, choice: ModelChoice, timeout: float = 120.0) -> None:
        self._client = anthropic.Anthropic(api_key=choice.sdk_key(), base_url=choice.base_url or None,
                                           timeout=timeout, max_retries=2)
        self._worker = ModelWorker()

    def limitations(self) -> list[str]:
        return []

    def cancel(self) -> None:
        """Stop reading the current stream (Stop in the panel)."""
        self._worker.cancelled.set()

    async def stream(self, request: ModelRequest, on_event: StreamEvent | None = None) -> ModelReply:
        loop = asyncio.get_running_loop()
        self._worker.cancelled.clear()
        wire = wire_request(request)

        def post(kind: str, value: Any) -> None:
            if on_event is not None:
                loop.call_soon_threadsafe(on_event, kind, value)

        def work() -> ModelReply:
            try:
                with self._client.messages.stream(**wire) as stream:
                    for event in stream:
                        if self._worker.cancelled.is_set():
                            raise asyncio.CancelledError("stopped")
                        if event.type == "text":
                            post("text", event.text)
                        elif event.type == "content_block_stop" and event.content_block.type == "tool_use":
                            post("tool", {"name": event.content_block.name, "input": event.content_block.input})
                    return reply_of(stream.get_final_message(), request.model)
            except anthropic.APIError as exc:
                raise ModelError(str(exc)) from None

        return await self._worker.call(work)

    async def create(self, request: ModelRequest) -> ModelReply:
        wire = wire_request(request)

        def work() -> ModelReply:
            try:
                return reply_of(self._client.messages.create(**wire), request.model)
            except anthropic.APIError as exc:
                raise ModelError(str(exc)) from None

        return await self._worker.call(work)

    def close(self) -> None:
        self._worker.close()
        self._client.close()


def list_anthropic_models(choice: ModelChoice, timeout: float) -> list[str]:
    client = anthropic.Anthropic(api_key=choice.sdk_key(), base_url=choice.base_url or None, timeout=timeout,
                                 max_retries=0)
    try:
        return sorted(model.id for model in client.models.list(limit=1000))
    except anthropic.APIError as exc:
        raise ModelError(str(exc)) from None
    finally:
        client.close()
