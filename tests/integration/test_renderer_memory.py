"""Issue 35: a long-lived tab's renderer gives back what the documents it left hold (app/browser/memory.py).

Real QtWebEngine offscreen, one app for the module, pages from a local server that each leave a few MB of
JavaScript objects behind when the tab goes on. The keeper's threshold is lowered for the module (8 documents
instead of 40) so that a test needs few loads. What counts is what the renderer itself reports: its private
memory before and after, and Chromium's DOM counters (`Memory.getDOMCounters`: documents alive in the renderer),
read through `page_cdp` as an agent would.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser.memory import private_bytes
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import run_js, run_op, running_app, view_of
from tests.support.server import LocalServer

DOCUMENTS = 8
# Each page keeps ~4 MB of small objects reachable from its window: garbage once the tab has left it.
HEAVY = """<!doctype html><title>Heavy {n}</title><h1 id=n>{n}</h1><script>
window.junk = Array.from({{length: 100000}}, (_, i) => ({{i, text: 'item ' + i}}));
</script>"""


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("renderer-memory")) as shell:
        shell.service.memory.documents = DOCUMENTS
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        for n in range(40):
            local.route(f"/heavy/{n}", HEAVY.format(n=n))
        local.route("/login", "<!doctype html><title>Login</title><script>document.cookie = 'session=kept; path=/';"
                              "localStorage.setItem('who', 'ada')</script><p>in</p>")
        yield local


def call(qtbot: QtBot, coroutine: Any, timeout: int = 30_000) -> Any:
    task = asyncio.ensure_future(coroutine)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def counters(qtbot: QtBot, app: BrowserPilotApp, tab_id: str) -> dict[str, Any]:
    dom = run_op(qtbot, app, "page_cdp", {"tabId": tab_id, "method": "Memory.getDOMCounters"})
    assert dom["ok"], dom
    return dom["result"]


def test_the_documents_a_tab_left_are_collected_and_the_page_keeps_its_state(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    opened = run_op(qtbot, app, "tab_open", {"url": site.url("/login")})
    tab_id = opened["tabId"]
    view = view_of(app, tab_id)
    qtbot.waitUntil(lambda: run_js(qtbot, view, "document.title") == "Login", timeout=10_000)
    keeper = app.service.memory
    collected = len(keeper.collections)
    # Fewer loads than the threshold: nothing is collected (and no DevTools channel is attached for it).
    for n in range(DOCUMENTS - 3):
        assert run_op(qtbot, app, "page_navigate", {"tabId": tab_id, "url": site.url(f"/heavy/{n}")})["ok"]
    assert len(keeper.collections) == collected and app.service.cdp.frontend_count() == 0
    history = run_js(qtbot, view, "history.length")
    # The threshold's document: the renderer is collected, the page stays as it is.
    for n in range(DOCUMENTS - 3, DOCUMENTS):
        assert run_op(qtbot, app, "page_navigate", {"tabId": tab_id, "url": site.url(f"/heavy/{n}")})["ok"]
    qtbot.waitUntil(lambda: len(keeper.collections) > collected, timeout=30_000)
    done = keeper.collections[-1]
    assert done.pid == view.page().renderProcessPid() and done.documents >= DOCUMENTS
    assert done.before is not None and done.after is not None and done.before - done.after > 8 * 2**20, done
    qtbot.waitUntil(lambda: app.service.cdp.frontend_count() == 0, timeout=10_000)  # attached for it only
    # What the renderer holds now: the page shown and at most the one it left after the collection.
    after = counters(qtbot, app, tab_id)
    assert after["documents"] <= 2, after
    # A collection reloads nothing: the page's own state, its history and its login stay as they were.
    run_js(qtbot, view, "window.marker = 'still here'")
    again = call(qtbot, keeper.collect_now(view.page()))
    assert again is not None and again.documents <= 2
    assert run_js(qtbot, view, "window.marker") == "still here"
    assert run_js(qtbot, view, "history.length") == history + 3
    assert run_js(qtbot, view, "document.cookie") == "session=kept"
    assert run_js(qtbot, view, "localStorage.getItem('who')") == "ada"
    run_op(qtbot, app, "tab_close", {"tabId": tab_id})


def test_a_run_that_goes_through_many_pages_is_collected_on_its_way_and_ends_ok(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    nodes: list[dict[str, Any]] = [{"id": "start", "data": {"type": "start"}}]
    for n in range(3 * DOCUMENTS):
        nodes.append({"id": f"go{n}", "data": {"type": "goto", "url": site.url(f"/heavy/{n}")}})
    nodes.append({"id": "read", "data": {"type": "script", "source": "return {value: document.title};"}})
    nodes.append({"id": "end", "data": {"type": "end", "outputs": [{"variable": "title",
                                                                     "value_selector": ["read", "value"]}]}})
    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Many pages", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [],
                             "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                                 for a, b in zip(nodes, nodes[1:])]}}}
    keeper = app.service.memory
    collected = len(keeper.collections)
    result = run_op(qtbot, app, "workflow_run", {"workflow": document}, timeout=120_000)
    assert result["ok"] and result["outputs"]["title"] == f"Heavy {3 * DOCUMENTS - 1}", result
    assert len(keeper.collections) - collected >= 2  # during the run, while it went on
    tab = app.service.get(result["tabId"])
    assert private_bytes(tab.page.renderProcessPid()) is not None
