"""The page operations end to end, through the operations registry, on real pages of a local server."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.browser.control import TabControl
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import click_element, run_op, view_of
from tests.support.server import LocalServer, Request, Response

FORM = """<!doctype html><title>Order form</title>
<style>body{font:16px sans-serif} label{display:block;margin:6px 0}</style>
<script>
  window.trusted = 0; window.untrusted = 0;
  for (const type of ['click', 'keydown', 'input', 'mousedown']) {
    addEventListener(type, (e) => { if (e.isTrusted) trusted++; else untrusted++; }, true);
  }
</script>
<form id=f method=post action=/submit enctype=multipart/form-data>
  <label>First name <input name=first></label>
  <label>Last name <input name=last></label>
  <label>Email <input name=email type=email placeholder="you@example.com"></label>
  <label>City <input name=city data-testid=city></label>
  <label>Notes <textarea name=notes></textarea></label>
  <label>Nickname <input name=nick id=nick></label>
  <label>Size <select name=size><option value=s>Small</option><option value=m>Medium</option>
    <option value=l>Large</option></select></label>
  <label><input type=checkbox name=gift value=yes> Gift wrap</label>
  <label>Quantity <input type=range name=qty min=0 max=100 value=0 style="width:300px"></label>
  <label>Attachment <input type=file name=doc></label>
  <button type=submit>Place order</button>
</form>"""


def multipart_fields(request: Request) -> dict[str, Any]:
    from email.parser import BytesParser
    from email.policy import default

    header = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=default).parsebytes(header + request.body)
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        fields[name] = (part.get_filename(), payload) if part.get_filename() else payload.decode("utf-8")
    return fields


@pytest.fixture
def form_server(server: LocalServer) -> LocalServer:
    server.route("/form", FORM)
    server.route("/submit", lambda r: Response("<title>Thanks</title><h1 id=done>Order received</h1>"))
    return server


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def test_a_form_filled_like_a_person(qtbot: QtBot, shell: BrowserPilotApp, form_server: LocalServer,
                                     tmp_path: Path) -> None:
    attachment = tmp_path / "invoice.bin"
    attachment.write_bytes(bytes(range(256)) * 40)
    tab = ok(run_op(qtbot, shell, "tab_open", {"url": "about:blank"}))["tabId"]
    nav = ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": form_server.url("/form")}))
    assert nav["title"] == "Order form" and nav["status"] == 200 and nav["control"] == "agent"

    def call(name: str, **params: Any) -> dict[str, Any]:
        return ok(run_op(qtbot, shell, name, {"tabId": tab, **params}))

    call("page_type", locator={"selector": "label=First name"}, text="Zoë")
    call("page_type", locator={"xpath": "//input[@name='last']"}, text="山田")
    call("page_type", locator={"selector": "placeholder=you@example.com"}, text="zoe@example.com")
    call("page_paste", locator={"selector": "testid=city"}, text="Kraków 🚲")
    call("page_type", locator={"selector": "textarea"}, text="line one\nline two")
    call("page_type", locator={"selector": "#nick"}, text="zz")
    call("page_key", shortcut="ctrl+a")
    call("page_type", text="Z 👩‍💻")
    call("page_select", locator={"selector": "select"}, option="Large")
    call("page_click", locator={"selector": "role=checkbox[name=\"Gift wrap\"]"})
    call("page_drag", locator={"selector": "input[type=range]"}, dx=80)
    call("page_upload", locator={"selector": "input[type=file]"}, paths=[str(attachment)])
    qty = call("page_script", source="return document.querySelector('[name=qty]').value")["value"]
    assert int(qty) > 20
    call("page_click", locator={"selector": "text=Place order"}, until={"selector": "#done"})
    fields = multipart_fields(form_server.hits("/submit")[0])
    assert fields["first"] == "Zoë" and fields["last"] == "山田" and fields["email"] == "zoe@example.com"
    assert fields["city"] == "Kraków 🚲" and fields["notes"].replace("\r\n", "\n") == "line one\nline two"
    assert fields["nick"] == "Z 👩‍💻" and fields["size"] == "l" and fields["gift"] == "yes"
    assert fields["qty"] == qty
    assert fields["doc"] == ("invoice.bin", attachment.read_bytes())


def test_only_trusted_events_reach_the_page(qtbot: QtBot, shell: BrowserPilotApp, form_server: LocalServer) -> None:
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": form_server.url("/form")}))
    ok(run_op(qtbot, shell, "page_type", {"tabId": tab, "locator": {"selector": "[name=first]"}, "text": "abc"}))
    ok(run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"selector": "text=Gift wrap"}}))
    chosen = ok(run_op(qtbot, shell, "page_select", {"tabId": tab, "locator": {"selector": "select"},
                                                     "option": "m"}))
    assert chosen["text"] == "Medium" and "method" not in chosen  # chosen with trusted keys
    chosen = ok(run_op(qtbot, shell, "page_select", {"tabId": tab, "locator": {"selector": "select"},
                                                     "option": "Small"}))
    assert chosen["value"] == "s" and "method" not in chosen
    counts = ok(run_op(qtbot, shell, "page_script", {"tabId": tab, "source": "return [trusted, untrusted]"}))["value"]
    assert counts[0] >= 8 and counts[1] == 0


def test_navigation_results_and_failures(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/fine", "<title>Fine</title>")
    server.route("/missing", "<title>Missing</title>", status=404)
    server.route("/broken", "<title>Broken</title><p>oops", status=503)
    server.route("/slow-dom", "<title>Slow</title><p>hi</p>")
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]

    def nav(url: str, **extra: Any) -> dict[str, Any]:
        return run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": url, **extra})

    assert ok(nav(server.url("/fine")))["status"] == 200
    missing = ok(nav(server.url("/missing")))
    assert missing["status"] == 404 and missing["title"] == "Missing"
    broken = nav(server.url("/broken"))
    assert not broken["ok"] and "HTTP 503" in broken["error"] and broken["status"] == 503
    assert Path(broken["errorShot"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    refused = nav(f"http://127.0.0.1:{port}/")
    assert not refused["ok"] and "refused" in refused["error"]
    dns = nav("http://no-such-host.invalid/", timeoutMs=20_000)
    assert not dns["ok"] and "DNS" in dns["error"]
    assert ok(nav(server.url("/slow-dom"), waitUntil="domcontentloaded"))["url"].endswith("/slow-dom")
    ok(nav(server.url("/fine")))
    assert ok(run_op(qtbot, shell, "page_back", {"tabId": tab}))["url"].endswith("/slow-dom")
    assert ok(run_op(qtbot, shell, "page_forward", {"tabId": tab}))["title"] == "Fine"
    assert ok(run_op(qtbot, shell, "page_reload", {"tabId": tab}))["status"] == 200


def test_tabs_and_unknown_names(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/a", "<title>A</title>")
    env = shell.envs.create("Second")
    first = ok(run_op(qtbot, shell, "tab_open", {"url": server.url("/a")}))["tabId"]
    second = ok(run_op(qtbot, shell, "tab_open", {"url": server.url("/a"), "env": env.id}))["tabId"]
    listed = ok(run_op(qtbot, shell, "tab_list", {}))["tabs"]
    assert {t["id"]: (t["env"], t["control"]) for t in listed} == {
        first: ("env-default", "agent"), second: (env.id, "agent")}
    assert [t["id"] for t in ok(run_op(qtbot, shell, "tab_list", {"env": env.id}))["tabs"]] == [second]
    ok(run_op(qtbot, shell, "tab_close", {"tabId": second}))
    gone = run_op(qtbot, shell, "page_reload", {"tabId": second})
    assert not gone["ok"] and f"no open tab with id '{second}'" in gone["error"]
    bad = run_op(qtbot, shell, "page_click", {"tabId": first, "css": "#x"})
    assert bad["error"].startswith("unknown parameter 'css' for page_click; valid parameters:")
    assert "locator" in bad["error"]


def test_errors_name_what_matched_and_carry_a_screenshot(qtbot: QtBot, shell: BrowserPilotApp,
                                                         server: LocalServer) -> None:
    server.route("/p", """<title>P</title><a href=/p2>Next</a> <button>Next</button>
      <div style="position:fixed;inset:0;background:rgba(0,0,0,.3)" class="modal-backdrop"></div>
      <button id=under>Under</button>""")
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/p")}))
    many = run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"selector": "text=Next"}, "timeoutMs": 300})
    assert not many["ok"]
    assert many["error"].startswith('2 elements match "text=Next": <a href=/p2>Next</a>, <button>Next</button>')
    covered = run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"selector": "#under"}, "timeoutMs": 300})
    assert 'covered by <div class="modal-backdrop">' in covered["error"]
    assert Path(covered["errorShot"]).exists() and covered["control"] == "agent"
    none = run_op(qtbot, shell, "page_wait", {"tabId": tab, "locator": {"selector": "#nope"}, "timeoutMs": 200})
    assert not none["ok"] and 'no element matches "#nope"' in none["error"]


def test_dialogs_and_popups_are_reported(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/d", """<title>D</title>
      <button id=a onclick="alert('Saved!'); document.title = confirm('Sure?') ? 'yes' : 'no'">Alert</button>
      <a id=pop href=/other target=_blank>Pop</a>""")
    server.route("/other", "<title>Other</title>")
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/d")}))
    # Dialogs and popups are answered on the way and reported in this result or the next one.
    clicked = ok(run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"selector": "#a"}}))
    qtbot.waitUntil(lambda: view_of(shell, tab).title() == "yes")  # confirm was accepted by the policy
    following = ok(run_op(qtbot, shell, "page_query", {"tabId": tab, "locator": {"selector": "#a"}}))
    dialogs = clicked.get("dialogs", []) + following.get("dialogs", [])
    assert [(d["type"], d["message"]) for d in dialogs] == [("alert", "Saved!"), ("confirm", "Sure?")]
    popped = ok(run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"selector": "#pop"}}))
    qtbot.waitUntil(lambda: len(shell.service.list_tabs()) == 2)
    following = ok(run_op(qtbot, shell, "page_query", {"tabId": tab, "locator": {"selector": "#a"}}))
    new_tabs = popped.get("newTabs", []) + following.get("newTabs", [])
    assert len(new_tabs) == 1 and new_tabs[0] != tab
    assert view_of(shell, new_tabs[0]).env_id == "env-default"


def test_snapshot_refs_script_errors_and_captures(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/s", """<title>Snap</title><h1>Shop</h1><nav><a href=/s?page=2>Page 2</a></nav>
      <button onclick="document.title='clicked'">Buy now</button>""")
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/s")}))
    snap = ok(run_op(qtbot, shell, "page_snapshot", {"tabId": tab}))["snapshot"]
    line = next(line for line in snap.splitlines() if "Buy now" in line)
    ref = line.split("[ref=")[1].split("]")[0]
    ok(run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"ref": ref}}))
    qtbot.waitUntil(lambda: view_of(shell, tab).title() == "clicked")
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/s?x=1")}))
    stale = run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"ref": ref}, "timeoutMs": 300})
    assert not stale["ok"] and "take a new page_snapshot" in stale["error"]

    failed = run_op(qtbot, shell, "page_script", {"tabId": tab, "source": "const a = 1;\nnull.boom;\nreturn a"})
    assert not failed["ok"] and "(line 2)" in failed["error"] and "null" in failed["error"]
    value = ok(run_op(qtbot, shell, "page_script", {"tabId": tab, "args": {"n": 2},
                                                    "source": "await new Promise(r => setTimeout(r, 50));"
                                                              "return {double: args.n * 2, title: document.title}"}))
    assert value["value"] == {"double": 4, "title": "Snap"}

    shot = ok(run_op(qtbot, shell, "page_screenshot", {"tabId": tab}))
    assert Path(shot["path"]).read_bytes()[:4] == b"\x89PNG"
    element = ok(run_op(qtbot, shell, "page_screenshot", {"tabId": tab, "locator": {"selector": "h1"}}))
    assert element["width"] < shot["width"]
    pdf = ok(run_op(qtbot, shell, "page_pdf", {"tabId": tab, "headerFooter": True}))
    assert Path(pdf["path"]).read_bytes()[:5] == b"%PDF-"
    source = ok(run_op(qtbot, shell, "page_source", {"tabId": tab}))["html"]
    assert source.startswith("<!DOCTYPE html>") or "<h1>Shop</h1>" in source
    queried = ok(run_op(qtbot, shell, "page_query", {"tabId": tab, "locator": {"selector": "a"}}))
    assert queried["count"] == 1 and queried["elements"][0]["attrs"]["href"] == "/s?page=2"


def test_control_states_through_operations(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/h", """<title>H</title><button id=go onclick="setTimeout(() => {
        const b = document.createElement('button'); b.id = 'next'; b.textContent = 'Next';
        document.body.append(b); }, 400)">Solve</button>""")
    tab_id = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab_id, "url": server.url("/h")}))
    assert ok(run_op(qtbot, shell, "page_unlock", {"tabId": tab_id}))["control"] == "shared"
    assert ok(run_op(qtbot, shell, "page_lock", {"tabId": tab_id}))["control"] == "agent"
    # A person takes over: the next result says so, once.
    control = TabControl.of(view_of(shell, tab_id))
    control.take_over()
    first = ok(run_op(qtbot, shell, "page_query", {"tabId": tab_id, "locator": {"selector": "#go"}}))
    assert first["takenOver"] is True and first["control"] == "shared"
    assert "takenOver" not in ok(run_op(qtbot, shell, "page_query", {"tabId": tab_id, "locator": {"selector": "#go"}}))
    # Handoff returns at once; the next acting call waits for its target, then re-locks and acts.
    handed = ok(run_op(qtbot, shell, "page_handoff", {"tabId": tab_id, "message": "Please solve the puzzle"}))
    assert handed["control"] == "handoff" and control.state == "handoff"
    waiting = asyncio.ensure_future(shell.registry.call(shell.ctx, "page_click", {
        "tabId": tab_id, "locator": {"selector": "#next"}, "timeoutMs": 20_000}))
    qtbot.wait(300)
    assert not waiting.done() and control.state == "handoff"
    click_element(qtbot, view_of(shell, tab_id), "#go")  # the person does their step
    qtbot.waitUntil(waiting.done, timeout=20_000)
    assert ok(waiting.result())["control"] == "agent" and control.state == "agent"


def test_screenshots_leave_out_the_agent_overlay(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    from PySide6.QtGui import QImage

    server.route("/red", "<title>Red</title><style>html,body{margin:0;height:100%;background:#ff0000}</style>")
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/red")}))
    assert shell.service.list_tabs()[0].control == "agent"  # the overlay is up
    shot = ok(run_op(qtbot, shell, "page_screenshot", {"tabId": tab}))
    image = QImage(shot["path"])
    for x, y in ((5, 5), (image.width() // 2, image.height() // 2), (image.width() - 10, image.height() - 10)):
        color = image.pixelColor(x, y)
        assert (color.red(), color.green(), color.blue()) == (255, 0, 0), (x, y, color.name())
