"""What an agent reads of a page: `page_snapshot` through the operations registry, on real pages from the local
server (tests/support/content_pages.py) in the app's own tabs. Every cell, item, paragraph and label is in the
snapshot; refs from it act on the right element; long runs fold and page; CJK text comes through whole."""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

from app.browser import locators
from app.wiring.shell import BrowserPilotApp
from tests.integration.test_locators import call
from tests.support.content_pages import CONTENT, HIDDEN, LONG_ITEMS, PAGES, more_calls
from tests.support.qt import run_op, view_of
from tests.support.server import LocalServer


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def snapshot(qtbot: QtBot, shell: BrowserPilotApp, tab: str, **params: Any) -> dict[str, Any]:
    return ok(run_op(qtbot, shell, "page_snapshot", {"tabId": tab, **params}))


def open_tab(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> str:
    for path, page in PAGES.items():
        server.route(path, page())
    return str(ok(run_op(qtbot, shell, "tab_open", {}))["tabId"])


def body(text: str) -> list[str]:
    """The snapshot's lines after the url: and title: header."""
    return text.splitlines()[2:]


def test_every_page_content_is_in_the_snapshot(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_tab(qtbot, shell, server)
    for path, wanted in CONTENT.items():
        ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url(path)}))
        snap = snapshot(qtbot, shell, tab)
        text = snap["snapshot"]
        assert text.startswith(f"url: {server.url(path)}\ntitle: ")
        pending = more_calls(text)
        while pending:   # what folded runs leave out, read page by page as an agent would
            page = snapshot(qtbot, shell, tab, **pending.pop(0))["snapshot"]
            text += "\n" + page
            pending += more_calls(page)
        missing = [s for s in wanted if s not in text]
        assert not missing, f"{path}: {missing} not in\n{text}"
        for hidden in HIDDEN.get(path, []):
            assert hidden not in text, path

    # The whole outline of the product table: every cell, one line each, refs only on controls.
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/products")}))
    lines = body(snapshot(qtbot, shell, tab)["snapshot"])
    assert lines[:13] == [
        '- heading "Products page 1" level=1',
        "- table:",
        "  - row:",
        "    - columnheader: Name",
        "    - columnheader: Price",
        "    - columnheader: Action",
        "  - row:",
        "    - cell: Walnut desk lamp",
        "    - cell: $49.00",
        "    - cell:",
        '      - button "Add to cart" [ref=e1]',
        "  - row:",
        "    - cell: Linen throw pillow",
    ]
    assert lines[-1] == '- link "Next" [ref=e6] href=/products?page=2'

    # Prose, landmarks, images by their alt text, and CJK text as it is.
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/article")}))
    lines = body(snapshot(qtbot, shell, tab)["snapshot"])
    assert "    - paragraph: 北京的秋天天气晴朗，适合出游。東京の地下鉄は便利です。" in lines
    assert lines[lines.index('  - article:') + 2:lines.index('  - article:') + 8] == [
        "    - paragraph:",
        "      - text: Published 2 October 2024 by",
        '      - link "Lin Wei" [ref=e4] href=/authors/lin',
        "      - text: .",
        '    - figure "Maple season along the canal.":',
        '      - img "Red maple leaves over a canal"',
    ]
    assert lines[0] == "- banner:" and lines[-2:] == ["- contentinfo:", "  - paragraph: © 2024 Field Notes"]


def test_a_ref_from_the_snapshot_clicks_that_rows_button(qtbot: QtBot, shell: BrowserPilotApp,
                                                         server: LocalServer) -> None:
    server.route("/cart", "added")
    tab = open_tab(qtbot, shell, server)
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/products")}))
    lines = body(snapshot(qtbot, shell, tab)["snapshot"])
    # The button on the row of the fourth product, found as an agent reads it: the row's lines, then its ref.
    row = lines.index("    - cell: Oak cutting board")
    button = lines[row + 3]
    assert button.startswith('      - button "Add to cart" [ref=')
    ref = button.split("[ref=")[1].rstrip("]")
    ok(run_op(qtbot, shell, "page_click", {"tabId": tab, "locator": {"ref": ref}}))
    qtbot.waitUntil(lambda: [r.arg("add") for r in server.requests if r.path == "/cart"] == ["sku-4"])
    ok(run_op(qtbot, shell, "page_wait", {"tabId": tab, "locator": {"selector": "text=Added sku-4"}}))
    again = snapshot(qtbot, shell, tab)["snapshot"]
    assert 'status "Added sku-4"' in again and f"[ref={ref}]" in again   # the same element keeps its ref


def test_long_runs_fold_and_page(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab = open_tab(qtbot, shell, server)
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/log")}))
    first = snapshot(qtbot, shell, tab)
    lines = body(first["snapshot"])
    assert lines[:3] == ['- heading "Station log" level=2', "- list:", f"  - listitem: {LONG_ITEMS[0]}"]
    assert lines[26] == f"  - listitem: {LONG_ITEMS[24]}"
    assert lines[27] == '  - … 175 more listitem (26-200 of 200): page_snapshot {"locator": {"ref": "e1"}, "start": 26}'
    assert lines[28:] == ["- paragraph: End of log."]
    assert first["folded"] == 1 and not first["truncated"]

    # The next page of the run: the list alone, from item 26, with the way back and the way on.
    page = snapshot(qtbot, shell, tab, locator={"ref": "e1"}, start=26)
    lines = page["snapshot"].splitlines()
    assert lines[2].startswith("scope: <ol id=log>")
    assert lines[3] == '- … 25 earlier listitem (1-25 of 200): page_snapshot {"locator": {"ref": "e1"}, "start": 1}'
    assert lines[4:29] == [f"- listitem: {item}" for item in LONG_ITEMS[25:50]]
    assert lines[29:] == ['- … 150 more listitem (51-200 of 200): page_snapshot {"locator": {"ref": "e1"}, "start": 51}']

    # The last page; a larger page size; no folding at all; any locator as the scope.
    last = snapshot(qtbot, shell, tab, locator={"ref": "e1"}, start=190)["snapshot"].splitlines()[3:]
    assert last == ['- … 189 earlier listitem (1-189 of 200): page_snapshot {"locator": {"ref": "e1"}, "start": 165}',
                    *[f"- listitem: {item}" for item in LONG_ITEMS[189:]]]
    wide = snapshot(qtbot, shell, tab, locator={"selector": "#log"}, start=101, items=100)["snapshot"]
    assert [line for line in wide.splitlines() if "listitem:" in line] == [f"- listitem: {i}" for i in LONG_ITEMS[100:]]
    whole = snapshot(qtbot, shell, tab, items=0)
    assert whole["folded"] == 0 and all(f"  - listitem: {item}" in whole["snapshot"].splitlines() for item in LONG_ITEMS)

    # A line limit cuts the outline and says so (page_snapshot's limit is 1000 lines).
    cut = call(qtbot, locators.snapshot(view_of(shell, tab).page(), items=0, limit=50))
    assert cut.truncated and body(cut.text)[49] == "  - listitem: Entry 048 · station 45"
    assert body(cut.text)[50:] == ['- … 153 more lines left out (snapshot limit 50): snapshot a part with {"locator": …}']

    # The short list stays whole by default, and folds when asked for fewer items.
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/tasks")}))
    assert snapshot(qtbot, shell, tab)["folded"] == 0
    few = body(snapshot(qtbot, shell, tab, items=5)["snapshot"])
    assert few[-1].startswith("  - … 15 more listitem (6-20 of 20): page_snapshot {")

    missing = run_op(qtbot, shell, "page_snapshot", {"tabId": tab, "locator": {"selector": "#nothing"}})
    assert not missing["ok"] and missing["error"] == 'no element matches "#nothing"'


def test_a_tab_that_shows_no_page_says_so(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    """A new tab before its first navigation: reading it says to navigate (not "still loading" after a wait),
    and once it has a page, it reads."""
    tab = ok(run_op(qtbot, shell, "tab_open", {}))["tabId"]
    blank = run_op(qtbot, shell, "page_snapshot", {"tabId": tab})
    assert not blank["ok"] and "about:blank" in blank["error"] and "navigate" in blank["error"], blank
    server.route("/hello", "<!doctype html><title>Hello</title><h1>Hello there</h1>")
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/hello")}))
    assert '- heading "Hello there" level=1' in snapshot(qtbot, shell, tab)["snapshot"]
