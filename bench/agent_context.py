"""What an agent pays for: the tool definitions and the page text a model receives, BrowserPilot against
Playwright MCP, side by side in one run.

1. `tools/list`: the number of tools and the size of the listing (the JSON of every tool the server lists:
   name, description, schemas, annotations — each side dumped the same way by the same Python `mcp` client),
   ours per profile (`?tools=core` the default, `core` after `tools_enable {groups: [network]}`, `full`,
   `original`) against Playwright MCP's (`node bench/node_modules/@playwright/mcp/cli.js`, stdio, Debian's
   chromium, `--timeout-settle 0`, its post-action snapshots written to `--output-dir` files as
   shared/BENCHMARKS.md sets it up: its results are as short as they get). The server instructions each sends
   once per session are reported beside it.
2. Pages, as the model reads them (the text content of each result): our shop's order form, a long list (the
   200-item station log of tests/support/content_pages.py) and a real admin page (Django's admin, installed from
   PyPI into a venv cached under bench/out/, its user list with 40 users, logged in on both sides): the
   navigation's result and the snapshot's (ours folds a run of more than 25 similar items into a line naming
   the call that shows the rest; "nothing folded" is `items: 0`; Playwright MCP folds nothing), and on the form
   the results of typing, choosing and clicking.
   Characters, and approximate tokens (ASCII characters / 4 plus one per other character, as
   bench/snapshot_size.py counts them; CJK costs about one token a character).
3. One scripted task, placing an order on the form, through the local stand-in of the Messages API
   (tests/support/fake_anthropic.py): ours is the built-in agent (`agent_run`, the real `anthropic` client, its
   tools — core's page tools and tools_enable, docs/agent.md, "The loop" — and its system prompt);
   theirs is a minimal loop in this file that sends the same Messages API
   requests with Playwright MCP's tools (and the same `done` tool) and runs each tool call through Playwright
   MCP. Both follow the same script: look (snapshot), type the name and the quantity and choose the plan, click
   Place order, look again, done; the refs come from each side's own snapshot text. Per request: the approximate
   input tokens of what the model is sent (system prompt, tool definitions and messages; cache breakpoints
   left out). The shop must have received exactly one order from each side, with the typed values.

Targets: core at most 40 tools and at most 0.7x Playwright MCP's listing; the task's input tokens at
most 0.6x Playwright MCP's.

Run: `.venv/bin/python bench/agent_context.py`. Exit status 0 when both sides placed their order and every call
succeeded (whether or not the targets are met), 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from app.agent.tools import DONE_TOOL  # noqa: E402
from app.mcp.client import wait_for_endpoint  # noqa: E402
from app.catalog.conventions import SERVER_INSTRUCTIONS  # noqa: E402
from bench.mcp_latency import Failed, browserpilot, check, end_app, ensure_playwright_mcp, playwright_params, quiet_env  # noqa: E402
from bench.snapshot_size import approx_tokens  # noqa: E402
from plumbing.datadir import DataDir  # noqa: E402
from tests.support.content_pages import long_list_page  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic, Reply, last_results, ref_of, result_text, text, tool  # noqa: E402
from tests.support.server import LocalServer, Response  # noqa: E402

OUT = ROOT / "bench" / "out"
DJANGO_VENV = OUT / "django-venv"
ADMIN_USER, ADMIN_PASSWORD = "admin", "bench-admin-pw-1"
ADMIN_LIST = "/admin/auth/user/"
USERS = 40
MODEL = "claude-sonnet-4-6"
ORDER = {"fullname": "Ada Lovelace", "quantity": "3", "plan": "Pro"}
TASK = (f"Order 3 of the blue widget on the Pro plan for {ORDER['fullname']}: fill in the order form and place "
        "the order.")
# The system prompt of the Playwright MCP side's loop: what a client of it would say at least.
PEER_SYSTEM = ("You operate a web browser through the tools. Look at the page with browser_snapshot, act on "
               "elements by their ref, and call done with success and a short answer when the task is finished.")

ORDER_FORM = """<!doctype html><html lang=en><title>Order</title><body>
<header><a href=/>Widget shop</a> <nav><a href=/cart>Cart</a> <a href=/account>Account</a></nav></header>
<main>
<h1>Blue widget</h1>
<p>A sturdy blue widget, $24.00 each. Ships in two days.</p>
<form method=post action=/order>
  <label>Full name <input name=fullname autocomplete=name></label>
  <label>Email <input name=email type=email></label>
  <label>Quantity <input name=quantity type=number min=1 value=1></label>
  <label>Plan <select name=plan><option>Basic</option><option>Pro</option><option>Team</option></select></label>
  <label><input type=checkbox name=gift> This is a gift</label>
  <button>Place order</button>
</form>
</main></body>"""
THANKS = "<!doctype html><title>Thanks</title><h1 id=done>Thank you, your order is placed</h1>"


# -- the real admin page -------------------------------------------------------------------------------------
class DjangoAdmin:
    """Django's admin on 127.0.0.1 (a port the OS gave), in a venv of its own (made once, kept in bench/out)."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def python(self) -> Path:
        return DJANGO_VENV / "bin" / "python"

    def install(self) -> None:
        if not self.python().exists():
            print(f"installing Django into {DJANGO_VENV} …", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(DJANGO_VENV)], check=True)
            subprocess.run([str(self.python()), "-m", "pip", "install", "-q", "django"], check=True)

    def start(self) -> None:
        self.install()
        project = self.work / "site"
        project.mkdir()
        run = lambda *args, **env: subprocess.run(  # noqa: E731
            [str(self.python()), *args], cwd=project, check=True, capture_output=True, text=True,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "site_config.settings", **env})
        run("-m", "django", "startproject", "site_config", ".")
        settings = project / "site_config" / "settings.py"
        settings.write_text(settings.read_text() + "\nALLOWED_HOSTS = ['127.0.0.1']\n")
        run("manage.py", "migrate", "-v", "0")
        run("manage.py", "createsuperuser", "--noinput", "--username", ADMIN_USER, "--email", "admin@example.com",
            DJANGO_SUPERUSER_PASSWORD=ADMIN_PASSWORD)
        run("manage.py", "shell", "-c",
            "from django.contrib.auth.models import User\n"
            f"for n in range(1, {USERS}):\n"
            "    User.objects.create_user(f'user{n:02d}', f'user{n:02d}@example.com', 'pw', first_name=f'First{n}', "
            "last_name=f'Last{n}', is_staff=n % 3 == 0)\n")
        with socket.socket() as probe:  # a port the OS chose (Django's runserver takes no port 0)
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = subprocess.Popen([str(self.python()), "manage.py", "runserver", f"127.0.0.1:{port}",
                                         "--noreload"], cwd=project, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/admin/login/", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise Failed("Django's admin did not answer within 60 s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)


# -- measuring -----------------------------------------------------------------------------------------------
def listing_size(tools: list[Any]) -> int:
    return len(json.dumps([t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools],
                          ensure_ascii=False))


def first_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def without_cache_marks(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_cache_marks(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [without_cache_marks(item) for item in node]
    return node


def input_tokens(request: dict[str, Any]) -> int:
    """What a request makes the model read: its system prompt, tool definitions and messages."""
    prompt = without_cache_marks({"system": request.get("system"), "tools": request.get("tools"),
                                  "messages": request.get("messages")})
    return approx_tokens(json.dumps(prompt, ensure_ascii=False))


@dataclass
class PageSizes:
    results: dict[str, str] = field(default_factory=dict)  # what the model read, by step


async def kept(client: Client, page: PageSizes, label: str, name: str, **arguments: Any) -> str:
    """Call a tool and keep the text of its result (what the model reads) as `label` of `page`."""
    page.results[label] = first_text(check(await client.call_tool(name, arguments), name))
    return page.results[label]


@dataclass
class Listing:
    tools: int
    chars: int


def ours_url(data_dir: Path, tools: str | None) -> tuple[str, str]:
    found = wait_for_endpoint(DataDir(data_dir), timeout=90)
    return found.url + (f"?tools={tools}" if tools else ""), found.token


async def with_ours(data_dir: Path, tools: str | None, work: Any) -> Any:
    """`work(client)` with a client of our endpoint (`?tools=`); a `Failed` inside is raised as it is."""
    url, token = ours_url(data_dir, tools)
    failed: Failed | None = None
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, trust_env=False, verify=False,
                                  timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            try:
                return await work(client)
            except Failed as exc:
                failed = exc
    raise failed


async def our_listings(data_dir: Path) -> dict[str, Listing]:
    found: dict[str, Listing] = {}
    for profile in ("core", "full", "original"):
        async def listed(client: Client) -> Listing:
            tools = (await client.list_tools()).tools
            return Listing(len(tools), listing_size(tools))
        found[profile] = await with_ours(data_dir, profile, listed)

    async def enabled(client: Client) -> Listing:
        check(await client.call_tool("tools_enable", {"groups": ["network"]}), "tools_enable")
        tools = (await client.list_tools()).tools
        return Listing(len(tools), listing_size(tools))
    found["core + network"] = await with_ours(data_dir, "core", enabled)
    return found


async def our_pages(data_dir: Path, shop: str, log: str, admin: DjangoAdmin) -> dict[str, PageSizes]:
    async def read(client: Client) -> dict[str, PageSizes]:
        pages: dict[str, PageSizes] = {}

        async def call(page: PageSizes, label: str, name: str, **arguments: Any) -> str:
            return await kept(client, page, label, name, **arguments)

        form = pages["order form"] = PageSizes()
        await call(form, "navigate", "page_navigate", url=shop)
        snapshot = await call(form, "snapshot", "page_snapshot")
        await call(form, "type", "page_type", locator={"ref": ref_of(snapshot, "textbox", "Full name")}, text="Bob")
        await call(form, "select", "page_select", locator={"ref": ref_of(snapshot, "combobox", "Plan")},
                   option="Team")
        await call(form, "click", "page_click", locator={"ref": ref_of(snapshot, "checkbox", "This is a gift")})
        listing = pages["long list"] = PageSizes()
        await call(listing, "navigate", "page_navigate", url=log)
        await call(listing, "snapshot", "page_snapshot")
        await call(listing, "snapshot, nothing folded", "page_snapshot", items=0)
        users = pages["Django admin users"] = PageSizes()
        check(await client.call_tool("page_navigate", {"url": f"{admin.url}/admin/login/?next={ADMIN_LIST}"}),
              "page_navigate")
        check(await client.call_tool("page_type", {"locator": {"selector": "#id_username"}, "text": ADMIN_USER}),
              "page_type")
        check(await client.call_tool("page_type", {"locator": {"selector": "#id_password"}, "text": ADMIN_PASSWORD}),
              "page_type")
        check(await client.call_tool("page_click", {"locator": {"selector": "input[type=submit]"},
                                                    "until": {"selector": "#result_list"}}), "page_click")
        await call(users, "navigate", "page_navigate", url=admin.url + ADMIN_LIST)
        snapshot = await call(users, "snapshot", "page_snapshot")
        whole = await call(users, "snapshot, nothing folded", "page_snapshot", items=0)
        if "user01" not in snapshot or "user39" not in whole:
            raise Failed("ours: the admin's user list does not show its users")
        return pages

    return await with_ours(data_dir, None, read)


async def peer_pages(work: Path, shop: str, log: str, admin: DjangoAdmin) -> tuple[dict[str, PageSizes], Listing]:
    async with Client(playwright_params(0, work)) as client:
        tools = (await client.list_tools()).tools
        listing = Listing(len(tools), listing_size(tools))
        pages: dict[str, PageSizes] = {}

        async def call(page: PageSizes, label: str, name: str, **arguments: Any) -> str:
            return await kept(client, page, label, name, **arguments)

        form = pages["order form"] = PageSizes()
        await call(form, "navigate", "browser_navigate", url=shop)
        snapshot = await call(form, "snapshot", "browser_snapshot")
        await call(form, "type", "browser_type", target=ref_of(snapshot, "textbox", "Full name"), text="Bob")
        await call(form, "select", "browser_select_option", target=ref_of(snapshot, "combobox", "Plan"),
                   values=["Team"])
        await call(form, "click", "browser_click", target=ref_of(snapshot, "checkbox", "This is a gift"))
        listing_page = pages["long list"] = PageSizes()
        await call(listing_page, "navigate", "browser_navigate", url=log)
        listing_page.results["snapshot, nothing folded"] = await call(listing_page, "snapshot", "browser_snapshot")
        users = pages["Django admin users"] = PageSizes()
        check(await client.call_tool("browser_navigate", {"url": f"{admin.url}/admin/login/?next={ADMIN_LIST}"}),
              "browser_navigate")
        check(await client.call_tool("browser_type", {"target": "#id_username", "text": ADMIN_USER}), "browser_type")
        check(await client.call_tool("browser_type", {"target": "#id_password", "text": ADMIN_PASSWORD}),
              "browser_type")
        check(await client.call_tool("browser_click", {"target": "input[type=submit]"}), "browser_click")
        await call(users, "navigate", "browser_navigate", url=admin.url + ADMIN_LIST)
        snapshot = await call(users, "snapshot", "browser_snapshot")
        users.results["snapshot, nothing folded"] = snapshot  # it folds nothing
        if "user39" not in snapshot:
            raise Failed("Playwright MCP: the admin's user list does not show user39")
        return pages, listing


# -- the scripted order task ---------------------------------------------------------------------------------
def order_script(names: dict[str, str]) -> list[Any]:
    """The model's decisions, the same on both sides; `names` maps an action to that side's tool (and the
    argument that holds a ref)."""
    refs: dict[str, str] = {}

    def ref(role: str, name: str) -> dict[str, Any]:
        return {names["ref"]: refs[f"{role} {name}"] if names["ref"] == "target" else {"ref": refs[f"{role} {name}"]}}

    def fill(request: dict[str, Any]) -> Reply:
        snapshot = result_text(last_results(request)[0])
        for role, name in (("textbox", "Full name"), ("spinbutton", "Quantity"), ("combobox", "Plan"),
                           ("button", "Place order")):
            refs[f"{role} {name}"] = ref_of(snapshot, role, name)
        return Reply([text("I will fill in the order form."),
                      tool(names["type"], **ref("textbox", "Full name"), text=ORDER["fullname"]),
                      tool(names["type"], **ref("spinbutton", "Quantity"), text=ORDER["quantity"],
                           **names["replace"]),
                      tool(names["select"], **ref("combobox", "Plan"), **{names["option"]: names["plan"]})])

    def place(request: dict[str, Any]) -> Reply:
        return Reply([tool(names["click"], **ref("button", "Place order"))])

    def look(request: dict[str, Any]) -> Reply:
        return Reply([tool(names["snapshot"])])

    def finish(request: dict[str, Any]) -> Reply:
        seen = result_text(last_results(request)[0])
        if "Thank you, your order is placed" not in seen:
            return Reply([tool("done", success=False, answer="the order was not confirmed")])
        return Reply([tool("done", success=True, answer="Order placed")])

    return [Reply([text("Let me look at the page."), tool(names["snapshot"])]), fill, place, look, finish]


OURS = {"snapshot": "page_snapshot", "type": "page_type", "select": "page_select", "click": "page_click",
        "ref": "locator", "option": "option", "plan": ORDER["plan"], "replace": {"replace": True}}
THEIRS = {"snapshot": "browser_snapshot", "type": "browser_type", "select": "browser_select_option",
          "click": "browser_click", "ref": "target", "option": "values", "plan": [ORDER["plan"]], "replace": {}}


async def our_task(data_dir: Path, fake: FakeAnthropic, shop: str) -> dict[str, Any]:
    async def run(client: Client) -> dict[str, Any]:
        result = await client.call_tool("agent_run", {"task": TASK, "url": shop, "model": MODEL,
                                                      "provider": "anthropic", "baseUrl": fake.url})
        envelope = result.structured_content or {}
        if not envelope.get("ok"):
            raise Failed(f"ours: agent_run failed: {envelope.get('error')}")
        return envelope["record"]
    return await with_ours(data_dir, "core,agent", run)


async def peer_task(work: Path, fake: FakeAnthropic, shop: str) -> None:
    """The same task as a minimal Messages API loop over Playwright MCP's tools."""
    model = anthropic.Anthropic(base_url=fake.url, api_key="bench-key", max_retries=0)
    async with Client(playwright_params(0, work)) as client:
        tools = [{"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
                 for t in (await client.list_tools()).tools] + [DONE_TOOL]
        check(await client.call_tool("browser_navigate", {"url": shop}), "browser_navigate")
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"Task: {TASK}\n\nThe browser is at {shop}."}]
        for _ in range(12):
            reply = await asyncio.to_thread(model.messages.create, model=MODEL, max_tokens=4096, system=PEER_SYSTEM,
                                            tools=tools, messages=messages)
            blocks = [block.model_dump(exclude_none=True) for block in reply.content]
            messages.append({"role": "assistant", "content": blocks})
            uses = [b for b in blocks if b["type"] == "tool_use"]
            if any(use["name"] == "done" for use in uses) or not uses:
                return
            results = []
            for use in uses:
                answer = await client.call_tool(use["name"], use["input"])
                results.append({"type": "tool_result", "tool_use_id": use["id"], "is_error": bool(answer.is_error),
                                "content": [{"type": "text", "text": first_text(answer)}]})
            messages.append({"role": "user", "content": results})
        raise Failed("Playwright MCP: the script did not end")


def orders_of(server: LocalServer) -> list[dict[str, str]]:
    return [{k: v[0] for k, v in parse_qs(r.body.decode("utf-8")).items()} for r in server.hits("/order")
            if r.method == "POST"]


# -- the report ----------------------------------------------------------------------------------------------
def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x" if theirs else "-"


def report(ours_lists: dict[str, Listing], peer_list: Listing, ours_pages: dict[str, PageSizes],
           peer_pages_: dict[str, PageSizes], ours_requests: list[int], peer_requests: list[int],
           judge_tokens: int, version: str) -> None:
    print(f"\n## tools/list (Playwright MCP {version})\n")
    print("| profile | tools | characters | ~tokens | vs Playwright MCP |")
    print("|---|---:|---:|---:|---:|")
    for name, listing in ours_lists.items():
        print(f"| ours `{name}` | {listing.tools} | {listing.chars:,} | {listing.chars // 4:,} | "
              f"{ratio(listing.chars, peer_list.chars)} |")
    print(f"| Playwright MCP | {peer_list.tools} | {peer_list.chars:,} | {peer_list.chars // 4:,} | 1.00x |")
    print(f"\nserver instructions, sent once per session: ours {len(SERVER_INSTRUCTIONS):,} characters, "
          "Playwright MCP none")
    print("\n## what the model reads of a page (text content of each result: characters / ~tokens)\n")
    print("| page | result | ours | Playwright MCP | ratio |")
    print("|---|---|---:|---:|---:|")
    for page, sizes in ours_pages.items():
        for step, ours_text in sizes.results.items():
            theirs_text = peer_pages_[page].results[step]
            print(f"| {page} | {step} | {len(ours_text):,} / {approx_tokens(ours_text):,} | "
                  f"{len(theirs_text):,} / {approx_tokens(theirs_text):,} | "
                  f"{ratio(approx_tokens(ours_text), approx_tokens(theirs_text))} |")
    print("\n## the scripted order task: ~input tokens per request\n")
    print("| request | ours | Playwright MCP |")
    print("|---:|---:|---:|")
    for index in range(max(len(ours_requests), len(peer_requests))):
        mine = f"{ours_requests[index]:,}" if index < len(ours_requests) else "-"
        theirs = f"{peer_requests[index]:,}" if index < len(peer_requests) else "-"
        print(f"| {index + 1} | {mine} | {theirs} |")
    total_ours, total_peer = sum(ours_requests), sum(peer_requests)
    print(f"| total | {total_ours:,} | {total_peer:,} |")
    print(f"\ntask input tokens: ours {total_ours:,} vs Playwright MCP {total_peer:,}: "
          f"{ratio(total_ours, total_peer)} (target at most 0.6x); our agent's judge request after done, "
          f"not counted above: ~{judge_tokens:,} tokens")
    core = ours_lists["core"]
    print(f"core: {core.tools} tools (target at most 40), listing {ratio(core.chars, peer_list.chars)} of "
          "Playwright MCP's (target at most 0.7x)")


async def run() -> int:
    ensure_playwright_mcp()
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bp-bench-context-"))
    data_dir = work / "data"
    data_dir.mkdir()
    admin = DjangoAdmin(work)
    app: subprocess.Popen[bytes] | None = None
    ours_fake = FakeAnthropic(order_script(OURS))
    peer_fake = FakeAnthropic(order_script(THEIRS))
    try:
        admin.start()
        with LocalServer() as server, ours_fake, peer_fake:
            server.route("/shop", ORDER_FORM)
            server.route("/order", lambda request: Response(THANKS))
            server.route("/log", long_list_page())
            env = {**quiet_env(), "ANTHROPIC_API_KEY": "bench-key", "ANTHROPIC_BASE_URL": ours_fake.url}
            app = subprocess.Popen([*browserpilot(), "--headless", "--data-dir", str(data_dir)], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ours_lists = await our_listings(data_dir)
            mine = await our_pages(data_dir, server.url("/shop"), server.url("/log"), admin)
            theirs, peer_list = await peer_pages(work, server.url("/shop"), server.url("/log"), admin)
            server.requests.clear()
            record = await our_task(data_dir, ours_fake, server.url("/shop"))
            our_orders = orders_of(server)
            server.requests.clear()
            await peer_task(work, peer_fake, server.url("/shop"))
            peer_orders = orders_of(server)
        problems = ours_fake.problems + peer_fake.problems
        if record.get("status") != "succeeded":
            problems.append(f"ours: the agent ended {record.get('status')}: {record.get('error')}")
        expected = dict(ORDER)  # the empty email field is sent empty, and parse_qs leaves it out
        if our_orders != [expected]:
            problems.append(f"ours: the shop received {our_orders}")
        if peer_orders != [expected]:
            problems.append(f"Playwright MCP: the shop received {peer_orders}")
        if problems:
            print("agent_context: " + "; ".join(problems), file=sys.stderr)
            return 1
    except Failed as exc:
        print(f"agent_context: {exc}", file=sys.stderr)
        return 1
    finally:
        if app is not None:
            end_app(app)
        admin.stop()
        shutil.rmtree(work, ignore_errors=True)
    version = json.loads((ROOT / "bench/node_modules/@playwright/mcp/package.json").read_text())["version"]
    ours_requests = [input_tokens(r) for r in ours_fake.agent_requests]
    peer_requests = [input_tokens(r) for r in peer_fake.agent_requests]
    judge = [input_tokens(r) for r in ours_fake.requests if not r.get("tools")]
    report(ours_lists, peer_list, mine, theirs, ours_requests, peer_requests, sum(judge), version)
    print("\nboth sides placed the order; the shop received", json.dumps(ORDER))
    return 0


def main() -> int:
    return asyncio.run(run())


if __name__ == "__main__":
    sys.exit(main())
