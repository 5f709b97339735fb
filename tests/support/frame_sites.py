"""Two sites for tests of another site's frames: a shop on 127.0.0.1 whose checkout embeds a card form served
by 127.0.0.2 (two hosts: two sites, so the frame runs in a renderer of its own and the shop cannot read it).
The shop's own "Code" field and the frame's have the same label, as a page and an embedded form often do."""

from __future__ import annotations

from urllib.parse import parse_qs

from tests.support.server import LocalServer, Request, Response

CARD_FORM = """<!doctype html><title>Card</title><body style="margin:0;font:16px sans-serif">
<form method=post action=/pay style="padding:8px">
<p style="margin:4px 0"><label>Card number <input name=card autocomplete=cc-number></label></p>
<p style="margin:4px 0"><label>Name on card <input name=holder></label></p>
<p style="margin:4px 0"><label>Code <input name=code></label></p>
<p style="margin:4px 0"><label>Plan <select name=plan><option>Basic</option><option>Pro</option>
  <option>Team</option></select></label></p>
<p style="margin:4px 0"><label><input type=checkbox name=save value=yes> Save card</label></p>
<p style="margin:4px 0"><button id=pay>Pay now</button></p>
</form>
<script>
  window.trusted = [];
  document.addEventListener('click', (e) => trusted.push(e.isTrusted), true);
</script></body>"""

CHECKOUT = """<!doctype html><title>Checkout</title><body style="margin:0;font:16px sans-serif">
<h1 style="margin:8px">Checkout</h1>
<p style="margin:8px"><label>Code <input id=code name=code></label>
  <button id=apply onclick="fetch('/apply?code=' + encodeURIComponent(document.getElementById('code').value))">
  Apply</button></p>
<iframe name=pay title="Payment" src="{frame}" style="position:absolute; left:20px; top:120px; width:460px;
        height:260px; border:4px solid #888; padding:0"></iframe>
</body>"""


# A file input in the frame: the page tells its own server which file was chosen (name and size).
RECEIPT = """<!doctype html><title>Receipt</title><body style="margin:0">
<label>Receipt <input type=file name=receipt onchange="fetch('/chosen?name=' + encodeURIComponent(this.files[0].name)
  + '&size=' + this.files[0].size)"></label></body>"""

RECEIPT_PAGE = """<!doctype html><title>Receipt</title><body style="margin:0">
<iframe name=receipt src="{frame}" style="width:400px;height:80px;border:0"></iframe></body>"""


class PaySite:
    """The other site: the card form, and what its /pay received."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.received: list[dict[str, list[str]]] = []
        self.site = f"http://127.0.0.2:{server.port}"
        server.route("/card", CARD_FORM)
        server.route("/receipt", RECEIPT)
        server.route("/chosen", "ok")
        server.route("/pay", self.pay)

    def pay(self, request: Request) -> Response:
        self.received.append(parse_qs(request.body.decode("utf-8")))
        return Response("<!doctype html><title>Paid</title><p id=paid>Paid, thank you</p>")


def shop_routes(shop: LocalServer, pay: PaySite) -> None:
    shop.route("/checkout", CHECKOUT.format(frame=pay.server.url("/card")))
    shop.route("/receipt", RECEIPT_PAGE.format(frame=pay.server.url("/receipt")))
