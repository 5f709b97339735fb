"""The MCP layer without Qt: tools from the registry, mcp.json, the request guard, results, and the HTTP server
with a plain asyncio loop standing in for the app's main loop."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import resource
import socket
import stat
import threading
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from jsonschema import Draft202012Validator
from pydantic import Field

from app.mcp import config
from app.mcp.server import McpHttpServer, is_local_host, is_local_origin
from app.mcp.tools import SERVER_INSTRUCTIONS, ToolCatalog, call_timeout, tool_result
from app.ops import OpContext, Params, build_registry, operation
from envs.datadir import DataDir
from envs.store import EnvStore

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


# -- tools ---------------------------------------------------------------------------------------------------
def test_every_operation_is_a_tool_with_a_valid_self_contained_schema() -> None:
    registry = build_registry()
    tools = {tool.name: tool for tool in ToolCatalog(registry).tools()}
    assert sorted(tools) == registry.names()
    for name, tool in tools.items():
        schema = tool.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        # Every $ref resolves inside the document: validating a sample exercises the references.
        Draft202012Validator(schema).iter_errors({})  # builds the resolver
        text = json.dumps(schema)
        for ref in {part.split('"')[0] for part in text.split('"$ref": "')[1:]}:
            assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"], (name, ref)
        op = registry.get(name)
        assert set(schema["properties"]) == set(op.parameter_names())
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is op.read_only
        assert tool.annotations.destructive_hint is (op.destructive and not op.read_only)
        assert tool.description and len(tool.description) < 1000, name  # long explanations live in README
        assert '"title": "' not in json.dumps(schema)  # pydantic's generated titles are left out


def test_schema_validation_matches_the_registry() -> None:
    registry = build_registry()
    catalog = ToolCatalog(registry)
    click = Draft202012Validator(catalog.schema("page_click"))
    assert click.is_valid({"locator": {"selector": "text=Sign in"}, "timeoutMs": 500})
    assert not click.is_valid({"locator": {"selector": "a"}, "colour": "red"})
    assert not click.is_valid({"locator": {"css": "a"}})


def test_descriptions_carry_the_conventions_where_they_apply() -> None:
    tools = {tool.name: tool.description or "" for tool in ToolCatalog(build_registry()).tools()}
    assert "{\"ref\": \"e12\"} from the latest page_snapshot" in tools["page_click"]
    assert "In handoff" in tools["page_click"] and "In handoff" in tools["page_type"]
    assert "Returns at once" in tools["page_handoff"]
    assert "Locator:" not in tools["env_list"] and "In handoff" not in tools["page_snapshot"]
    assert "\n    " not in tools["page_click"]  # docstring indentation is gone
    # The original BrowserPilot's forms, one line, only where they apply.
    assert "flat selector/xpath/pierce" in tools["page_click"] and "untilSelector" in tools["page_click"]
    assert "shotWidth" in tools["page_drag"] and "untilSelector" not in tools["page_drag"]
    assert "original" not in tools["env_list"]
    assert "takenOver" in SERVER_INSTRUCTIONS and "errorShot" in SERVER_INSTRUCTIONS


def test_optional_fields_are_listed_as_their_type_alone() -> None:
    schema = ToolCatalog(build_registry()).schema("page_click")
    assert schema is not None
    assert schema["properties"]["tabId"] == {"type": "string", "description": "Default: the active tab of env."}
    assert schema["properties"]["locator"]["$ref"] == "#/$defs/Locator"
    assert "null" not in json.dumps(schema)


def test_operations_added_later_become_tools() -> None:
    registry = build_registry()
    catalog = ToolCatalog(registry)
    before = len(catalog.tools())

    class LaterParams(Params):
        workflow_name: str = Field(description="Workflow id or name.")
        inputs: dict[str, Any] = Field(default_factory=dict)

    @operation("later_run", LaterParams, destructive=True)
    async def later_run(ctx: OpContext, params: LaterParams) -> dict[str, Any]:
        """Run something added after the server started."""
        return {}

    registry.add(later_run)
    tools = {tool.name: tool for tool in catalog.tools()}
    assert len(tools) == before + 1
    assert set(tools["later_run"].input_schema["properties"]) == {"workflowName", "inputs"}
    assert tools["later_run"].annotations.destructive_hint is True  # type: ignore[union-attr]


def test_call_timeout_follows_the_operations_own_timeout() -> None:
    registry = build_registry()
    assert call_timeout(registry.get("page_click"), {}) == 10 + 30
    assert call_timeout(registry.get("page_click"), {"timeoutMs": 600_000}) == 600 + 30
    assert call_timeout(registry.get("page_snapshot"), {}) == 120
    assert call_timeout(None, {}) == 120
    assert call_timeout(registry.get("workflow_run"), {}) == 3600


def test_results_carry_the_envelope_and_screenshots_as_images(tmp_path: Path) -> None:
    shot = tmp_path / "captures" / "env-default" / "shot.png"
    shot.parent.mkdir(parents=True)
    shot.write_bytes(PNG_1PX)
    outside = tmp_path.parent / "outside.png"
    outside.write_bytes(PNG_1PX)

    result = tool_result("page_screenshot", {"ok": True, "control": "agent", "path": str(shot)}, tmp_path)
    assert result.is_error is False
    assert result.structured_content == {"ok": True, "control": "agent", "path": str(shot)}
    assert [block.type for block in result.content] == ["text", "image"]
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    assert base64.b64decode(result.content[1].data) == PNG_1PX  # type: ignore[union-attr]

    failed = tool_result("page_click", {"ok": False, "control": "agent", "error": "no element matches",
                                        "errorShot": str(shot)}, tmp_path)
    assert failed.is_error is True and [block.type for block in failed.content] == ["text", "image"]

    # Only PNGs inside the data folder are read.
    foreign = tool_result("page_click", {"ok": False, "control": None, "error": "x", "errorShot": str(outside)},
                          tmp_path)
    assert [block.type for block in foreign.content] == ["text"]


# -- mcp.json ------------------------------------------------------------------------------------------------
def test_mcp_json_is_private_and_the_token_survives_until_regenerated(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    first = config.load_or_create(data)
    path = config.mcp_json(data)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first.token) >= 40
    assert config.load_or_create(data).token == first.token
    updated = config.update_mcp_file(data, url="http://127.0.0.1:39221/mcp", port=39221, pid=42)
    assert updated.token == first.token
    renewed = config.regenerate_token(data)
    assert renewed.token != first.token and renewed.url == "http://127.0.0.1:39221/mcp"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["token"] == renewed.token


def test_an_unusable_mcp_json_gets_a_new_token(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    config.mcp_json(data).write_text("{not json")
    assert config.read_mcp_file(data) is None
    assert config.load_or_create(data).token


def test_client_configurations(tmp_path: Path) -> None:
    configs = config.client_configs("http://127.0.0.1:39221/mcp", "tok", tmp_path, "/opt/bp/bin/browserpilot")
    desktop = json.loads(configs["Claude Desktop (stdio)"])
    assert desktop["mcpServers"]["browserpilot"] == {"command": "/opt/bp/bin/browserpilot",
                                                     "args": ["mcp", "--data-dir", str(tmp_path)]}
    assert configs["Claude Code (HTTP)"] == ('claude mcp add --transport http browserpilot '
                                             'http://127.0.0.1:39221/mcp --header "Authorization: Bearer tok"')
    cursor = json.loads(configs["Cursor (HTTP)"])
    assert cursor["mcpServers"]["browserpilot"] == {"url": "http://127.0.0.1:39221/mcp",
                                                    "headers": {"Authorization": "Bearer tok"}}


def test_a_taken_port_moves_to_the_next_free_one() -> None:
    from app.mcp.server import bind_loopback

    first = bind_loopback([0])
    try:
        port = first.getsockname()[1]
        second = bind_loopback([port])
        try:
            assert second.getsockname() == ("127.0.0.1", port + 1) or second.getsockname()[1] > port
        finally:
            second.close()
    finally:
        first.close()


# -- the guard -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("host, local", [
    ("127.0.0.1:39221", True), ("localhost:39221", True), ("[::1]:39221", True), ("localhost", True),
    ("evil.example:39221", False), ("127.0.0.1.evil.example", False), ("", False), (None, False),
])
def test_local_host(host: str | None, local: bool) -> None:
    assert is_local_host(host) is local


@pytest.mark.parametrize("origin, local", [
    (None, True), ("http://127.0.0.1:5173", True), ("http://localhost", True), ("https://localhost:8443", True),
    ("http://evil.example", False), ("null", False), ("file://", False), ("http://localhost.evil.example", False),
])
def test_local_origin(origin: str | None, local: bool) -> None:
    assert is_local_origin(origin) is local


# -- the HTTP server, with a plain asyncio loop as the "main loop" ----------------------------------------------
def _start_server(data: DataDir) -> tuple[McpHttpServer, asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = McpHttpServer(data, build_registry(), OpContext(data=data, envs=EnvStore(data)), loop, port=0)
    server.start()
    assert server.wait_started(20)
    return server, loop, thread


def _end_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[McpHttpServer, DataDir]]:
    data = DataDir(tmp_path)
    server, loop, thread = _start_server(data)
    try:
        yield server, data
    finally:
        server.stop()
        _end_loop(loop, thread)


def test_the_sdk_loads_for_the_first_http_client_even_beyond_1024_descriptors(tmp_path: Path) -> None:
    """The HTTP port listens at once; the SDK loads when a client connects. The wait for that client must
    not be `select`, which fails on descriptors above 1024 (an app with many tabs has that many)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this machine allows only {hard} open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        data = DataDir(tmp_path)
        server, loop, thread = _start_server(data)
        try:
            content = config.read_mcp_file(data)
            assert content is not None and content.url == server.url and content.quick_port is not None
            assert not server.sdk_loaded  # listening, named in mcp.json, not loaded
            assert _post(server.url or "", {"Authorization": f"Bearer {content.token}"}).status_code == 200
            assert server.sdk_loaded
        finally:
            server.stop(wait=True)
            _end_loop(loop, thread)
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_server_stopped_before_any_http_client_lets_go_of_its_port(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    server, loop, thread = _start_server(data)
    port = server.port
    try:
        server.stop()
        assert server.wait_stopped(10)
        assert not server.sdk_loaded
        stopped = config.read_mcp_file(data)
        assert stopped is not None and stopped.pid is None and stopped.quick_port is None
        with socket.socket() as probe:  # nobody listens there any more
            assert probe.connect_ex(("127.0.0.1", port or 0)) != 0
    finally:
        _end_loop(loop, thread)


def _post(url: str, headers: dict[str, str]) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}}
    return httpx.post(url, json=body, headers={"Accept": "application/json, text/event-stream", **headers},
                      timeout=10, trust_env=False)


def test_server_refuses_without_token_and_from_foreign_origins(served: tuple[McpHttpServer, DataDir]) -> None:
    server, data = served
    assert server.url is not None and server.url.startswith("http://127.0.0.1:")
    content = config.read_mcp_file(data)
    assert content is not None and content.url == server.url and content.pid == os.getpid()
    good = {"Authorization": f"Bearer {content.token}"}
    assert _post(server.url, {}).status_code == 401
    assert _post(server.url, {"Authorization": "Bearer wrong"}).status_code == 401
    assert _post(server.url, {**good, "Origin": "http://evil.example"}).status_code == 403
    assert _post(server.url, {**good, "Host": "evil.example"}).status_code == 403
    assert _post(server.url, good).status_code == 200

    # A token regenerated by another process (the command line) is in force at once; the old one is not.
    renewed = config.regenerate_token(DataDir(data.root))
    assert _post(server.url, good).status_code == 401
    assert _post(server.url, {"Authorization": f"Bearer {renewed.token}"}).status_code == 200


def test_server_calls_operations_through_the_registry(served: tuple[McpHttpServer, DataDir]) -> None:
    from app.mcp.client import Endpoint, call_operation, connect

    server, data = served
    content = config.read_mcp_file(data)
    assert content is not None and server.url is not None
    endpoint = Endpoint(server.url, content.token, os.getpid())

    async def scenario() -> None:
        created = await call_operation(endpoint, "env_create", {"name": "Via MCP"})
        assert created["ok"] is True and created["environment"]["name"] == "Via MCP"
        async with connect(endpoint) as client:
            refused = await client.call_tool("env_create", {"name": "x", "colour": "red"})
            assert refused.is_error is True
            assert refused.structured_content == {
                "ok": False, "control": None,
                "error": "unknown parameter 'colour' for env_create; valid parameters: name, remark, userAgent, "
                         "languages, timezone, geolocation",
                "code": "invalid_parameters"}
            # Concurrent calls are concurrent tasks on the main loop.
            results = await asyncio.gather(*(client.call_tool("env_list", {}) for _ in range(8)))
            assert all(r.structured_content and r.structured_content["ok"] for r in results)

    asyncio.run(scenario())
    assert "Via MCP" in (data.root / "envs.json").read_text("utf-8")

    server.stop()  # returns at once: the server thread ends on a stopper thread of its own
    assert not server.running
    assert server.wait_stopped(20)
    stopped = config.read_mcp_file(data)
    assert stopped is not None and stopped.pid is None and stopped.token == content.token
