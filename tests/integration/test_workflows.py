"""Workflows end to end on real pages: every node type, runs recorded, files on disk, control handed over."""

from __future__ import annotations

import asyncio
import csv
import logging
import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from pypdf import PdfReader
from pytestqt.qtbot import QtBot

from app.browser.control import TabControl
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import click_element, run_op, views
from tests.support.server import LocalServer, Request, Response

LOGIN = """<!doctype html><title>Login</title><form method=post action=/login>
<label>User <input name=user></label><label>Password <input name=password type=password></label>
<button>Sign in</button></form>"""

PRODUCTS = [(f"Widget {i}", f"{i * 3}.50") for i in range(1, 8)]


def list_page(page: int) -> str:
    rows = PRODUCTS[(page - 1) * 3: page * 3]
    items = "".join(f"<li class=item><span class=name>{n}</span> <span class=price>{p}</span></li>" for n, p in rows)
    more = f'<a id=next href="/list?page={page + 1}">Next</a>' if page * 3 < len(PRODUCTS) else "<p id=end>End</p>"
    return f"<!doctype html><title>Products {page}</title><h1>Page {page}</h1><ul>{items}</ul>{more}"


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def chain(*nodes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]


def document(name: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None,
             env_vars: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": env_vars or [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges if edges is not None else chain(*nodes)}}}


@pytest.fixture
def shop(server: LocalServer) -> LocalServer:
    def login(request: Request) -> Response:
        form = parse_qs(request.body.decode())
        ok = form.get("user") == ["alice"] and form.get("password") == ["s3cret!"]
        if not ok:
            return Response("<title>Login failed</title><p id=error>Wrong password</p>", status=401)
        return Response("<title>Dashboard</title><h1 id=welcome>Welcome alice</h1><a id=list href=/list?page=1>Products</a>",
                        headers=[("Set-Cookie", "session=alice; Path=/")])

    server.route("/", LOGIN)
    server.route("/login", login)
    server.route("/list", lambda r: Response(list_page(int(r.arg("page", "1")))))
    return server


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def login_and_scrape(shop: LocalServer) -> dict[str, Any]:
    start = node("start", "start", variables=[{"variable": "user", "type": "string"},
                                              {"variable": "password", "type": "secret"}])
    goto = node("open", "goto", url="{{#env.base#}}/")
    fill_user = node("user", "fill", locator={"selector": "label=User"}, text="{{#input.user#}}")
    fill_pass = node("pass", "fill", locator={"selector": "[name=password]"}, text="{{#input.password#}}",
                     entry="paste")
    submit = node("submit", "click", locator={"selector": "#nothing-here", "alternatives": [
        {"role": "button", "name": "Sign in"}]}, until={"selector": "#welcome"})
    welcome = node("welcome", "script", source="return {text: document.querySelector('#welcome').textContent}",
                   outputs={"text": {"type": "string"}})
    who = node("who", "extract", variable_selector=["welcome", "text"], pattern=r"Welcome (\w+)")
    to_list = node("tolist", "click", locator={"selector": "#list"})
    pages = node("pages", "loop", mode="until", max=10,
                 until={"comparison_operator": "is", "variable_selector": ["more", "case"], "value": "false"},
                 nodes=[node("rows", "script", source="""await new Promise(r => setTimeout(r, 20));
return {rows: [...document.querySelectorAll('.item')].map(li => [li.querySelector('.name').textContent,
  li.querySelector('.price').textContent])}""", outputs={"rows": {"type": "array"}}),
                        node("more", "if-else", cases=[{"case_id": "has_next", "conditions": [
                            {"comparison_operator": "locator", "locator": {"selector": "#next"}, "timeoutMs": 200}]}]),
                        node("next", "click", locator={"selector": "text=Next"}),
                        node("stay", "wait", locator={"selector": "#end"}, state="appear", timeout="5")],
                 edges=[{"source": "rows", "target": "more"},
                        {"source": "more", "target": "next", "sourceHandle": "has_next"},
                        {"source": "more", "target": "stay", "sourceHandle": "false"}])
    collect = node("collect", "code", code="""const rows = [];
for (const pass of inputs.passes) rows.push(...pass.rows);  // a pass: its last output
return {rows, count: rows.length};""", variables=[{"variable": "passes", "value_selector": ["pages", "output"]}],
                   outputs={"rows": {"type": "array"}, "count": {"type": "number"}})
    csv_out = node("csv", "export", filename="products", headers=["Name", "Price"], rows_selector=["collect", "rows"])
    pdf_out = node("pdf", "export", filename="products", headers=["Name", "Price"], rows_selector=["collect", "rows"],
                   format="pdf")
    end = node("end", "end", outputs=[{"variable": "who", "value_selector": ["who", "value"]},
                                      {"variable": "count", "value_selector": ["collect", "count"]}])
    nodes = [start, goto, fill_user, fill_pass, submit, welcome, who, to_list, pages, collect, csv_out, pdf_out, end]
    return document("Scrape products", nodes, env_vars=[{"name": "base", "value": shop.url("").rstrip("/")}])


def test_a_workflow_logs_in_pages_through_a_list_and_exports(qtbot: QtBot, shell: BrowserPilotApp,
                                                            shop: LocalServer, data_dir: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="browserpilot")
    logging.getLogger("browserpilot").propagate = True
    doc = login_and_scrape(shop)
    saved = ok(run_op(qtbot, shell, "workflow_write", {"workflow": doc}))["workflow"]
    assert saved["id"].startswith("wf-") and saved["nodeCount"] == 17
    result = ok(run_op(qtbot, shell, "workflow_run", {"name": "Scrape products",
                                                      "inputs": {"user": "alice", "password": "s3cret!"}},
                       timeout=90_000))
    run = result["run"]
    assert run["status"] == "ok" and run["outputs"] == {"who": "alice", "count": 7}
    assert parse_qs(shop.hits("/login")[0].body.decode()) == {"user": ["alice"], "password": ["s3cret!"]}
    assert [r.arg("page") for r in shop.hits("/list")] == ["1", "2", "3"]
    submit = next(t for t in run["trace"] if t["node"] == "submit")
    assert submit["locator"] == "alternatives[0]"  # the CSS selector matched nothing; role+name did
    csv_path = next(Path(f) for f in run["files"] if f.endswith(".csv"))
    raw = csv_path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows == [["Name", "Price"], *[list(p) for p in PRODUCTS]]
    pdf_path = next(Path(f) for f in run["files"] if f.endswith(".pdf"))
    text = "".join(page.extract_text() for page in PdfReader(pdf_path).pages)
    assert "Widget 7" in text and "21.50" in text
    assert csv_path.parent == data_dir / "runs" / run["id"]
    # The secret never reaches the run store or the logs.
    assert run["inputs"]["password"] == "<secret:password>"
    shell.saves.flush()  # the stores write off the Qt thread; the file catches up
    assert "s3cret!" not in (data_dir / "runs.json").read_text("utf-8")
    assert "Scrape products ended ok" in caplog.text and "s3cret!" not in caplog.text  # nor do the logs
    listed = ok(run_op(qtbot, shell, "run_list", {}))["runs"]
    assert listed[0]["id"] == run["id"] and listed[0]["status"] == "ok"


def test_a_failing_node_is_named_with_a_screenshot(qtbot: QtBot, shell: BrowserPilotApp, shop: LocalServer) -> None:
    doc = document("Broken", [node("start", "start"), node("open", "goto", url=shop.url("/")),
                              node("missing", "click", title="Press the missing button",
                                   locator={"selector": "#does-not-exist"}, timeout=0.5),
                              node("end", "end")])
    result = run_op(qtbot, shell, "workflow_run", {"workflow": doc}, timeout=60_000)
    assert not result["ok"]
    run = result["run"]
    assert run["status"] == "failed" and run["stoppedAt"] == "missing"
    assert "node 'missing' (click 'Press the missing button')" in run["error"]
    assert 'no element matches "#does-not-exist"' in run["error"]
    shot = Path(run["screenshot"])
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.parent.name == run["id"]
    assert [t["ok"] for t in run["trace"]] == [True, True, False]


def test_if_else_cases_templates_and_missing_variables(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    branches = node("branch", "if-else", cases=[
        {"case_id": "small", "conditions": [{"comparison_operator": "<", "variable_selector": ["input", "n"],
                                             "value": "10"}]},
        {"case_id": "word", "conditions": [{"comparison_operator": "contains", "variable_selector": ["input", "s"],
                                            "value": "{{#env.needle#}}"}]}])
    nodes = [node("start", "start", variables=[{"variable": "n", "type": "number"},
                                               {"variable": "s", "type": "string", "required": False}]),
             branches,
             node("a", "code", code="return {label: 'small ' + inputs.n}", variables=[
                 {"variable": "n", "value_selector": ["input", "n"]}]),
             node("b", "code", code="return {label: 'word'}"),
             node("c", "code", code="return {label: 'else'}"),
             node("end", "end", outputs=[{"variable": "label", "value_selector": ["a", "label"]}]),
             node("end2", "end", outputs=[{"variable": "label", "value_selector": ["b", "label"]}]),
             node("end3", "end", outputs=[{"variable": "label", "value_selector": ["c", "label"]}])]
    edges = [{"source": "start", "target": "branch"},
             {"source": "branch", "target": "a", "sourceHandle": "small"},
             {"source": "branch", "target": "b", "sourceHandle": "word"},
             {"source": "branch", "target": "c", "sourceHandle": "false"},
             {"source": "a", "target": "end"}, {"source": "b", "target": "end2"}, {"source": "c", "target": "end3"}]
    doc = document("Branches", nodes, edges, env_vars=[{"name": "needle", "value": "apple"}])

    def label(inputs: dict[str, Any]) -> Any:
        return ok(run_op(qtbot, shell, "workflow_run", {"workflow": doc, "inputs": inputs}))["run"]["outputs"]["label"]

    assert label({"n": "3"}) == "small 3"
    assert label({"n": "30", "s": "pineapple"}) == "word"
    assert label({"n": "30", "s": "pear"}) == "else"
    bad = document("Missing", [node("start", "start"), node("x", "extract", variable_selector=["nowhere", "v"],
                                                             pattern="a"), node("end", "end")])
    failed = run_op(qtbot, shell, "workflow_run", {"workflow": bad})
    assert not failed["ok"] and "nowhere.v does not exist" in failed["error"]


def test_code_node_infinite_loop_is_stopped(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    doc = document("Spin", [node("start", "start"), node("spin", "code", code="while (true) {}", timeout=1),
                            node("after", "code", code="return {fine: typeof fetch === 'function' ? 'yes' : 'no'}"),
                            node("end", "end")])
    failed = run_op(qtbot, shell, "workflow_run", {"workflow": doc}, timeout=30_000)
    assert not failed["ok"] and "did not finish within 1 s and was stopped" in failed["error"]
    assert failed["run"]["stoppedAt"] == "spin"
    # The engine works again afterwards, and has no network.
    net = document("Net", [node("start", "start"), node("n", "code", code="""
try { await fetch('http://127.0.0.1:9/'); return {blocked: false}; } catch (e) { return {blocked: true}; }"""),
                           node("end", "end", outputs=[{"variable": "blocked", "value_selector": ["n", "blocked"]}])])
    assert ok(run_op(qtbot, shell, "workflow_run", {"workflow": net}))["run"]["outputs"] == {"blocked": True}


def test_nested_loops_list_inside_until(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    inner = node("inner", "loop", mode="list", items_selector=["letters", "list"],
                 nodes=[node("pair", "code", code="return {v: inputs.i + inputs.letter}", variables=[
                     {"variable": "i", "value_selector": ["outer", "index"]},
                     {"variable": "letter", "value_selector": ["loop", "item"]}])])
    outer = node("outer", "loop", mode="until", max=5,
                 until={"comparison_operator": "≥", "variable_selector": ["loop", "index"], "value": "2"},
                 nodes=[inner])
    nodes = [node("start", "start", variables=[{"variable": "letters", "type": "string"}]),
             node("letters", "code", code="return {list: inputs.text.split(',')}",
                  variables=[{"variable": "text", "value_selector": ["input", "letters"]}]), outer,
             # A pass's result is the output of its last node that produced one: the inner loop, then `pair`.
             node("flat", "code", code="return {all: inputs.o.flatMap(p => p.output.map(q => q.v))}",
                  variables=[{"variable": "o", "value_selector": ["outer", "output"]}]),
             node("end", "end", outputs=[{"variable": "all", "value_selector": ["flat", "all"]}])]
    doc = document("Nested", nodes)
    result = ok(run_op(qtbot, shell, "workflow_run", {"workflow": doc, "inputs": {"letters": "a,b"}}))
    assert result["run"]["outputs"]["all"] == ["1a", "1b", "2a", "2b"]


def test_handoff_resumes_when_the_next_target_appears(qtbot: QtBot, shell: BrowserPilotApp,
                                                      server: LocalServer) -> None:
    server.route("/h", """<title>Verify</title><button id=human onclick="setTimeout(() => {
        const b = document.createElement('button'); b.id = 'continue'; b.textContent = 'Continue';
        b.onclick = () => document.title = 'continued'; document.body.append(b); }, 200)">I am human</button>""")
    doc = document("Handoff", [node("start", "start"), node("open", "goto", url=server.url("/h")),
                               node("ask", "handoff", message="Please prove you are human"),
                               node("go", "click", locator={"selector": "#continue"}),
                               node("title", "script", source="return {t: document.title}"),
                               node("end", "end", outputs=[{"variable": "t", "value_selector": ["title", "t"]}])])
    task = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_run", {"workflow": doc}))
    qtbot.waitUntil(lambda: any(TabControl.of(t) and TabControl.of(t).state == "handoff" for t in views(shell)),
                    timeout=20_000)
    tab = next(t for t in views(shell) if TabControl.of(t).state == "handoff")
    assert TabControl.of(tab).message == "Please prove you are human"
    qtbot.wait(300)
    assert not task.done()
    click_element(qtbot, tab, "#human")  # the person's step
    qtbot.waitUntil(task.done, timeout=30_000)
    result = ok(task.result())
    assert result["run"]["outputs"] == {"t": "continued"} and TabControl.of(tab).state == "agent"


def test_captcha_is_handed_to_the_person(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/c", """<title>Captcha</title><div class="g-recaptcha" id=cap style="width:300px;height:80px;
        background:#eee"><button id=solve onclick="document.getElementById('cap').remove()">I'm not a robot</button>
        </div>""")
    server.route("/plain", "<title>Plain</title><p>nothing to solve</p>")
    doc = document("Captcha", [node("start", "start"), node("open", "goto", url="{{#input.url#}}"),
                               node("cap", "captcha", engine="auto", retries=3),
                               node("end", "end")])
    doc["workflow"]["graph"]["nodes"][0]["data"]["variables"] = [{"variable": "url", "type": "string"}]
    plain = ok(run_op(qtbot, shell, "workflow_run", {"workflow": doc, "inputs": {"url": server.url("/plain")}}))
    # An end without outputs: the run's outputs are the last producing node's (the original's rule).
    assert {k: plain["run"]["outputs"][k] for k in ("solved", "attempts", "skipped")} == \
        {"solved": True, "attempts": 0, "skipped": True}
    task = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_run", {
        "workflow": doc, "inputs": {"url": server.url("/c")}}))
    qtbot.waitUntil(lambda: any(TabControl.of(t).state == "handoff" for t in views(shell)), timeout=20_000)
    tab = next(t for t in views(shell) if TabControl.of(t).state == "handoff")
    click_element(qtbot, tab, "#solve")
    qtbot.waitUntil(task.done, timeout=30_000)
    out = ok(task.result())["run"]["outputs"]
    assert out["solved"] is True and out.get("handedOff") is True and "left to the person" in out["note"]
    assert TabControl.of(tab).state == "agent"


def test_take_over_pauses_and_resume_continues(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/t", "<title>T</title><button id=a onclick=\"document.title='a'\">A</button>"
                       "<button id=b onclick=\"document.title+='b'\">B</button>")
    doc = document("Pause", [node("start", "start"), node("open", "goto", url=server.url("/t")),
                             node("wait", "code", code="await new Promise(r => setTimeout(r, 600)); return {}"),
                             node("a", "click", locator={"selector": "#a"}),
                             node("b", "click", locator={"selector": "#b"}),
                             node("title", "script", source="return {t: document.title}"),
                             node("end", "end", outputs=[{"variable": "t", "value_selector": ["title", "t"]}])])
    task = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_run", {"workflow": doc}))
    qtbot.waitUntil(lambda: any(t.title() == "T" for t in views(shell)), timeout=20_000)
    tab = next(t for t in views(shell) if t.title() == "T")
    TabControl.of(tab).take_over()  # the person presses Take over while the code node waits
    qtbot.waitUntil(lambda: TabControl.of(tab).state == "handoff", timeout=20_000)
    assert "paused" in TabControl.of(tab).message
    qtbot.wait(200)
    assert not task.done()
    TabControl.of(tab).done()  # Resume
    qtbot.waitUntil(task.done, timeout=30_000)
    run = ok(task.result())["run"]
    assert run["outputs"] == {"t": "ab"} and run["takenOver"] is True


def test_busy_tab_and_cancel(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/slow", "<title>Slow</title>")
    doc = document("Slow", [node("start", "start"), node("open", "goto", url=server.url("/slow")),
                            node("sleep", "script", source="await new Promise(r => setTimeout(r, 20000)); return {}"),
                            node("end", "end")])
    task = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_run", {"workflow": doc}))
    qtbot.waitUntil(lambda: bool(shell.ctx.tab_holders), timeout=20_000)
    tab_id, run_id = next(iter(shell.ctx.tab_holders.items()))
    busy = run_op(qtbot, shell, "page_click", {"tabId": tab_id, "locator": {"selector": "body"}})
    assert not busy["ok"] and f"workflow run {run_id}" in busy["error"]
    second = run_op(qtbot, shell, "workflow_run", {"workflow": doc, "tabId": tab_id})
    assert not second["ok"] and f"busy: workflow run {run_id}" in second["error"]
    ok(run_op(qtbot, shell, "run_cancel", {"runId": run_id}))
    qtbot.waitUntil(task.done, timeout=20_000)
    assert task.result()["run"]["status"] == "cancelled"
    assert ok(run_op(qtbot, shell, "run_read", {"runId": run_id}))["run"]["status"] == "cancelled"
    assert not shell.ctx.tab_holders


def test_a_batch_runs_every_row_and_a_failure_does_not_stop_the_others(qtbot: QtBot, shell: BrowserPilotApp,
                                                                        server: LocalServer, tmp_path: Path) -> None:
    server.route("/echo", lambda r: Response(f"<title>{r.arg('q')}</title><input id=field>"))
    doc = document("Echo", [node("start", "start", variables=[{"variable": "q", "type": "string"}]),
                            node("open", "goto", url=server.url("/echo?q={{#input.q#}}")),
                            node("type", "fill", locator={"selector": "#field"}, text="{{#input.q#}}!"),
                            node("typed", "script", source="return {v: document.querySelector('#field').value}"),
                            node("check", "if-else", cases=[{"case_id": "bad", "conditions": [
                                {"comparison_operator": "is", "variable_selector": ["input", "q"], "value": "boom"}]}]),
                            node("fail", "wait", locator={"selector": "#never"}, timeout=0.3),
                            node("end", "end", outputs=[{"variable": "title", "value_selector": ["open", "title"]},
                                                        {"variable": "typed", "value_selector": ["typed", "v"]}])],
                   edges=[{"source": "start", "target": "open"}, {"source": "open", "target": "type"},
                          {"source": "type", "target": "typed"}, {"source": "typed", "target": "check"},
                          {"source": "check", "target": "fail", "sourceHandle": "bad"},
                          {"source": "check", "target": "end", "sourceHandle": "false"},
                          {"source": "fail", "target": "end"}])
    rows_file = tmp_path / "rows.csv"
    rows_file.write_text("q\r\none\r\ntwo\r\nboom\r\nfour\r\n", "utf-8")
    result = ok(run_op(qtbot, shell, "workflow_batch", {"workflow": doc, "rowsFile": str(rows_file),
                                                        "concurrency": 3}, timeout=120_000))
    assert (result["total"], result["succeeded"], result["failed"]) == (4, 3, 1), result["results"]
    by_row = {r["row"]: r for r in result["results"]}
    assert by_row[2]["status"] == "failed"
    assert [by_row[i]["outputs"]["title"] for i in (0, 1, 3)] == ["one", "two", "four"]
    # Typing worked in every tab of the window, front and background alike.
    assert [by_row[i]["outputs"]["typed"] for i in (0, 1, 3)] == ["one!", "two!", "four!"]
    assert sorted(r.arg("q") for r in server.hits("/echo")) == ["boom", "four", "one", "two"]


def test_a_failed_run_with_capture_on_keeps_a_har_without_secrets(qtbot: QtBot, shell: BrowserPilotApp,
                                                                  server: LocalServer) -> None:
    server.route("/form", "<title>F</title><input id=pw><script>fetch('/api?token=' + 'public')</script>")
    server.route("/api", '{"fine": true}', content_type="application/json")
    server.route("/echo", lambda r: Response(r.body or b"-", content_type="text/plain"))
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, shell, "net_start", {"tabId": tab}))
    doc = document("Capture", [
        node("start", "start", variables=[{"variable": "pw", "type": "secret"}]),
        node("open", "goto", url=server.url("/form")),
        node("type", "fill", locator={"selector": "#pw"}, text="{{#input.pw#}}"),
        node("send", "http-request", method="POST", url=server.url("/echo"), body="pw={{#input.pw#}}"),
        node("boom", "wait", locator={"selector": "#never"}, timeout=0.3),
        node("end", "end")])
    failed = run_op(qtbot, shell, "workflow_run", {"workflow": doc, "tabId": tab, "inputs": {"pw": "Hunter2-secret"}},
                    timeout=60_000)
    assert not failed["ok"] and failed["run"]["stoppedAt"] == "boom"
    har = Path(failed["run"]["har"])
    text = har.read_text("utf-8")
    assert json.loads(text)["log"]["entries"] and "/echo" in text
    assert "Hunter2-secret" not in text and "<secret:pw>" in text
    assert server.hits("/echo")[0].body == b"pw=Hunter2-secret"  # the page really sent it
