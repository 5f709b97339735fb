"""The original BrowserPilot's tools that we added, end to end through the operations registry on
real pages of a local server: env_export/env_import, tab groups, page_inspect/page_hit/page_watch,
page_cdp_batch, page_save_media (and page_download of media), net_mock/net_mock_off."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.pages import add_login_routes, cookies_of
from tests.support.qt import run_op, saved, window_of
from tests.support.server import LocalServer, Request, Response

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00\x01\x00\x08\x00data\x00\x00\x00\x00"


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


@pytest.fixture
def blocked_host() -> Iterator[LocalServer]:
    with LocalServer("127.0.0.2") as local:
        yield local


def open_tab(qtbot: QtBot, shell: BrowserPilotApp, url: str, env: str = "env-default") -> str:
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": url}))
    return tab


# -- env_export / env_import -------------------------------------------------------------------------------
def test_a_login_moves_to_a_new_environment(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                            tmp_path: Path) -> None:
    add_login_routes(server)
    tab = open_tab(qtbot, shell, server.url("/login?user=ann"))
    ok(run_op(qtbot, shell, "page_wait", {"tabId": tab, "locator": {"selector": "text=stored"}}))
    exported = ok(run_op(qtbot, shell, "env_export", {"env": "env-default"}))
    path = Path(exported["path"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.parent == shell.data.exports
    assert exported["cookies"] == 2 and exported["origins"] >= 1
    saved = json.loads(path.read_text())
    assert {c["name"]: c["value"] for c in saved["cookies"]} == {"sid": "ann-token", "pref": "ann-pref"}
    assert saved["localStorage"][server.url("")] == {"who": "ann"}
    assert "ann-token" not in json.dumps(exported)  # results carry the path and counts, never the login

    # Bad input: a clear error, and no environment is made.
    before = len(shell.envs.list())
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    failed = run_op(qtbot, shell, "env_import", {"path": str(broken)})
    assert not failed["ok"] and "not JSON" in failed["error"] and len(shell.envs.list()) == before
    assert "no file" in run_op(qtbot, shell, "env_import", {"path": str(tmp_path / "missing.json")})["error"]

    imported = ok(run_op(qtbot, shell, "env_import", {"path": str(path)}))
    assert imported["created"] and imported["cookies"] == 2 and imported["failed"] == 0
    target = imported["env"]
    assert shell.envs.get(target).name == "Default (imported)"
    server.requests.clear()
    tab_b = open_tab(qtbot, shell, server.url("/whoami"), env=target)
    # The server sees B's request logged in, and the page sees the local storage.
    assert cookies_of(server.hits("/whoami")[0]) == {"sid": "ann-token", "pref": "ann-pref"}
    stored = ok(run_op(qtbot, shell, "page_script", {"tabId": tab_b, "source": "return localStorage.getItem('who')"}))
    assert stored["value"] == "ann"

    # The original app's export format (Electron cookies) imports too, into an existing environment.
    other = ok(run_op(qtbot, shell, "env_create", {"name": "From the original"}))["environment"]["id"]
    original = tmp_path / "original.json"
    original.write_text(json.dumps({"name": "x", "exportedAt": 1, "cookies": [
        {"name": "sid", "value": "bob-token", "domain": "127.0.0.1", "hostOnly": True, "path": "/",
         "secure": False, "httpOnly": True, "sameSite": "lax", "expirationDate": 4102444800}]}))
    assert ok(run_op(qtbot, shell, "env_import", {"path": str(original), "env": other}))["cookies"] == 1
    server.requests.clear()
    open_tab(qtbot, shell, server.url("/whoami"), env=other)
    assert cookies_of(server.hits("/whoami")[0]) == {"sid": "bob-token"}


# -- tab groups ----------------------------------------------------------------------------------------------
def test_tab_groups_are_stored_and_drawn(qtbot: QtBot, windowed_shell: BrowserPilotApp, server: LocalServer) -> None:
    shell = windowed_shell  # groups are drawn in the environment window
    server.route("/a", "<title>A</title>")
    first = open_tab(qtbot, shell, server.url("/a"))
    second = open_tab(qtbot, shell, server.url("/a"))
    third = open_tab(qtbot, shell, server.url("/a"))
    group = ok(run_op(qtbot, shell, "group_create", {"name": "Research", "color": "green"}))
    assert group["env"] == "env-default" and group["color"] == "#188038"
    ok(run_op(qtbot, shell, "tab_group", {"tabId": first, "groupId": group["groupId"]}))
    ok(run_op(qtbot, shell, "tab_group", {"tabId": third, "groupId": group["groupId"]}))
    listed = ok(run_op(qtbot, shell, "group_list", {}))["groups"]
    assert [(g["name"], sorted(g["tabIds"])) for g in listed] == [("Research", sorted([first, third]))]

    window = window_of(shell, "env-default")
    order = [tab.tab_id for tab in window.tab_list()]
    assert abs(order.index(first) - order.index(third)) == 1  # grouped tabs sit together
    chip = window.findChild(QLabel, f"group-chip-{group['groupId']}")
    assert chip is not None and chip.text() == "Research"

    ok(run_op(qtbot, shell, "group_update", {"groupId": group["groupId"], "name": "Done", "color": "#abc"}))
    # The window follows the stores' change feed: the chip says it within a second.
    qtbot.waitUntil(lambda: window.findChild(QLabel, f"group-chip-{group['groupId']}").text() == "Done", timeout=1_000)
    saved(qtbot, shell)  # groups.json is written off the Qt thread
    stored = json.loads(shell.data.groups_json.read_text())
    assert stored["schema_version"] == 1 and stored["groups"][0]["color"] == "#aabbcc"

    bad = run_op(qtbot, shell, "group_update", {"groupId": group["groupId"], "color": "mauve"})
    assert not bad["ok"] and "colour" in bad["error"]
    assert json.loads(shell.data.groups_json.read_text()) == stored  # nothing lost
    assert not run_op(qtbot, shell, "tab_group", {"tabId": second, "groupId": "grp-nothere"})["ok"]
    other = ok(run_op(qtbot, shell, "env_create", {"name": "Other"}))["environment"]["id"]
    foreign = ok(run_op(qtbot, shell, "group_create", {"name": "Elsewhere", "env": other}))["groupId"]
    refused = run_op(qtbot, shell, "tab_group", {"tabId": second, "groupId": foreign})
    assert not refused["ok"] and other in refused["error"]
    ok(run_op(qtbot, shell, "tab_group", {"tabId": first}))
    listed = ok(run_op(qtbot, shell, "group_list", {"env": "env-default"}))["groups"]
    assert listed[0]["tabIds"] == [third]

    # The window's tab menu (Add to group, Remove from group) calls the same operation, typed (app/ui/op_runner.py).
    view = next(tab for tab in window.tab_list() if tab.tab_id == second)
    window._join(view, group["groupId"])
    qtbot.waitUntil(lambda: window._group_of(second) == group["groupId"], timeout=5_000)
    window._join(view, None)
    qtbot.waitUntil(lambda: window._group_of(second) is None, timeout=5_000)
    listed = ok(run_op(qtbot, shell, "group_list", {"env": "env-default"}))["groups"]
    assert listed[0]["tabIds"] == [third]


# -- inspect, hit, watch, cdp batch ------------------------------------------------------------------------
INSPECT_PAGE = """<!doctype html><title>Inspect</title>
<style>body{margin:0;font:16px sans-serif} #ghost{opacity:0.5}</style>
<main>
  <label>Email <input name=email placeholder="you@example.com"></label>
  <button data-testid=save class="primary big" style="margin:40px">Save changes</button>
  <button>Other</button>
  <p id=ghost>faint</p>
  <span id=ticker>0</span>
</main>
<script>
  let n = 0;
  setInterval(() => { document.getElementById('ticker').textContent = String(++n);
                      document.getElementById('ticker').dataset.n = n; }, 120);
</script>"""


def test_inspect_hit_watch_and_cdp_batch(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/inspect", INSPECT_PAGE)
    tab = open_tab(qtbot, shell, server.url("/inspect"))

    def call(name: str, **params: Any) -> dict[str, Any]:
        return run_op(qtbot, shell, name, {"tabId": tab, **params})

    found = ok(call("page_inspect", locator={"selector": "text=Save changes"}))
    assert found["tag"] == "button" and found["visible"] and found["attributes"]["class"] == "primary big"
    assert found["style"]["display"] != "none" and found["rect"]["width"] > 0
    alternatives = found["locator"]["alternatives"]
    assert {"role": "button", "name": "Save changes", "exact": True} in alternatives
    assert {"testid": "save"} in alternatives and any("xpath" in a for a in alternatives)
    # Every alternative finds exactly this element, through the same locator engines as every operation.
    for selector in [found["locator"]["selector"], 'role=button[name="Save changes"s]', 'testid="save"']:
        rows = ok(call("page_query", locator={"selector": selector}))
        assert rows["count"] == 1 and rows["elements"][0]["tag"] == "button"
    xpath = next(a["xpath"] for a in alternatives if "xpath" in a)
    assert ok(call("page_query", locator={"xpath": xpath}))["count"] == 1
    field = ok(call("page_inspect", locator={"selector": "input"}))
    assert {"label": "Email", "exact": True} in field["locator"]["alternatives"]
    assert ok(call("page_inspect", locator={"selector": "#ghost"}))["style"]["opacity"] == "0.5"
    many = call("page_inspect", locator={"selector": "button"})
    assert not many["ok"] and "2 elements" in many["error"]

    rect = found["rect"]
    hit = ok(call("page_hit", x=rect["x"] + rect["width"] / 2, y=rect["y"] + rect["height"] / 2))
    assert hit["tag"] == "button" and hit["text"] == "Save changes"
    assert ok(call("page_query", locator={"selector": hit["locator"]["selector"]}))["count"] == 1

    watched = ok(call("page_watch", locator={"selector": "#ticker"}, timeoutMs=1000, intervalMs=100))
    assert watched["changed"] and len(watched["changes"]) >= 3
    assert "text" in watched["changes"][0] and "data-n" in watched["changes"][0]["attributes"]
    first_change = ok(call("page_watch", locator={"selector": "#ticker"}, timeoutMs=5000, intervalMs=100,
                           stopOnChange=True))
    assert len(first_change["changes"]) == 1 and first_change["elapsedMs"] < 4000

    batch = ok(call("page_cdp_batch", commands=[
        {"method": "Runtime.evaluate", "params": {"expression": "window.step = 1; 6 * 7", "returnByValue": True}},
        {"method": "Runtime.evaluate", "params": {"expression": "document.title", "returnByValue": True}}]))
    assert [r["result"]["result"]["value"] for r in batch["results"]] == [42, "Inspect"] and batch["completed"]
    refused = call("page_cdp_batch", commands=[
        {"method": "Runtime.evaluate", "params": {"expression": "window.sent = 1"}},
        {"method": "Target.createTarget", "params": {"url": "about:blank"}}])
    assert not refused["ok"] and "nothing was sent" in refused["error"]
    assert ok(call("page_script", source="return window.sent === undefined"))["value"] is True
    stopped = ok(call("page_cdp_batch", commands=[{"method": "Nope.nothing"},
                                                  {"method": "Runtime.evaluate", "params": {"expression": "1"}}]))
    assert len(stopped["results"]) == 1 and not stopped["results"][0]["ok"] and not stopped["completed"]


# -- media ---------------------------------------------------------------------------------------------------
def media_page(blocked: str) -> str:
    wav = base64.b64encode(WAV).decode()
    return f"""<!doctype html><title>Media</title>
<img id=secret src=/secret.png width=20 height=20>
<audio id=sound controls src="data:audio/wav;base64,{wav}"></audio>
<img id=blob width=20 height=20>
<img id=elsewhere src="{blocked}" width=20 height=20>
<a id=link href=/secret.png download>link</a>
<script>
  document.getElementById('blob').src = URL.createObjectURL(new Blob(['blob bytes ✓'], {{type: 'text/plain'}}));
</script>"""


def test_media_is_saved_through_the_environments_network(qtbot: QtBot, shell: BrowserPilotApp,
                                                         server: LocalServer, blocked_host: LocalServer,
                                                         tmp_path: Path) -> None:
    add_login_routes(server)

    def secret(request: Request) -> Response:
        if cookies_of(request).get("sid") != "ann-token":
            return Response(b"who are you", status=403, content_type="text/plain")
        return Response(PNG, content_type="image/png")

    server.route("/secret.png", secret)
    blocked_host.route("/far.png", Response(PNG, content_type="image/png").body, content_type="image/png")
    server.route("/media", media_page(blocked_host.url("/far.png")))
    ok(run_op(qtbot, shell, "env_update", {"env": "env-default", "blockedDomains": ["127.0.0.2"]}))
    tab = open_tab(qtbot, shell, server.url("/login?user=ann"))
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/media")}))

    def call(name: str, **params: Any) -> dict[str, Any]:
        return run_op(qtbot, shell, name, {"tabId": tab, **params})

    target = tmp_path / "out" / "picture.png"
    saved = ok(call("page_save_media", locator={"selector": "#secret"}, savePath=str(target)))
    assert Path(saved["path"]) == target and target.read_bytes() == PNG and saved["mime"] == "image/png"
    assert cookies_of(server.hits("/secret.png")[-1])["sid"] == "ann-token"  # the environment's login applied

    downloaded = ok(call("page_download", locator={"selector": "#secret"}))
    assert Path(downloaded["path"]).read_bytes() == PNG and downloaded["bytes"] == len(PNG)
    assert set(downloaded) >= {"path", "name", "bytes", "mime"}
    assert Path(downloaded["path"]).parent == shell.data.downloads("env-default")

    sound = ok(call("page_save_media", locator={"selector": "#sound"}, savePath=str(tmp_path) + "/"))
    assert Path(sound["path"]).read_bytes() == WAV and sound["mime"] == "audio/wav"
    blob = ok(call("page_download", locator={"selector": "#blob"}))
    assert Path(blob["path"]).read_bytes() == "blob bytes ✓".encode()

    blocked = call("page_save_media", locator={"selector": "#elsewhere"})
    assert not blocked["ok"] and "127.0.0.2" in blocked["error"] and not blocked_host.hits("/far.png")
    not_media = call("page_save_media", locator={"selector": "#link"})
    assert not not_media["ok"] and "page_download" in not_media["error"]
    link = ok(call("page_download", locator={"selector": "#link"}))  # a link still downloads by clicking
    assert Path(link["path"]).read_bytes() == PNG


# -- net_mock ------------------------------------------------------------------------------------------------
MOCK_PAGE = """<!doctype html><title>Mock</title>
<div id=out></div>
<script>
  window.results = {};
  window.probe = async (far) => {
    const r = window.results;
    const f = await fetch('/api/data?via=fetch'); r.fetch = [f.status, await f.text(), f.headers.get('x-mock')];
    r.xhr = await new Promise((done) => { const x = new XMLHttpRequest(); x.open('GET', '/api/data?via=xhr');
      x.onload = () => done([x.status, x.responseText]); x.onerror = () => done(['error']); x.send(); });
    r.script = await new Promise((done) => { const s = document.createElement('script'); s.src = '/mocked.js';
      s.onload = () => done(window.scriptRan || 'loaded'); s.onerror = () => done('error'); document.head.append(s); });
    r.image = await new Promise((done) => { const i = new Image(); i.onload = () => done(i.naturalWidth);
      i.onerror = () => done('error'); i.src = '/mocked.svg'; });
    r.style = await new Promise((done) => { const l = document.createElement('link'); l.rel = 'stylesheet';
      l.href = '/mocked.css'; l.onload = () => done(getComputedStyle(document.getElementById('out')).color);
      l.onerror = () => done('error'); document.head.append(l); });
    r.frame = await new Promise((done) => { const f = document.createElement('iframe'); f.src = '/mocked.html';
      f.onload = () => done(f.contentDocument.body.textContent); document.body.append(f); });
    r.far = await fetch(far).then((x) => x.status, () => 'blocked');
    r.real = await fetch('/real').then((x) => x.text());
    return r;
  };
</script>"""


def test_net_mock_answers_matching_requests_of_every_kind(qtbot: QtBot, shell: BrowserPilotApp,
                                                          server: LocalServer, blocked_host: LocalServer) -> None:
    server.route("/mock", MOCK_PAGE)
    server.route("/real", "from the server", content_type="text/plain")
    server.route("/api/data", "real data", content_type="text/plain")
    ok(run_op(qtbot, shell, "env_update", {"env": "env-default", "blockedDomains": ["127.0.0.2"]}))
    tab = open_tab(qtbot, shell, server.url("/mock"))
    far = blocked_host.url("/api/data")
    rules = [
        {"urlContains": "/api/data", "status": 201, "body": '{"mocked": true}', "headers": {"X-Mock": "yes"}},
        {"urlContains": "/mocked.js", "body": "window.scriptRan = 'mocked script';",
         "headers": {"Content-Type": "text/javascript"}},
        {"urlContains": "/mocked.svg", "body": '<svg xmlns="http://www.w3.org/2000/svg" width="7" height="3"/>',
         "headers": {"Content-Type": "image/svg+xml"}},
        {"urlContains": "/mocked.css", "body": "#out { color: rgb(1, 2, 3) }", "headers": {"Content-Type": "text/css"}},
        {"urlContains": "/mocked.html", "body": "<body>mocked frame</body>", "headers": {"Content-Type": "text/html"}},
        {"urlContains": "/nowhere", "body": "<title>Mocked page</title>", "headers": {"Content-Type": "text/html"}},
    ]
    assert ok(run_op(qtbot, shell, "net_mock", {"tabId": tab, "rules": rules}))["rules"] == 6
    results = ok(run_op(qtbot, shell, "page_script", {"tabId": tab, "source": "return await probe(args)",
                                                      "args": far}))["value"]
    assert results["fetch"] == [201, '{"mocked": true}', "yes"] and results["xhr"] == [201, '{"mocked": true}']
    assert results["script"] == "mocked script" and results["image"] == 7
    assert results["style"] == "rgb(1, 2, 3)" and results["frame"] == "mocked frame"
    assert results["far"] == "blocked" and not blocked_host.requests  # the domain policy still applies first
    assert results["real"] == "from the server"
    for path in ("/api/data", "/mocked.js", "/mocked.svg", "/mocked.css", "/mocked.html"):
        assert not server.hits(path), path  # answered in the browser, never sent

    page = ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/nowhere")}))
    assert page["title"] == "Mocked page" and not server.hits("/nowhere")

    off = ok(run_op(qtbot, shell, "net_mock_off", {"tabId": tab}))
    assert off["answered"] >= 7 and off["refused"] == 0
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/mock")}))
    fetched = ok(run_op(qtbot, shell, "page_script", {"tabId": tab, "source":
                                                      "return await (await fetch('/api/data')).text()"}))
    assert fetched["value"] == "real data" and server.hits("/api/data")
