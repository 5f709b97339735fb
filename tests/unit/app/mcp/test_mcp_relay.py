"""The stdio bridge's JSON-RPC relay answers exactly as the MCP SDK's own server does.

The oracle is the installed SDK: the same message sequences (handshake era at several versions, the 2026-07-28
era, and their error cases) go to the SDK's `Server` over its stdio transport and to `StdioRelay`, both in front
of the same stand-in for the app (canned listing and results, and a call that fails with a protocol error). The
answers must be equal, field for field. When the SDK changes what it says, this test says where.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from app.mcp import bridge

LISTING = {"tools": [{
    "name": "page_click", "description": "Click an element.",
    "inputSchema": {"type": "object", "properties": {"selector": {"type": "string"}}, "additionalProperties": False},
    "annotations": {"title": "Page click", "readOnlyHint": False, "destructiveHint": False}}]}
RESULT = {"content": [{"type": "text", "text": "{\"ok\": true, \"control\": null}"},
                      {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
          "structuredContent": {"ok": True, "control": None}, "isError": False}
TOOL_FAILURE = bridge.tool_error("the connection to BrowserPilot was lost during page_click")


class StandInApp:
    """What `RemoteApp` forwards to, canned: a listing, a result, a tool error and a protocol error."""

    async def tool_listing(self) -> dict[str, Any]:
        return json.loads(json.dumps(LISTING))

    async def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "protocol_error":
            raise bridge.RpcError(bridge.INTERNAL_ERROR, "BrowserPilot is not reachable: gone")
        if name == "lost":
            return json.loads(json.dumps(TOOL_FAILURE))
        return json.loads(json.dumps(RESULT))


def sdk_server(app: StandInApp) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate(await app.tool_listing())

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await app.tool_call(params.name, dict(params.arguments or {}))
        except bridge.RpcError as exc:
            raise MCPError(code=exc.code, message=exc.message, data=exc.data) from exc
        return types.CallToolResult.model_validate(result)

    return Server(bridge.SERVER_NAME, version=bridge.__version__, title="BrowserPilot",
                  instructions=bridge.SERVER_INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


class Lines:
    """stdin for the SDK transport: the lines, then end of input once every request has been answered (so
    no answer is cut off by the end of the session)."""

    def __init__(self, lines: list[str], answered: anyio.Event) -> None:
        self.lines, self.answered = list(lines), answered

    def __aiter__(self) -> "Lines":
        return self

    async def __anext__(self) -> str:
        if self.lines:
            return self.lines.pop(0) + "\n"
        await self.answered.wait()
        raise StopAsyncIteration


class Answers:
    def __init__(self, expected: int) -> None:
        self.text, self.expected, self.answered = "", expected, anyio.Event()

    async def write(self, text: str) -> None:
        self.text += text
        if self.text.count("\n") >= self.expected:
            self.answered.set()

    async def flush(self) -> None:
        return None


def expected_answers(lines: list[str]) -> int:
    return sum(1 for line in lines if "id" in json.loads(line))


async def through_sdk(lines: list[str]) -> list[dict[str, Any]]:
    answers = Answers(expected_answers(lines))
    server = sdk_server(StandInApp())
    async with stdio_server(Lines(lines, answers.answered), answers) as (read_stream, write_stream):  # type: ignore[arg-type]
        # As the app's server: its tool list changes (tools_enable), so the handshake says listChanged.
        await server.run(read_stream, write_stream,
                         server.create_initialization_options(NotificationOptions(tools_changed=True)))
    return [json.loads(line) for line in answers.text.splitlines()]


async def through_relay(lines: list[str]) -> list[dict[str, Any]]:
    sent: list[bytes] = []
    relay = bridge.StdioRelay(StandInApp(), sent.append)  # type: ignore[arg-type]
    async with anyio.create_task_group() as tasks:  # ends once every forwarded request is answered
        for line in lines:
            message = relay.parse(line.encode("utf-8"))
            if message is not None:
                relay.take(message, tasks)
    return [json.loads(line) for line in b"".join(sent).decode("utf-8").splitlines()]


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def notification(method: str, params: dict[str, Any] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})


def envelope(version: Any = "2026-07-28", capabilities: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": version,
                            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}
    if capabilities:
        meta["io.modelcontextprotocol/clientCapabilities"] = {}
    return {"_meta": meta}


def initialize(version: str) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}


def handshake_session(version: str) -> list[str]:
    return [
        request(1, "initialize", initialize(version)),
        notification("notifications/initialized"),
        request(2, "ping"),
        request(3, "tools/list"),
        request(4, "tools/call", {"name": "page_click", "arguments": {"selector": "#go"}}),
        request(5, "tools/call", {"name": "page_click"}),  # no arguments: an empty object
        request(6, "tools/call", {}),  # no name
        request(7, "tools/call", {"name": "page_click", "arguments": [1]}),
        request(8, "tools/call", {"name": "lost", "arguments": {}}),
        request(9, "tools/call", {"name": "protocol_error", "arguments": {}}),
        request(10, "resources/list"),
        request(11, "tools/list", envelope()),  # a 2026-07-28 request on a handshake session
        request(12, "initialize", initialize("1999-01-01")),  # an unknown version: the latest we speak
        notification("notifications/cancelled", {"requestId": 99}),
    ]


EARLY_AND_MALFORMED = [
    request(1, "tools/list"),  # before initialize
    request(2, "ping"),
    request(3, "initialize", {"protocolVersion": 5}),  # not a version, no client info
    request(4, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}),
    request(5, "tools/call", {"name": "page_click", "arguments": {}}),  # still not initialised
    request(6, "initialize", initialize("2025-06-18")),
    request(7, "tools/list"),
    json.dumps({"jsonrpc": "2.0", "id": "eight", "method": "tools/call", "params": {"name": "page_click"}}),
    request(9, "logging/setLevel", {"level": "info"}),
]

MODERN_SESSION = [
    request(1, "server/discover", envelope()),
    request(2, "tools/list", envelope()),
    request(3, "tools/call", {"name": "page_click", "arguments": {}, **envelope()}),
    request(4, "tools/call", {"name": "lost", "arguments": {}, **envelope()}),
    request(5, "tools/call", {"name": "protocol_error", "arguments": {}, **envelope()}),
    request(6, "tools/call", envelope()),
    request(7, "tools/list", envelope(capabilities=False)),
    request(8, "tools/list", envelope("2099-01-01")),
    request(9, "tools/list", envelope(7)),
    request(10, "tools/list"),  # no envelope on a modern session
    request(11, "initialize", {**initialize("2025-06-18"), **envelope()}),
    request(12, "prompts/list", envelope()),
    request(13, "ping", envelope()),
]

SESSIONS = {f"handshake {version}": handshake_session(version) for version in HANDSHAKE_PROTOCOL_VERSIONS}
SESSIONS["2026-07-28"] = MODERN_SESSION
SESSIONS["early and malformed"] = EARLY_AND_MALFORMED


def by_id(answers: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {answer.get("id"): answer for answer in answers}


def test_the_relay_speaks_the_versions_the_sdk_speaks() -> None:
    assert bridge.HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    assert bridge.MODERN_VERSIONS == tuple(MODERN_PROTOCOL_VERSIONS)


@pytest.mark.parametrize("session", list(SESSIONS))
def test_the_relay_answers_as_the_sdk_server_does(session: str) -> None:
    lines = SESSIONS[session]
    sdk = anyio.run(through_sdk, lines)
    relay = anyio.run(through_relay, lines)
    assert len(relay) == len(sdk) == expected_answers(lines)
    assert by_id(relay) == by_id(sdk)


def test_the_answers_say_what_a_client_needs() -> None:
    """Not only equal to the SDK's: the answers themselves, as a client reads them."""
    answers = by_id(anyio.run(through_relay, handshake_session("2025-06-18")))
    assert answers[1]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[1]["result"]["serverInfo"]["name"] == "browserpilot"
    assert answers[12]["result"]["protocolVersion"] == HANDSHAKE_PROTOCOL_VERSIONS[-1]
    assert answers[3]["result"] == LISTING
    assert answers[4]["result"] == RESULT
    assert answers[8]["result"]["isError"] is True
    assert answers[9]["error"]["code"] == bridge.INTERNAL_ERROR
    assert answers[10]["error"] == {"code": -32601, "message": "Method not found", "data": "resources/list"}
    modern = by_id(anyio.run(through_relay, MODERN_SESSION))
    assert modern[1]["result"]["supportedVersions"] == ["2026-07-28"]
    assert modern[2]["result"]["tools"] == LISTING["tools"] and modern[2]["result"]["resultType"] == "complete"
    assert modern[8]["error"]["code"] == bridge.UNSUPPORTED_PROTOCOL_VERSION


def test_a_cancelled_call_gets_no_answer_and_malformed_lines_lose_nothing() -> None:
    started, release = anyio.Event(), anyio.Event()

    class SlowApp(StandInApp):
        async def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            if name == "slow":
                started.set()
                await release.wait()
            return await super().tool_call(name, arguments)

    async def scenario() -> list[dict[str, Any]]:
        sent: list[bytes] = []
        relay = bridge.StdioRelay(SlowApp(), sent.append)  # type: ignore[arg-type]

        def take(line: str) -> None:
            message = relay.parse(line.encode("utf-8"))
            if message is not None:
                relay.take(message, tasks)

        async with anyio.create_task_group() as tasks:
            take(request(1, "initialize", initialize("2025-11-25")))
            take(request(2, "tools/call", {"name": "slow", "arguments": {}}))
            await started.wait()
            take(notification("notifications/cancelled", {"requestId": 2}))
            for bad in ("not json", "[1, 2]", json.dumps({"jsonrpc": "1.0", "id": 3, "method": "ping"}),
                        json.dumps({"jsonrpc": "2.0", "id": 4, "result": {}}), ""):
                take(bad)
            take(request(5, "tools/call", {"name": "page_click", "arguments": {}}))
            release.set()
        return [json.loads(line) for line in b"".join(sent).decode("utf-8").splitlines()]

    answers = by_id(anyio.run(scenario))
    assert set(answers) == {1, 3, 5}  # 2 was cancelled; the response (4) and junk lines get nothing
    assert answers[3]["error"]["code"] == bridge.INVALID_REQUEST
    assert answers[5]["result"] == RESULT


class EnablingApp(StandInApp):
    """The app's answer to a tools_enable that added tools to the session's list."""

    async def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name != "tools_enable":
            return await super().tool_call(name, arguments)
        envelope = {"ok": True, "control": None, "enabled": ["core", "network"], "added": ["net_start"],
                    "listChanged": True}
        return {"content": [{"type": "text", "text": "ok"}], "structuredContent": envelope, "isError": False}


def relay_lines(lines: list[str]) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        sent: list[bytes] = []
        relay = bridge.StdioRelay(EnablingApp(), sent.append)  # type: ignore[arg-type]
        async with anyio.create_task_group() as tasks:
            for line in lines:
                message = relay.parse(line.encode("utf-8"))
                if message is not None:
                    relay.take(message, tasks)
        return [json.loads(line) for line in b"".join(sent).decode("utf-8").splitlines()]
    return anyio.run(run)


def test_a_handshake_client_hears_the_list_changed_after_the_answer_that_changed_it() -> None:
    enable = {"name": "tools_enable", "arguments": {"groups": ["network"]}}
    answers = relay_lines([request(1, "initialize", initialize("2025-06-18")), request(2, "tools/call", enable),
                           request(3, "tools/call", {"name": "page_click", "arguments": {}})])
    assert answers[0]["result"]["capabilities"]["tools"] == {"listChanged": True}
    changed = [i for i, a in enumerate(answers) if a.get("method") == "notifications/tools/list_changed"]
    assert len(changed) == 1 and answers[changed[0] - 1]["id"] == 2  # right after tools_enable's answer
    # The 2026-07-28 era delivers change notifications only to a listen stream, which the bridge does not serve.
    modern = relay_lines([request(1, "tools/call", {**enable, **envelope()})])
    assert [a.get("method") for a in modern] == [None]
