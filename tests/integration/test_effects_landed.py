"""Actions wait for the navigations they start, a run lets what is in flight land, and what does not land is
named (issue: a run is "ok" only when its effects landed). One app for the module; real pages on local servers.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import subprocess
import sys
import threading
from typing import Any, Iterator
from urllib.parse import parse_qs

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.qt import run_op, running_app
from tests.support.server import LocalServer, Request, Response
from tests.support.spa_saves import SaveSite, case_url


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("landed")) as shell:
        yield shell


@pytest.fixture(scope="module")
def release() -> Iterator[threading.Event]:
    """Set at the end of the module: requests that hang until then are answered."""
    event = threading.Event()
    yield event
    event.set()


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def document(name: str, *nodes: dict[str, Any]) -> dict[str, Any]:
    everything = [node("start", "start", variables=[]), *nodes, node("end", "end", outputs=[])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": everything, "edges": [{"source": a["id"], "target": b["id"]}
                                                                   for a, b in zip(everything, everything[1:])]}}}


@contextlib.contextmanager
def settle_time(app: BrowserPilotApp, seconds: float) -> Iterator[None]:
    """The app's settle bound (`settleSeconds`) for a while, then its default again."""
    app.settings.update(settle_seconds=seconds)
    try:
        yield
    finally:
        app.settings.update(settle_seconds=10.0)


def run(qtbot: QtBot, app: BrowserPilotApp, doc: dict[str, Any], timeout: int = 60_000) -> dict[str, Any]:
    result = run_op(qtbot, app, "workflow_run", {"workflow": doc}, timeout=timeout)
    return result.get("run") or result


# -- a click's navigation: committed, failed, or none --------------------------------------------------
def test_a_submit_into_a_navigation_the_policy_blocks_fails_naming_the_rule(qtbot: QtBot, app: BrowserPilotApp) -> None:
    with LocalServer() as shop, LocalServer("127.0.0.2") as other:
        shop.route("/form", f"<title>Form</title><form method=post action={other.url('/collect')}>"
                            "<input name=card value=4111><button id=send>Send</button></form>")
        env = ok(run_op(qtbot, app, "env_create", {"name": "Strict"}))["environment"]["id"]
        ok(run_op(qtbot, app, "env_update", {"env": env, "blockedDomains": ["127.0.0.2"]}))
        doc = document("Blocked", node("open", "goto", url=shop.url("/form")),
                       node("send", "click", locator={"selector": "#send"}))
        result = run_op(qtbot, app, "workflow_run", {"workflow": doc, "env": env}, timeout=60_000)
        assert not result["ok"]
        record = result["run"]
        assert record["status"] == "failed" and record["stoppedAt"] == "send"
        assert "blocked by the policy of" in record["error"] and "127.0.0.2" in record["error"]
        assert "blockedDomains" in record["error"]
        assert other.hits("/collect") == []


def test_an_http_error_answer_is_a_committed_navigation_and_a_refused_one_fails(qtbot: QtBot,
                                                                                 app: BrowserPilotApp) -> None:
    with LocalServer() as shop:
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            dead_url = f"http://127.0.0.1:{probe.getsockname()[1]}/gone"
        shop.route("/form", "<title>Form</title><form method=post action=/broken><button id=a>A</button></form>"
                            f"<form method=post action={dead_url}><button id=b>B</button></form>")
        shop.route("/broken", lambda r: Response("<title>Oops</title><h1 id=oops>Server error</h1>", status=500))
        answered = run(qtbot, app, document("Error page", node("open", "goto", url=shop.url("/form")),
                                            node("a", "click", locator={"selector": "#a"}),
                                            node("seen", "wait", locator={"selector": "#oops"}, state="appear")))
        assert answered["status"] == "ok", answered.get("error")
        assert [r.method for r in shop.hits("/broken")] == ["POST"]

        refused = run(qtbot, app, document("Refused", node("open", "goto", url=shop.url("/form")),
                                           node("b", "click", locator={"selector": "#b"})))
        assert refused["status"] == "failed" and refused["stoppedAt"] == "b"
        assert "refused" in refused["error"] and "/gone" in refused["error"]


def test_clicks_that_navigate_nowhere_do_not_wait(qtbot: QtBot, app: BrowserPilotApp) -> None:
    """A form the page submits by fetch (preventDefault), an SPA's pushState link, a fragment link and a download
    link start no cross-document navigation: each click is done at once and the run goes on."""
    with LocalServer() as site:
        site.route("/page", """<title>SPA</title>
<form id=ajax method=post action=/never><input name=q value=x><button id=save>Save</button></form>
<a id=spa href="/spa/next">Next</a> <a id=frag href="#part">Part</a> <a id=file href="/file.csv">CSV</a>
<p id=status></p><h2 id=part>Part</h2>
<script>
document.getElementById('ajax').addEventListener('submit', (e) => {
  e.preventDefault();
  fetch('/api/save', {method: 'POST', body: new FormData(e.target)})
    .then(() => { document.getElementById('status').textContent = 'saved'; });
});
document.getElementById('spa').addEventListener('click', (e) => {
  e.preventDefault(); history.pushState({}, '', '/spa/next'); document.getElementById('status').textContent = 'routed';
});
</script>""")
        site.route("/api/save", '{"ok": true}', content_type="application/json")
        site.route("/file.csv", "a,b\n1,2\n", content_type="text/csv",
                   headers=[("Content-Disposition", "attachment; filename=file.csv")])
        result = run(qtbot, app, document(
            "No navigation", node("open", "goto", url=site.url("/page")),
            node("save", "click", locator={"selector": "#save"}),
            node("saved", "wait", locator={"xpath": "//p[@id='status' and text()='saved']"}, state="appear"),
            node("spa", "click", locator={"selector": "#spa"}),
            node("frag", "click", locator={"selector": "#frag"}),
            node("file", "click", locator={"selector": "#file"}),
            node("where", "script", source="return {url: location.pathname + location.hash}")))
        assert result["status"] == "ok", result.get("error")
        assert result["outputs"] == {"url": "/spa/next#part"}
        assert site.hits("/never") == [] and len(site.hits("/api/save")) == 1
        slowest = max(entry["ms"] for entry in result["trace"] if entry["node"] in ("save", "spa", "frag", "file"))
        assert slowest < 5_000, result["trace"]  # no click waited out a navigation that never came


# -- what is in flight when a run ends, a tab closes, an environment goes ---------------------------------
ORDER_PAGE = """<title>Order</title><input id=name value=Ada>
<button id=api onclick="fetch('/api/order?n=' + Date.now(), {method: 'POST', body: document.getElementById('name').value})">Order</button>
<button id=hang onclick="fetch('/api/hang', {method: 'POST', body: 'x'}); navigator.sendBeacon('/api/beacon', 'b')">Hang</button>"""


@pytest.fixture(scope="module")
def orders(release: threading.Event) -> Iterator[LocalServer]:
    with LocalServer() as shop:
        counted: list[Request] = []

        def order(request: Request) -> Response:
            release.wait(0.8)  # a slow shop, that counts an order only if its client is still waiting
            if request.client_waiting():
                counted.append(request)
            return Response('{"ok": true}', content_type="application/json")

        shop.route("/order", ORDER_PAGE)
        shop.route("/api/order", order)
        shop.route("/api/hang", lambda r: (release.wait(120), Response("late"))[1])
        shop.route("/api/beacon", "")
        shop.counted = counted  # type: ignore[attr-defined]
        yield shop


def test_a_run_waits_for_the_fetch_its_last_click_fired_and_fails_naming_what_it_cut_off(
        qtbot: QtBot, app: BrowserPilotApp, orders: LocalServer) -> None:
    done = run(qtbot, app, document("Order by API", node("open", "goto", url=orders.url("/order")),
                                    node("api", "click", locator={"selector": "#api"})))
    assert done["status"] == "ok" and done.get("pendingAtEnd", []) == []
    assert len(orders.counted) == 1  # type: ignore[attr-defined]

    with settle_time(app, 0.5):
        cut = run(qtbot, app, document("Hang", node("open", "goto", url=orders.url("/order")),
                                       node("hang", "click", locator={"selector": "#hang"})))
    # The last click's own request was cut off: the run does not end "ok", it names what it was waiting for.
    assert cut["status"] == "failed" and cut["error"].startswith("what the last action started did not finish")
    assert f"POST {orders.url('/api/hang')} (fetch" in cut["error"]
    pending = cut["pendingAtEnd"]
    assert [(item["kind"], item["method"], item["url"], item["lastAction"]) for item in pending] == [
        ("fetch", "POST", orders.url("/api/hang"), True)], pending
    assert pending[0]["tabId"] == cut["tabId"] and pending[0]["ms"] >= 500
    assert any("still in flight" in note for note in cut["notes"])


def test_a_request_the_page_started_before_the_last_action_is_listed_but_does_not_fail_the_run(
        qtbot: QtBot, app: BrowserPilotApp, release: threading.Event) -> None:
    """A long-poll the page keeps open from its load (news, presence) is not the last action's: cut off at the
    bound, it is listed (lastAction false) and the run is "ok"."""
    with LocalServer() as site:
        site.route("/page", "<title>Feed</title><button id=noop onclick=\"this.textContent = 'pressed'\">Press</button>"
                            "<script>fetch('/api/poll')</script>")
        site.route("/api/poll", lambda r: (release.wait(120), Response("late"))[1])
        with settle_time(app, 1.0):
            done = run(qtbot, app, document("Feed", node("open", "goto", url=site.url("/page")),
                                            node("press", "click", locator={"selector": "#noop"})))
    assert done["status"] == "ok", done.get("error")
    assert [(item["kind"], item["method"], item["url"], item["lastAction"]) for item in done["pendingAtEnd"]] == [
        ("fetch", "GET", site.url("/api/poll"), False)]


def test_tab_close_right_after_a_click_lets_the_save_it_sends_a_moment_later_land(
        qtbot: QtBot, app: BrowserPilotApp) -> None:
    with SaveSite() as site:
        opened = ok(run_op(qtbot, app, "tab_open", {"url": case_url(site, "delayed")}))
        tab = opened["tabId"]
        ok(run_op(qtbot, app, "page_type", {"tabId": tab, "locator": {"selector": "#who"}, "text": "closing"}))
        ok(run_op(qtbot, app, "page_click", {"tabId": tab, "locator": {"selector": "#save"}}))
        closed = ok(run_op(qtbot, app, "tab_close", {"tabId": tab}))
        assert "pending" not in closed
        assert site.saves("closing") == ["delayed"]


def test_a_service_workers_request_and_another_sites_frames_request_land_before_the_run_ends(
        qtbot: QtBot, app: BrowserPilotApp) -> None:
    """The last click hands the save to the page's service worker, or to a frame of another site: the run ends
    only once the server has it (it stores a save after 0.6 s, when its client is still there)."""
    with LocalServer() as shop, LocalServer("127.0.0.2") as other:
        stored: list[str] = []

        def save(request: Request) -> Response:
            threading.Event().wait(0.6)
            if request.client_waiting():
                stored.append(request.body.decode())
            return Response("ok")

        shop.route("/sw.js", "self.addEventListener('message', (event) => {\n"
                             "  event.waitUntil(fetch('/save', {method: 'POST', body: event.data}));\n});",
                   content_type="text/javascript")
        shop.route("/save", save)
        shop.route("/offline", "<title>Notes</title><script>navigator.serviceWorker.register('/sw.js');\n"
                               "navigator.serviceWorker.ready.then((ready) => {  // the app works once it is ready\n"
                               "  const save = document.createElement('button'); save.id = 'save'; save.textContent = "
                               "'Save';\n  save.onclick = () => ready.active.postMessage('by the service worker');\n"
                               "  document.body.append(save);\n});</script>")
        other.route("/widget", "<script>addEventListener('message', (event) => "
                               "fetch('/save', {method: 'POST', body: event.data}))</script>")
        other.route("/save", save)
        shop.route("/embed", f"<title>Embed</title><iframe src={other.url('/widget')}></iframe><button id=save "
                             "onclick=\"frames[0].postMessage('by the other site', '*')\">Save</button>")
        for path, body in (("/offline", "by the service worker"), ("/embed", "by the other site")):
            done = run(qtbot, app, document("Save", node("open", "goto", url=shop.url(path)),
                                            node("save", "click", locator={"selector": "#save"})))
            assert done["status"] == "ok" and done.get("pendingAtEnd", []) == [], done.get("error")
            assert stored[-1:] == [body], f"{path}: stored {stored} when the run ended"


def _click_api(qtbot: QtBot, app: BrowserPilotApp, env: str | None, orders: LocalServer) -> str:
    opened = ok(run_op(qtbot, app, "tab_open", {"url": orders.url("/order"), **({"env": env} if env else {})}))
    ok(run_op(qtbot, app, "page_wait", {"tabId": opened["tabId"], "locator": {"selector": "#api"}}))
    ok(run_op(qtbot, app, "page_click", {"tabId": opened["tabId"], "locator": {"selector": "#api"}}))
    return str(opened["tabId"])


def test_tab_close_and_env_delete_right_after_a_click_let_its_request_land(
        qtbot: QtBot, app: BrowserPilotApp, orders: LocalServer) -> None:
    counted: list[Request] = orders.counted  # type: ignore[attr-defined]
    before = len(counted)
    tab = _click_api(qtbot, app, None, orders)
    closed = ok(run_op(qtbot, app, "tab_close", {"tabId": tab}))
    assert "pending" not in closed
    assert len(counted) == before + 1

    env = ok(run_op(qtbot, app, "env_create", {"name": "Short-lived"}))["environment"]["id"]
    _click_api(qtbot, app, env, orders)
    ok(run_op(qtbot, app, "env_delete", {"env": env}))
    assert len(counted) == before + 2


def test_page_settle_reports_what_is_still_in_flight(qtbot: QtBot, app: BrowserPilotApp, orders: LocalServer) -> None:
    opened = ok(run_op(qtbot, app, "tab_open", {"url": orders.url("/order")}))
    tab = opened["tabId"]
    ok(run_op(qtbot, app, "page_wait", {"tabId": tab, "locator": {"selector": "#hang"}}))
    ok(run_op(qtbot, app, "page_click", {"tabId": tab, "locator": {"selector": "#hang"}}))
    waited = ok(run_op(qtbot, app, "page_settle", {"tabId": tab, "timeoutMs": 300}))
    assert waited["settled"] is False
    assert {(item["kind"], item["url"]) for item in waited["pending"]} >= {("fetch", orders.url("/api/hang"))}
    assert all(item["kind"] != "beacon" for item in waited["pending"])  # the beacon was answered at once
    ok(run_op(qtbot, app, "tab_close", {"tabId": tab}))  # (waits the settle time: the hang stays pending)


# -- a recorded flow on a shop that regenerates ids, on a busy machine ------------------------------------
def _random_id() -> str:
    return "f" + secrets.token_hex(4)


def _label_field(label: str, name: str, kind: str = "text") -> str:
    field_id = _random_id()
    return f'<label for={field_id}>{label}</label><input id={field_id} name={name} type={kind}>'


@pytest.fixture(scope="module")
def regenerating_shop() -> Iterator[LocalServer]:
    with LocalServer() as shop:
        shop.orders = []  # type: ignore[attr-defined]

        def login(request: Request) -> Response:
            threading.Event().wait(0.25)  # the login takes a moment, then redirects
            return Response("", status=302, headers=[("Location", "/account"), ("Set-Cookie", "who=alice; Path=/")])

        def place(request: Request) -> Response:
            shop.orders.append(parse_qs(request.body.decode()))  # type: ignore[attr-defined]
            return Response("<title>Thanks</title><h1 id=thanks>Thanks</h1>")

        shop.route("/login", lambda r: login(r) if r.method == "POST" else Response(
            "<title>Login</title><form method=post action=/login>" + _label_field("Username", "user")
            + _label_field("Password", "pw", "password") + "<button>Sign in</button></form>"))
        shop.route("/account", lambda r: Response("<title>Account</title><h1>Your account</h1>"))
        shop.route("/form", lambda r: Response(
            "<title>Order</title><form method=post action=/place>" + _label_field("Full name", "name")
            + "<button>Place order</button></form>"))
        shop.route("/place", place)
        yield shop


def _by_label(label: str) -> dict[str, str]:
    return {"xpath": f'//input[@id=//label[normalize-space(.)="{label}"]/@for]'}


def test_a_recorded_login_then_goto_flow_passes_ten_of_ten_on_a_busy_machine(
        qtbot: QtBot, app: BrowserPilotApp, regenerating_shop: LocalServer) -> None:
    shop = regenerating_shop
    doc = document("Login then order",
                   node("login", "goto", url=shop.url("/login")),
                   node("user", "fill", locator=_by_label("Username"), text="alice"),
                   node("pw", "fill", locator=_by_label("Password"), text="secret"),
                   node("enter", "press", shortcut="enter"),
                   node("form", "goto", url=shop.url("/form")),
                   node("name", "fill", locator=_by_label("Full name"), text="Alice Liddell", timeout=5),
                   node("place", "click", locator={"xpath": "//button[normalize-space(.)='Place order']"}),
                   node("thanks", "wait", locator={"selector": "#thanks"}, state="appear"))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        results = [run(qtbot, app, doc) for _ in range(10)]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert [r["status"] for r in results] == ["ok"] * 10, [r.get("error") for r in results]
    assert shop.orders == [{"name": ["Alice Liddell"]}] * 10  # type: ignore[attr-defined]
    logins = [r.path for r in shop.requests if r.path in ("/login", "/account", "/form")]
    # Each run: GET /login, POST /login, GET /account (the login's redirect), then GET /form, in that order.
    assert logins == ["/login", "/login", "/account", "/form"] * 10


def test_a_goto_without_a_scheme_loads_the_address_or_fails_naming_it(qtbot: QtBot, app: BrowserPilotApp) -> None:
    """The original's 打开网页 workflow with `127.0.0.1:PORT/products`: loaded as the address bar would, never an
    "ok" on about:blank."""
    with LocalServer() as site:
        site.route("/products", "<title>Products</title><h1>Products</h1>")
        bare = site.url("/products").removeprefix("http://")
        loaded = run(qtbot, app, document("打开网页", node("open", "goto", url=bare),
                                          node("read", "script", source="return {h1: document.querySelector('h1').textContent}")))
        assert loaded["status"] == "ok", loaded.get("error")
        assert loaded["outputs"] == {"h1": "Products"} and len(site.hits("/products")) == 1
        wrong = run(qtbot, app, document("Not an address", node("open", "goto", url="products page")))
        assert wrong["status"] == "failed" and "'products page' is not an address" in wrong["error"]
