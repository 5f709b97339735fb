"""The model: the `anthropic` SDK's sync client, called on a worker thread of our own.

Under qasync the loop's default executor starts QThreads that abort the process at exit, so requests run on
a plain `ThreadPoolExecutor`, and streamed events are posted back to the loop with `call_soon_threadsafe`.
`stream` uses the SDK's streaming API (the panel shows the words as they come); `create` is one plain
request (the judge). `close` closes the HTTP client and the thread. The SDK reads `ANTHROPIC_BASE_URL`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from typing import Any, Callable

import anthropic
from anthropic.types import Message

from app.agent.records import Usage
from app.agent.settings import cost_usd
from envs import loggers

log = logging.getLogger(loggers.AGENT)

StreamEvent = Callable[[str, Any], None]  # ("text", delta) or ("tool", {"name", "input"})
ModelError = anthropic.APIError


class ModelClient:
    def __init__(self, api_key: str | None, base_url: str | None = None, timeout: float = 120.0) -> None:
        self._client = anthropic.Anthropic(api_key=api_key or "missing-key", base_url=base_url or None,
                                           timeout=timeout, max_retries=2)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-model")
        self._cancel = threading.Event()

    def cancel(self) -> None:
        """Stop reading the current stream (Stop in the panel)."""
        self._cancel.set()

    async def stream(self, request: dict[str, Any], on_event: StreamEvent | None = None) -> Message:
        loop = asyncio.get_running_loop()
        self._cancel.clear()

        def post(kind: str, value: Any) -> None:
            if on_event is not None:
                loop.call_soon_threadsafe(on_event, kind, value)

        def work() -> Message:
            with self._client.messages.stream(**request) as stream:
                for event in stream:
                    if self._cancel.is_set():
                        raise asyncio.CancelledError("stopped")
                    if event.type == "text":
                        post("text", event.text)
                    elif event.type == "content_block_stop" and event.content_block.type == "tool_use":
                        post("tool", {"name": event.content_block.name, "input": event.content_block.input})
                return stream.get_final_message()

        return await asyncio.wrap_future(self._pool.submit(work))

    async def create(self, request: dict[str, Any]) -> Message:
        return await asyncio.wrap_future(self._pool.submit(lambda: self._client.messages.create(**request)))

    def close(self) -> None:
        self._cancel.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._client.close()


def usage_of(message: Message, model: str) -> Usage:
    """A response's tokens (uncached input, output, cache reads and writes) and their cost."""
    u = message.usage
    read = int(getattr(u, "cache_read_input_tokens", 0) or 0)
    write = int(getattr(u, "cache_creation_input_tokens", 0) or 0)
    usage = Usage(input_tokens=int(u.input_tokens or 0), output_tokens=int(u.output_tokens or 0),
                  cache_read_input_tokens=read, cache_creation_input_tokens=write, requests=1)
    usage.cost_usd = cost_usd(model, usage.input_tokens, usage.output_tokens, read, write)
    return usage
