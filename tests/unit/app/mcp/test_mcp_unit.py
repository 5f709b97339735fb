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

import pytest
from jsonschema import Draft202012Validator
from pydantic import Field, ValidationError

from app.mcp import config
from app.mcp.server import McpHttpServer, is_local_host, is_local_origin
from app.catalog.profiles import GROUPS, ORIGINAL_TOOLS, ProfileError, ToolSelection, parse_profile
from app.catalog.tools import SERVER_INSTRUCTIONS, ToolCatalog, call_timeout, tool_result
from app.ops import OpContext, Params, operation
from app.ops.registry import describe_validation_error
from app.ops.results import OpenResult
from app.wiring.registry import build_registry
from plumbing.datadir import DataDir
from envs.store import EnvStore
from tests.support.mcp_http import initialize

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


# -- tools ---------------------------------------------------------------------------------------------------
def test_every_operation_is_a_tool_with_a_valid_self_contained_schema() -> None:
    registry = build_registry()
    tools = {tool.name: tool for tool in ToolCatalog(registry).tools()}
    assert sorted(tools) == sorted([*registry.names(), "tools_enable"])
    for name, tool in tools.items():
        schema = tool.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        # Every $ref resolves inside the document: validating a sample exercises the references.
        Draft202012Validator(schema).iter_errors({})  # builds the resolver
        text = json.dumps(schema)
        for ref in {part.split('"')[0] for part in text.split('"$ref": "')[1:]}:
            assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"], (name, ref)
        if name == "tools_enable":
            continue
        op = registry.get(name)
        assert set(schema["properties"]) == set(op.parameter_names())
        assert tool.annotations is not None
        assert bool(tool.annotations.read_only_hint) is op.read_only
        if not op.read_only:  # the spec's default is destructive: every other tool says whether it is
            assert tool.annotations.destructive_hint is op.destructive
        assert tool.description and len(tool.description) < 1000, name  # long explanations live in docs/
        assert '"title": "' not in json.dumps(schema)  # pydantic's generated titles are left out
        assert '"description": "Base of every' not in json.dumps(schema)  # a parameter model's docstring is ours


def test_schema_validation_matches_the_registry() -> None:
    registry = build_registry()
    catalog = ToolCatalog(registry)
    click = Draft202012Validator(catalog.schema("page_click"))
    assert click.is_valid({"locator": {"selector": "text=Sign in"}, "timeoutMs": 500})
    assert not click.is_valid({"locator": {"selector": "a"}, "colour": "red"})
    assert not click.is_valid({"locator": "#a"})


def test_a_locator_with_unknown_keys_is_refused_naming_the_valid_ones() -> None:
    """The schemas write a locator as an object; the registry's answer to a wrong one says its keys."""
    registry = build_registry()
    click = registry.get("page_click")
    with pytest.raises(ValidationError) as caught:
        click.params.model_validate({"locator": {"css": "#a"}})
    assert describe_validation_error(click, caught.value) == (
        "unknown key 'css' in 'locator' for page_click; valid keys: selector, xpath, ref")
    with pytest.raises(ValidationError) as caught:
        click.params.model_validate({"locator": {"ref": "e1"}, "offset": {"x": 0, "y": 0, "z": 1}})
    assert "unknown key 'z' in 'offset'" in describe_validation_error(click, caught.value)
    with pytest.raises(ValidationError) as caught:
        click.params.model_validate({"locator": {"ref": "e1"}, "colour": "red"})
    assert describe_validation_error(click, caught.value).startswith("unknown parameter 'colour' for page_click")


def test_descriptions_leave_the_shared_conventions_to_the_instructions() -> None:
    """What every tool shares is said once, in the instructions; a description says what its tool does."""
    tools = {tool.name: tool.description or "" for tool in ToolCatalog(build_registry()).tools()}
    assert "Returns at once" in tools["page_handoff"]
    assert not any("Locator:" in text or "original BrowserPilot" in text for text in tools.values())
    assert "\n    " not in tools["page_click"]  # docstring indentation is gone
    for convention in ("takenOver", "errorShot", '{"ref": "e12"}', "role=button", "tabId", "env-default",
                       "timeoutMs", "tools_enable", "?tools=full", "page_handoff"):
        assert convention in SERVER_INSTRUCTIONS, convention
    # The original's clients are told, in each of its tools, which of its forms it takes.
    original = {entry["name"]: entry["description"]
                for entry in ToolCatalog(build_registry()).listing(ToolSelection(parse_profile("original")))}
    assert "flat selector/xpath/pierce" in original["page_click"] and "untilSelector" in original["page_click"]
    assert "shotWidth" in original["page_drag"] and "untilSelector" not in original["page_drag"]
    assert "original" not in original["env_list"]


def test_optional_fields_are_listed_as_their_type_alone() -> None:
    schema = ToolCatalog(build_registry()).schema("page_click")
    assert schema is not None
    assert schema["properties"]["tabId"] == {"type": "string"}
    # A locator's shape is said once, in the instructions: each tool writes it as an object.
    assert schema["properties"]["locator"] == schema["properties"]["until"] == {"type": "object"}
    assert "$defs" not in schema and '"selector"' not in json.dumps(schema)
    # timeoutMs: the usual default and the bound are said in the instructions; another default stays.
    assert schema["properties"]["timeoutMs"] == {"type": "integer"}
    assert "10000 unless the tool says otherwise, at most 600000" in SERVER_INSTRUCTIONS
    navigate = ToolCatalog(build_registry()).schema("page_navigate") or {}
    assert navigate["properties"]["timeoutMs"] == {"type": "integer", "default": 30000}
    typing = ToolCatalog(build_registry()).schema("page_type") or {}
    assert typing["properties"]["replace"] == {"type": "boolean"}  # off unless given: no default: false
    assert schema["properties"]["offset"]["type"] == "object"  # used once: written in place
    assert schema["properties"]["offset"]["properties"]["x"] == {"type": "number", "minimum": 0, "maximum": 1}
    assert "null" not in json.dumps(schema)


def test_operations_added_later_become_tools() -> None:
    registry = build_registry()
    catalog = ToolCatalog(registry)
    before = len(catalog.tools())

    class LaterParams(Params):
        workflow_name: str = Field(description="Workflow id or name.")
        inputs: dict[str, Any] = Field(default_factory=dict)

    @operation("later_run", LaterParams, OpenResult, destructive=True, group="network")
    async def later_run(ctx: OpContext, params: LaterParams) -> dict[str, Any]:
        """Run something added after the server started."""
        return {}

    registry.add(later_run)
    tools = {tool.name: tool for tool in catalog.tools()}
    assert len(tools) == before + 1
    assert set(tools["later_run"].input_schema["properties"]) == {"workflowName", "inputs"}
    assert tools["later_run"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert "later_run" not in catalog.names(ToolSelection())  # its group is not in the default profile
    assert "later_run" in catalog.names(ToolSelection(parse_profile("core,network")))


# -- profiles and groups -------------------------------------------------------------------------------------
def test_every_operation_says_its_group_and_every_group_has_tools() -> None:
    registry = build_registry()
    missing = [name for name in registry.names() if registry.get(name).group is None]
    assert missing == [], f"operations without a group (Operation.group, app/catalog/profiles.py GROUPS): {missing}"
    unknown = {name: registry.get(name).group for name in registry.names() if registry.get(name).group not in GROUPS}
    assert unknown == {}
    # app_status (group app) is added by the app's MCP service (app/mcp/service.py), not build_registry.
    assert {registry.get(name).group for name in registry.names()} == set(GROUPS) - {"app"}


def test_profiles_list_what_they_say() -> None:
    registry = build_registry()
    catalog = ToolCatalog(registry)
    core = catalog.names(ToolSelection())
    assert len(core) <= 40 and "tools_enable" in core
    for needed in ("env_list", "env_create", "tab_open", "tab_list", "tab_close", "page_navigate", "page_snapshot",
                   "page_click", "page_type", "page_select", "page_key", "page_scroll", "page_upload", "page_wait",
                   "page_source", "page_screenshot", "page_handoff", "workflow_list", "workflow_write",
                   "workflow_run", "run_list", "run_read"):
        assert needed in core, needed
    assert set(catalog.names(ToolSelection(parse_profile("full")))) == set(registry.names())
    original = catalog.names(ToolSelection(parse_profile("original")))
    assert set(original) == set(ORIGINAL_TOOLS) & set(registry.names()) and "tools_enable" not in original
    # The original's tools we do not have are the ones docs/original.md names.
    assert set(ORIGINAL_TOOLS) - set(registry.names()) <= {
        "page_draw", "captcha_panel", "captcha_detect",
        "captcha_read", "captcha_solve"}
    both = catalog.names(ToolSelection(parse_profile("core, network")))
    assert set(both) == set(core) | {n for n in registry.names() if registry.get(n).group == "network"}
    with pytest.raises(ProfileError, match="unknown tool profile or group 'netwrk'.*valid: core, full, original"):
        parse_profile("core,netwrk")
    with pytest.raises(ProfileError):
        parse_profile("core,")


def test_original_schemas_take_the_originals_call_forms() -> None:
    listing = {entry["name"]: entry for entry in
               ToolCatalog(build_registry()).listing(ToolSelection(parse_profile("original")))}
    click = Draft202012Validator(listing["page_click"]["inputSchema"])
    assert click.is_valid({"selector": "#send", "untilSelector": "#done", "via": "cdp"})
    assert click.is_valid({"x": "200", "y": 100, "shotWidth": 800, "shotHeight": "600"})
    assert not click.is_valid({"selector": "#a", "colour": "red"})
    select = Draft202012Validator(listing["page_select"]["inputSchema"])
    assert select.is_valid({"xpath": "//select", "option": "Pro"})  # no locator needed with a flat one
    cdp = Draft202012Validator(listing["page_cdp"]["inputSchema"])
    assert cdp.is_valid({"method": "Runtime.evaluate", "params": '{"expression": "1"}'})  # JSON text


def test_tools_enable_adds_groups_to_one_selection() -> None:
    catalog = ToolCatalog(build_registry())
    selection = ToolSelection()
    answer = catalog.enable(selection, {"groups": ["network", "recording"]})
    assert answer["ok"] is True and answer["listChanged"] is True
    assert answer["enabled"] == ["core", "network", "recording"]
    assert "net_start" in answer["added"] and "record_start" in answer["added"] and "page_pdf" not in answer["added"]
    assert "net_start" in catalog.names(selection) and "net_start" not in catalog.names(ToolSelection())
    again = catalog.enable(selection, {"groups": ["network"]})
    assert again["ok"] is True and again["added"] == [] and again["listChanged"] is False
    refused = catalog.enable(selection, {"groups": ["netwrk"]})
    assert refused["ok"] is False and refused["code"] == "invalid_parameters" and "groups" in refused["error"]
    assert catalog.enable(selection, {"group": "network"})["error"].startswith("unknown parameter 'group'")


def test_core_is_small() -> None:
    """The default listing against Playwright MCP's (25 tools, 21,332 characters as bench/agent_context.py
    measured it): at most 40 tools and 0.7 of its size. bench/agent_context.py measures it side by side."""
    listing = ToolCatalog(build_registry()).listing(ToolSelection())
    assert len(listing) <= 40
    assert len(json.dumps(listing, ensure_ascii=False)) <= 0.7 * 21_332


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

    result = tool_result("page_screenshot", {"ok": True, "control": "agent", "tabId": "tab-1", "path": str(shot)},
                         tmp_path)
    assert result.is_error is False
    assert result.structured_content == {"ok": True, "control": "agent", "tabId": "tab-1", "path": str(shot)}
    assert [block.type for block in result.content] == ["text", "image"]
    assert result.content[0].text == f"ok · tab tab-1 · agent\npath: {shot}"  # type: ignore[union-attr]
    assert base64.b64decode(result.content[1].data) == PNG_1PX  # type: ignore[union-attr]
    # For the original BrowserPilot's clients, the text is the envelope as JSON, as the original sent it.
    original = tool_result("page_screenshot", {"ok": True, "control": "agent", "path": str(shot)}, tmp_path,
                           json_text=True)
    assert json.loads(original.content[0].text) == original.structured_content  # type: ignore[union-attr]

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
    # Another profile: in the address, and as --tools for the stdio bridge.
    full = config.client_configs("http://127.0.0.1:39221/mcp", "tok", tmp_path, "/opt/bp/bin/browserpilot",
                                 "original")
    assert json.loads(full["Claude Desktop (stdio)"])["mcpServers"]["browserpilot"]["args"] == [
        "mcp", "--tools", "original", "--data-dir", str(tmp_path)]
    assert full["Claude Code (HTTP)"] == ('claude mcp add --transport http browserpilot '
                                          '"http://127.0.0.1:39221/mcp?tools=original" --header "Authorization: Bearer tok"')
    assert json.loads(full["Cursor (HTTP)"])["mcpServers"]["browserpilot"]["url"] == (
        "http://127.0.0.1:39221/mcp?tools=original")


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
            assert initialize(server.url or "", {"Authorization": f"Bearer {content.token}"}).status_code == 200
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


def test_server_refuses_without_token_and_from_foreign_origins(served: tuple[McpHttpServer, DataDir]) -> None:
    server, data = served
    assert server.url is not None and server.url.startswith("http://127.0.0.1:")
    content = config.read_mcp_file(data)
    assert content is not None and content.url == server.url and content.pid == os.getpid()
    good = {"Authorization": f"Bearer {content.token}"}
    assert initialize(server.url, {}).status_code == 401
    assert initialize(server.url, {"Authorization": "Bearer wrong"}).status_code == 401
    assert initialize(server.url, {**good, "Origin": "http://evil.example"}).status_code == 403
    assert initialize(server.url, {**good, "Host": "evil.example"}).status_code == 403
    assert initialize(server.url, good).status_code == 200
    # A profile that names something unknown is refused before the SDK sees the request.
    refused = initialize(server.url + "?tools=core,netwrk", good)
    assert refused.status_code == 400 and "'netwrk'" in refused.text and "valid: core, full, original" in refused.text
    assert initialize(server.url + "?tools=full", good).status_code == 200

    # A token regenerated by another process (the command line) is in force at once; the old one is not.
    renewed = config.regenerate_token(DataDir(data.root))
    assert initialize(server.url, good).status_code == 401
    assert initialize(server.url, {"Authorization": f"Bearer {renewed.token}"}).status_code == 200


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


def test_output_schemas_are_listed_for_programs_and_left_out_of_the_default_list() -> None:
    from jsonschema import Draft202012Validator

    catalog = ToolCatalog(build_registry())
    assert all("outputSchema" not in tool for tool in catalog.listing(ToolSelection()))
    with_schemas = catalog.listing(ToolSelection(parse_profile("core,schemas")))
    assert [tool["name"] for tool in with_schemas] == catalog.names(ToolSelection())
    assert all("outputSchema" not in tool for tool in catalog.listing(ToolSelection(parse_profile("full"))))
    full = catalog.listing(ToolSelection(parse_profile("full,schemas")))
    assert len(full) == len(build_registry().names()) and all("outputSchema" in tool for tool in full)
    click = next(tool["outputSchema"] for tool in full if tool["name"] == "page_click")
    Draft202012Validator.check_schema(click)
    fits = Draft202012Validator(click)
    assert fits.is_valid({"ok": True, "control": "agent", "tabId": "tab-1", "x": 3, "y": 4.5, "url": None})
    assert not fits.is_valid({"ok": True, "control": "agent", "x": 3})  # y is missing from a success
    assert fits.is_valid({"ok": False, "control": None, "error": "gone", "code": "timeout"})
