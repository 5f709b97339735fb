"""The model port's adapters on their own: the neutral conversation as each provider's request, each
provider's answer as the neutral reply, and an OpenAI-compatible endpoint that refuses an optional parameter asked
again without it — against the Chat Completions stand-in with the real `openai` client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.agent.model import ModelRequest
from app.agent.model_anthropic import wire_request as anthropic_wire
from app.agent.model_openai import NO_IMAGE, wire_messages, wire_request
from app.agent.providers import open_model
from app.stores.agent_settings import AgentSettings, ModelChoice
from tests.support.fake_anthropic import Reply, text, tool
from tests.support.fake_openai import FakeOpenAI

SHOT = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}


def conversation() -> ModelRequest:
    return ModelRequest(model="m", system="Be brief.", max_tokens=100, cache=True, messages=[
        {"role": "user", "content": "Task: look"},
        {"role": "assistant", "content": [text("Looking."), {"type": "tool_use", "id": "t1", "name": "page_snapshot",
                                                              "input": {}},
                                          {"type": "tool_use", "id": "t2", "name": "page_screenshot", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": False, "content": [text("outline")]},
            {"type": "tool_result", "tool_use_id": "t2", "is_error": False, "content": [text("shot"), SHOT]},
            text("Carry on.")]}],
        tools=[{"name": "page_snapshot", "description": "d", "input_schema": {"type": "object"}},
               {"name": "done", "description": "e", "input_schema": {"type": "object"}}])


def test_the_neutral_conversation_as_chat_completions_messages() -> None:
    without = wire_messages(conversation(), images=False)
    assert [m["role"] for m in without] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert without[2]["content"] == "Looking." and [c["id"] for c in without[2]["tool_calls"]] == ["t1", "t2"]
    assert without[2]["tool_calls"][0]["function"] == {"name": "page_snapshot", "arguments": "{}"}
    assert without[4] == {"role": "tool", "tool_call_id": "t2", "content": "shot\n" + NO_IMAGE}
    assert without[5] == {"role": "user", "content": "Carry on."}
    with_images = wire_messages(conversation(), images=True)
    shown = with_images[5]["content"]
    assert [p["type"] for p in shown] == ["text", "image_url", "text"] and shown[0]["text"].endswith("t2:")
    assert shown[1]["image_url"]["url"] == "data:image/png;base64,iVBORw0K"
    wire = wire_request(conversation(), images=False, token_param="max_tokens")
    assert wire["max_tokens"] == 100 and "cache_control" not in json.dumps(wire)
    assert wire["tools"][0] == {"type": "function", "function": {"name": "page_snapshot", "description": "d",
                                                                 "parameters": {"type": "object"}}}


def test_anthropic_gets_its_four_cache_breakpoints() -> None:
    wire = anthropic_wire(conversation())
    assert json.dumps(wire).count('"cache_control"') == 4
    assert wire["tools"][-1]["cache_control"] == {"type": "ephemeral"} and wire["system"][0]["text"] == "Be brief."
    plain = anthropic_wire(ModelRequest(model="m", system="s", max_tokens=10, messages=[{"role": "user",
                                                                                          "content": "x"}]))
    assert "cache_control" not in json.dumps(plain) and plain["system"] == "s" and "tools" not in plain


def test_each_providers_own_key_and_url(monkeypatch: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a-key")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    settings = AgentSettings.model_validate({"provider": "openai", "openai": {"model": "qwen3:8b"}})
    local = settings.choice()
    assert (local.provider, local.model, local.api_key, local.base_url) == ("openai", "qwen3:8b", None,
                                                                            "http://127.0.0.1:11434/v1")
    assert local.problem() is None and local.sdk_key() == "no-key"  # the Anthropic key is not borrowed
    assert settings.choice("anthropic").api_key == "a-key"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert "no endpoint" in (settings.choice().problem() or "")
    assert "no model" in (AgentSettings.model_validate({"provider": "openai"}).choice().problem() or "")


def test_an_endpoint_that_refuses_an_optional_parameter_is_asked_again_without_it() -> None:
    async def ask(fake: FakeOpenAI) -> Any:
        model = open_model(ModelChoice("openai", "m", None, fake.url, False, "none"))
        try:
            request = conversation()
            request.tool_choice = "done"
            streamed = await model.stream(request)
            created = await model.create(request)
            return streamed, created
        finally:
            model.close()

    script = [Reply([tool("done", success=True, answer="ok")])] * 2
    with FakeOpenAI(script, refuse=("stream_options", "max_tokens", "tool_choice")) as fake:
        streamed, created = asyncio.run(ask(fake))
        assert fake.problems == []
        refused = list(fake.refused)
        sent = list(fake.wire)
    assert streamed.stop_reason == "tool_use" and streamed.blocks[0]["input"] == {"success": True, "answer": "ok"}
    assert created.blocks[0]["name"] == "done"
    assert sorted(refused) == ["max_tokens", "stream_options", "tool_choice"]  # each refused once, then left out
    assert all("max_completion_tokens" in request for request in sent)
