"""A shop for the agent's Save-as-workflow tests, on a `LocalServer`: an order form at /shop, `POST /order`
(answered 303 to /thanks), a confirmation page at /thanks that a test can take away, and the stand-in model's
answers for placing one order the way a model would (look, fill the form, click Place order, look again until
the confirmation shows, done). Orders are counted from what the server received: every POST it got."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from tests.support.fake_anthropic import Reply, Responder, last_results, ref_of, result_text, text, tool
from tests.support.server import LocalServer, Response

ORDER_FORM = """<title>Shop</title><h1>Blue widget</h1>
<form method="post" action="/order"><label>Name <input name="name"></label>
<label>Card <input name="card"></label><button type="submit">Place order</button></form>"""
CONFIRMATION = "<title>Thanks</title><h1 id=confirmation>Order placed</h1>"
CHECK = "#confirmation"
LOOKS = 10  # snapshots the model takes at most while the order's page loads


class Shop:
    def __init__(self, server: LocalServer) -> None:
        self.server = server
        server.routes["/shop"] = lambda r: Response(ORDER_FORM)
        server.routes["/order"] = lambda r: Response("", status=303, headers=[("Location", "/thanks")])
        server.routes["/thanks"] = lambda r: Response(CONFIRMATION)

    @property
    def url(self) -> str:
        return self.server.url("/shop")

    @property
    def orders(self) -> list[dict[str, list[str]]]:
        """The form fields of every POST the server received (on any path), in order."""
        return [parse_qs(r.body.decode("utf-8")) for r in list(self.server.requests) if r.method == "POST"]

    def remove_confirmation(self) -> None:
        """The shop stops showing its confirmation page (/thanks answers 404)."""
        del self.server.routes["/thanks"]


def order_script(name: str, card: str) -> list[Responder]:
    """The model's answers: snapshot; type the name and the card, click Place order; snapshot until the page
    says "Order placed"; done."""

    def fill(request: dict[str, Any]) -> Reply:
        snapshot = result_text(last_results(request)[0])
        return Reply([text("I will place the order."),
                      tool("page_type", locator={"ref": ref_of(snapshot, "textbox", "Name")}, text=name),
                      tool("page_type", locator={"ref": ref_of(snapshot, "textbox", "Card")}, text=card),
                      tool("page_click", locator={"ref": ref_of(snapshot, "button", "Place order")})])

    def look(request: dict[str, Any]) -> Reply:
        results = last_results(request)
        if len(results) == 1 and "Order placed" in result_text(results[0]):
            return Reply([tool("done", success=True, answer="Order placed")])
        return Reply([tool("page_snapshot")])

    return [Reply([text("Let me look."), tool("page_snapshot")]), fill, *[look] * LOOKS]
