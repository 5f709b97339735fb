"""A run is "ok" only when its effects landed: the last submit of a fresh `browserpilot run` process, or of an
agent's task, reaches the server before the process ends (issue: "the last submit is lost when a run ends").

Each case is a workflow whose last page node starts something the server must receive (a form post by a click,
by Enter, by `form.submit()` in a script, a `fetch` fired by a click). The shop answers slowly and, like a server
that rolls back an order whose client went away, counts an order only when its client is still there for the
answer: a process that quits right after the action loses it; the test asserts the orders the shop counted.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.app_process import app_env, run_cli
from tests.support.fake_anthropic import FakeAnthropic, Reply, tool
from tests.support.server import LocalServer, Request, Response

pytestmark = pytest.mark.e2e

SLOW = 0.6  # seconds the shop takes to answer an order: longer than a process needs to quit

FORM = """<!doctype html><title>Order</title>
<form method=post action=/order><label>Name <input id=name name=name></label>
<button id=place>Place order</button></form>
<button id=api type=button onclick="fetch('/api/order', {method: 'POST', body: JSON.stringify({name:
  document.getElementById('name').value})}); this.textContent = 'Sent'">Order by API</button>"""


class Shop(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.orders: list[Request] = []
        never = threading.Event()

        def order(answer: Response) -> Any:
            def handle(request: Request) -> Response:
                never.wait(SLOW)  # a slow shop
                if request.client_waiting():
                    self.orders.append(request)
                return answer
            return handle

        self.route("/form", FORM)
        self.route("/order", order(Response("<!doctype html><title>Thanks</title><h1 id=thanks>Thank you</h1>")))
        self.route("/api/order", order(Response('{"ok": true}', content_type="application/json")))

    def orders_to(self, path: str) -> list[Request]:
        return [request for request in self.orders if request.path == path]


@pytest.fixture(scope="module")
def shop() -> Any:
    with Shop() as server:
        yield server


def _workflow(name: str, url: str, last: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start", "variables": []}},
             {"id": "open", "data": {"type": "goto", "url": url}},
             {"id": "name", "data": {"type": "fill", "locator": {"selector": "#name"}, "text": "Ada"}},
             *last,
             {"id": "end", "data": {"type": "end", "outputs": []}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                             for a, b in zip(nodes, nodes[1:])]}}}


LAST_NODES = {
    "click on a submit button": ("/order", [{"id": "place", "data": {"type": "click",
                                                                     "locator": {"selector": "#place"}}}]),
    "Enter in a field": ("/order", [{"id": "enter", "data": {"type": "press", "shortcut": "enter"}}]),
    "form.submit() in a script": ("/order", [{"id": "submit", "data": {
        "type": "script", "source": "document.forms[0].submit(); return {submitted: true}"}}]),
    "a fetch fired by a click": ("/api/order", [{"id": "api", "data": {"type": "click",
                                                                       "locator": {"selector": "#api"}}}]),
}


@pytest.mark.parametrize("case", list(LAST_NODES))
def test_the_last_action_of_a_run_reaches_the_server_before_the_process_ends(
        case: str, shop: Shop, tmp_path: Path) -> None:
    path, last = LAST_NODES[case]
    before = len(shop.orders_to(path))
    file = tmp_path / "order.json"
    file.write_text(json.dumps(_workflow("Order", shop.url("/form"), last)))
    ran = run_cli(tmp_path / "data", "run", str(file), "--headless", "--json", timeout=120)
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    assert record["ok"] is True and record["status"] == "ok"
    posts = shop.orders_to(path)[before:]
    assert [request.method for request in posts] == ["POST"], f"{case}: the shop counted {len(posts)} order(s)"
    assert b"Ada" in posts[0].body
    assert record.get("pendingAtEnd", []) == []


def test_an_agent_task_that_ends_with_a_click_delivers_it(shop: Shop, tmp_path: Path) -> None:
    before = len(shop.orders_to("/api/order"))
    script = [Reply([tool("page_type", locator={"selector": "#name"}, text="Grace")]),
              Reply([tool("page_click", locator={"selector": "#api"})]),
              Reply([tool("done", success=True, answer="ordered")])]
    with FakeAnthropic(script) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(tmp_path / "data", "agent", "Order for Grace", "--url", shop.url("/form"), "--headless",
                      "--json", timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    posts = shop.orders_to("/api/order")[before:]
    assert len(posts) == 1 and b"Grace" in posts[0].body
