"""The model port: one provider-neutral way to ask a model, used by the agent's loop, the judge and healing's model
step alike; the providers are adapters behind it (app/agent/model_anthropic.py, app/agent/model_openai.py).

What crosses the port is the conversation in one neutral shape (the content blocks the loop has always kept):
a `ModelRequest` with the system prompt, the tools (`{name, description, input_schema}`) and messages whose
content is a string or blocks `text`, `image` (`source: {type: base64, media_type, data}`), `tool_use` (`id, name,
input`) and `tool_result` (`tool_use_id, is_error, content: [text | image]`); a `ModelReply` with the assistant's
blocks (`text`, `tool_use`), a neutral stop reason and the usage. Each adapter translates both ways and says what
its provider lacks (`Capabilities`, `limitations`): the loop keeps no provider's wire format and is not forked.
`app/agent/providers.py` opens the chosen provider's adapter.

Requests run on a worker thread of their own (`ModelWorker`): under qasync the loop's default executor starts
QThreads that abort the process at exit, so calls go to a plain `ThreadPoolExecutor`, and streamed events are
posted back to the loop with `call_soon_threadsafe`. `stream` streams (the panel shows the words as they come);
`create` is one plain request (the judge, healing). `close` closes the HTTP client and the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol, TypeVar

from app.agent.records import Usage

StreamEvent = Callable[[str, Any], None]  # ("text", delta) or ("tool", {"name", "input"})
StopReason = Literal["tool_use", "end_turn", "max_tokens", "pause_turn", "refusal"]
T = TypeVar("T")


class ModelError(Exception):
    """The model could not be reached, or refused the request (the provider's message, never a key)."""


@dataclass
class ModelRequest:
    model: str
    system: str
    messages: list[dict[str, Any]]
    max_tokens: int
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: str | None = None  # the tool the model must call
    cache: bool = False  # mark the prompt-cache breakpoints, where the provider has them


@dataclass
class ModelReply:
    blocks: list[dict[str, Any]]  # text and tool_use blocks, in order
    stop_reason: StopReason
    usage: Usage

    @property
    def text(self) -> str:
        return "".join(block["text"] for block in self.blocks if block["type"] == "text")


@dataclass(frozen=True)
class Capabilities:
    prompt_caching: bool
    images: bool


class ModelPort(Protocol):
    """What the agent, the judge and healing ask of a model."""

    provider: str
    capabilities: Capabilities

    def limitations(self) -> list[str]:
        """What this provider (or this choice of it) lacks, in words for the run's record."""
        ...

    async def stream(self, request: ModelRequest, on_event: StreamEvent | None = None) -> ModelReply: ...

    async def create(self, request: ModelRequest) -> ModelReply: ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...


class ModelWorker:
    """The worker thread that every adapter runs its blocking SDK calls on, and Stop's flag."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-model")
        self.cancelled = threading.Event()

    async def call(self, work: Callable[[], T]) -> T:
        return await asyncio.wrap_future(self._pool.submit(work))

    def close(self) -> None:
        self.cancelled.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
