"""The model port over an OpenAI-compatible Chat Completions endpoint with tool calling (OpenAI, Ollama, llama.cpp's
server, vLLM, LM Studio, OpenRouter…), with the official `openai` SDK's sync client on the port's worker thread.

Translation of the neutral conversation (app/agent/model.py):
- the system prompt is the first message (`role: system`); tools are `{type: function, function: {name,
  description, parameters}}`; a forced tool is `tool_choice: {type: function, function: {name}}`;
- an assistant turn's text is its `content`, its `tool_use` blocks its `tool_calls` (arguments as JSON text);
- each `tool_result` is a `role: tool` message (text only, the API's rule); the user's other blocks, and the
  screenshots of tool results, follow in one `role: user` message, as `image_url` data URLs when the choice says
  the model reads images, else as a line saying that a screenshot was taken and is not shown;
- stop reasons: `tool_calls` (or any call made) is tool_use, `length` max_tokens, `content_filter` or a
  `refusal` refusal, anything else end_turn. Arguments that are not a JSON object reach the loop as
  `{"_arguments": text}`, which the operation refuses with the list of its parameters.
What it lacks is said in the record (`limitations`): no prompt-cache breakpoints (the endpoint may cache by
itself: the cached tokens it reports are counted), and no images unless the choice says so.
Endpoints differ in what they accept: the token limit is sent as `max_tokens`, and an endpoint that wants
`max_completion_tokens` instead (OpenAI's newer models) says so in its error; `stream_options` (asking for the usage
of a stream) and a forced `tool_choice` are refused by some servers. A request refused with an error naming one of
these is sent again adapted (remembered for the rest of the run): the usage is then unknown, and a model not forced
to a tool may still answer with its JSON in words (healing reads either).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import openai

from app.agent.model import Capabilities, ModelError, ModelReply, ModelRequest, ModelWorker, StreamEvent
from app.agent.records import Usage
from app.agent.settings import ModelChoice, cost_usd

NO_IMAGE = "[a screenshot was taken here; this model is not sent images]"
FINISH = {"tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens",
          "content_filter": "refusal"}


def _text_of(parts: list[dict[str, Any]] | str) -> str:
    if isinstance(parts, str):
        return parts
    return "\n".join(part.get("text", "") for part in parts if part.get("type") == "text")


def _image_part(block: dict[str, Any]) -> dict[str, Any]:
    source = block.get("source") or {}
    return {"type": "image_url", "image_url": {"url": f"data:{source.get('media_type', 'image/png')};base64,"
                                                      f"{source.get('data', '')}"}}


def wire_messages(request: ModelRequest, images: bool) -> list[dict[str, Any]]:
    """The neutral conversation as Chat Completions messages."""
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    for message in request.messages:
        content = message["content"]
        if message["role"] == "assistant":
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            text = "".join(b["text"] for b in blocks if b["type"] == "text")
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {},
                                                                              ensure_ascii=False)}}
                     for b in blocks if b["type"] == "tool_use"]
            turn: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                turn["tool_calls"] = calls
            out.append(turn)
            continue
        if isinstance(content, str):
            out.append({"role": "user", "content": content})
            continue
        after: list[dict[str, Any]] = []  # the user's own parts, and the tool results' screenshots
        for block in content:
            if block.get("type") == "tool_result":
                parts = block.get("content") or []
                shots = [p for p in parts if isinstance(p, dict) and p.get("type") == "image"] \
                    if isinstance(parts, list) else []
                text = _text_of(parts)
                if shots:
                    text += "\n" + ("[the screenshot follows in the next message]" if images else NO_IMAGE)
                    if images:
                        after += [{"type": "text", "text": f"The screenshot of the call {block['tool_use_id']}:"},
                                  *[_image_part(shot) for shot in shots]]
                out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})
            elif block.get("type") == "text":
                after.append({"type": "text", "text": block["text"]})
            elif block.get("type") == "image":
                after.append(_image_part(block) if images else {"type": "text", "text": NO_IMAGE})
        if after:
            only_text = all(part["type"] == "text" for part in after)
            out.append({"role": "user", "content": "\n\n".join(p["text"] for p in after) if only_text else after})
    return out


def wire_request(request: ModelRequest, images: bool, token_param: str) -> dict[str, Any]:
    wire: dict[str, Any] = {"model": request.model, "messages": wire_messages(request, images),
                            token_param: request.max_tokens}
    if request.tools:
        wire["tools"] = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                           "parameters": t["input_schema"]}} for t in request.tools]
    if request.tool_choice:
        wire["tool_choice"] = {"type": "function", "function": {"name": request.tool_choice}}
    return wire


def tool_input(arguments: str | None) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {"_arguments": arguments or ""}


def usage_of(usage: Any, model: str) -> Usage:
    """Chat Completions usage: prompt tokens (of which cached, when the endpoint says), completion tokens."""
    if usage is None:
        return Usage(requests=1, cost_usd=None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
    out = int(getattr(usage, "completion_tokens", 0) or 0)
    result = Usage(input_tokens=max(0, prompt - cached), output_tokens=out, cache_read_input_tokens=cached,
                   requests=1)
    result.cost_usd = cost_usd(model, result.input_tokens, out, cached, 0)
    return result


def _reply(text: str, calls: list[dict[str, Any]], finish: str | None, refusal: str | None,
           usage: Usage) -> ModelReply:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": call["id"] or f"call_{secrets.token_hex(6)}", "name": call["name"],
                "input": tool_input(call["arguments"])} for call in calls if call["name"]]
    if refusal:
        reason = "refusal"
    elif finish == "length":
        reason = "max_tokens"
    elif any(b["type"] == "tool_use" for b in blocks):
        reason = "tool_use"  # some servers say "stop" with calls made
    else:
        reason = FINISH.get(finish or "", "end_turn")
        if reason == "tool_use":
            reason = "end_turn"  # said tool_calls, made none
    return ModelReply(blocks=blocks, stop_reason=reason, usage=usage)  # type: ignore[arg-type]


class OpenAIModel:
    provider = "openai"

    def __init__(self, choice: ModelChoice, timeout: float = 120.0) -> None:
        self.choice = choice
        self.capabilities = Capabilities(prompt_caching=False, images=choice.images)
        self._client = openai.OpenAI(api_key=choice.sdk_key(), base_url=choice.base_url or None, timeout=timeout,
                                     max_retries=2)
        self._worker = ModelWorker()
        self._token_param = "max_tokens"
        self._left_out: set[str] = set()  # optional fields this endpoint refused

    def limitations(self) -> list[str]:
        notes = ["prompt caching: the OpenAI-compatible API has no cache breakpoints, so each request is sent whole "
                 "(tokens the endpoint reports as cached by itself are counted as cached)"]
        if not self.choice.images:
            notes.append("images: this model is not sent images (the setting \"The model reads images\" is off): a "
                         "screenshot reaches it as a line saying one was taken, and the judge decides from the steps "
                         "and the final address without the final screenshot")
        return notes

    def cancel(self) -> None:
        self._worker.cancelled.set()

    def _send(self, request: ModelRequest, **extra: Any) -> Any:
        """One request, adapted and sent again when the endpoint refuses an optional field by name."""
        while True:
            wire = {**wire_request(request, self.choice.images, self._token_param), **extra}
            for name in self._left_out:
                wire.pop(name, None)
            try:
                return self._client.chat.completions.create(**wire)
            except openai.BadRequestError as exc:
                said = str(exc)
                if self._token_param == "max_tokens" and "max_completion_tokens" in said:
                    self._token_param = "max_completion_tokens"
                    continue
                refused = next((name for name in ("stream_options", "tool_choice")
                                if name in wire and name in said), None)
                if refused is None:
                    raise
                self._left_out.add(refused)

    async def stream(self, request: ModelRequest, on_event: StreamEvent | None = None) -> ModelReply:
        loop = asyncio.get_running_loop()
        self._worker.cancelled.clear()

        def post(kind: str, value: Any) -> None:
            if on_event is not None:
                loop.call_soon_threadsafe(on_event, kind, value)

        def work() -> ModelReply:
            text: list[str] = []
            calls: dict[int, dict[str, Any]] = {}
            finish: str | None = None
            refusal: str | None = None
            usage: Any = None
            try:
                stream = self._send(request, stream=True, stream_options={"include_usage": True})
                with stream:
                    for chunk in stream:
                        if self._worker.cancelled.is_set():
                            raise asyncio.CancelledError("stopped")
                        usage = getattr(chunk, "usage", None) or usage
                        for choice in chunk.choices or []:
                            delta = choice.delta
                            if delta is not None and delta.content:
                                text.append(delta.content)
                                post("text", delta.content)
                            if delta is not None and getattr(delta, "refusal", None):
                                refusal = (refusal or "") + str(delta.refusal)
                            for piece in (delta.tool_calls or []) if delta is not None else []:
                                call = calls.setdefault(piece.index if piece.index is not None else len(calls),
                                                        {"id": "", "name": "", "arguments": ""})
                                if piece.id:
                                    call["id"] = piece.id
                                if piece.function is not None:
                                    call["name"] += piece.function.name or ""
                                    call["arguments"] += piece.function.arguments or ""
                            finish = choice.finish_reason or finish
            except openai.APIError as exc:
                raise ModelError(str(exc)) from None
            reply = _reply("".join(text), [calls[i] for i in sorted(calls)], finish, refusal,
                           usage_of(usage, request.model))
            for block in reply.blocks:
                if block["type"] == "tool_use":
                    post("tool", {"name": block["name"], "input": block["input"]})
            return reply

        return await self._worker.call(work)

    async def create(self, request: ModelRequest) -> ModelReply:
        def work() -> ModelReply:
            try:
                completion = self._send(request)
            except openai.APIError as exc:
                raise ModelError(str(exc)) from None
            if not completion.choices:
                raise ModelError("the endpoint answered without a choice")
            choice = completion.choices[0]
            message = choice.message
            calls = [{"id": call.id, "name": call.function.name, "arguments": call.function.arguments}
                     for call in message.tool_calls or [] if getattr(call, "function", None) is not None]
            return _reply(message.content or "", calls, choice.finish_reason, getattr(message, "refusal", None),
                          usage_of(completion.usage, request.model))

        return await self._worker.call(work)

    def close(self) -> None:
        self._worker.close()
        self._client.close()


def list_openai_models(choice: ModelChoice, timeout: float) -> list[str]:
    client = openai.OpenAI(api_key=choice.sdk_key(), base_url=choice.base_url or None, timeout=timeout,
                           max_retries=0)
    try:
        return sorted(model.id for model in client.models.list())
    except openai.APIError as exc:
        raise ModelError(str(exc)) from None
    finally:
        client.close()
