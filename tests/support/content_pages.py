"""Pages with real content for what an agent reads of a page (`page_snapshot`): a product table, a short and a
long list, a form, and an article with landmarks and CJK text. Shared by the integration tests and
`bench/snapshot_size.py`, so both check the same content.

Each page comes with the strings an agent must be able to read in a snapshot of it (`CONTENT`) and those it
must not see (`HIDDEN`); the long list is folded by default, so its strings are reached by paging (the test and
the bench both page through it).
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

PRODUCTS = [("Walnut desk lamp", "$49.00"), ("Linen throw pillow", "$24.50"), ("Ceramic pour-over set", "$38.00"),
            ("Oak cutting board", "$31.75"), ("Wool felt slippers", "$57.20")]
TASKS = [f"Task {n}: {verb} the {thing}" for n, (verb, thing) in enumerate(
    [(v, t) for v in ("review", "file", "sign", "ship", "archive") for t in ("invoice", "contract", "report", "order")],
    start=1)]
LONG_ITEMS = [f"Entry {n:03d} · station {n * 7 % 97}" for n in range(1, 201)]
ARTICLE_CJK = "北京的秋天天气晴朗，适合出游。東京の地下鉄は便利です。"


def products_page() -> str:
    rows = "\n".join(
        f"<tr><td>{escape(name)}</td><td>{price}</td>"
        f"<td><button type=button onclick=\"add('sku-{i}')\">Add to cart</button></td></tr>"
        for i, (name, price) in enumerate(PRODUCTS, start=1))
    return f"""<!doctype html><html lang=en><title>Products</title>
<h1>Products page 1</h1>
<table>
  <thead><tr><th>Name</th><th>Price</th><th>Action</th></tr></thead>
  <tbody>
{rows}
  </tbody>
</table>
<p id=cart role=status></p>
<a href="/products?page=2">Next</a>
<script>
  function add(sku) {{
    fetch('/cart?add=' + sku).then(() => {{ document.getElementById('cart').textContent = 'Added ' + sku; }});
  }}
</script>"""


def tasks_page() -> str:
    items = "\n".join(f"  <li>{escape(t)}</li>" for t in TASKS)
    return f"""<!doctype html><html lang=en><title>Tasks</title>
<h2>Open tasks</h2>
<ul>
{items}
</ul>"""


def long_list_page() -> str:
    items = "\n".join(f"  <li>{escape(t)}</li>" for t in LONG_ITEMS)
    return f"""<!doctype html><html lang=en><title>Log</title>
<h2>Station log</h2>
<ol id=log>
{items}
</ol>
<p>End of log.</p>"""


def form_page() -> str:
    return """<!doctype html><html lang=en><title>Sign up</title>
<main>
  <h1>Create an account</h1>
  <form action="/signup" method=post aria-label="Sign up">
    <p><label for=name>Full name</label> <input id=name name=name required></p>
    <p><label>Email <input type=email name=email placeholder="you@example.com"></label></p>
    <p><label for=plan>Plan</label>
      <select id=plan name=plan><option>Free</option><option selected>Team</option><option>Enterprise</option></select></p>
    <fieldset><legend>Billing</legend>
      <label><input type=radio name=billing value=monthly checked> Monthly</label>
      <label><input type=radio name=billing value=yearly> Yearly (save 20%)</label>
    </fieldset>
    <p><label><input type=checkbox name=terms> I accept the terms of service</label></p>
    <p><label for=notes>Notes</label><br><textarea id=notes name=notes></textarea></p>
    <button type=submit>Create account</button>
  </form>
</main>"""


def article_page() -> str:
    return f"""<!doctype html><html lang=en><title>Field notes</title>
<header><a href="/">Field Notes</a></header>
<nav aria-label="Sections"><ul><li><a href="/travel">Travel</a></li><li><a href="/food">Food</a></li></ul></nav>
<main>
  <article>
    <h1>Autumn in two cities</h1>
    <p>Published <time datetime="2024-10-02">2 October 2024</time> by <a href="/authors/lin">Lin Wei</a>.</p>
    <figure><img src="/maple.png" alt="Red maple leaves over a canal" width=120 height=80>
      <figcaption>Maple season along the canal.</figcaption></figure>
    <h2>Getting around</h2>
    <p>The trains run every <strong>four minutes</strong> at rush hour, and a day pass costs 800 yen.</p>
    <p lang=zh>{ARTICLE_CJK}</p>
    <blockquote>Travel slowly; the city will wait.</blockquote>
    <p hidden>Draft: not for readers</p>
    <div style="visibility: hidden">Invisible footnote</div>
    <span aria-hidden=true>Decorative flourish</span>
  </article>
  <aside aria-label="Related"><h2>Related</h2><p>See also our guide to winter markets.</p></aside>
</main>
<footer><p>© 2024 Field Notes</p></footer>"""


PAGES = {"/products": products_page, "/tasks": tasks_page, "/log": long_list_page, "/signup": form_page,
         "/article": article_page}
"""Path → HTML, for a local server."""

CONTENT = {
    "/products": ["Products page 1", "Name", "Price", *[s for row in PRODUCTS for s in row], "Add to cart", "Next"],
    "/tasks": ["Open tasks", *TASKS],
    "/log": ["Station log", *LONG_ITEMS, "End of log."],
    "/signup": ["Create an account", "Full name", "Email", "Plan", "Team", "Billing", "Monthly",
                "Yearly (save 20%)", "I accept the terms of service", "Notes", "Create account"],
    "/article": ["Field Notes", "Travel", "Food", "Autumn in two cities", "2 October 2024", "Lin Wei",
                 "Red maple leaves over a canal", "Maple season along the canal.", "Getting around",
                 "four minutes", "800 yen", ARTICLE_CJK, "Travel slowly; the city will wait.", "Related",
                 "See also our guide to winter markets.", "© 2024 Field Notes"],
}
"""Path → strings that must be readable in a snapshot of that page (after paging, for the long list)."""

HIDDEN = {"/article": ["Draft: not for readers", "Invisible footnote", "Decorative flourish"]}
"""Path → strings on that page that are hidden from people and the accessibility tree: no snapshot shows them."""

FOLD_MORE = re.compile(r"^\s*- … \d+ more \S+ \(\d+-\d+ of \d+\): page_snapshot (\{.*\})$", re.M)


def more_calls(snapshot: str) -> list[dict[str, Any]]:
    """The page_snapshot parameters that each `- … N more` line of a snapshot names, as an agent reads them."""
    return [json.loads(found) for found in FOLD_MORE.findall(snapshot)]
