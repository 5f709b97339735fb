"""A slow shop that counts an order only when its client is still there for the answer (like a server that
rolls back what a request did when its client goes away): what a run really delivered, for the tests of
"ok means it landed" (tests/e2e/test_effects_landed.py, the workers' rows in tests/e2e/test_distributed.py).

`/form` has a name field and two ways to order: a form post (`#place`, to `/order`) and a `fetch` POST fired by a
click (`#api`, to `/api/order`). `last_nodes` are the last page nodes a workflow can end with to place an order.
"""

from __future__ import annotations

import threading
from typing import Any

from tests.support.server import LocalServer, Request, Response

SLOW = 0.6  # seconds the shop takes to answer an order: longer than a process needs to quit

FORM = """<!doctype html><title>Order</title>
<form method=post action=/order><label>Name <input id=name name=name></label>
<button id=place>Place order</button></form>
<button id=api type=button onclick="fetch('/api/order', {method: 'POST', body: JSON.stringify({name:
  document.getElementById('name').value})}); this.textContent = 'Sent'">Order by API</button>"""

# The last node of a workflow, by how it places its order: (the path the order goes to, the node).
LAST_NODES: dict[str, tuple[str, dict[str, Any]]] = {
    "click on a submit button": ("/order", {"id": "place", "data": {"type": "click", "locator": {"selector": "#place"}}}),
    "Enter in a field": ("/order", {"id": "enter", "data": {"type": "press", "shortcut": "enter"}}),
    "form.submit() in a script": ("/order", {"id": "submit", "data": {
        "type": "script", "source": "document.forms[0].submit(); return {submitted: true}"}}),
    "a fetch fired by a click": ("/api/order", {"id": "api", "data": {"type": "click",
                                                                      "locator": {"selector": "#api"}}}),
}


class OrderShop(LocalServer):
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


def order_workflow(name: str, url: str, last: list[dict[str, Any]], who: str = "Ada") -> dict[str, Any]:
    """goto the form, type the name, then the last node(s) that place the order."""
    nodes = [{"id": "start", "data": {"type": "start", "variables": []}},
             {"id": "open", "data": {"type": "goto", "url": url}},
             {"id": "name", "data": {"type": "fill", "locator": {"selector": "#name"}, "text": who}},
             *last,
             {"id": "end", "data": {"type": "end", "outputs": []}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                             for a, b in zip(nodes, nodes[1:])]}}}


def branching_order_workflow(url: str) -> dict[str, Any]:
    """One workflow for every way of ordering: the row's `case` input (a key of LAST_NODES) picks the last node,
    and the row's `who` is the name ordered for."""
    cases = list(LAST_NODES)
    branch = {"id": "how", "data": {"type": "if-else", "cases": [
        {"case_id": f"c{index}", "conditions": [{"comparison_operator": "is", "variable_selector": ["input", "case"],
                                                 "value": case}]} for index, case in enumerate(cases)]}}
    lasts = [LAST_NODES[case][1] for case in cases]
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "case", "type": "string"},
                                                                     {"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": url}},
             {"id": "name", "data": {"type": "fill", "locator": {"selector": "#name"}, "text": "{{#input.who#}}"}},
             branch, *lasts, {"id": "end", "data": {"type": "end", "outputs": []}}]
    edges = [{"source": "start", "target": "open"}, {"source": "open", "target": "name"},
             {"source": "name", "target": "how"}]
    edges += [{"source": "how", "sourceHandle": f"c{index}", "target": last["id"]} for index, last in enumerate(lasts)]
    edges += [{"source": last["id"], "target": "end"} for last in lasts]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Order every way", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}
