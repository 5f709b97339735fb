"""Who controls a tab: agent / handoff / shared, against real pages, asserting what the page saw.

A person is simulated with QTest, whose events are marked spontaneous like the window system's: clicks go
either through the window (hit-testing, so the overlay is in the way) or straight to the render widget (the
control's filter must stop them); typing goes to the render widget. The app's own input is `click_element`
(fresh QMouseEvents sent with `QApplication.sendEvent`), which is not spontaneous. Negative checks are made
deterministic with a sentinel: after the person's input, the app sends input of its own and waits for the page
to see it; input travels to the renderer in order, so anything the person's input did has happened by then.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QInputMethodEvent, QInputMethodQueryEvent, QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.browser.capture import settle_frame
from app.browser.control import ControlState, HandoffTimeout, TabClosed, TabControl
from app.browser.js import run_js as page_js
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from app.ui.control_overlay import ControlOverlay, HandoffBanner
from tests.support.qt import click_element, open_view, run_js, wait_loaded, window_of
from tests.support.server import LocalServer

PAGE = """<!doctype html><html><head><title>Control</title></head>
<body style="margin:0;background:#ffffff">
<button id=target style="position:absolute;left:40px;top:60px;width:160px;height:50px">Target</button>
<button id=sentinel style="position:absolute;left:240px;top:60px;width:160px;height:50px">Sentinel</button>
<input id=field style="position:absolute;left:40px;top:140px;width:300px;height:30px">
<a id=popup href="/page" target="_blank" style="position:absolute;left:40px;top:200px">popup</a>
<script>
window.seen = {clicks: 0, trusted: 0, downs: 0, keys: 0, sentinel: 0, menus: 0};
document.getElementById('target').addEventListener('click', e => { seen.clicks++; if (e.isTrusted) seen.trusted++; });
document.getElementById('sentinel').addEventListener('click', () => seen.sentinel++);
document.addEventListener('mousedown', e => { if (e.target.id !== 'sentinel') seen.downs++; });
document.addEventListener('contextmenu', e => { seen.menus++; e.preventDefault(); });
document.getElementById('field').addEventListener('keydown', () => seen.keys++);
</script></body></html>"""

LATE_TARGET = """<!doctype html><body style="margin:0"><p>waiting</p><script>
setTimeout(() => { const b = document.createElement('button'); b.id = 'ready'; b.textContent = 'Ready';
                   document.body.appendChild(b); }, 700);
</script></body>"""


# -- helpers -----------------------------------------------------------------------------------------------
@pytest.fixture
def shell(windowed_shell: BrowserPilotApp) -> BrowserPilotApp:
    """The overlay, the banner and the chips are what an environment window shows of a tab's control."""
    return windowed_shell


def open_page(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, path: str = "/page",
              body: str = PAGE) -> tuple[BrowserTab, TabControl]:
    server.route(path, body)
    tab = open_view(shell, "env-default", server.url(path))
    wait_loaded(qtbot, tab)
    qtbot.waitUntil(lambda: tab.focusProxy() is not None and tab.focusProxy().isVisible())
    control = TabControl.of(tab)
    assert control is not None
    return tab, control


def wait_ready(qtbot: QtBot, tab: BrowserTab) -> None:
    """The test page has loaded and its script has run."""
    qtbot.waitUntil(lambda: not tab.loading and bool(run_js(qtbot, tab, "document.readyState === 'complete' "
                                                                     "&& !!window.seen")), timeout=15_000)


def seen(qtbot: QtBot, tab: BrowserTab) -> dict[str, Any]:
    return run_js(qtbot, tab, "window.seen")


def field_value(qtbot: QtBot, tab: BrowserTab) -> str:
    return run_js(qtbot, tab, "document.getElementById('field').value")


def centre(qtbot: QtBot, tab: BrowserTab, selector: str) -> QPoint:
    """The element's centre in the render widget's coordinates."""
    x, y = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                              ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    return QPoint(round(x * tab.zoomFactor()), round(y * tab.zoomFactor()))


def person_clicks_through_window(qtbot: QtBot, tab: BrowserTab, selector: str,
                                 button: Qt.MouseButton = Qt.MouseButton.LeftButton) -> None:
    """As the window system delivers it: to whatever widget is on top at that point."""
    window = tab.window()
    point = tab.focusProxy().mapTo(window, centre(qtbot, tab, selector))
    QTest.mouseClick(window.windowHandle(), button, Qt.KeyboardModifier.NoModifier, point)


def person_clicks_widget(widget: QWidget, point: QPoint | None = None) -> None:
    """Straight to `widget` (QTest marks it spontaneous), past anything stacked above it."""
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     point if point is not None else widget.rect().center())


def person_clicks_render_widget(qtbot: QtBot, tab: BrowserTab, selector: str) -> None:
    person_clicks_widget(tab.focusProxy(), centre(qtbot, tab, selector))


def person_types(tab: BrowserTab, text: str) -> None:
    QTest.keyClicks(tab.focusProxy(), text)


def app_types(tab: BrowserTab, char: str) -> None:
    key = getattr(Qt.Key, f"Key_{char.upper()}")
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(tab.focusProxy(), QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, char))


def app_clicks_sentinel(qtbot: QtBot, tab: BrowserTab) -> None:
    """The app's own click; once the page saw it, it has seen everything sent before it."""
    before = seen(qtbot, tab)["sentinel"]
    click_element(qtbot, tab, "#sentinel")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["sentinel"] == before + 1)


def focus_field(qtbot: QtBot, tab: BrowserTab) -> None:
    click_element(qtbot, tab, "#field")  # the app's click: passes the lock
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.activeElement.id") == "field")
    # A second click soon after the first is a double click that selects a word: put the caret at the end.
    run_js(qtbot, tab, "(() => { const f = document.getElementById('field'); "
                       "f.setSelectionRange(f.value.length, f.value.length); return true; })()")


def im_enabled(tab: BrowserTab) -> bool:
    query = QInputMethodQueryEvent(Qt.InputMethodQuery.ImEnabled)
    QApplication.sendEvent(tab.focusProxy(), query)
    return bool(query.value(Qt.InputMethodQuery.ImEnabled))


def overlay_of(tab: BrowserTab) -> ControlOverlay:
    overlay = tab.findChild(ControlOverlay, "control-overlay")
    assert overlay is not None
    return overlay


def banner_of(tab: BrowserTab) -> HandoffBanner:
    banner = tab.findChild(HandoffBanner, "control-banner")
    assert banner is not None
    return banner


def assert_person_is_locked_out(qtbot: QtBot, tab: BrowserTab) -> None:
    """Clicks through the window and straight to the render widget, a right click and typing: none arrive."""
    before = seen(qtbot, tab)
    focus_field(qtbot, tab)
    value = field_value(qtbot, tab)
    person_clicks_through_window(qtbot, tab, "#target")
    person_clicks_through_window(qtbot, tab, "#target", Qt.MouseButton.RightButton)
    person_clicks_render_widget(qtbot, tab, "#target")
    person_types(tab, "person")
    app_types(tab, "z")
    app_clicks_sentinel(qtbot, tab)
    after = seen(qtbot, tab)
    assert (after["clicks"], after["menus"]) == (before["clicks"], before["menus"])
    assert after["downs"] == before["downs"] + 1  # only the app's click into the field
    assert field_value(qtbot, tab) == value + "z"  # the app's key, not the person's


def run(qtbot: QtBot, coro: Any, timeout: int = 15_000) -> Any:
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


# -- tests -------------------------------------------------------------------------------------------------
def test_a_person_opened_tab_is_shared_and_takes_the_persons_input(qtbot: QtBot, shell: BrowserPilotApp,
                                                                   server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    assert control.state is ControlState.SHARED and not control.locked
    assert not overlay_of(tab).isVisible() and not banner_of(tab).isVisible()
    person_clicks_through_window(qtbot, tab, "#target")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["trusted"] == 1)


def test_agent_locks_out_the_person_but_not_the_app(qtbot: QtBot, shell: BrowserPilotApp,
                                                    server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    with qtbot.waitSignal(control.state_changed) as changed:
        control.set_state("agent")
    assert changed.args == ["agent"] and control.locked
    overlay = overlay_of(tab)
    assert overlay.isVisible() and overlay.geometry() == tab.rect()
    assert overlay.take_over_button.isVisible() and "operating this page" in overlay.card.message.text()
    assert_person_is_locked_out(qtbot, tab)
    # The app's own click reaches the page, trusted.
    click_element(qtbot, tab, "#target")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["trusted"] == 1)
    assert seen(qtbot, tab)["clicks"] == 1


def test_input_methods_are_off_for_the_person_while_locked_and_the_app_still_commits_text(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    focus_field(qtbot, tab)
    assert im_enabled(tab)
    control.set_state("agent")
    assert not im_enabled(tab)  # a person's input method falls back to plain (filtered) key events
    commit = QInputMethodEvent()
    commit.setCommitString("héllo €")
    QApplication.sendEvent(tab.focusProxy(), commit)
    qtbot.waitUntil(lambda: field_value(qtbot, tab) == "héllo €")
    control.set_state("shared")
    assert im_enabled(tab)


def test_take_over_hands_the_page_to_the_person_and_is_reported_once(qtbot: QtBot, shell: BrowserPilotApp,
                                                                     server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    control.set_state(ControlState.AGENT)
    assert not control.consume_taken_over()
    button = tab.findChild(QPushButton, "control-take-over")
    assert button is not None and button.isVisible()
    window = tab.window()
    with qtbot.waitSignal(control.state_changed) as changed:  # clicked as a person: through the window
        QTest.mouseClick(window.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         button.mapTo(window, button.rect().center()))
    assert changed.args == ["shared"] and control.state is ControlState.SHARED
    assert not overlay_of(tab).isVisible()
    assert QApplication.focusWidget() is tab.focusProxy()  # the keyboard goes to the page now
    assert control.consume_taken_over() is True
    assert control.consume_taken_over() is False
    # The person's input reaches the page now.
    person_clicks_through_window(qtbot, tab, "#target")
    person_clicks_render_widget(qtbot, tab, "#target")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["trusted"] == 2)
    focus_field(qtbot, tab)
    person_types(tab, "mine")
    qtbot.waitUntil(lambda: field_value(qtbot, tab) == "mine")


def test_handoff_shows_a_banner_above_the_page_and_done_locks_again(qtbot: QtBot, shell: BrowserPilotApp,
                                                                    server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    height_before = run_js(qtbot, tab, "window.innerHeight")
    control.set_state("agent")
    control.set_state("handoff", "Please solve the captcha, then click Done")
    banner = banner_of(tab)
    assert banner.isVisible() and not overlay_of(tab).isVisible()
    assert banner.message.text() == "Please solve the captcha, then click Done"
    # The banner sits above the page: the render widget starts below it, and the page got shorter.
    assert banner.geometry().top() == 0 and banner.height() > 0
    assert tab.focusProxy().geometry().top() == banner.height() == control.page_rect().top()
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.innerHeight") == height_before - banner.height())
    # The person acts freely.
    person_clicks_through_window(qtbot, tab, "#target")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["trusted"] == 1)
    focus_field(qtbot, tab)
    person_types(tab, "solved")
    qtbot.waitUntil(lambda: field_value(qtbot, tab) == "solved")
    # Done (a person's click) returns to agent: banner gone, page full height, overlay back, locked.
    with qtbot.waitSignal(control.state_changed) as changed:
        person_clicks_widget(banner.done_button)
    assert changed.args == ["agent"] and control.locked
    assert not banner.isVisible() and overlay_of(tab).isVisible()
    assert tab.focusProxy().geometry().top() == 0
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "window.innerHeight") == height_before)
    assert_person_is_locked_out(qtbot, tab)


def test_wait_handoff_end_returns_when_the_target_appears_and_relocks(qtbot: QtBot, shell: BrowserPilotApp,
                                                                      server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server, "/late", LATE_TARGET)
    control.set_state("handoff", "Log in, please")

    async def target_present() -> bool:
        return bool(await page_js(tab.page(), "!!document.getElementById('ready')"))

    started = time.monotonic()
    assert run(qtbot, control.wait_handoff_end(target_present, timeout=10)) == "target"
    assert time.monotonic() - started >= 0.3  # it did wait for the page
    assert run_js(qtbot, tab, "!!document.getElementById('ready')")
    assert control.state is ControlState.AGENT and overlay_of(tab).isVisible()
    assert not control.consume_taken_over()


def test_wait_handoff_end_returns_when_the_person_clicks_done(qtbot: QtBot, shell: BrowserPilotApp,
                                                              server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    assert run(qtbot, control.wait_handoff_end(None, timeout=1)) == "not_in_handoff"
    control.set_state("handoff")
    checks: list[int] = []

    async def never() -> bool:
        checks.append(1)
        return False

    QTimer.singleShot(600, lambda: person_clicks_widget(banner_of(tab).done_button))
    assert run(qtbot, control.wait_handoff_end(never, timeout=10)) == "done"
    assert control.state is ControlState.AGENT
    assert 2 <= len(checks) <= 6  # polled about every 250 ms


def test_wait_handoff_end_times_out_and_leaves_the_handoff(qtbot: QtBot, shell: BrowserPilotApp,
                                                           server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    control.set_state("handoff")

    async def never() -> bool:
        return False

    task = asyncio.ensure_future(control.wait_handoff_end(never, timeout=0.6))
    qtbot.waitUntil(task.done, timeout=5_000)
    with pytest.raises(HandoffTimeout, match="did not finish the handoff within 0.6 s"):
        task.result()
    assert control.state is ControlState.HANDOFF and banner_of(tab).isVisible()


def test_the_lock_survives_render_widget_swaps(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    control.set_state("agent")
    first = tab.focusProxy()
    # A renderer crash: the render widget goes; reloading brings a new one (a new focus proxy).
    with qtbot.waitSignal(tab.page().renderProcessTerminated, timeout=10_000):
        os.kill(tab.page().renderProcessPid(), signal.SIGKILL)
    tab.reload()  # (the page's health tracker may reload it too: either way one page comes back)
    qtbot.waitUntil(lambda: tab.focusProxy() is not None and tab.focusProxy() is not first, timeout=10_000)
    wait_ready(qtbot, tab)
    assert control.locked and overlay_of(tab).isVisible()
    assert_person_is_locked_out(qtbot, tab)
    # A cross-site navigation swaps the render widget too.
    second = tab.focusProxy()
    server_url = server.url("/page").replace("127.0.0.1", "localhost")
    tab.open(server_url)
    qtbot.waitUntil(lambda: tab.focusProxy() is not None and tab.focusProxy() is not second, timeout=10_000)
    wait_ready(qtbot, tab)
    assert_person_is_locked_out(qtbot, tab)
    # The overlay stays on top of the new render widget: Take over is still there to click, through the window.
    window = tab.window()
    button = overlay_of(tab).take_over_button
    qtbot.waitUntil(lambda: window.childAt(button.mapTo(window, button.rect().center())) is button)
    QTest.mouseClick(window.windowHandle(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     button.mapTo(window, button.rect().center()))
    assert control.state is ControlState.SHARED and control.consume_taken_over()
    # Unlocking removes the filter from the new widget as well.
    person_clicks_render_widget(qtbot, tab, "#target")
    qtbot.waitUntil(lambda: seen(qtbot, tab)["trusted"] == 1)


def test_a_background_tabs_capture_leaves_its_overlay_out_too(qtbot: QtBot, shell: BrowserPilotApp,
                                                              server: LocalServer) -> None:
    """A tab the agent drives behind the one in front: its overlay is not visible on screen, but a grab of the
    view would still paint it (the page's picture is kept while the tab is behind)."""
    tab, control = open_page(qtbot, shell, server)
    control.set_state("agent")
    front, _ = open_page(qtbot, shell, server, "/front")
    window = tab.window()
    window.tabs.setCurrentWidget(front)
    qtbot.waitUntil(lambda: not tab.isVisible())
    page = control.grab_page().toImage()
    for point in (QPoint(1, 1), QPoint(page.width() // 2, page.height() // 3)):
        assert page.pixelColor(point).name() == "#ffffff", point
    assert overlay_of(tab).isVisibleTo(tab)  # put back afterwards
    window.close_tab(front)


def test_overlay_follows_the_view_and_stays_out_of_captures(qtbot: QtBot, shell: BrowserPilotApp,
                                                            server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    control.set_state("agent")
    overlay = overlay_of(tab)
    window = tab.window()
    window.resize(900, 640)
    qtbot.waitUntil(lambda: overlay.geometry() == tab.rect() and tab.width() < 1000)
    # After a resize Qt shows the old, smaller frame for a while: wait for the page's frame at the new size
    # (its bottom-right corner is white page, not the blank beyond the old frame).
    corner = QRect(tab.width() - 2, tab.height() - 2, 1, 1)
    qtbot.waitUntil(lambda: control.grab_page(corner).toImage().pixelColor(0, 0).name() == "#ffffff")
    card = overlay.card.geometry()
    assert overlay.rect().contains(card) and abs(card.center().x() - overlay.rect().center().x()) <= 1
    # view.grab() paints child widgets, so the overlay's frame shows in a plain grab ...
    grabbed = tab.grab().toImage()
    assert grabbed.pixelColor(1, 1).name() != "#ffffff"
    # ... and its tint over the white page (a widget filling its background, no paint code of ours).
    middle = QPoint(tab.width() // 2, tab.height() // 3)
    assert grabbed.pixelColor(middle).name() not in ("#ffffff", grabbed.pixelColor(1, 1).name())
    # ... and not inside hidden_for_capture(), which puts the overlay back afterwards.
    with control.hidden_for_capture():
        image = tab.grab().toImage()
    assert image.pixelColor(1, 1).name() == image.pixelColor(middle).name() == "#ffffff"
    assert overlay.isVisible()
    # grab_page: the page's own pixels and coordinates, also below a handoff banner.
    assert control.grab_page().toImage().pixelColor(1, 1).name() == "#ffffff"
    control.set_state("handoff")
    banner = banner_of(tab)
    qtbot.waitUntil(lambda: tab.focusProxy().geometry().top() == banner.height() > 0)
    # The banner shrank the page's area: as a screenshot does, wait until Qt's picture is the page at the new
    # size (CI once grabbed an all-white picture here, before the page's frame had come).
    run(qtbot, settle_frame(tab))
    page = control.grab_page()
    assert (page.width(), page.height()) == (tab.width(), tab.height() - banner.height())
    assert page.toImage().pixelColor(1, 1).name() == "#ffffff"
    button = centre(qtbot, tab, "#target")  # a grey button on the white page, in page coordinates
    assert control.grab_page(QRect(button, QSize(1, 1))).toImage().pixelColor(0, 0).name() != "#ffffff"
    assert control.grab_page(QRect(QPoint(2, 2), QSize(1, 1))).toImage().pixelColor(0, 0).name() == "#ffffff"
    assert banner.isVisible()


def test_the_window_shows_each_tabs_state_and_agent_tabs_start_locked(qtbot: QtBot, shell: BrowserPilotApp,
                                                                      server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    window = window_of(shell, "env-default")
    index = window.tabs.indexOf(tab)
    assert "share this tab" in window.tabs.tabToolTip(index)
    control.set_state("agent")
    assert "operating this tab" in window.tabs.tabToolTip(index)
    assert window.control_label.text() == "Agent" and "operating this tab" in window.control_label.toolTip()
    assert not window.tabs.tabIcon(index).isNull()  # the favicon (none here) with the state's dot
    control.set_state("handoff")
    assert window.control_label.text() == "Your turn" and "Done" in window.control_label.toolTip()
    # A tab the agent opens starts locked; a popup of a locked tab too.
    agent_tab = shell.service.new_tab("env-default", server.url("/page"), control="agent").view
    wait_loaded(qtbot, agent_tab)
    agent_control = window.control_of(agent_tab)
    assert agent_control.locked and "operating this tab" in window.control_label.toolTip()
    count = window.tabs.count()
    click_element(qtbot, agent_tab, "#popup")
    qtbot.waitUntil(lambda: window.tabs.count() == count + 1)
    popup = window.current_tab()
    assert popup is not None and popup is not agent_tab and window.control_of(popup).locked


def test_a_locked_page_keeps_the_windows_shortcuts_working(qtbot: QtBot, shell: BrowserPilotApp,
                                                           server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    window = window_of(shell, "env-default")
    control.set_state("agent")
    focus_field(qtbot, tab)
    tab.focusProxy().setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.focusProxy())
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.address.hasFocus)
    app_clicks_sentinel(qtbot, tab)
    assert seen(qtbot, tab)["keys"] == 0


def test_a_handoff_wait_ends_with_an_error_when_the_tab_closes(qtbot: QtBot, shell: BrowserPilotApp,
                                                               server: LocalServer) -> None:
    tab, control = open_page(qtbot, shell, server)
    window = window_of(shell, "env-default")
    shell.service.new_tab("env-default", server.url("/page"), control="shared", activate=False)  # closing `tab` leaves the window open
    control.set_state("handoff")
    task = asyncio.ensure_future(control.wait_handoff_end(None, timeout=10))
    QTimer.singleShot(200, lambda: window.close_tab(tab))
    qtbot.waitUntil(task.done, timeout=5_000)
    with pytest.raises(TabClosed, match="tab was closed"):
        task.result()
