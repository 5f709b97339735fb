"""An order form that changes between a recording and a replay, in named kinds, and a server that decides
what each replay did: shared by tests/integration/test_heal.py and bench/heal.py.

`/form` serves the form as it is now (`site.kind`); it posts (multipart) to `/order`. The flow on it: a full
name and an email (text), a size (select), gift wrap (checkbox), a note (textarea), a file, a quantity (a
range slider), then "Place order". Kinds of change (KINDS):

- `same`: as recorded.
- `ids`: every id and class regenerated, every field wrapped in new divs.
- `labels`: labels, the heading and the button reworded.
- `reorder`: the fields in another order.
- `lookalike`: a newsletter form above the order form, with its own Full name and Email fields (the same
  labels and `name`s) and a Subscribe button.
- `tags`: the button becomes an `<input type=submit>`, `for=` labels become wrapping labels and back.
- `late`: the form is rendered by a script 0.8 s after the page loads.
- `shadow`: the form lives in an open shadow root; `iframe`: in a same-origin iframe.
- `renamed`: every `name` attribute renamed (the server reads the new names).
- `three`: ids, labels and reorder at once.
- `redesign`: reworded, reordered, renamed, swapped tags and the look-alike form together (and new ids).

`verdict()` is the server's decision on what happened since `reset()`: `ok` (exactly one order with every value
right), `wrong` (an order with a wrong value, a second order, or anything the newsletter form sent) or `failed`
(no order).
"""

from __future__ import annotations

import html
import random

from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import default as email_policy
from typing import Any

from tests.support.server import LocalServer, Request, Response

KINDS = ("same", "ids", "labels", "reorder", "lookalike", "tags", "late", "shadow", "iframe", "renamed", "three",
         "redesign")

FIELDS = ("fullname", "email", "size", "gift", "note", "doc", "qty")
NAMES = {"fullname": "Full name", "email": "Email", "size": "Size", "gift": "Gift wrap",
         "note": "Note for the courier", "doc": "Attachment", "qty": "Quantity"}
REWORDED = {"fullname": "Name on the order", "email": "E-mail address", "size": "Pick a size",
            "gift": "Wrap it as a gift", "note": "Delivery note", "doc": "Attach a file", "qty": "How many"}
RENAMED = {"fullname": "customer_name", "email": "contact", "size": "variant", "gift": "wrap", "note": "comments",
           "doc": "upload", "qty": "amount"}
ORDER = ("note", "size", "email", "qty", "fullname", "doc", "gift")  # the reordered kinds' order

# What the flow enters, and what the server expects.
VALUES = {"fullname": "Ada Lovelace", "email": "ada@example.org", "size": "l", "size_text": "Large", "gift": "yes",
          "note": "Ring twice", "doc_name": "order.txt", "doc_bytes": b"two pounds of tea\n"}
QTY_RANGE = (70, 90)  # the slider is set near 80 (a click at 80 % of its width, or the value 80)


@dataclass(frozen=True)
class Variant:
    ids: bool = False
    labels: bool = False
    reorder: bool = False
    lookalike: bool = False
    tags: bool = False
    late: bool = False
    shadow: bool = False
    iframe: bool = False
    renamed: bool = False


VARIANTS = {
    "same": Variant(), "ids": Variant(ids=True), "labels": Variant(labels=True), "reorder": Variant(reorder=True),
    "lookalike": Variant(lookalike=True), "tags": Variant(tags=True), "late": Variant(late=True),
    "shadow": Variant(shadow=True), "iframe": Variant(iframe=True), "renamed": Variant(renamed=True),
    "three": Variant(ids=True, labels=True, reorder=True),
    "redesign": Variant(ids=True, labels=True, reorder=True, renamed=True, tags=True, lookalike=True),
}


class HealSite:
    """The server, its current kind of change, and what it received."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.kind = "same"
        self.orders: list[dict[str, Any]] = []
        self.subscriptions: list[dict[str, Any]] = []
        self._rng = random.Random(26)
        server.route("/form", self._form)
        server.route("/inner", self._inner)
        server.route("/order", self._order)
        server.route("/subscribe", self._subscribe)

    @property
    def url(self) -> str:
        return self.server.url("/form")

    def reset(self, kind: str) -> None:
        if kind not in VARIANTS:
            raise ValueError(f"unknown kind {kind!r}")
        self.kind = kind
        self.orders.clear()
        self.subscriptions.clear()

    # -- what the server decides -------------------------------------------------------------------------------
    def verdict(self) -> tuple[str, str]:
        """(ok | wrong | failed, why)."""
        if self.subscriptions:
            return "wrong", f"the newsletter form sent {self.subscriptions[0]}"
        if len(self.orders) > 1:
            return "wrong", f"{len(self.orders)} orders"
        if not self.orders:
            return "failed", "no order"
        got = self.orders[0]
        problems = [f"{key}={got.get(key)!r}" for key in ("fullname", "email", "size", "gift", "note")
                    if got.get(key) != VALUES[key]]
        if got.get("doc_name") != VALUES["doc_name"] or got.get("doc_bytes") != VALUES["doc_bytes"]:
            problems.append(f"doc={got.get('doc_name')!r}")
        try:
            qty = int(got.get("qty") or "")
        except ValueError:
            qty = -1
        if not QTY_RANGE[0] <= qty <= QTY_RANGE[1]:
            problems.append(f"qty={got.get('qty')!r}")
        return ("wrong", ", ".join(problems)) if problems else ("ok", "")

    def _fields(self, request: Request) -> dict[str, Any]:
        content_type = request.headers.get("content-type", "")
        message = BytesParser(policy=email_policy).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + request.body)
        out: dict[str, Any] = {}
        if message.is_multipart():
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if part.get_filename() is not None:
                    out[f"{name}.filename"] = part.get_filename()
                    out[f"{name}.bytes"] = part.get_payload(decode=True)
                else:
                    out[name] = part.get_content().strip() if part.get_content_type() == "text/plain" else ""
        else:
            from urllib.parse import parse_qs
            out = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        return out

    def _order(self, request: Request) -> Response:
        raw = self._fields(request)
        names = RENAMED if VARIANTS[self.kind].renamed else {f: f for f in FIELDS}
        got = {field: raw.get(names[field]) for field in FIELDS if field != "doc"}
        got["doc_name"] = raw.get(f"{names['doc']}.filename")
        got["doc_bytes"] = raw.get(f"{names['doc']}.bytes")
        self.orders.append(got)
        return Response("<!doctype html><title>Thanks</title><h1 id=thanks>Thank you for your order</h1>")

    def _subscribe(self, request: Request) -> Response:
        self.subscriptions.append(self._fields(request) if request.body else {"empty": True})
        return Response("<!doctype html><title>Subscribed</title><h1>Subscribed</h1>")

    # -- the pages -----------------------------------------------------------------------------------------------
    def _token(self) -> str:
        return "".join(self._rng.choice("abcdef0123456789") for _ in range(8))

    def _form(self, request: Request) -> Response:
        v = VARIANTS[self.kind]
        if v.iframe:
            body = ('<h1>Tea shop</h1><iframe src="/inner" title="Order" style="width:700px;height:640px;'
                    'border:0"></iframe>')
        elif v.shadow:
            body = ('<h1>Tea shop</h1><order-box></order-box><script>customElements.define("order-box", class '
                    'extends HTMLElement { connectedCallback() { const root = this.attachShadow({mode: "open"}); '
                    f'root.innerHTML = {_js(self._order_form(v))}; }} }});</script>')
        elif v.late:
            body = ('<h1>Tea shop</h1><div id=slot>Loading…</div><script>setTimeout(() => { '
                    f'document.getElementById("slot").innerHTML = {_js(self._order_form(v))}; }}, 800);</script>')
        else:
            body = "<h1>Tea shop</h1>" + (self._newsletter(v) if v.lookalike else "") + self._order_form(v)
        return Response(_page("Tea shop", body))

    def _inner(self, request: Request) -> Response:
        return Response(_page("Order", self._order_form(VARIANTS[self.kind])))

    def _id(self, v: Variant, name: str) -> str:
        return f"x{self._token()}" if v.ids else f"f-{name}"

    def _cls(self, v: Variant, name: str) -> str:
        return f"c-{self._token()}" if v.ids else name

    def _order_form(self, v: Variant) -> str:
        label = REWORDED if v.labels else NAMES
        name = RENAMED if v.renamed else {f: f for f in FIELDS}
        rows: dict[str, str] = {}

        def labelled(field: str, control: str, wrap_default: bool = False) -> str:
            wrap = wrap_default != v.tags  # tags: wrapping labels become for= labels and back
            ident = self._id(v, field)
            if wrap:
                return f'<label class="{self._cls(v, "lbl")}">{label[field]} {control.replace("ID", "")}</label>'
            return f'<label for="{ident}">{label[field]}</label> {control.replace("ID", f"id={ident!s}")}'

        rows["fullname"] = labelled("fullname", f'<input ID name="{name["fullname"]}" autocomplete=name>')
        rows["email"] = labelled("email", f'<input ID type=email name="{name["email"]}" autocomplete=email>')
        rows["size"] = labelled("size", f'<select ID name="{name["size"]}"><option value="">Choose…</option>'
                                        '<option value=s>Small</option><option value=m>Medium</option>'
                                        '<option value=l>Large</option></select>')
        rows["gift"] = labelled("gift", f'<input ID type=checkbox name="{name["gift"]}" value=yes>', True)
        rows["note"] = labelled("note", f'<textarea ID name="{name["note"]}" rows=2></textarea>')
        rows["doc"] = labelled("doc", f'<input ID type=file name="{name["doc"]}">')
        rows["qty"] = labelled("qty", f'<input ID type=range name="{name["qty"]}" min=0 max=100 value=10 '
                                      'style="width:300px">')
        order = ORDER if v.reorder else FIELDS
        cls = (lambda: self._cls(v, "row")) if v.ids else (lambda: "row")
        inner = "".join((f'<div class="{cls()}"><div class="{self._cls(v, "w")}">{rows[f]}</div></div>' if v.ids
                         else f'<div class="{cls()}">{rows[f]}</div>') for f in order)
        button_text = "Confirm order" if v.labels else "Place order"
        button = (f'<input type=submit class="{self._cls(v, "btn")}" value="{button_text}">' if v.tags
                  else f'<button type=submit id="{self._id(v, "place")}" class="{self._cls(v, "btn")}">{button_text}</button>')
        heading = "Checkout" if v.labels else "Your order"
        return (f'<section class="{self._cls(v, "order")}"><h2>{heading}</h2>'
                f'<form id="{self._id(v, "order")}" method=post action=/order enctype=multipart/form-data>'
                f'{inner}<p>{button}</p></form></section>')

    def _newsletter(self, v: Variant) -> str:
        return ('<aside class=news><h2>Newsletter</h2><form method=post action=/subscribe>'
                '<div class=row><label for=n-name>Full name</label> <input id=n-name name=fullname autocomplete=name></div>'
                '<div class=row><label for=n-email>Email</label> <input id=n-email type=email name=email '
                'autocomplete=email></div><p><button type=submit>Subscribe</button></p></form></aside>')


def _js(text: str) -> str:
    import json
    return json.dumps(text)


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title><style>"
            "body{font:15px sans-serif;margin:16px} .row,.news .row{margin:6px 0} label{margin-right:6px}"
            "</style></head><body>" + body + "</body></html>")




# -- the flow, as each side writes it ------------------------------------------------------------------------------
# The elements of the flow on the unchanged form (`same`), by a CSS selector a test can use to point at them.
TARGETS = {"fullname": "#f-fullname", "email": "#f-email", "size": "#f-size", "gift": "input[name=gift]",
           "note": "#f-note", "doc": "#f-doc", "qty": "#f-qty", "place": "#f-place"}
SLIDER_AT = 0.8  # where the flow clicks the slider, as a fraction of its width


def our_flow(name: str, url: str, locators: dict[str, dict[str, Any]], upload: str) -> dict[str, Any]:
    """A BrowserPilot document of the flow, with each element's locator as our generator made it."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("goto", {"url": url}),
        ("fill", {"title": "Full name", "locator": locators["fullname"], "text": VALUES["fullname"]}),
        ("fill", {"title": "Email", "locator": locators["email"], "text": VALUES["email"]}),
        ("select", {"title": "Size", "locator": locators["size"], "option": VALUES["size_text"]}),
        ("click", {"title": "Gift wrap", "locator": locators["gift"]}),
        ("fill", {"title": "Note", "locator": locators["note"], "text": VALUES["note"]}),
        ("upload", {"title": "Attachment", "locator": locators["doc"], "paths": [upload]}),
        ("click", {"title": "Quantity", "locator": locators["qty"], "offset": {"x": SLIDER_AT, "y": 0.5}}),
        ("click", {"title": "Place order", "locator": locators["place"]}),
    ]
    nodes = [{"id": "start", "data": {"type": "start", "variables": []}}]
    nodes += [{"id": f"n{i}", "data": {"type": kind, **data}} for i, (kind, data) in enumerate(steps, 1)]
    nodes.append({"id": "end", "data": {"type": "end", "outputs": []}})
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def big_form_page(fields: int = 1500) -> str:
    """A form of `fields` look-alike labelled fields under the order form's heading: healing's worst page."""
    rows = "".join(f'<div><label for=i{i}>Field {i}</label><input id=i{i} name=f{i}></div>' for i in range(fields))
    return f"<!doctype html><title>Big</title><h2>Your order</h2><form action=/order>{rows}<button>Go</button></form>"
