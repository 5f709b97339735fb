"""Locators against real pages: every engine, shadow roots, same-origin iframes, actionability messages,
waits, query and snapshot with refs. Pages come from the local server and load in the app's own tabs, with
the helper injected by the profile as in production."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser import locators as L
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import call, fails, open_view, run_js, wait_loaded
from tests.support.server import LocalServer
from workflows.ports import Locator


def open_page(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, path: str, html: str) -> BrowserTab:
    server.route(path, html)
    tab = open_view(shell, "env-default", server.url(path))
    wait_loaded(qtbot, tab)
    return tab


def click_at(tab: BrowserTab, x: float, y: float) -> None:
    """A person's click at a point in CSS px of the viewport."""
    target = tab.focusProxy() or tab
    point = QPointF(x * tab.zoomFactor(), y * tab.zoomFactor())
    for kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
        pressed = Qt.MouseButton.LeftButton if kind == QEvent.Type.MouseButtonPress else Qt.MouseButton.NoButton
        event = QMouseEvent(kind, point, QPointF(target.mapToGlobal(QPoint(int(point.x()), int(point.y())))),
                            Qt.MouseButton.LeftButton, pressed, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, event)


ENGINES_PAGE = """<!doctype html><title>Engines</title>
<nav aria-label="Main"><a href="/p2">Next</a></nav>
<main>
  <h1>Checkout</h1>
  <form>
    <label for=fn>Full name</label> <input id=fn name=fullname>
    <label>Email <input id=email type=email placeholder="you@example.com"></label>
    <input id=q type=search placeholder="Search products">
    <select id=size name=size aria-label="Size"><option value=s>Small</option>
      <option value=m selected>Medium</option><option value=l>Large</option></select>
    <input type=checkbox id=terms> <label for=terms>I accept the terms</label>
    <button type=submit data-testid=place-order>Place order</button>
    <button type=button data-test=alpha>Alpha</button> <button type=button data-qa=beta>Beta</button>
    <button type=button data-cy=gamma>Gamma</button> <input type=submit value="Send now">
  </form>
  <p>Sign <b>in</b> to continue</p>
  <div id=pager><span>Page 1</span> <a href="/page2">Next page</a></div>
</main>
<script>
  window.seen = [];
  document.getElementById('size').addEventListener('input', () => seen.push('input'));
  document.getElementById('size').addEventListener('change', (e) => seen.push('change:' + e.target.value));
  document.querySelector('form').addEventListener('submit', (e) => e.preventDefault());
</script>"""


def test_every_engine_finds_its_element(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/engines", ENGINES_PAGE)
    page = tab.page()
    expected = {
        # CSS
        "#fn": "<input id=fn name=fullname>",
        "form > button[type=submit]": "<button type=submit data-testid=place-order>Place order</button>",
        # text=: case-insensitive substring, smallest element; quoted is exact; /regex/
        "text=next page": '<a href=/page2>Next page</a>',
        "text=sign in": "<p>Sign in to continue</p>",
        'text="in"': "<b>in</b>",
        'text="Place order"': "<button type=submit data-testid=place-order>Place order</button>",
        "text=/^pl.ce ORDER$/i": "<button type=submit data-testid=place-order>Place order</button>",
        # role= with implicit roles and accessible names
        'role=button[name="Place order"]': "<button type=submit data-testid=place-order>Place order</button>",
        'role=link[name="next page"]': '<a href=/page2>Next page</a>',
        'role=heading[level=1]': "<h1>Checkout</h1>",
        'role=textbox[name="Full name"]': "<input id=fn name=fullname>",
        'role=textbox[name="email"]': '<input id=email type=email placeholder=you@example.com>',
        "role=searchbox": '<input id=q type=search placeholder="Search products">',
        'role=combobox[name="Size"]': '<select id=size name=size aria-label=Size>',
        'role=checkbox[name="I accept the terms"]': "<input id=terms type=checkbox>",
        'role=navigation[name="Main"]': '<nav aria-label=Main>Next</nav>',
        # label=, placeholder=, testid= (data-testid, data-test, data-qa, data-cy)
        "label=Full name": "<input id=fn name=fullname>",
        "label=email": '<input id=email type=email placeholder=you@example.com>',
        'label="I accept the terms"': "<input id=terms type=checkbox>",
        "label=Size": '<select id=size name=size aria-label=Size>',
        "placeholder=Search": '<input id=q type=search placeholder="Search products">',
        "testid=place-order": "<button type=submit data-testid=place-order>Place order</button>",
        "testid=alpha": "<button type=button data-test=alpha>Alpha</button>",
        "testid=beta": "<button type=button data-qa=beta>Beta</button>",
        'testid="gamma"': "<button type=button data-cy=gamma>Gamma</button>",
        # XPath as a selector, chains and nth
        "//h1": "<h1>Checkout</h1>",
        "#pager >> text=Next": '<a href=/page2>Next page</a>',
        "text=Next >> nth=0": '<a href=/p2>Next</a>',
        "role=button >> nth=-2": "<button type=button data-cy=gamma>Gamma</button>",
        # an input's value is its text and its name
        "text=send now": '<input type=submit value="Send now">',
        'role=button[name="Send now"]': '<input type=submit value="Send now">',
    }
    for selector, description in expected.items():
        assert call(qtbot, L.resolve(page, selector)) == description, selector
    assert call(qtbot, L.resolve(page, Locator(xpath='//button[.="Alpha"]'))) == \
        "<button type=button data-test=alpha>Alpha</button>"
    assert call(qtbot, L.resolve(page, {"selector": "text=CHECKOUT"})) == "<h1>Checkout</h1>"

    # Exact and case-sensitive forms do not match what they should not.
    assert call(qtbot, L.count(page, 'role=button[name="place"s]')) == 0
    assert call(qtbot, L.count(page, 'role=button[name="Place order"s]')) == 1
    assert call(qtbot, L.count(page, 'text="place order"')) == 0
    assert call(qtbot, L.count(page, 'text="place order"i')) == 1
    assert call(qtbot, L.count(page, "role=button")) == 5
    assert call(qtbot, L.count(page, "text=Next")) == 2

    # A <label> target is clickable where its text is.
    assert call(qtbot, L.wait_actionable(page, "label[for=terms]")).description == "<label for=terms>I accept the terms</label>"

    # Focus.
    assert call(qtbot, L.focus(page, "label=Full name")) == "<input id=fn name=fullname>"
    assert run_js(qtbot, tab, "document.activeElement.id") == "fn"

    # Bad selectors fail at once with a message that names them.
    assert fails(qtbot, L.wait_actionable(page, "div["), L.InvalidSelector) == \
        'invalid selector "div[": not a valid CSS selector'
    assert fails(qtbot, L.count(page, Locator(xpath="//div[")), L.InvalidSelector) == \
        'invalid xpath "//div[": not a valid XPath expression'
    assert fails(qtbot, L.count(page, "role=button[nam=x]"), L.InvalidSelector) == \
        'invalid selector "role=button[nam=x]": unknown role attribute [nam] (use name, level, checked, ' \
        "disabled, expanded, pressed, selected or include-hidden)"


def test_select_option_by_text_or_value(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/engines", ENGINES_PAGE)
    page = tab.page()
    found = call(qtbot, L.find_option(page, "label=Size", "large"))
    assert (found.index, found.previous_index, found.value) == (2, 1, "l")
    assert run_js(qtbot, tab, "document.getElementById('size').value") == "m"   # find_option changes nothing

    chosen = call(qtbot, L.select_option(page, "#size", "Large"))
    assert (chosen.index, chosen.value, chosen.text) == (2, "l", "Large")
    chosen = call(qtbot, L.select_option(page, "#size", "s"))
    assert (chosen.index, chosen.text, chosen.previous_index) == (0, "Small", 2)
    assert run_js(qtbot, tab, "seen") == ["input", "change:l", "input", "change:s"]

    assert fails(qtbot, L.select_option(page, "#size", "XL", timeout=0.1), L.NoSuchOption) == \
        '<select id=size name=size aria-label=Size> has no option "XL" (options: "Small", "Medium", "Large")'
    assert fails(qtbot, L.select_option(page, "#fn", "x", timeout=0.1), L.NotASelect) == \
        "<input id=fn name=fullname> is not a <select>"


def test_shadow_roots_and_same_origin_iframes(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/frame", """<!doctype html><body style="margin:0">
        <button id=fbtn style="position:absolute; left:20px; top:30px; width:100px; height:40px"
                onclick="parent.clicked = 'frame button'">In frame</button>""")
    tab = open_page(qtbot, shell, server, "/host", """<!doctype html><title>Host</title>
        <div id=host></div>
        <iframe id=frame src="/frame" style="position:absolute; left:100px; top:200px; width:400px;
                height:300px; border:5px solid black; padding:0"></iframe>
        <script>
          const root = document.getElementById('host').attachShadow({mode: 'open'});
          root.innerHTML = '<p>Inside <span>the shadow</span></p><button id=inner>Shadow button</button>';
          root.getElementById('inner').addEventListener('click', () => window.clicked = 'shadow button');
        </script>""")
    page = tab.page()
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.getElementById('frame').contentDocument.readyState")
                    == "complete", timeout=10_000)

    # Open shadow roots: CSS, text= across nested nodes, role=.
    for selector in ("#inner", "text=Shadow button", 'role=button[name="shadow button"]', "#host >> button"):
        assert call(qtbot, L.resolve(page, selector)) == "<button id=inner>Shadow button</button>", selector
    assert call(qtbot, L.resolve(page, "text=inside the shadow")) == "<p>Inside the shadow</p>"
    target = call(qtbot, L.wait_actionable(page, "text=Shadow button"))
    click_at(tab, target.x, target.y)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.clicked || null") == "shadow button")

    # A same-origin iframe: its rect is translated to the top-level viewport (frame at 100,200 + 5px border).
    result = call(qtbot, L.query(page, "text=In frame"))
    assert result.count == 1
    row = result.rows[0]
    assert row.description == "<button id=fbtn>In frame</button>"
    assert row.rect == L.Rect(125, 235, 100, 40)
    assert row.frame == "<iframe id=frame>"
    assert row.visible and row.hittable
    target = call(qtbot, L.wait_actionable(page, "role=button[name=\"In frame\"]"))
    assert (target.x, target.y) == (175, 255)
    click_at(tab, target.x, target.y)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.clicked || null") == "frame button")
    assert call(qtbot, L.resolve(page, Locator(xpath="//button[@id='fbtn']"))) == "<button id=fbtn>In frame</button>"

    # The snapshot reads the shadow root's content and nests the frame's; the query above already gave the
    # frame button its ref.
    assert call(qtbot, L.snapshot(page)).text.splitlines()[2:] == [
        "- generic:",
        "  - paragraph: Inside the shadow",
        '  - button "Shadow button" [ref=e2]',
        "- iframe:",
        '  - button "In frame" [ref=e1]',
    ]
    assert call(qtbot, L.wait_actionable(page, Locator(ref="e1"))) == target


ACTION_PAGE = """<!doctype html><title>Actions</title>
<style>@keyframes slide { from { left: 0 } to { left: 300px } }</style>
<div id=pager><a href=/p2>Next</a> <button>Next</button></div>
<button id=hid style="display:none">Hidden</button>
<button id=dis disabled>Off</button>
<input id=ro readonly value=fixed>
<button id=mover style="position:relative; animation: slide 1s linear infinite">Moving</button>
<label for=cb style="position:relative; display:inline-block; width:40px; height:20px">
  <input type=checkbox id=cb style="position:absolute; left:0; top:0; width:40px; height:20px; margin:0">
  <span style="position:absolute; inset:0; background:teal"></span></label>
<div style="height:3000px"></div>
<button id=far onclick="window.clicked = 'far'">Far below</button>
<button id=away style="position:absolute; left:-5000px">Away</button>
<div id=spinner>Loading…</div>
<script>
  setTimeout(() => document.getElementById('spinner').remove(), 300);
  setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<button id=late>Late</button>'), 300);
</script>"""


def test_actionability_messages(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/actions", ACTION_PAGE)
    page = tab.page()

    assert fails(qtbot, L.wait_actionable(page, "text=Next", timeout=0.1), L.AmbiguousMatch) == \
        '2 elements match "text=Next": <a href=/p2>Next</a>, <button>Next</button>'
    assert fails(qtbot, L.wait_actionable(page, "#nothing", timeout=0.1), L.NoMatch) == \
        'no element matches "#nothing"'
    started = time.monotonic()
    assert fails(qtbot, L.wait_actionable(page, "#hid", timeout=0.2), L.NotVisible) == \
        "<button id=hid>Hidden</button> is not visible"
    assert time.monotonic() - started >= 0.2   # it waited for the element to show
    assert fails(qtbot, L.wait_actionable(page, "#dis", timeout=0.1), L.NotEnabled) == \
        "<button id=dis>Off</button> is disabled"
    assert fails(qtbot, L.wait_actionable(page, "#ro", timeout=0.1, editable=True), L.NotEditable) == \
        "<input id=ro> is not editable"
    assert fails(qtbot, L.wait_actionable(page, "#mover", timeout=0.3), L.NotStable) == \
        "<button id=mover>Moving</button> is not stable (it kept moving)"

    assert fails(qtbot, L.wait_actionable(page, "#away", timeout=0.1), L.OutsideViewport) == \
        "<button id=away>Away</button> is outside the viewport and could not be scrolled into view"

    # A checkbox drawn over by a span inside its own label is clickable (the click reaches the label).
    call(qtbot, L.wait_actionable(page, "#cb"))

    # Far below the fold: scrolled into view, then clicked where it now is.
    target = call(qtbot, L.wait_actionable(page, "text=Far below"))
    height = run_js(qtbot, tab, "innerHeight")
    assert 0 < target.y < height and run_js(qtbot, tab, "scrollY") > 2000
    click_at(tab, target.x, target.y)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.clicked || null") == "far")

    # A modal backdrop over the page.
    run_js(qtbot, tab, "document.body.insertAdjacentHTML('beforeend', '<div class=\"modal-backdrop\" "
                       "style=\"position:fixed; inset:0; background:rgba(0,0,0,.3)\"></div>') || 1")
    assert fails(qtbot, L.wait_actionable(page, "text=Far below", timeout=0.1), L.Covered) == \
        '<button id=far>Far below</button> is covered by <div class="modal-backdrop">'
    call(qtbot, L.wait_actionable(page, "text=Far below", hit_test=False))


def test_waiting_for_elements_to_appear_and_go(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/actions", ACTION_PAGE)
    page = tab.page()
    started = time.monotonic()
    target = call(qtbot, L.wait_actionable(page, "#late", timeout=5))
    assert target.description == "<button id=late>Late</button>"
    assert time.monotonic() - started < 5
    assert call(qtbot, L.wait_state(page, "#spinner", "gone", timeout=5)) == 0
    assert call(qtbot, L.wait_state(page, "text=Late", "appear", timeout=5)) == 1

    assert fails(qtbot, L.wait_state(page, "#nothing", "appear", timeout=0.2), L.WaitTimeout) == \
        'no element matches "#nothing" after waiting 0.2 s'
    assert fails(qtbot, L.wait_state(page, "#hid", "appear", timeout=0.2), L.WaitTimeout) == \
        "<button id=hid>Hidden</button> is not visible after waiting 0.2 s"
    assert fails(qtbot, L.wait_state(page, "#dis", "gone", timeout=0.2), L.WaitTimeout) == \
        "<button id=dis>Off</button> is still visible after waiting 0.2 s"
    assert call(qtbot, L.wait_state(page, "#hid", "gone", timeout=0.2)) == 0   # hidden counts as gone
    assert not call(qtbot, L.is_visible(page, "#hid"))
    assert call(qtbot, L.count(page, "#hid")) == 1


def test_element_that_appears_after_300_ms(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/later", """<!doctype html><title>Later</title><script>
        setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<button id=late>Ready</button>'), 300);
        </script>""")
    started = time.monotonic()
    target = call(qtbot, L.wait_actionable(tab.page(), "role=button[name=Ready]", timeout=5))
    assert target.description == "<button id=late>Ready</button>"
    assert 0.2 < time.monotonic() - started < 3


def test_query_rows_and_their_refs(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/actions", ACTION_PAGE)
    page = tab.page()
    result = call(qtbot, L.query(page, "text=Next"))
    assert result.count == 2
    link, button = result.rows
    assert (link.tag, link.description, link.text, link.attrs) == ("a", "<a href=/p2>Next</a>", "Next", {"href": "/p2"})
    assert (button.tag, button.description, button.value) == ("button", "<button>Next</button>", "")
    for row in result.rows:
        assert row.visible and row.hittable and row.enabled
        assert row.rect.width > 0 and row.rect.height > 0 and row.rect.y >= 0
        assert row.ref.startswith("e")
    assert link.rect.x < button.rect.x
    assert result.to_dict()["elements"][0]["ref"] == link.ref
    # A ref from query names one element among several.
    assert call(qtbot, L.wait_actionable(page, Locator(ref=button.ref))).description == "<button>Next</button>"
    hidden = call(qtbot, L.query(page, "#hid")).rows[0]
    assert not hidden.visible and not hidden.hittable and hidden.rect == L.Rect(0, 0, 0, 0)
    assert call(qtbot, L.query(page, "#nothing")) == L.QueryResult(0, [])


SNAPSHOT_PAGE = """<!doctype html><title>Checkout</title>
<header><a href="/">Home</a></header>
<nav aria-label="Main"><a href="/shop">Shop</a> <a href="https://example.com/help">Help</a></nav>
<main>
  <h2>Checkout</h2>
  <div role=alert>Card declined</div>
  <form aria-label="Payment">
    <label>Email <input type=email value="a@b"></label>
    <input type=password placeholder=Password value=secret>
    <select aria-label=Size><option>S</option><option selected>M</option></select>
    <input type=checkbox id=gift checked><label for=gift>Gift wrap</label>
    <textarea placeholder=Notes></textarea>
    <label class=switch><input type=checkbox style="display:none" checked> <span>Subscribe</span></label>
    <button disabled>Place order</button>
    <button style="display:none">Hidden</button>
  </form>
  <div contenteditable>Edit me</div>
  <span onclick="1">Clickable span</span>
</main>
<footer><p>Plain text is listed too</p></footer>"""


def test_snapshot_outline_and_stale_refs(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_page(qtbot, shell, server, "/checkout", SNAPSHOT_PAGE)
    page = tab.page()
    snap = call(qtbot, L.snapshot(page))
    assert snap.text == "\n".join([
        f"url: {server.url('/checkout')}",
        "title: Checkout",
        "- banner:",
        '  - link "Home" [ref=e1] href=/',
        '- navigation "Main":',
        '  - link "Shop" [ref=e2] href=/shop',
        '  - link "Help" [ref=e3] href=https://example.com/help',
        "- main:",
        '  - heading "Checkout" level=2',
        '  - alert "Card declined"',
        '  - form "Payment":',
        '    - textbox "Email" [ref=e4] type=email value="a@b"',
        '    - textbox "Password" [ref=e5] type=password value="••••"',
        '    - combobox "Size" [ref=e6] value="M" options=["S", "M"]',
        '    - checkbox "Gift wrap" [ref=e7] checked',
        '    - textbox "Notes" [ref=e8]',
        '    - checkbox "Subscribe" [ref=e9] checked',
        '    - button "Place order" [ref=e10] disabled',
        '  - textbox [ref=e11] value="Edit me"',
        '  - clickable "Clickable span" [ref=e12]',
        "- contentinfo:",
        "  - paragraph: Plain text is listed too",
    ])
    assert (snap.url, snap.title, snap.refs, snap.truncated, snap.generation) == \
        (server.url("/checkout"), "Checkout", 12, False, 1)

    # Refs work as locators; a second snapshot keeps them.
    assert call(qtbot, L.resolve(page, Locator(ref="e10"))) == "<button>Place order</button>"
    assert fails(qtbot, L.wait_actionable(page, Locator(ref="e10"), timeout=0.1), L.NotEnabled) == \
        "<button>Place order</button> is disabled"
    # The label standing in for a hidden checkbox is what a person clicks.
    assert call(qtbot, L.wait_actionable(page, Locator(ref="e9"))).description == "<label>Subscribe</label>"
    assert call(qtbot, L.snapshot(page)).text == snap.text
    target = call(qtbot, L.wait_actionable(page, {"ref": "e2"}))
    assert target.description == "<a href=/shop>Shop</a>"
    assert fails(qtbot, L.wait_actionable(page, Locator(ref="e99")), L.StaleRef) == \
        "ref e99 is stale or unknown: take a new page_snapshot"

    # A ref whose element left the page is gone for a wait, stale for an action.
    run_js(qtbot, tab, "document.querySelector('a[href=\"/shop\"]').remove() || 1")
    assert call(qtbot, L.wait_state(page, Locator(ref="e2"), "gone", timeout=1)) == 0
    assert fails(qtbot, L.wait_actionable(page, Locator(ref="e2")), L.StaleRef) == \
        "ref e2 is stale or unknown: take a new page_snapshot"

    # A new document: every old ref is stale until the next snapshot.
    server.route("/other", "<!doctype html><title>Other</title><button>Other</button>")
    tab.open(server.url("/other"))
    wait_loaded(qtbot, tab)
    assert fails(qtbot, L.wait_actionable(page, Locator(ref="e10")), L.StaleRef) == \
        "ref e10 is stale or unknown: take a new page_snapshot"
    snap = call(qtbot, L.snapshot(page))
    assert snap.text.splitlines()[2:] == ['- button "Other" [ref=e1]']
    assert snap.generation == 1


def test_waits_survive_a_navigation(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/b", "<!doctype html><title>B</title><button id=next>Continue</button>")
    tab = open_page(qtbot, shell, server, "/a", """<!doctype html><title>A</title><p id=old>Old page</p>
        <script>setTimeout(() => { location.href = '/b'; }, 200);</script>""")
    page = tab.page()
    assert call(qtbot, L.wait_state(page, "#old", "gone", timeout=10)) == 0
    target = call(qtbot, L.wait_actionable(page, "text=Continue", timeout=10))
    assert target.description == "<button id=next>Continue</button>"
    assert tab.url().path() == "/b"
