"""The MCP server, end to end: the real app headless as a subprocess, the real `mcp` client over streamable
HTTP (and over stdio through `browserpilot mcp`), real local pages.

One app serves the whole module (starting it costs seconds); every test opens its own tabs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import struct
import time
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import psutil
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters
from mcp_types import Tool

from app.catalog.profiles import ORIGINAL_TOOLS
from app.mcp.quick import request as quick_request
from app.wiring.registry import build_registry
from tests.support.app_process import AppProcess, app_command, app_env, run_cli, serving_app
from tests.support.mcp_http import endpoint, initialize, mcp_client
from tests.support.server import LocalServer, Request, Response

pytestmark = pytest.mark.e2e

LOGIN_PAGE = """<!doctype html><title>Sign in</title><body>
<form method=post action=/session>
  <label>Username <input name=user autocomplete=off></label>
  <label>Password <input name=pass type=password></label>
  <button>Sign in</button>
</form></body>"""

ACCOUNT_PAGE = """<!doctype html><title>Account</title><body>
<h1>Welcome {user}</h1>
<form method=post action=/order>
  <label>Full name <input name=fullname></label>
  <label>Email <input name=email type=email></label>
  <label>Plan <select name=plan><option>Basic</option><option>Pro</option><option>Team</option></select></label>
  <button>Place order</button>
</form></body>"""

COUNTER_PAGE = """<!doctype html><title>Counter</title><body>
<label>Note <input id=note></label>
<button id=inc onclick="n.textContent = +n.textContent + 1">Add one</button> <span id=n>0</span>
</body>"""


# The original BrowserPilot's calls: a form whose fields are reached by flat and by nested locators,
# a button in the top-left corner for points given on a screenshot, a same-origin iframe, and a file input.
COMPAT_PAGE = """<!doctype html><title>Compat</title><body style="margin:0">
<form method=post action=/compat/sent enctype=multipart/form-data>
  <button id=corner name=via value=corner style="position:fixed;left:0;top:0;width:120px;height:80px">Corner</button>
  <div style="margin-top:100px">
  <label>Flat <input id=flat name=flat></label>
  <label>Nested <input id=nested name=nested></label>
  <label>Text <input id=texted name=texted></label>
  <label>Count <input id=count name=count value=1></label>
  <input type=file name=upload>
  <button id=send name=via value=send>Send</button>
  </div>
</form>
<iframe src=/compat/frame></iframe>
</body>"""


def multipart(request: Request) -> dict[str, str]:
    """The fields of a multipart/form-data body (file fields as their file name)."""
    boundary = request.headers["content-type"].split("boundary=")[1].encode()
    fields: dict[str, str] = {}
    for part in request.body.split(b"--" + boundary)[1:-1]:
        head, _, value = part.strip(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode().split("\r\n")[0]
        name = disposition.split('name="')[1].split('"')[0]
        if 'filename="' in disposition:
            fields[name] = disposition.split('filename="')[1].split('"')[0]
        else:
            fields[name] = value.decode()
    return fields


def form(request: Request) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(request.body.decode("utf-8")).items()}


def add_site(server: LocalServer) -> None:
    def session(request: Request) -> Response:
        fields = form(request)
        if fields.get("user") == "alice" and fields.get("pass") == "s3cret!":
            return Response("", status=303, headers=[("Location", "/account"),
                                                     ("Set-Cookie", "sid=alice; Path=/; HttpOnly")])
        return Response("", status=303, headers=[("Location", "/login?failed=1")])

    def account(request: Request) -> Response:
        if "sid=alice" not in request.headers.get("cookie", ""):
            return Response("", status=303, headers=[("Location", "/login")])
        return Response(ACCOUNT_PAGE.format(user="alice"))

    server.route("/login", LOGIN_PAGE)
    server.route("/session", session)
    server.route("/account", account)
    server.route("/order", "<!doctype html><title>Thanks</title><p id=done>Thanks for your order</p>")
    server.route("/counter", COUNTER_PAGE)
    server.route("/compat", COMPAT_PAGE)
    server.route("/compat/frame", "<!doctype html><title>Inner frame</title><p id=inner>inside</p>")
    server.route("/compat/sent", "<!doctype html><title>Sent</title><p id=done>Sent</p>")


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        add_site(local)
        yield local


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with serving_app(tmp_path_factory.mktemp("mcp") / "data") as data_dir:
        yield data_dir


async def ok(client: Client, tool: str, /, **params: Any) -> dict[str, Any]:
    """The envelope of a call that must succeed; its text is for a model: a header line, then plain text."""
    result = await client.call_tool(tool, params)
    envelope = result.structured_content
    assert isinstance(envelope, dict), result
    assert envelope["ok"] is True, (tool, envelope)
    assert result.is_error is False
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.split("\n")[0].split(" · ")[0] == "ok" and not text.startswith("{"), text
    return envelope


_ORIGINAL_SCHEMAS: dict[int, dict[str, Any]] = {}


async def ok_original(client: Client, tool: str, /, **params: Any) -> dict[str, Any]:
    """The same, for a client of the original BrowserPilot (`?tools=original`): the call is one its listing
    allows (a client that checks arguments against the schemas lets it through), and the text is the envelope
    as JSON, as the original sent it."""
    if id(client) not in _ORIGINAL_SCHEMAS:
        _ORIGINAL_SCHEMAS[id(client)] = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    schemas = _ORIGINAL_SCHEMAS[id(client)]
    assert tool in schemas, f"{tool} is not one of the original's tools"
    Draft202012Validator(schemas[tool]).validate(params)
    result = await client.call_tool(tool, params)
    envelope = result.structured_content
    assert isinstance(envelope, dict), result
    assert envelope["ok"] is True, (tool, envelope)
    assert result.is_error is False
    assert json.loads(result.content[0].text) == envelope  # type: ignore[union-attr]
    return envelope


def png_size(blob: bytes) -> tuple[int, int]:
    assert blob[:8] == b"\x89PNG\r\n\x1a\n" and blob[12:16] == b"IHDR"
    return struct.unpack(">II", blob[16:24])


# -- tools ---------------------------------------------------------------------------------------------------
def test_every_operation_is_listed_with_a_valid_schema_and_annotations(app_dir: Path) -> None:
    async def scenario() -> None:
        async with mcp_client(app_dir, tools="full") as client:
            listing = await client.list_tools()
        tools = {tool.name: tool for tool in listing.tools}
        assert set(build_registry().names()) <= set(tools)
        for tool in tools.values():
            Draft202012Validator.check_schema(tool.input_schema)
            assert tool.input_schema["type"] == "object"
            assert tool.description
        assert tools["page_snapshot"].annotations.read_only_hint is True  # type: ignore[union-attr]
        assert tools["env_delete"].annotations.destructive_hint is True  # type: ignore[union-attr]
        assert tools["page_click"].annotations.destructive_hint is False  # type: ignore[union-attr]
        assert "locator" in tools["page_click"].input_schema["properties"]
        assert "tools_enable" not in tools  # everything is listed already

    asyncio.run(scenario())


def test_log_in_fill_a_form_and_see_a_screenshot(app_dir: Path, site: LocalServer) -> None:
    async def scenario() -> None:
        async with mcp_client(app_dir, mode="legacy") as client:  # the initialize handshake, as 2025 clients do
            tab = (await ok(client, "tab_open", url=site.url("/login")))["tabId"]
            await ok(client, "page_wait", tabId=tab, locator={"selector": "label=Username"})
            snapshot = await ok(client, "page_snapshot", tabId=tab)
            user_ref = next(line.split("[ref=")[1].rstrip("]") for line in snapshot["snapshot"].splitlines()
                            if 'textbox "Username"' in line)
            await ok(client, "page_type", tabId=tab, locator={"ref": user_ref}, text="alice")
            await ok(client, "page_type", tabId=tab, locator={"selector": "label=Password"}, text="s3cret!")
            clicked = await ok(client, "page_click", tabId=tab, locator={"selector": 'role=button[name="Sign in"]'},
                               until={"selector": "text=Welcome alice"})
            assert clicked["control"] == "agent"

            await ok(client, "page_type", tabId=tab, locator={"selector": "label=Full name"}, text="Alice Ünïcødé")
            await ok(client, "page_paste", tabId=tab, locator={"selector": "label=Email"}, text="alice@example.com")
            await ok(client, "page_select", tabId=tab, locator={"selector": "label=Plan"}, option="Pro")

            shot = await client.call_tool("page_screenshot", {"tabId": tab})
            assert shot.is_error is False and shot.structured_content is not None
            images = [block for block in shot.content if block.type == "image"]
            assert len(images) == 1 and images[0].mime_type == "image/png"  # type: ignore[union-attr]
            blob = base64.b64decode(images[0].data)  # type: ignore[union-attr]
            assert png_size(blob) == (shot.structured_content["width"], shot.structured_content["height"])
            assert blob == Path(shot.structured_content["path"]).read_bytes()

            await ok(client, "page_click", tabId=tab, locator={"selector": "text=Place order"},
                     until={"selector": "#done"})

            # A failure names the problem and shows the page as it was.
            missing = await client.call_tool("page_click", {"tabId": tab, "locator": {"selector": "#nope"},
                                                            "timeoutMs": 300})
            assert missing.is_error is True and missing.structured_content is not None
            assert "#nope" in missing.structured_content["error"] and missing.structured_content["errorShot"]
            assert any(block.type == "image" for block in missing.content)

            # Unknown parameters are refused with the list of valid ones, by the registry itself.
            refused = await client.call_tool("page_click", {"tabId": tab, "css": "#done"})
            assert refused.is_error is True and refused.structured_content is not None
            message = refused.structured_content["error"]
            assert message.startswith("unknown parameter 'css' for page_click; valid parameters: ")
            assert "locator" in message and "timeoutMs" in message
            await ok(client, "tab_close", tabId=tab)

    asyncio.run(scenario())
    order = form(site.hits("/order")[-1])
    assert order == {"fullname": "Alice Ünïcødé", "email": "alice@example.com", "plan": "Pro"}
    assert "sid=alice" in site.hits("/order")[-1].headers.get("cookie", "")


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def login_and_order_workflow(base: str) -> dict[str, Any]:
    """The steps the agent took above, as a workflow document (BrowserPilot 0.3.0 shape)."""
    nodes = [
        node("start", "start", variables=[{"variable": "user", "type": "string"},
                                          {"variable": "password", "type": "string"},
                                          {"variable": "fullname", "type": "string"}]),
        node("open", "goto", url=f"{base}/login"),
        node("user", "fill", locator={"selector": "label=Username"}, text="{{#input.user#}}"),
        node("pass", "fill", locator={"selector": "label=Password"}, text="{{#input.password#}}", entry="paste"),
        node("signin", "click", locator={"selector": 'role=button[name="Sign in"]'},
             until={"selector": "text=Welcome alice"}),
        node("name", "fill", locator={"selector": "label=Full name"}, text="{{#input.fullname#}}"),
        node("email", "fill", locator={"selector": "label=Email"}, text="alice@example.com", entry="paste"),
        node("plan", "select", locator={"selector": "label=Plan"}, option="Team"),
        node("order", "click", locator={"selector": "text=Place order"}, until={"selector": "#done"}),
        node("end", "end"),
    ]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Order a plan", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def test_workflow_of_those_steps_runs_and_leaves_a_record(app_dir: Path, site: LocalServer) -> None:
    names = set(build_registry().names())
    if not {"workflow_write", "workflow_run", "run_read"} <= names:
        pytest.skip("workflow_write, workflow_run and run_read are not in the registry yet")
    before = len(site.hits("/order"))

    async def scenario() -> dict[str, Any]:
        async with mcp_client(app_dir) as client:
            written = await ok(client, "workflow_write", workflow=login_and_order_workflow(site.url("")))
            assert written["workflow"]["name"] == "Order a plan" and written["workflow"]["nodeCount"] == 10
            env = (await ok(client, "env_create", name="Workflow account"))["environment"]["id"]
            ran = await ok(client, "workflow_run", name="Order a plan", env=env,
                           inputs={"user": "alice", "password": "s3cret!", "fullname": "Alice by workflow"})
            run_id = ran["run"]["id"]
            assert ran["run"]["status"] == "ok"
            record = await ok(client, "run_read", runId=run_id)
            listed = await ok(client, "run_list", limit=5)
            await ok(client, "env_delete", env=env)
            assert run_id in [run["id"] for run in listed["runs"]]
            return record["run"]

    record = asyncio.run(scenario())
    assert record["status"] == "ok" and record["workflowName"] == "Order a plan"
    assert len(site.hits("/order")) == before + 1
    assert form(site.hits("/order")[-1]) == {"fullname": "Alice by workflow", "email": "alice@example.com",
                                             "plan": "Team"}


def test_a_tab_held_by_a_running_workflow_is_busy_for_other_clients(app_dir: Path, site: LocalServer) -> None:
    if "workflow_run" not in set(build_registry().names()):
        pytest.skip("workflow_run is not in the registry yet")
    slow = {"kind": "app", "version": "0.3.0", "app": {"name": "Wait a while", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                "nodes": [node("start", "start"), node("open", "goto", url=site.url("/counter")),
                          node("wait", "wait", locator={"selector": "#never"}, timeout=30), node("end", "end")],
                "edges": [{"source": "start", "target": "open"}, {"source": "open", "target": "wait"},
                          {"source": "wait", "target": "end"}]}}}

    async def scenario() -> tuple[str, dict[str, Any]]:
        async with mcp_client(app_dir) as runner, mcp_client(app_dir) as other:
            tab = (await ok(runner, "tab_open", url="about:blank"))["tabId"]
            running = asyncio.ensure_future(runner.call_tool("workflow_run", {"workflow": slow, "tabId": tab}))
            deadline = time.monotonic() + 30
            while True:
                busy = await other.call_tool("page_click", {"tabId": tab, "locator": {"selector": "#inc"}})
                assert busy.structured_content is not None
                if "busy" in busy.structured_content.get("error", ""):
                    break
                assert time.monotonic() < deadline and not running.done(), busy.structured_content
                await asyncio.sleep(0.1)
            assert busy.is_error is True
            message = busy.structured_content["error"]
            run_id = message.split("workflow run ")[1].split()[0]
            await ok(other, "run_cancel", runId=run_id)
            result = await asyncio.wait_for(running, 30)
            assert result.is_error is True and result.structured_content is not None
            return message, result.structured_content

    message, result = asyncio.run(scenario())
    assert message.startswith("tab ") and "is busy: workflow run run-" in message and "run_cancel" in message
    assert result["run"]["status"] == "cancelled"


# -- security ----------------------------------------------------------------------------------------------
def test_token_host_and_origin_are_enforced(app_dir: Path) -> None:
    found = endpoint(app_dir)
    good = {"Authorization": f"Bearer {found.token}"}
    assert initialize(found.url, {}).status_code == 401
    assert initialize(found.url, {"Authorization": "Bearer not-the-token"}).status_code == 401
    assert initialize(found.url, {**good, "Origin": "http://evil.example"}).status_code == 403
    assert initialize(found.url, {**good, "Host": "evil.example:39221"}).status_code == 403
    assert initialize(found.url, {**good, "Origin": "http://127.0.0.1:3000"}).status_code == 200
    mode = (app_dir / "mcp.json").stat().st_mode & 0o777
    assert mode == 0o600

    # Regenerated from the command line while the app runs: the new token works at once, the old one not.
    renewed = run_cli(app_dir, "mcp", "token", "--regenerate")
    assert renewed.returncode == 0, renewed.stderr
    new_token = renewed.stdout.strip()
    assert new_token and new_token != found.token
    assert initialize(found.url, good).status_code == 401
    assert initialize(found.url, {"Authorization": f"Bearer {new_token}"}).status_code == 200
    assert run_cli(app_dir, "mcp", "token").stdout.strip() == new_token


def _listeners(port: int) -> list[str]:
    """Local addresses of LISTEN sockets on `port`, from /proc/net/tcp and tcp6 (state 0A)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":
                found.append(address)
    return found


def test_nothing_listens_beyond_loopback(app_dir: Path) -> None:
    found = endpoint(app_dir)
    port = int(found.url.rsplit(":", 1)[1].split("/")[0])
    assert _listeners(port) == ["0100007F"]  # 127.0.0.1, little-endian hex; no 0.0.0.0, no IPv6
    # The stdio bridge's private endpoint (named in mcp.json) is on loopback only too.
    quick = json.loads((app_dir / "mcp.json").read_text())["quickPort"]
    assert isinstance(quick, int) and _listeners(quick) == ["0100007F"]
    # And the app opens no other listening socket (no DevTools port, nothing on all interfaces).
    app = psutil.Process(found.pid)
    listening = [c.laddr for c in app.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert sorted((addr.ip, addr.port) for addr in listening) == sorted([("127.0.0.1", port), ("127.0.0.1", quick)])


def test_the_bridge_endpoint_answers_as_http_does_and_only_with_the_token(app_dir: Path, site: LocalServer) -> None:
    found = endpoint(app_dir)
    quick = json.loads((app_dir / "mcp.json").read_text())["quickPort"]

    def message(method: str, token: str = found.token, **fields: Any) -> dict[str, Any]:
        return {"token": token, "client": "cli 1", "method": method, **fields}

    async def refusal(request: dict[str, Any]) -> str:
        with pytest.raises(ConnectionError) as refused:
            await quick_request(quick, request)
        return str(refused.value)

    async def scenario() -> tuple[list[str], dict[str, Any], dict[str, Any], dict[str, Any], list[Any],
                                  dict[str, Any]]:
        refused = [await refusal(message("tools/list", token="not-the-token")),
                   await refusal(message("tools/call", name="page_navigate", arguments="https://example.com")),
                   await refusal(message("resources/list"))]
        listing = await quick_request(quick, message("tools/list"))
        called = await quick_request(quick, message("tools/call", name="page_navigate",
                                                    arguments={"url": site.url("/counter")}))
        unknown = await quick_request(quick, message("tools/call", name="page_nonsense", arguments={}))
        async with mcp_client(app_dir) as client:
            tools = (await client.list_tools()).tools
            over_http = await ok(client, "page_script", tabId=called["structuredContent"]["tabId"],
                                 source="return document.title")
        return refused, listing, called, unknown, tools, over_http

    refused, listing, called, unknown, tools, over_http = asyncio.run(scenario())
    assert "unauthorized" in refused[0] and "arguments object" in refused[1] and "unknown method" in refused[2]
    # The same listing as the SDK server's, tool for tool, and calls in the same envelope on the same tabs.
    assert [Tool.model_validate(entry) for entry in listing["tools"]] == tools
    assert called["isError"] is False and called["structuredContent"]["title"] == "Counter"
    assert called["content"][0]["text"].startswith(f"ok · tab {called['structuredContent']['tabId']} · agent · ")
    assert over_http["value"] == "Counter"
    assert unknown["isError"] is True and "page_nonsense" in unknown["structuredContent"]["error"]


# -- clients -------------------------------------------------------------------------------------------------
def test_two_clients_at_once_on_two_tabs(app_dir: Path, site: LocalServer) -> None:
    async def agent(label: str, clicks: int) -> tuple[str, str]:
        async with mcp_client(app_dir) as client:
            env = (await ok(client, "env_create", name=f"Agent {label}"))["environment"]["id"]
            tab = (await ok(client, "tab_open", url=site.url("/counter"), env=env))["tabId"]
            await ok(client, "page_wait", tabId=tab, locator={"selector": "#inc"})
            await ok(client, "page_type", tabId=tab, locator={"selector": "#note"}, text=f"from {label}")
            for _ in range(clicks):
                await ok(client, "page_click", tabId=tab, locator={"selector": "#inc"})
            value = await ok(client, "page_script", tabId=tab,
                             source="return [document.querySelector('#n').textContent, note.value]")
            await ok(client, "env_delete", env=env)
            return tuple(value["value"])  # type: ignore[return-value]

    async def both() -> list[tuple[str, str]]:
        return list(await asyncio.gather(agent("A", 7), agent("B", 11)))

    assert asyncio.run(both()) == [("7", "from A"), ("11", "from B")]


def test_stdio_bridge_starts_the_app_and_forwards(tmp_path: Path) -> None:
    data_dir = tmp_path / "bridge-data"
    params = StdioServerParameters(command=app_command()[0], args=[*app_command()[1:], "mcp", "--data-dir",
                                                                    str(data_dir)], env=app_env())

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], set[str]]:
        async with Client(params) as client:
            created = await ok(client, "env_create", name="Made over stdio")
            listing = await ok(client, "env_list")
            tools = {tool.name for tool in (await client.list_tools()).tools}
        return created, listing, tools

    created, listing, tools = asyncio.run(scenario())
    assert created["environment"]["name"] == "Made over stdio"
    assert [env["name"] for env in listing["environments"]] == ["Default", "Made over stdio"]
    assert "page_click" in tools
    # Only the bridge and the command line have used it, through the bridge endpoint: the MCP SDK (~30 MB that
    # would stay in the process) has not loaded, yet the HTTP endpoint is named and listening.
    before = run_cli(data_dir, "mcp", "status", "--json")
    assert before.returncode == 0, before.stderr
    assert json.loads(before.stdout)["mcp"] == {"status": "running", "url": endpoint(data_dir).url,
                                                "sdkLoaded": False}
    human = run_cli(data_dir, "mcp", "status").stdout.splitlines()
    assert "HTTP\tlistening; the MCP SDK loads when the first HTTP client connects (about a second)" in human
    # The first HTTP client waits for it to load, and is answered.

    async def over_http() -> dict[str, Any]:
        async with mcp_client(data_dir) as client:
            return await ok(client, "env_list")

    assert [env["name"] for env in asyncio.run(over_http())["environments"]] == ["Default", "Made over stdio"]
    after = json.loads(run_cli(data_dir, "mcp", "status", "--json").stdout)
    assert after["mcp"]["sdkLoaded"] is True
    assert "the first HTTP client connected: the MCP SDK loaded in" in \
        (data_dir / "logs" / "browserpilot.log").read_text("utf-8")
    # The bridge started the app headless, detached: it keeps serving after the bridge ended.
    pid = endpoint(data_dir).pid
    app = psutil.Process(pid)
    assert "--headless" in app.cmdline()
    os.kill(pid, signal.SIGTERM)
    app.wait(30)
    content = json.loads((data_dir / "mcp.json").read_text())
    assert content["pid"] is None and content["quickPid"] is None and content["quickPort"] is None


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_bridge_serves_handshake_and_2026_clients(app_dir: Path, mode: str) -> None:
    """The real `mcp` client through the real bridge, in the initialize handshake (every client before the
    2026-07-28 protocol) and in the SDK's default mode (which discovers and takes 2026-07-28)."""
    params = StdioServerParameters(command=app_command()[0], args=[*app_command()[1:], "mcp", "--data-dir",
                                                                    str(app_dir)], env=app_env())

    async def scenario() -> tuple[dict[str, Any], set[str], Any]:
        async with Client(params, mode=mode) as client:
            listing = await ok(client, "env_list")
            tools = {tool.name for tool in (await client.list_tools()).tools}
            failed = await client.call_tool("no_such_tool", {})
        return listing, tools, failed

    listing, tools, failed = asyncio.run(scenario())
    assert "Default" in [env["name"] for env in listing["environments"]]
    assert {"page_click", "page_navigate", "workflow_run"} <= tools
    assert failed.is_error and "unknown operation 'no_such_tool'" in failed.content[0].text


def test_the_bridge_reads_a_line_of_megabytes_whole_and_outlives_a_client_that_stops_reading(app_dir: Path) -> None:
    """Raw JSON-RPC over the bridge's pipes: a 4 MB request line (a screenshot-sized argument) is read whole and
    answered; a client that closes its reading end gets no crash, and the bridge ends cleanly with stdin."""
    import subprocess

    bridge = subprocess.Popen([*app_command(), "mcp", "--data-dir", str(app_dir)], env=app_env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert bridge.stdin is not None and bridge.stdout is not None
    try:
        def send(message: dict[str, Any]) -> None:
            assert bridge.stdin is not None
            bridge.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            bridge.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        assert json.loads(bridge.stdout.readline())["result"]["protocolVersion"] == "2025-06-18"
        padding = "x" * 4_000_000
        # An environment that does not exist: the app reads the whole remark and changes nothing.
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "env_update", "arguments": {"env": "env-00000000", "remark": padding}}})
        answer = json.loads(bridge.stdout.readline())
        assert answer["id"] == 2 and answer["result"]["isError"] is True, answer
        assert "env-00000000" in answer["result"]["structuredContent"]["error"]
        bridge.stdout.close()  # the client stops reading; what the bridge still answers goes nowhere
        send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        bridge.stdin.close()
        assert bridge.wait(30) == 0
    finally:
        if bridge.poll() is None:
            bridge.kill()


def test_the_bridge_talks_http_to_an_app_without_a_bridge_endpoint(app_dir: Path) -> None:
    """An app of an older version (mcp.json names no bridge endpoint): the bridge uses its MCP server."""
    mcp_file = app_dir / "mcp.json"
    original = mcp_file.read_text()
    content = json.loads(original)
    assert content["quickPid"] == content["pid"]
    params = StdioServerParameters(command=app_command()[0], args=[*app_command()[1:], "mcp", "--data-dir",
                                                                    str(app_dir)], env=app_env())

    async def scenario() -> dict[str, Any]:
        async with Client(params) as client:
            return await ok(client, "env_list")

    try:
        mcp_file.write_text(json.dumps({**content, "quickPort": None, "quickPid": None}))
        listing = asyncio.run(scenario())
    finally:
        mcp_file.write_text(original)
    assert "Default" in [env["name"] for env in listing["environments"]]
    log = (app_dir / "logs" / "browserpilot.log").read_text("utf-8")
    assert f"bridge connected to {content['url']} (pid {content['pid']})" in log


def test_command_line_verbs_go_through_the_running_app(app_dir: Path) -> None:
    created = run_cli(app_dir, "env", "create", "From the CLI", "--remark", "forwarded", "--json")
    assert created.returncode == 0, created.stderr
    env = json.loads(created.stdout)
    assert env["name"] == "From the CLI" and env["remark"] == "forwarded"
    listing = run_cli(app_dir, "env", "list")
    assert listing.returncode == 0 and f"{env['id']}\tFrom the CLI\tforwarded" in listing.stdout.splitlines()
    refused = run_cli(app_dir, "env", "delete", "env-default")
    assert refused.returncode == 1
    assert "cannot be deleted" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    deleted = run_cli(app_dir, "env", "delete", env["id"])
    assert deleted.returncode == 0 and deleted.stdout.startswith(f"deleted {env['id']}")
    status = run_cli(app_dir, "mcp", "status")
    assert status.returncode == 0 and status.stdout.startswith("running\thttp://127.0.0.1:")
    lines = dict(line.split("\t", 1) for line in status.stdout.splitlines())
    # Started by a person (AppProcess is not a bridge): it never quits by itself.
    assert lines["started by"] == "a person (headless)"
    assert lines["stops"] == "not by itself: started by a person: it never quits by itself"


def test_switched_off_nothing_listens_and_commands_say_why(tmp_path: Path) -> None:
    data_dir = tmp_path / "off"
    data_dir.mkdir()
    (data_dir / "settings.json").write_text(json.dumps({"schema_version": 1, "mcpEnabled": False}))
    with AppProcess(data_dir) as app:
        log = data_dir / "logs" / "browserpilot.log"
        deadline = time.monotonic() + 60
        while not (log.exists() and "switched off in the settings" in log.read_text("utf-8")):
            assert time.monotonic() < deadline, "the app did not finish starting"
            time.sleep(0.05)
        result = run_cli(data_dir, "env", "list")
        assert result.returncode == 1
        assert "already running" in result.stderr and "MCP server switched off" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        listening = [c for c in psutil.Process(app.process.pid).net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN]
        assert listening == []
        rc, err = app.stop()
    assert rc == 0, err


# -- the original BrowserPilot's calls ------------------------------------------------------------
async def call(client: Client, tool: str, /, **params: Any) -> dict[str, Any]:
    """The envelope of a call that may fail."""
    result = await client.call_tool(tool, params)
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def test_the_original_locator_forms_work_beside_ours(app_dir: Path, site: LocalServer, tmp_path: Path) -> None:
    upload = tmp_path / "report.txt"
    upload.write_text("hello")
    before = len(site.hits("/compat/sent"))

    async def scenario() -> list[dict[str, Any]]:
        async with mcp_client(app_dir, tools="original") as client:
            # Exactly the original's tool names (those we have: docs/original.md says which we left out).
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == set(ORIGINAL_TOOLS) & set(build_registry().names()) and "page_pdf" not in listed
            tab = (await ok_original(client, "tab_open", url="about:blank"))["tabId"]
            await ok_original(client, "page_navigate", tabId=tab, url=site.url("/compat"))
            seen: list[dict[str, Any]] = []
            # Flat and nested locators side by side; a locator as JSON text; both forms at once.
            seen.append(await ok_original(client, "page_type", tabId=tab, selector="#flat", text="by selector",
                                          via="cdp"))
            seen.append(await ok_original(client, "page_type", tabId=tab, locator={"selector": "#nested"},
                                          text="nested"))
            seen.append(await ok_original(client, "page_paste", tabId=tab,
                                          locator='{"xpath": "//input[@id=\'texted\']"}', text="json"))
            both = await ok_original(client, "page_type", tabId=tab, locator={"selector": "#nested"}, selector="#flat",
                                     text="!")
            assert any("locator won" in note for note in both["notes"]), both
            # Select-all then type replaces the text: the focused field is not clicked again.
            await ok_original(client, "page_click", tabId=tab, xpath="//input[@id='count']")
            await ok_original(client, "page_key", tabId=tab, shortcut="ctrl+a")
            await ok_original(client, "page_type", tabId=tab, selector="#count", text="3")
            # The original's results: total in page_query, value in page_cdp, envs and envId.
            query = await ok_original(client, "page_query", tabId=tab, selector="input")
            assert query["total"] == query["count"] == 5 and len(query["matches"]) == 5
            cdp = await ok_original(client, "page_cdp", tabId=tab, method="Runtime.evaluate",
                                    params='{"expression": "1 + 1", "returnByValue": true}', sessionId="ignored")
            assert cdp["value"] == cdp["result"] and cdp["value"]["result"]["value"] == 2
            assert any("sessionId" in note for note in cdp["notes"]) and any("JSON text" in n for n in cdp["notes"])
            envs = await ok_original(client, "env_list")
            assert envs["envs"] == envs["environments"]
            tabs = (await ok_original(client, "tab_list"))["tabs"]
            assert all(item["envId"] == item["env"] for item in tabs)
            # page_script: an expression, a function body, and inside a same-origin frame.
            title = await ok_original(client, "page_script", tabId=tab, source="document.title")
            assert (title["value"], title["sourceKind"]) == ("Compat", "expression")
            body = await ok_original(client, "page_script", tabId=tab,
                                     source="const n = [...document.forms].length; return n")
            assert (body["value"], body["sourceKind"]) == (1, "function body")
            inner = await ok_original(client, "page_script", tabId=tab, source="document.title",
                                      frame={"selector": "iframe"})
            by_url = await ok_original(client, "page_script", tabId=tab, source="return document.title",
                                       frame="/compat/frame")
            assert inner["value"] == by_url["value"] == "Inner frame"
            text = await ok_original(client, "page_source", tabId=tab, kind="text")
            assert "Corner" in text["text"] and "html" not in text
            # Defaults: scroll down, swipe up, wait for appear, its timeout brought within 500…60000.
            await ok_original(client, "page_scroll", tabId=tab)
            await ok_original(client, "page_wait", tabId=tab, selector="#send", timeoutMs=120_000)
            # page_upload without a locator takes the page's first file input; then send with untilSelector.
            uploaded = await ok_original(client, "page_upload", tabId=tab, paths=[str(upload)])
            assert any("first file input" in note for note in uploaded["notes"])
            await ok_original(client, "page_click", tabId=tab, selector="#send", untilSelector="#done")
            # A point on a screenshot twice the viewport's size: (200, 100) there is (100, 50) here, the corner button.
            await ok_original(client, "page_navigate", tabId=tab, url=site.url("/compat"))
            viewport = await ok_original(client, "page_script", tabId=tab, source="[innerWidth, innerHeight]")
            width, height = viewport["value"]
            corner = await ok_original(client, "page_click", tabId=tab, x="200", y="100", shotWidth=width * 2,
                                       shotHeight=str(height * 2), untilSelector="#done")
            assert (corner["x"], corner["y"]) == (100, 50), corner
            seen.append(corner)
            bad = await call(client, "page_click", tabId=tab, x=10, y=10, shotWidth=100)
            assert bad["ok"] is False and "shotWidth and shotHeight go together" in bad["error"]
            await ok_original(client, "tab_close", tabId=tab)
            return seen

    seen = asyncio.run(scenario())
    assert seen[0]["typed"] == len("by selector")
    sent = [multipart(request) for request in site.hits("/compat/sent")[before:]]
    assert sent == [{"via": "send", "flat": "by selector", "nested": "nested!", "texted": "json", "count": "3",
                     "upload": "report.txt"},
                    {"via": "corner", "flat": "", "nested": "", "texted": "", "count": "1", "upload": ""}]


def test_the_original_workflow_calls(app_dir: Path, site: LocalServer) -> None:
    document = login_and_order_workflow(site.url(""))
    document["app"]["name"] = "Order (original calls)"
    document["workflow"]["graph"]["nodes"][0]["data"]["variables"][0]["label"] = "Account name"
    before = len(site.hits("/order"))

    async def scenario() -> None:
        async with mcp_client(app_dir, tools="original") as client:
            written = await ok_original(client, "workflow_write", app=document["app"], workflow=document["workflow"])
            assert written["name"] == "Order (original calls)" and written["nodes"] == 10
            assert written["warnings"] == []
            wf_id = written["id"]
            taken = json.loads(json.dumps(document))
            taken["app"]["name"] = "A taken name"
            await ok_original(client, "workflow_write", workflow=json.dumps(taken))  # a whole document, as JSON text
            listed = {item["name"]: item for item in (await ok_original(client, "workflow_list"))["workflows"]}
            assert listed["Order (original calls)"]["params"][0] == {
                "name": "user", "description": "Account name", "type": "text", "options": []}
            # workflow_update: the original's nodes (upsert, parent), edges (by source/target), removeNodes.
            plan = node("plan", "select", locator={"selector": "label=Plan"}, option="Pro")
            updated = await ok_original(client, "workflow_update", workflow="Order (original calls)", nodes=[plan],
                                        environment_variables=[{"name": "site", "value": site.url("")}],
                                        description="ordered by an agent")
            assert updated["id"] == wf_id
            for change, error in (({}, "nothing to change"), ({"removeNodes": ["nope"]}, "nope"),
                                  ({"removeEdges": ["e-nope"]}, "e-nope"),
                                  ({"rename": "A taken name", "description": "x"}, "already has that name")):
                failed = await call(client, "workflow_update", name="Order (original calls)", **change)
                assert failed["ok"] is False and error in failed["error"], (change, failed)
            env = (await ok_original(client, "env_create", name="Original calls"))["env"]
            ran = await ok_original(client, "workflow_run", workflow="Order (original calls)", env=env,
                                    inputs={"user": "alice", "password": "s3cret!", "fullname": "Alice"})
            assert ran["run"]["status"] == "ok" and ran["workflow"] == wf_id
            exported = await ok_original(client, "workflow_export", workflow=wf_id)
            assert json.loads(Path(exported["path"]).read_text())["app"]["description"] == "ordered by an agent"
            deleted = await ok_original(client, "workflow_delete", workflow="Order (original calls)")
            assert deleted["id"] == wf_id
            # A document names the workflow by its app.name.
            await ok_original(client, "workflow_delete", workflow=taken)
            await ok_original(client, "env_delete", env=env)

    asyncio.run(scenario())
    assert form(site.hits("/order")[before]) == {"fullname": "Alice", "email": "alice@example.com", "plan": "Pro"}


def test_the_originals_missing_tools_through_the_mcp_client(app_dir: Path, site: LocalServer) -> None:
    """env_export/env_import move a login (the server sees the new environment logged in), and the other tools
    the original has answer the original's calls: page_inspect, page_hit on a screenshot point, tab groups,
    net_mock, page_cdp_batch."""
    async def scenario() -> None:
        async with mcp_client(app_dir, tools="original") as client:
            source = (await ok_original(client, "env_create", name="Logged in"))["env"]
            tab = (await ok_original(client, "tab_open", env=source))["tabId"]
            await ok_original(client, "page_navigate", tabId=tab, url=site.url("/login"))
            await ok_original(client, "page_type", tabId=tab, selector="[name=user]", text="alice")
            await ok_original(client, "page_type", tabId=tab, xpath="//input[@name='pass']", text="s3cret!")
            await ok_original(client, "page_click", tabId=tab, selector="text=Sign in", untilSelector="h1")
            exported = await ok_original(client, "env_export", env=source)
            assert os.stat(exported["path"]).st_mode & 0o777 == 0o600 and "alice" not in json.dumps(exported)
            imported = await ok_original(client, "env_import", path=exported["path"], name="Moved login")
            target = imported["env"]
            assert target != source and imported["created"]
            moved = (await ok_original(client, "tab_open", env=target))["tabId"]
            before = len(site.hits("/account"))
            await ok_original(client, "page_navigate", tabId=moved, url=site.url("/account"))
            account = site.hits("/account")[before:]
            assert account and "sid=alice" in account[0].headers.get("cookie", "")
            heading = await ok_original(client, "page_script", tabId=moved,
                                        source="document.querySelector('h1').textContent")
            assert heading["value"] == "Welcome alice"

            inspected = await ok_original(client, "page_inspect", tabId=moved, selector="h1")
            assert inspected["tag"] == "h1" and inspected["visible"] is True
            size = (await ok_original(client, "page_script", tabId=moved, source="[innerWidth, innerHeight]"))["value"]
            box = inspected["rect"]
            # A point read on a half-size screenshot maps back to the heading.
            hit = await ok_original(client, "page_hit", tabId=moved, x=(box["x"] + 5) / 2,
                                    y=(box["y"] + box["height"] / 2) / 2, shotWidth=size[0] / 2, shotHeight=size[1] / 2)
            assert hit["tag"] == "h1"

            group = await ok_original(client, "group_create", name="Orders", color="blue", env=target)
            group_id = group.get("groupId") or group["group"]["id"]
            await ok_original(client, "tab_group", tabId=moved, groupId=group_id)
            listed = await ok_original(client, "group_list", env=target)
            assert group_id in json.dumps(listed)
            tabs = (await ok_original(client, "tab_list", env=target))["tabs"]
            assert [t["groupId"] for t in tabs if t["id"] == moved] == [group_id]

            await ok_original(client, "net_mock", tabId=moved,
                              rules=[{"urlContains": "/never-served", "status": 200, "body": '{"mocked": true}'}])
            mocked = await ok_original(client, "page_script", tabId=moved,
                                       source="return await (await fetch('/never-served')).json()")
            assert mocked["value"] == {"mocked": True} and not site.hits("/never-served")
            await ok_original(client, "net_mock_off", tabId=moved)
            batch = await ok_original(client, "page_cdp_batch", tabId=moved, commands=[
                {"method": "Runtime.evaluate", "params": {"expression": "2 * 21", "returnByValue": True}},
                {"method": "Runtime.evaluate", "params": {"expression": "document.title", "returnByValue": True}}])
            assert "42" in json.dumps(batch) and "Account" in json.dumps(batch)

    asyncio.run(scenario())
