"""Tool profiles end to end: the real app headless, real MCP clients — the SDK's over streamable HTTP,
the stdio bridge spoken to line by line, and the MCP Inspector's CLI from npm — against real local pages.

- A client that takes at most 40 tools (and refuses a longer list, as capped clients drop the rest) places an
  order with the default profile, reading refs from the text a model reads.
- The Inspector lists each profile: core, full, original, a list of groups; an unknown group is refused.
- `tools_enable` adds a group to one session, and that session's client hears `notifications/tools/list_changed`;
  over the stdio bridge as well.

One app serves the module; every test opens its own tabs.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import anyio
import pytest
from mcp import Client

from app.catalog.profiles import ORIGINAL_TOOLS
from app.wiring.registry import build_registry
from tests.support.app_process import app_command, app_env, run_cli, serving_app
from tests.support.mcp_http import endpoint, mcp_client
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TEST_CLIENTS = ROOT / "tests" / "support" / "node"  # ./dev.sh installs the Inspector there (package.json)
CAP = 40  # Cursor's cap on the tools it takes

ORDER_FORM = """<!doctype html><title>Order</title><body>
<h1>Blue widget</h1>
<form method=post action=/order>
  <label>Full name <input name=fullname></label>
  <label>Quantity <input name=quantity type=number min=1 value=1></label>
  <label>Plan <select name=plan><option>Basic</option><option>Pro</option><option>Team</option></select></label>
  <button>Place order</button>
</form></body>"""


@pytest.fixture(scope="module")
def shop() -> Iterator[LocalServer]:
    with LocalServer() as local:
        local.route("/order-form", ORDER_FORM)
        local.route("/order", lambda request: Response(
            '<!doctype html><title>Thanks</title><p id=done>Thank you, your order is placed</p>'))
        yield local


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with serving_app(tmp_path_factory.mktemp("profiles") / "data") as data_dir:
        yield data_dir


class CappedClient:
    """A client that takes at most `CAP` tools, as Cursor did: a longer list is refused (a capped client would
    drop the rest without a word), and only tools it was shown are called. It reads results as a model does:
    their text."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.names: set[str] = set()
        self.texts: list[str] = []

    async def start(self) -> None:
        tools = (await self.client.list_tools()).tools
        if len(tools) > CAP:
            raise AssertionError(f"{len(tools)} tools offered; this client takes {CAP}")
        self.names = {tool.name for tool in tools}

    async def call(self, name: str, **arguments: Any) -> str:
        assert name in self.names, f"{name} was not offered to this client"
        result = await self.client.call_tool(name, arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error is False, text
        self.texts.append(text)
        return text


def ref(snapshot_text: str, role: str, name: str) -> str:
    line = next(line for line in snapshot_text.splitlines() if f'{role} "{name}"' in line)
    return line.split("[ref=")[1].split("]")[0]


# -- the default profile does a whole task within a capped client ----------------------------------------
def test_a_client_that_takes_40_tools_places_an_order_with_the_default_profile(app_dir: Path,
                                                                             shop: LocalServer) -> None:
    async def scenario() -> CappedClient:
        async with mcp_client(app_dir, "legacy") as session:
            client = CappedClient(session)
            await client.start()
            opened = await client.call("tab_open", url=shop.url("/order-form"))
            tab = opened.splitlines()[0].split("tab ")[1].split(" ·")[0]
            await client.call("page_wait", tabId=tab, locator={"selector": "text=Place order"})
            snapshot = await client.call("page_snapshot", tabId=tab)
            await client.call("page_type", tabId=tab, locator={"ref": ref(snapshot, "textbox", "Full name")},
                              text='Ada "Countess" Lovelace')
            await client.call("page_type", tabId=tab, locator={"ref": ref(snapshot, "spinbutton", "Quantity")},
                              text="3", replace=True)
            await client.call("page_select", tabId=tab, locator={"ref": ref(snapshot, "combobox", "Plan")},
                              option="Pro")
            await client.call("page_click", tabId=tab, locator={"ref": ref(snapshot, "button", "Place order")},
                              until={"selector": "#done"})
            after = await client.call("page_snapshot", tabId=tab)
            assert "Thank you, your order is placed" in after and after.startswith(f"ok · tab {tab} · agent · ")
            await client.call("tab_close", tabId=tab)
            return client

    client = asyncio.run(scenario())
    assert len(client.names) <= CAP and "tools_enable" in client.names
    orders = [request for request in shop.hits("/order") if request.method == "POST"]
    assert len(orders) == 1
    assert {k: v[0] for k, v in parse_qs(orders[0].body.decode("utf-8")).items()} == {
        "fullname": 'Ada "Countess" Lovelace', "quantity": "3", "plan": "Pro"}
    # What the model read: plain text, a header line first, never JSON inside a string.
    snapshot = client.texts[2]
    assert snapshot.splitlines()[0].startswith("ok · tab ") and '  - textbox "Full name" [ref=' in snapshot
    assert all('\\"' not in text and "\\n" not in text for text in client.texts)


# -- the MCP Inspector lists each profile ----------------------------------------------------------------
def inspector(data_dir: Path, tmp_path: Path, tools: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    """`npx @modelcontextprotocol/inspector --cli URL …` from the tests' own install, offline."""
    found = endpoint(data_dir)
    url = found.url + (f"?tools={tools}" if tools else "")
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "inspector-catalog.json"),
           "npm_config_offline": "true", "npm_config_update_notifier": "false"}
    return subprocess.run(["npx", "--no-install", "@modelcontextprotocol/inspector", "--cli", url,
                           "--transport", "http", "--header", f"Authorization: Bearer {found.token}", *args],
                          cwd=TEST_CLIENTS, capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)


def test_the_inspector_lists_each_profile(app_dir: Path, tmp_path: Path) -> None:
    assert (TEST_CLIENTS / "node_modules" / "@modelcontextprotocol" / "inspector").is_dir(), \
        "the MCP Inspector is not installed: run ./dev.sh setup"

    async def listed(tools: str | None) -> set[str]:
        async with mcp_client(app_dir, "legacy", tools) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    names: dict[str, set[str]] = {}
    for profile in ("core", "full", "original", "core,network", None):
        shown = inspector(app_dir, tmp_path, profile, "--method", "tools/list")
        assert shown.returncode == 0, shown.stderr
        names[str(profile)] = {tool["name"] for tool in json.loads(shown.stdout)["tools"]}
        assert names[str(profile)] == asyncio.run(listed(profile)), profile
    assert names["None"] == names["core"] and len(names["core"]) <= CAP
    assert names["core"] < names["core,network"] < names["full"] | {"tools_enable"}
    assert {name for name in names["core,network"] - names["core"]} == {
        name for name in names["full"] if name.startswith("net_")}
    assert names["original"] == set(ORIGINAL_TOOLS) & names["full"]
    assert len(names["full"]) > 90
    # A result through the Inspector: the text a model reads.
    called = inspector(app_dir, tmp_path, None, "--method", "tools/call", "--tool-name", "env_list")
    assert called.returncode == 0, called.stderr
    text = json.loads(called.stdout)["content"][0]["text"]
    assert text.startswith("ok\nenvironments (") and "env-default | Default" in text
    # An unknown group: refused with the valid names, before any tool is listed.
    refused = inspector(app_dir, tmp_path, "core,netwrk", "--method", "tools/list")
    assert refused.returncode != 0
    assert "400" in refused.stdout + refused.stderr


# -- tools_enable --------------------------------------------------------------------------------------------
def test_tools_enable_adds_a_group_and_the_client_hears_the_list_changed(app_dir: Path) -> None:
    heard: list[Any] = []

    async def scenario() -> tuple[set[str], str, set[str], set[str], str, set[str]]:
        async with mcp_client(app_dir, "legacy", "core", notifications=heard) as client:
            before = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("tools_enable", {"groups": ["recording", "network"]})
            with anyio.fail_after(15):
                while not any(type(m).__name__ == "ToolListChangedNotification" for m in heard):
                    await anyio.sleep(0.02)
            after = {tool.name for tool in (await client.list_tools()).tools}
            status = await client.call_tool("record_status", {})
            assert status.is_error is False, status
            async with mcp_client(app_dir, "legacy", "core") as other:  # another session: its own list
                others = {tool.name for tool in (await other.list_tools()).tools}
        # A client without sessions (2026-07-28): the tools answer, the list stays what the address says.
        async with mcp_client(app_dir, "auto", "core") as modern:
            stateless = await modern.call_tool("tools_enable", {"groups": ["network"]})
            modern_list = {tool.name for tool in (await modern.list_tools()).tools}
        enabled_text = result.content[0].text  # type: ignore[union-attr]
        stateless_text = stateless.content[0].text  # type: ignore[union-attr]
        return before, enabled_text, after, others, stateless_text, modern_list

    before, enabled, after, others, stateless, modern_list = asyncio.run(scenario())
    assert "record_start" not in before and "net_start" not in before
    assert enabled.startswith("ok\n") and "enabled: core, network, recording" in enabled
    assert "listChanged: true" in enabled and "record_start" in enabled
    assert after == before | {name for name in after if name.startswith(("record_", "net_"))}
    assert {"record_start", "record_stop", "net_start", "net_mock"} <= after
    assert others == before
    assert "without sessions" in stateless and "listChanged: false" in stateless and modern_list == before


def test_the_stdio_bridge_takes_a_profile_and_tells_its_client_when_the_list_changes(app_dir: Path) -> None:
    def session(*tools: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*app_command(), "mcp", *tools, "--data-dir", str(app_dir)], env=app_env(),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def exchange(bridge: subprocess.Popen[bytes], message: dict[str, Any], lines: int = 1) -> list[dict[str, Any]]:
        assert bridge.stdin is not None and bridge.stdout is not None
        bridge.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8") + b"\n")
        bridge.stdin.flush()
        return [json.loads(bridge.stdout.readline()) for _ in range(lines)]

    def close(bridge: subprocess.Popen[bytes]) -> None:
        assert bridge.stdin is not None and bridge.stdout is not None
        bridge.stdin.close()
        try:
            assert bridge.wait(30) == 0
        finally:
            if bridge.poll() is None:
                bridge.kill()
            bridge.stdout.close()

    hello = {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                          "clientInfo": {"name": "raw", "version": "1"}}}
    core = session("--tools", "core")
    try:
        assert exchange(core, hello)[0]["result"]["capabilities"]["tools"] == {"listChanged": True}
        listed = {t["name"] for t in exchange(core, {"id": 2, "method": "tools/list"})[0]["result"]["tools"]}
        assert len(listed) <= CAP and "tools_enable" in listed and "schedule_list" not in listed
        answer, notice = exchange(core, {"id": 3, "method": "tools/call", "params": {
            "name": "tools_enable", "arguments": {"groups": ["schedules"]}}}, lines=2)
        assert answer["id"] == 3 and answer["result"]["structuredContent"]["listChanged"] is True
        assert notice == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        again = {t["name"] for t in exchange(core, {"id": 4, "method": "tools/list"})[0]["result"]["tools"]}
        assert again - listed == {"schedule_list", "schedule_create", "schedule_update", "schedule_delete",
                                  "schedule_run"}
        listing = exchange(core, {"id": 5, "method": "tools/call", "params": {"name": "schedule_list",
                                                                               "arguments": {}}})[0]
        assert listing["result"]["isError"] is False
        assert listing["result"]["content"][0]["text"].startswith("ok\n")
    finally:
        close(core)

    original = session("--tools", "original")
    try:
        exchange(original, hello)
        names = {t["name"] for t in exchange(original, {"id": 2, "method": "tools/list"})[0]["result"]["tools"]}
        assert names == set(ORIGINAL_TOOLS) & set(build_registry().names()) and "tools_enable" not in names
        listed_envs = exchange(original, {"id": 3, "method": "tools/call", "params": {"name": "env_list",
                                                                                       "arguments": {}}})[0]
        text = listed_envs["result"]["content"][0]["text"]
        assert json.loads(text) == listed_envs["result"]["structuredContent"]  # the original's JSON text
    finally:
        close(original)

    bad = run_cli(app_dir, "mcp", "--tools", "core,netwrk")
    assert bad.returncode == 2 and "unknown tool profile or group 'netwrk'" in bad.stderr
    assert "valid: core, full, original" in bad.stderr


# -- output schemas: every tool says what it answers, and its answers fit ---------------------------------
def test_with_schemas_every_tool_publishes_an_output_schema_its_real_answers_fit(app_dir: Path,
                                                                               shop: LocalServer) -> None:
    """`?tools=core,schemas`: each tool lists its `outputSchema`, and the SDK's client checks every answer that
    is not an error against it (a call whose structured content does not fit raises). Failures are checked here
    with jsonschema, since the client leaves them alone."""
    from jsonschema import Draft202012Validator

    async def scenario() -> dict[str, Any]:
        async with mcp_client(app_dir, tools="core,schemas") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert all(tool.output_schema for tool in tools.values()), [n for n, t in tools.items()
                                                                      if not t.output_schema]
            answers: dict[str, Any] = {}

            async def call(tool: str, **arguments: Any) -> dict[str, Any]:
                result = await client.call_tool(tool, arguments)
                assert result.is_error is False, result.content[0].text  # type: ignore[union-attr]
                answers[tool] = result.structured_content
                return result.structured_content  # type: ignore[return-value]

            opened = await call("tab_open", url=shop.url("/order-form"))
            tab = opened["tabId"]
            await call("page_navigate", tabId=tab, url=shop.url("/order-form"))
            await call("page_wait", tabId=tab, locator={"selector": "text=Place order"})
            snapshot = (await call("page_snapshot", tabId=tab))["snapshot"]
            await call("page_query", tabId=tab, locator={"selector": "input"})
            await call("page_type", tabId=tab, locator={"ref": ref(snapshot, "textbox", "Full name")}, text="Ada")
            await call("page_select", tabId=tab, locator={"ref": ref(snapshot, "combobox", "Plan")}, option="Team")
            await call("page_key", tabId=tab, shortcut="tab")
            await call("page_scroll", tabId=tab)
            await call("page_source", tabId=tab, kind="text")
            await call("page_screenshot", tabId=tab)
            await call("page_click", tabId=tab, locator={"ref": ref(snapshot, "button", "Place order")},
                       until={"selector": "#done"})
            await call("page_back", tabId=tab)
            await call("tab_list")
            await call("env_list")
            await call("env_create", name="Schemas")
            written = await call("workflow_write", workflow=json.dumps({
                "kind": "app", "version": "0.3.0", "app": {"name": "schema check", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                    "nodes": [{"id": "s", "data": {"type": "start"}},
                              {"id": "g", "data": {"type": "goto", "url": shop.url("/order-form")}},
                              {"id": "e", "data": {"type": "end", "outputs": [
                                  {"variable": "title", "value_selector": ["g", "title"]}]}}],
                    "edges": [{"source": "s", "target": "g"}, {"source": "g", "target": "e"}]}}}))
            await call("workflow_list")
            ran = await call("workflow_run", workflow=written["id"], tabId=tab)
            await call("run_list")
            await call("run_read", runId=ran["run"]["id"])
            await call("page_handoff", tabId=tab, message="Your turn")
            await call("tab_close", tabId=tab)
            await call("tools_enable", groups=["network"])
            failed = await client.call_tool("page_click", {"tabId": tab, "locator": {"selector": "#gone"}})
            assert failed.is_error is True
            Draft202012Validator(tools["page_click"].output_schema).validate(failed.structured_content)
            return answers

    answers = asyncio.run(scenario())
    assert answers["page_click"]["element"] and answers["page_select"]["text"] == "Team"
    assert answers["workflow_run"]["outputs"] == {"title": "Order"}


GALLERY = """<!doctype html><title>Gallery</title><body style="margin:0">
<button id=buy style="position:absolute;left:20px;top:30px;width:120px;height:40px">Buy now</button>
<input id=q aria-label=Search value=shoes style="position:absolute;left:20px;top:100px">
<p id=count style="position:absolute;left:20px;top:150px">0</p>
<img src="http://127.0.0.2:{port}/pic.png" alt=blocked>
<script>let n = 0; setInterval(() => {{ document.getElementById('count').textContent = String(++n); }}, 150);</script>
</body>"""


def test_with_full_schemas_the_devtools_group_and_login_tools_answer_what_their_schemas_say(
        app_dir: Path, shop: LocalServer) -> None:
    """`?tools=full,schemas`: the tools beyond core (inspecting, DevTools batches, mocks, blocked requests, tab
    groups, moving a login, filming a tab, the app's and the agent's state) publish an `outputSchema` that names
    what they answer; each real answer fits it (the SDK's client checks, and jsonschema here), and every key it
    carries is one its schema describes."""
    from jsonschema import Draft202012Validator

    shop.route("/gallery", GALLERY.format(port=shop.port))

    async def scenario() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        async with mcp_client(app_dir, tools="full,schemas") as client:
            schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
            answers: dict[str, Any] = {}

            async def call(tool: str, **arguments: Any) -> dict[str, Any]:
                result = await client.call_tool(tool, arguments)  # the client raises when it does not fit
                assert result.is_error is False, result.content[0].text  # type: ignore[union-attr]
                answers[tool] = result.structured_content
                return result.structured_content  # type: ignore[return-value]

            env = (await call("env_create", name="Schema policies"))["env"]
            await call("env_update", env=env, allowedDomains=["127.0.0.1"])
            await call("env_open", env=env)
            tab = (await call("tab_open", env=env, url=shop.url("/gallery")))["tabId"]
            await call("page_wait", tabId=tab, locator={"selector": "#buy"})
            inspected = await call("page_inspect", tabId=tab, locator={"selector": "#buy"})
            box = inspected["rect"]
            await call("page_hit", tabId=tab, x=box["x"] + box["width"] / 2, y=box["y"] + box["height"] / 2)
            await call("page_inspect", tabId=tab, locator={"selector": "#q"})
            await call("page_watch", tabId=tab, locator={"selector": "#count"}, timeoutMs=5000, stopOnChange=True)
            await call("page_cdp_batch", tabId=tab, commands=[
                {"method": "Runtime.evaluate", "params": {"expression": "6 * 7", "returnByValue": True}},
                {"method": "Page.getLayoutMetrics"}])
            await call("net_mock", tabId=tab, rules=[{"urlContains": "/api/price", "body": '{"price": 12}'}])
            fetched = await call("page_script", tabId=tab,
                                 source="return fetch('/api/price').then((r) => r.json())")
            assert fetched["value"] == {"price": 12}
            await call("net_mock_off", tabId=tab)
            await call("net_blocked", env=env)
            group = (await call("group_create", env=env, name="Shopping", color="#33aa55"))["groupId"]
            await call("group_update", groupId=group, name="Shop")
            await call("tab_group", tabId=tab, groupId=group)
            await call("group_list", env=env)
            exported = await call("env_export", env=env)
            await call("env_import", path=exported["path"], name="Schema copy")
            await call("env_browser_profiles")
            await call("screen_start", tabId=tab)
            await call("page_click", tabId=tab, locator={"selector": "#buy"})
            await call("screen_stop", tabId=tab)
            await call("app_status")
            await call("agent_list")
            await call("tab_close", tabId=tab)
            return answers, schemas  # type: ignore[return-value]

    answers, schemas = asyncio.run(scenario())
    envelope = {"ok", "control", "tabId", "takenOver", "dialogs", "newTabs", "error", "code", "errorShot", "notes"}
    for tool, answer in answers.items():
        schema = schemas[tool]
        Draft202012Validator(schema).validate(answer)
        undescribed = set(answer) - envelope - set(schema["properties"])
        assert not undescribed, (tool, undescribed)  # the schema names every key the tool answers with
    # The schemas are the tools' own, not "any object": a success must carry these.
    required = {tool: set(schemas[tool].get("then", {}).get("required", [])) for tool in answers}
    assert {"tag", "desc", "rect", "locator", "visible", "style"} <= required["page_inspect"]
    assert {"x", "y", "tag"} <= required["page_hit"]
    assert {"changed", "changes", "before", "after"} <= required["page_watch"]
    assert {"results", "completed"} <= required["page_cdp_batch"]
    assert required["net_blocked"] == {"blocked"} and required["group_list"] == {"groups"}
    assert {"path", "format", "cookies"} <= required["env_export"]
    assert {"path", "seconds", "frames", "bytes", "codec"} <= required["screen_stop"]

    inspected = answers["page_inspect"]
    assert inspected["tag"] == "input" and inspected["value"] == "shoes" and inspected["locator"]["alternatives"]
    assert answers["page_hit"]["tag"] == "button" and answers["page_hit"]["text"] == "Buy now"
    watched = answers["page_watch"]
    assert watched["changed"] is True and "text" in watched["changes"][0]
    batch = answers["page_cdp_batch"]
    assert batch["completed"] is True and batch["results"][0]["result"]["result"]["value"] == 42
    assert answers["net_mock_off"]["answered"] == 1
    blocked = answers["net_blocked"]["blocked"]
    assert blocked and {(entry["type"], entry["host"]) for entry in blocked} == {("image", "127.0.0.2")}
    assert blocked[0]["rule"] == "not in allowedDomains" and blocked[0]["page"] == shop.url("/gallery")
    groups = answers["group_list"]["groups"]
    assert [(g["name"], g["color"], g["tabIds"]) for g in groups] == [("Shop", "#33aa55", [answers["tab_open"]["tabId"]])]
    assert answers["env_import"]["created"] is True and answers["env_import"]["format"] == "json"
    assert answers["screen_stop"]["bytes"] > 0 and Path(answers["screen_stop"]["path"]).is_file()
    assert answers["app_status"]["headless"] is True and answers["app_status"]["mcp"]["status"] == "running"
