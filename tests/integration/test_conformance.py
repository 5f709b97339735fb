"""BrowserPilot files run as the original app runs them: one test per rule of the original's runner
(`RecordService.ts`), each a small document whose result follows from the original's code, run on real pages
in one app for the whole module. Assertions are on what a user would see: the run's outputs, the CSV's bytes,
what the server received."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.qt import running_app
from tests.support.server import LocalServer, Request, Response


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def chain(*nodes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]


def document(name: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]] | None = None,
             variables: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if variables is not None:
        nodes[0]["data"]["variables"] = variables
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges if edges is not None else chain(*nodes)}}}


def code(node_id: str, source: str, **inputs: list[str]) -> dict[str, Any]:
    return node(node_id, "code", code=source,
                variables=[{"variable": name, "value_selector": path} for name, path in inputs.items()])


POSTS = {1: ("Hello", ["first!", "welcome"]), 2: ("Second, post", ['he said "hi"']), 3: ("Empty", [])}


def posts_page(request: Request) -> Response:
    links = "".join(f'<li class=post><a href="/post?id={i}">{title}</a></li>' for i, (title, _) in POSTS.items())
    return Response(f"<title>Posts</title><ul>{links}</ul>")


def post_page(request: Request) -> Response:
    title, replies = POSTS[int(request.arg("id"))]
    items = "".join(f"<li class=reply>{text}</li>" for text in replies)
    return Response(f"<title>{title}</title><h1>{title}</h1><ul>{items}</ul>")


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as server:
        server.route("/posts", posts_page)
        server.route("/post", post_page)
        server.route("/blank", "<title>Blank</title><p>nothing</p>")
        server.route("/later", """<title>Later</title><p id=hidden style="display:none">in the DOM, hidden</p>
            <script>setTimeout(() => { const b = document.createElement('b'); b.id = 'late';
            document.body.append(b); }, 800); setTimeout(() => document.getElementById('go').remove(), 600)
            </script><i id=go>going</i>""")
        server.route("/echo", lambda r: Response(json.dumps({"method": r.method, "body": r.body.decode(),
                                                             "cookie": r.headers.get("cookie", "")}),
                                                 content_type="application/json",
                                                 headers=[("Access-Control-Allow-Origin", "*")]))
        server.route("/text", "plain words", content_type="text/plain")
        server.route("/number", "42", content_type="application/json")
        server.route("/set", "<title>Set</title>", headers=[("Set-Cookie", "sid=abc; Path=/"),
                                                             ("Set-Cookie", "hidden=h1; Path=/; HttpOnly")])
        yield server


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("conformance")) as shell:
        yield shell


def call(qtbot: QtBot, app: BrowserPilotApp, name: str, params: dict[str, Any], timeout: int = 60_000) -> dict[str, Any]:
    task = asyncio.ensure_future(app.registry.call(app.ctx, name, params))
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def run(qtbot: QtBot, app: BrowserPilotApp, doc: dict[str, Any], inputs: dict[str, Any] | None = None,
        expect_ok: bool = True) -> dict[str, Any]:
    result = call(qtbot, app, "workflow_run", {"workflow": doc, "inputs": inputs or {}})
    assert result["ok"] is expect_ok, result
    return result


# -- loops ---------------------------------------------------------------------------------------------------
def test_a_two_level_collection_writes_every_row_to_the_csv(qtbot: QtBot, app: BrowserPilotApp,
                                                           site: LocalServer) -> None:
    """Posts, then the replies of each post: each pass contributes its last output, so the CSV is full."""
    body = [node("open_post", "goto", url="{{#loop.item.href#}}"),
            node("replies", "script", source="""return {rows: [...document.querySelectorAll('.reply')]
                .map(li => [document.querySelector('h1').textContent, li.textContent])}""")]
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/posts")),
             node("posts", "script", source="return {list: [...document.querySelectorAll('.post a')]"
                                            ".map(a => ({href: a.href, title: a.textContent}))}"),
             node("each", "loop", mode="list", items_selector=["posts", "list"], nodes=body, edges=chain(*body)),
             code("flat", "return {rows: inputs.passes.flatMap(p => p.rows)}", passes=["each", "output"]),
             node("csv", "export", filename="re:plies", headers=["Post", "Reply"], rows_selector=["flat", "rows"]),
             node("end", "end", outputs=[{"variable": "count", "value_selector": ["flat", "rows", "length"]},
                                         {"variable": "last", "value_selector": ["replies", "rows"]}])]
    result = run(qtbot, app, document("Posts and replies", nodes))
    assert result["outputs"] == {"count": 3, "last": []}  # the inner nodes' last outputs stay readable
    path = Path(result["files"][0])
    assert path.name == "re_plies.csv"
    assert path.read_bytes() == ('\ufeffPost,Reply\r\nHello,first!\r\nHello,welcome\r\n'
                                 '"Second, post","he said ""hi"""').encode("utf-8")


def test_an_end_in_a_loop_body_collects_that_pass_and_every_entry_runs(qtbot: QtBot, app: BrowserPilotApp) -> None:
    body = [code("a", "return {a: inputs.i * 10}", i=["loop", "index"]),
            code("b", "return {b: inputs.item}", item=["loop", "item"]),
            node("inner_end", "end", outputs=[{"variable": "x", "value_selector": ["a", "a"]},
                                               {"variable": "y", "value_selector": ["b", "b"]}])]
    nodes = [node("start", "start"), code("items", "return {list: ['p', 'q']}"),
             node("each", "loop", mode="list", items_selector=["items", "list"], nodes=body,
                  edges=[{"source": "b", "target": "inner_end"}]),   # two entries: a, then b
             code("after", "return {n: inputs.n, loop: inputs.loop}", n=["each", "output"], loop=["loop", "index"])]
    result = run(qtbot, app, document("End in a loop", nodes))
    # No top-level end: the run's outputs are the last producing node's; `loop` stays readable after the loop.
    assert result["outputs"] == {"n": [{"x": 10, "y": "p"}, {"x": 20, "y": "q"}], "loop": 2}


def test_nested_loops_restore_the_outer_loop_and_list_max_is_checked(qtbot: QtBot, app: BrowserPilotApp) -> None:
    inner = node("inner", "loop", mode="list", items_selector=["rows", "inner"],
                 nodes=[code("pair", "return {v: inputs.outer + inputs.inner}", outer=["loop", "item"],
                             inner=["loop", "item"])])
    outer_body = [inner, code("seen", "return {item: inputs.item}", item=["loop", "item"])]
    nodes = [node("start", "start"), code("rows", "return {outer: ['A', 'B'], inner: ['x', 'y', 'z']}"),
             node("outer", "loop", mode="list", items_selector=["rows", "outer"], nodes=outer_body,
                  edges=chain(*outer_body)),
             node("end", "end", outputs=[{"variable": "passes", "value_selector": ["outer", "output"]}])]
    result = run(qtbot, app, document("Nested", nodes))
    assert result["outputs"]["passes"] == [{"item": "A"}, {"item": "B"}]  # `loop` is the outer's again
    too_many = json.loads(json.dumps(nodes))
    too_many[2]["data"]["nodes"][0]["data"]["max"] = 2
    failed = run(qtbot, app, document("Too many", too_many), expect_ok=False)
    assert failed["node"] == "inner" and "3 items, more than this loop's max of 2" in failed["error"]


def test_an_until_loop_that_never_holds_fails_after_40_passes(qtbot: QtBot, app: BrowserPilotApp) -> None:
    nodes = [node("start", "start"),
             node("spin", "loop", mode="until", nodes=[code("tick", "return {i: inputs.i}", i=["loop", "index"])],
                  until={"comparison_operator": "is", "variable_selector": ["tick", "i"], "value": "never"}),
             node("end", "end")]
    failed = run(qtbot, app, document("Never", nodes), expect_ok=False)
    assert failed["node"] == "spin" and "did not hold after 40 passes" in failed["error"]
    assert sum(1 for step in failed["run"]["trace"] if step["node"] == "tick") == 40


# -- the run -------------------------------------------------------------------------------------------------
def test_branches_run_in_turn_each_end_ends_its_branch_and_outputs_merge(qtbot: QtBot, app: BrowserPilotApp) -> None:
    nodes = [node("start", "start"), code("left", "return {l: 'L'}"), code("right", "return {r: 'R'}"),
             node("end1", "end", outputs=[{"variable": "left", "value_selector": ["left", "l"]}]),
             node("end2", "end", outputs=[{"variable": "right", "value_selector": ["right", "r"]}])]
    edges = [{"source": "start", "target": "left"}, {"source": "start", "target": "right"},
             {"source": "left", "target": "end1"}, {"source": "right", "target": "end2"}]
    result = run(qtbot, app, document("Branches", nodes, edges))
    assert result["outputs"] == {"left": "L", "right": "R"}
    assert [step["node"] for step in result["run"]["trace"]] == ["start", "left", "end1", "right", "end2"]


def test_sys_is_refreshed_after_every_node_and_the_envelope_is_the_originals(qtbot: QtBot, app: BrowserPilotApp,
                                                                            site: LocalServer) -> None:
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/posts")),
             node("click", "click", locator={"selector": "text=Second, post"}),
             code("where", "return {title: inputs.t, url: inputs.u}", t=["sys", "title"], u=["sys", "url"])]
    result = run(qtbot, app, document("Sys", nodes))
    assert result["outputs"] == {"title": "Second, post", "url": site.url("/post?id=2")}
    for key, value in {"ok": True, "title": "Second, post", "files": [], "takenOver": False}.items():
        assert result[key] == value and result["run"][key] == value
    assert "workflow" in result and result["run"]["status"] == "ok"
    failing = nodes[:2] + [node("missing", "click", locator={"selector": "#nope"}, timeout=1)]
    failed = run(qtbot, app, document("Fails", failing), expect_ok=False)
    assert failed["node"] == "missing" and failed["title"] == "Posts" and failed["takenOver"] is False
    # No capture was on, so there is no HAR (the original leaves `har` out then too).
    assert Path(failed["screenshot"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "har" not in failed
    assert failed["run"]["node"] == "missing" and failed["run"]["stoppedAt"] == "missing"
    record = call(qtbot, app, "run_read", {"runId": failed["run"]["id"]})["run"]
    assert record["ok"] is False and record["node"] == "missing" and record["error"]


def test_start_inputs_follow_the_originals_rules(qtbot: QtBot, app: BrowserPilotApp) -> None:
    variables = [{"variable": "name"}, {"variable": "count", "type": "number", "required": False},
                 {"variable": "flag", "type": "checkbox", "required": False}, {"variable": "when", "type": "datetime"}]
    nodes = [node("start", "start"),
             code("types", "return {name: typeof inputs.n, count: inputs.c, ctype: typeof inputs.c, flag: inputs.f}",
                  n=["input", "name"], c=["input", "count"], f=["input", "flag"])]
    doc = document("Inputs", nodes, variables=variables)
    result = run(qtbot, app, doc, {"name": 7, "count": "", "when": "2026-12-01 10:00", "extra": "column"})
    assert result["outputs"] == {"name": "string", "count": 0, "ctype": "number", "flag": ""}
    assert "ignored input(s) the workflow does not declare: extra" in result["run"]["notes"]
    missing = run(qtbot, app, doc, {"name": ""}, expect_ok=False)
    assert "the input 'name' is required" in missing["error"] and missing["run"]["trace"] == []


# -- loading -------------------------------------------------------------------------------------------------
def test_what_the_original_accepts_loads_with_warnings_and_runs(qtbot: QtBot, app: BrowserPilotApp,
                                                              site: LocalServer) -> None:
    nodes = [node("start", "start"),
             node("check", "if-else", cases=[{"case_id": "never", "conditions": []},
                                            {"case_id": "yes", "conditions": [
                                                {"comparison_operator": "not empty",
                                                 "variable_selector": ["sys", "env"]}]}]),
             node("put", "http-request", method="propfind", url=site.url("/echo"), body="x"),
             node("odd", "hover", target="#x"),
             node("end", "end", outputs=[{"variable": "method", "value_selector": ["put", "json", "method"]}])]
    edges = [{"id": "", "source": "start", "target": "check", "sourceHandle": ""},
             {"source": "check", "target": "put", "sourceHandle": "yes"},
             {"source": "check", "target": "odd"},  # no sourceHandle: never taken
             {"source": "put", "target": "end"}]
    doc = document("Lenient", nodes, edges, variables=[{"variable": "a b", "required": False},
                                                       {"variable": "t", "type": "time-range", "required": False}])
    written = call(qtbot, app, "workflow_write", {"workflow": doc})
    assert written["ok"] and any('unknown node type "hover"' in w for w in written["warnings"])
    assert any("graph.edges[2]: sourceHandle is missing" in w for w in written["warnings"])
    stored = call(qtbot, app, "workflow_read", {"name": "Lenient"})["workflow"]
    assert stored["workflow"]["graph"]["edges"][0]["id"] == "e0-start-check"
    assert stored["workflow"]["graph"]["nodes"][3]["data"] == {"type": "hover", "target": "#x"}  # kept as it came
    result = run(qtbot, app, doc)
    assert result["outputs"] == {"method": "PROPFIND"}
    reached = json.loads(json.dumps(doc))
    reached["workflow"]["graph"]["edges"][2]["sourceHandle"] = "yes"
    reached["workflow"]["graph"]["edges"].pop(1)
    failed = run(qtbot, app, reached, expect_ok=False)
    assert failed["node"] == "odd" and "node type 'hover' is not known" in failed["error"]


# -- node by node --------------------------------------------------------------------------------------------
def test_if_else_compares_text_forms_and_stops_at_the_first_false(qtbot: QtBot, app: BrowserPilotApp,
                                                                 site: LocalServer) -> None:
    def case(case_id: str, *conditions: dict[str, Any]) -> dict[str, Any]:
        return {"case_id": case_id, "conditions": list(conditions)}

    def cond(operator: str, path: list[str], value: Any = None) -> dict[str, Any]:
        return {"comparison_operator": operator, "variable_selector": path, "value": value}

    cases = [case("missing_not_evaluated", cond("is", ["v", "n"], "2"), cond("is", ["v", "nope"], "x")),
             case("numbers", cond("is", ["v", "n"], "1"), cond("is", ["v", "flag"], "true"),
                  cond("contains", ["v", "obj"], '"k":[1,2]'), cond("empty", ["v", "blank"]),
                  cond("not empty", ["v", "list"]), cond("empty", ["v", "none"]))]
    nodes = [node("start", "start"),
             code("v", "return {n: 1.0, flag: true, obj: {k: [1, 2]}, blank: '  ', list: [], none: null}"),
             node("check", "if-else", cases=cases), code("yes", "return {took: 'numbers'}")]
    edges = [{"source": "start", "target": "v"}, {"source": "v", "target": "check"},
             {"source": "check", "target": "yes", "sourceHandle": "numbers"}]
    assert run(qtbot, app, document("Text forms", nodes, edges))["outputs"] == {"took": "numbers"}
    bad = json.loads(json.dumps(nodes))
    bad[2]["data"]["cases"] = [case("x", cond("matches", ["v", "n"], "1"))]
    failed = run(qtbot, app, document("Unknown operator", bad, edges), expect_ok=False)
    assert failed["node"] == "check" and "'matches' is not known" in failed["error"]
    # A locator condition waits 3000 ms by default for an element that is in the DOM (visible or not).
    waits = [node("start", "start"), node("open", "goto", url=site.url("/later")),
             node("check", "if-else", cases=[case("late", {"comparison_operator": "locator",
                                                           "locator": {"selector": "#late"}})]),
             code("yes", "return {late: true}")]
    wait_edges = chain(*waits[:3]) + [{"source": "check", "target": "yes", "sourceHandle": "late"}]
    assert run(qtbot, app, document("Locator condition", waits, wait_edges))["outputs"] == {"late": True}


def test_extract_uses_javascript_regular_expressions(qtbot: QtBot, app: BrowserPilotApp) -> None:
    nodes = [node("start", "start"), code("t", "return {text: 'Order #12\\nOrder #34 b'}"),
             node("any", "extract", variable_selector=["t", "text"], pattern="Order[^]*?(\\d+) b", flags="m"),
             node("alt", "extract", variable_selector=["t", "text"], pattern="(x)|#(?<num>\\d+)", group=1),
             node("named", "extract", variable_selector=["t", "text"], pattern="#(?<num>\\d+)", group="num"),
             node("end", "end", outputs=[{"variable": "any", "value_selector": ["any", "value"]},
                                         {"variable": "alt", "value_selector": ["alt", "matches"]},
                                         {"variable": "named", "value_selector": ["named", "matches"]}])]
    result = run(qtbot, app, document("Extract", nodes))
    # [^] is JavaScript's "any character"; a group that did not take part falls back to the whole match.
    assert result["outputs"] == {"any": "34", "alt": ["#12", "#34"], "named": ["12", "34"]}
    nothing = json.loads(json.dumps(nodes[:3]))
    nothing[2]["data"]["pattern"] = "zzz"
    failed = run(qtbot, app, document("No match", nothing), expect_ok=False)
    assert failed["node"] == "any" and "matched nothing" in failed["error"]


def test_code_and_script_must_return_objects_and_a_script_navigation_settles(qtbot: QtBot, app: BrowserPilotApp,
                                                                            site: LocalServer) -> None:
    for kind, field in (("code", "code"), ("script", "source")):
        doc = document(f"Array {kind}", [node("start", "start"), node("bad", kind, **{field: "return [1, 2]"})])
        failed = run(qtbot, app, doc, expect_ok=False)
        assert failed["node"] == "bad" and "must return an object, not an array" in failed["error"]
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/blank")),
             node("go", "script", source=f"location.href = {json.dumps(site.url('/posts'))}; return {{}}"),
             node("title", "script", source="return {t: document.title}")]
    assert run(qtbot, app, document("Script navigates", nodes))["outputs"] == {"t": "Posts"}
    # The navigating script's own value survives its navigation (it is read before the old document goes).
    went = [node("start", "start"), node("open", "goto", url=site.url("/blank")),
            node("go", "script", source=f"location.href = {json.dumps(site.url('/posts'))}; return {{went: 1}}")]
    for _ in range(3):
        assert run(qtbot, app, document("Script navigates", went))["outputs"] == {"went": 1}


def test_http_request_in_the_page_sends_what_the_original_sends(qtbot: QtBot, app: BrowserPilotApp,
                                                               site: LocalServer) -> None:
    other = site.url("/echo").replace("127.0.0.1", "localhost")
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/set")),
             node("get", "http-request", url=site.url("/echo")),
             node("post", "http-request", method="post", url=site.url("/echo"), body={"data": "a={{#get.status_code#}}"}),
             node("obj", "http-request", method="PUT", url=site.url("/echo"), body={"not": "sent"}),
             node("text", "http-request", url=site.url("/text")),
             node("number", "http-request", url=site.url("/number")),
             node("cross", "http-request", method="POST", url=other, body="x"),
             code("out", "return {get: inputs.g, post: inputs.p, obj: inputs.o, text: inputs.t, number: inputs.n, "
                         "cross: inputs.c}", g=["get", "json"], p=["post", "json"], o=["obj", "json"],
                  t=["text", "json"], n=["number", "body"], c=["cross", "status_code"])]
    out = run(qtbot, app, document("HTTP in the page", nodes))["outputs"]
    assert out["get"] == {"method": "GET", "body": "", "cookie": "sid=abc; hidden=h1"}
    assert out["post"]["method"] == "POST" and out["post"]["body"] == "a=200"
    assert out["obj"] == {"method": "PUT", "body": "", "cookie": "sid=abc; hidden=h1"}
    assert out["text"] is None and out["number"] == "42"
    cross = [r for r in site.hits("/echo") if r.headers.get("host", "").startswith("localhost")]
    assert cross and "cookie" not in cross[-1].headers  # no cookies to another origin
    assert "json" not in call(qtbot, app, "workflow_run", {"workflow": document("Scalar", nodes[:2] + [nodes[6]])})[
        "outputs"]  # a body that parses to a scalar sets no json


def test_http_request_direct_obeys_the_policy_and_the_browsers_cookies(qtbot: QtBot, app: BrowserPilotApp,
                                                                      site: LocalServer) -> None:
    other = site.url("/echo").replace("127.0.0.1", "localhost")
    site.route("/hop", lambda r: Response("", status=302, headers=[("Location", other)]))
    site.route("/hop-blocked", lambda r: Response("", status=302, headers=[("Location", "http://blocked.test/x")]))
    env = call(qtbot, app, "env_create", {"name": "Direct"})
    env_id = env.get("env") or env["environment"]["id"]
    assert call(qtbot, app, "env_update", {"env": env_id, "blockedDomains": ["blocked.test"]})["ok"]
    tab = call(qtbot, app, "tab_open", {"env": env_id})["tabId"]
    call(qtbot, app, "page_navigate", {"tabId": tab, "url": site.url("/set")})
    assert call(qtbot, app, "net_start", {"tabId": tab})["ok"]
    nodes = [node("start", "start"), node("same", "http-request", url=site.url("/echo"), via="direct"),
             node("moved", "http-request", url=site.url("/hop"), via="direct"),
             node("end", "end", outputs=[{"variable": "same", "value_selector": ["same", "json", "cookie"]},
                                         {"variable": "moved", "value_selector": ["moved", "json", "cookie"]}])]
    result = call(qtbot, app, "workflow_run", {"workflow": document("Direct", nodes), "env": env_id, "tabId": tab})
    assert result["ok"], result
    # The browser's cookies (HttpOnly too) to the same host; none after the redirect to another host.
    assert sorted(result["outputs"]["same"].split("; ")) == ["hidden=h1", "sid=abc"]
    assert result["outputs"]["moved"] == ""
    listed = call(qtbot, app, "net_list", {"tabId": tab})["requests"]
    assert [r["url"] for r in listed if "/echo" in r["url"] or "/hop" in r["url"]] == [
        site.url("/echo"), site.url("/hop"), other]
    blocked = [node("start", "start"), node("hop", "http-request", url=site.url("/hop-blocked"), via="direct")]
    failed = call(qtbot, app, "workflow_run", {"workflow": document("Blocked", blocked), "env": env_id, "tabId": tab})
    assert not failed["ok"] and "blocked.test" in failed["error"] and "blockedDomains: blocked.test" in failed["error"]


def test_wait_means_present_in_the_dom_and_handoff_without_a_target_goes_on(qtbot: QtBot, app: BrowserPilotApp,
                                                                           site: LocalServer) -> None:
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/later")),
             node("hidden", "wait", locator={"selector": "#hidden"}, timeout=0),       # hidden, but present
             node("gone", "wait", locator={"selector": "#go"}, state="gone", timeout="5"),
             node("late", "wait", locator={"selector": "#late"}),
             node("tell", "handoff", message="Nothing to do"),
             code("after", "return {went_on: true}")]
    result = run(qtbot, app, document("Waits", nodes))
    assert result["outputs"] == {"went_on": True}
    control = call(qtbot, app, "tab_list", {})["tabs"]
    assert all(tab["control"] != "handoff" for tab in control)


def test_captcha_has_the_originals_output_and_an_unsolved_one_does_not_stop_the_run(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    site.route("/captcha", '<title>C</title><div class="geetest_panel">slide</div>')
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/captcha")),
             node("cap", "captcha", engine="auto", retries="2", timeout=1),
             code("after", "return {solved: inputs.s, attempts: inputs.a, skipped: inputs.k}",
                  s=["cap", "solved"], a=["cap", "attempts"], k=["cap", "skipped"])]
    assert run(qtbot, app, document("Captcha", nodes))["outputs"] == {"solved": False, "attempts": 1,
                                                                       "skipped": False}


def test_workflow_update_renames_in_place(qtbot: QtBot, app: BrowserPilotApp) -> None:
    first = call(qtbot, app, "workflow_write", {"workflow": document("Rename me", [node("start", "start")])})
    call(qtbot, app, "workflow_write", {"workflow": document("Taken", [node("start", "start")])})
    renamed = call(qtbot, app, "workflow_update", {"name": "Rename me", "rename": "Renamed"})
    assert renamed["ok"] and renamed["id"] == first["id"] and renamed["name"] == "Renamed"
    taken = call(qtbot, app, "workflow_update", {"name": "Renamed", "rename": "Taken"})
    assert not taken["ok"] and "already has that name" in taken["error"]
    assert not call(qtbot, app, "workflow_update", {"name": "Renamed"})["ok"]
    unknown = call(qtbot, app, "workflow_update", {"name": "Renamed", "removeNodes": ["ghost"]})
    assert not unknown["ok"] and "ghost" in unknown["error"]


PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def test_download_of_a_media_element_saves_its_source_through_the_environment(qtbot: QtBot, app: BrowserPilotApp,
                                                                             site: LocalServer) -> None:
    site.route("/pixel.png", lambda r: Response(PIXEL, content_type="image/png") if "sid=abc" in
               r.headers.get("cookie", "") else Response("no cookie", status=403))
    site.route("/gallery", '<title>Gallery</title><img id=pic src="/pixel.png" alt="a pixel">')
    nodes = [node("start", "start"), node("login", "goto", url=site.url("/set")),
             node("open", "goto", url=site.url("/gallery")),
             node("save", "download", locator={"selector": "#pic"}, savePath="pixel.png"),
             node("end", "end", outputs=[{"variable": "bytes", "value_selector": ["save", "bytes"]},
                                         {"variable": "path", "value_selector": ["save", "path"]}])]
    result = run(qtbot, app, document("Media", nodes))
    assert result["outputs"]["bytes"] == len(PIXEL)
    assert Path(result["outputs"]["path"]).read_bytes() == PIXEL and result["files"] == [result["outputs"]["path"]]


def test_a_click_at_a_templated_point_on_a_screenshot(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    site.route("/corner", '<title>Corner</title><body style="margin:0"><button style="position:fixed;left:0;top:0;'
                          'width:100px;height:60px" onclick="document.title = \'clicked\'">Go</button>')
    nodes = [node("start", "start"), code("pos", "return {x: 180, y: 100}"),  # (90, 50) in the viewport: on the button
             node("open", "goto", url=site.url("/corner")),
             # x/y are pixels on a screenshot twice the viewport's size, given as templates.
             node("tap", "click", x="{{#pos.x#}}", y="{{#pos.y#}}"),
             node("title", "script", source="return {t: document.title}")]
    size = call(qtbot, app, "page_script", {"source": "return [innerWidth, innerHeight]"})
    nodes[3]["data"].update(shotWidth=size["value"][0] * 2, shotHeight=str(size["value"][1] * 2))
    assert run(qtbot, app, document("Templated point", nodes))["outputs"] == {"t": "clicked"}


def test_a_run_is_a_job_followed_by_its_events(qtbot: QtBot, app: BrowserPilotApp) -> None:
    body = [code("step", "return {i: inputs.i}", i=["loop", "index"])]
    nodes = [node("start", "start"), code("slow", "await new Promise(r => setTimeout(r, 300)); return {list: [1, 2]}"),
             node("each", "loop", mode="list", items_selector=["slow", "list"], nodes=body),
             node("check", "if-else", cases=[{"case_id": "two", "conditions": [
                 {"comparison_operator": "is", "variable_selector": ["each", "index"], "value": "2"}]}]),
             code("yes", "return {done: 'yes'}")]
    edges = chain(*nodes[:4]) + [{"source": "check", "target": "yes", "sourceHandle": "two"}]
    seen: list[Any] = []
    assert app.ctx.runner is not None
    unsubscribe = app.ctx.runner.events.subscribe(seen.append)
    try:
        started = call(qtbot, app, "workflow_start", {"workflow": document("Job", nodes, edges)})
        assert started["ok"] and started["runId"].startswith("run-")
        run_id = started["runId"]
        early = call(qtbot, app, "run_events", {"runId": run_id})
        assert early["done"] is False  # it returned while the run goes on
        finished = call(qtbot, app, "run_wait", {"runId": run_id})
        assert finished["ok"] and finished["outputs"] == {"done": "yes"}
    finally:
        unsubscribe()
    events = call(qtbot, app, "run_events", {"runId": run_id})
    assert events["done"] is True
    kinds = [(e["kind"], e.get("node"), e.get("index"), e.get("status")) for e in events["events"]]
    assert kinds[0][0] == "run_started" and kinds[-1][:1] == ("run_finished",) and kinds[-1][3] == "ok"
    assert ("loop_pass", None, 1, None) in kinds and ("loop_pass", None, 2, None) in kinds
    assert [e["handle"] for e in events["events"] if e.get("node") == "check" and e["kind"] == "node_finished"] == ["two"]
    assert [e["output"] for e in events["events"] if e.get("node") == "slow" and e["kind"] == "node_finished"] == [
        {"list": [1, 2]}]
    assert [e.as_dict() for e in seen if e.run_id == run_id] == events["events"]  # subscribers saw the same
    later = call(qtbot, app, "run_events", {"runId": run_id, "since": events["events"][-2]["seq"]})
    assert [e["kind"] for e in later["events"]] == ["run_finished"]


def test_a_scroll_replays_its_distance(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    site.route("/tall", '<title>Tall</title><body style="margin:0"><div style="height:5000px">tall</div>')
    nodes = [node("start", "start"), node("open", "goto", url=site.url("/tall")),
             node("down", "scroll", direction="down", distance=250),
             node("where", "script", source="return {y: scrollY}")]
    assert run(qtbot, app, document("Scroll distance", nodes))["outputs"] == {"y": 250}  # not 60% of the view


SLOW_FEED = """<title>Feed</title><body style="margin:0"><ul id=feed></ul><script>
let next = 1, loading = false;
function more() {  // each page of the feed arrives 700 ms after the reader reached the end
  if (loading || next > 60) return;
  loading = true;
  setTimeout(() => {
    for (const end = next + 10; next < end; next++)
      document.getElementById('feed').insertAdjacentHTML('beforeend', `<li style="height:50px">Post ${next}</li>`);
    loading = false;
    if (document.documentElement.scrollHeight < innerHeight + 100) more();
  }, 700);
}
addEventListener('scroll', () => { if (innerHeight + scrollY > document.documentElement.scrollHeight - 100) more(); });
more();
</script>"""


def test_scrolling_until_an_item_waits_for_a_feed_that_loads_as_it_is_scrolled(qtbot: QtBot, app: BrowserPilotApp,
                                                                              site: LocalServer) -> None:
    site.route("/slow-feed", SLOW_FEED)
    tab = call(qtbot, app, "tab_open", {"url": site.url("/slow-feed")})["tabId"]
    found = call(qtbot, app, "page_scroll", {"tabId": tab, "until": {"xpath": "//li[.='Post 47']"}, "timeoutMs": 30_000})
    assert found["ok"], found
    shown = call(qtbot, app, "page_script", {"tabId": tab, "source":
                 "(r => r.top >= 0 && r.bottom <= innerHeight)([...document.querySelectorAll('li')][46]"
                 ".getBoundingClientRect())"})
    assert shown["value"] is True, shown
    # The end of a feed that has nothing more: a clear failure within the step's timeout, not a hang.
    missing = call(qtbot, app, "page_scroll", {"tabId": tab, "until": {"xpath": "//li[.='Post 99']"}, "timeoutMs": 3_000})
    assert not missing["ok"] and "the page ended after" in missing["error"], missing


STYLED_CHECKS = """<title>Checks</title><style>
  .box input { position: absolute; opacity: 0; width: 0; height: 0; margin: 0; }  /* drawn by the label instead */
  .box span::before { content: ''; display: inline-block; width: 14px; height: 14px; border: 1px solid #333; }
</style>
<label class=box><input type=checkbox id=public><span>Public</span></label>
<label class=box><input type=checkbox id=terms><span>I accept the <a href="/blank">terms</a></span></label>"""


def test_a_checkbox_the_page_draws_itself_is_clicked_through_its_label(qtbot: QtBot, app: BrowserPilotApp,
                                                                       site: LocalServer) -> None:
    site.route("/styled-checks", STYLED_CHECKS)
    tab = call(qtbot, app, "tab_open", {"url": site.url("/styled-checks")})["tabId"]
    assert call(qtbot, app, "page_click", {"tabId": tab, "locator": {"selector": "#public"}})["ok"]
    assert call(qtbot, app, "page_script", {"tabId": tab, "source": "public.checked"})["value"] is True
    # A label holding a link is not clicked in the input's stead: its middle might be the link.
    refused = call(qtbot, app, "page_click", {"tabId": tab, "locator": {"selector": "#terms"}, "timeoutMs": 1_000})
    assert not refused["ok"] and "is not visible" in refused["error"], refused
    assert call(qtbot, app, "page_script", {"tabId": tab, "source": "[location.pathname, terms.checked]"})["value"] \
        == ["/styled-checks", False]
