"""Trusted input (app/browser/input_driver.py) against real pages from the local server, in the app's own tabs.

Every test asserts what the page (or the server) saw: event types, `isTrusted`, `detail`, `button`, `key`,
`code`, `inputType`, values, scroll positions, submitted forms. Most tests act right after `loadFinished`, when
Chromium still drops input until the first paint: the driver's `ready()` must absorb that. Its probe is one
trusted Shift key-up per document, which pages (and these logs) can see.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser import input_driver, input_probe
from app.browser.control import TabControl
from app.browser.input_driver import InputDriver, InputError
from app.browser.keys import parse_shortcut
from app.browser.js import MAIN_WORLD
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import open_view, run_js, running_app, wait_loaded
from tests.support.server import LocalServer

T = TypeVar("T")

# Records every interesting event in the page's main world: window.__log = [{type, trusted, key, …}, …].
RECORDER = """<script>
window.__log = [];
const fields = (e) => ({type: e.type, trusted: e.isTrusted, target: (e.target && e.target.id) || '',
  key: e.key, code: e.code, keyCode: e.keyCode, detail: e.detail, button: e.button,
  inputType: e.inputType, data: e.data, shift: e.shiftKey, ctrl: e.ctrlKey,
  pointerType: e.pointerType, deltaY: e.deltaY, deltaX: e.deltaX});
for (const t of ['mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu', 'auxclick', 'pointerdown',
                 'pointerup', 'keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'wheel', 'touchstart',
                 'touchend'])
  window.addEventListener(t, (e) => window.__log.push(fields(e)), true);
</script>"""


@pytest.fixture(params=["windowless", "windowed"])
def shell(request: pytest.FixtureRequest, qapp: QApplication, data_dir: Path) -> Iterator[BrowserPilotApp]:
    """Every test of trusted input and of the fences runs on both kinds of tab: windowless (a headless app, a
    batch's row) and shown in an environment window."""
    with running_app(qapp, data_dir, windows=request.param == "windowed") as app:
        yield app


def call(qtbot: QtBot, coro: Coroutine[Any, Any, T], timeout: int = 20_000) -> T:
    """Run a coroutine on the app's loop (driven by Qt events) and return its result or raise its error."""
    task = asyncio.ensure_future(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def open_page(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, body: str,
              path: str = "/") -> tuple[BrowserTab, InputDriver]:
    server.route(path, f"<!doctype html><meta charset=utf-8><title>input</title>{RECORDER}{body}")
    tab = open_view(shell, "env-default", server.url(path))
    wait_loaded(qtbot, tab)
    return tab, InputDriver(tab)


def center(qtbot: QtBot, tab: BrowserTab, selector: str) -> tuple[float, float]:
    return tuple(run_js(qtbot, tab, f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                                    ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"))


def events(qtbot: QtBot, tab: BrowserTab, *types: str) -> list[dict[str, Any]]:
    log = run_js(qtbot, tab, "window.__log")
    return [e for e in log if not types or e["type"] in types]


def wait_js(qtbot: QtBot, tab: BrowserTab, expression: str, expected: Any, timeout: int = 5_000) -> None:
    qtbot.waitUntil(lambda: run_js(qtbot, tab, expression) == expected, timeout=timeout)


def clear_log(qtbot: QtBot, tab: BrowserTab) -> None:
    run_js(qtbot, tab, "(window.__log.length = 0)")


class SpontaneousCounter(QObject):
    """Counts spontaneous input events reaching a widget (there must be none from the driver)."""

    KINDS = {QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseMove,
             QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.Wheel, QEvent.Type.InputMethod,
             QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate, QEvent.Type.TouchEnd}

    def __init__(self) -> None:
        super().__init__()
        self.spontaneous = 0
        self.seen = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in self.KINDS:
            self.seen += 1
            self.spontaneous += int(event.spontaneous())
        return False


# -- mouse ---------------------------------------------------------------------------------------------
def test_clicks_are_trusted_and_counted_once_each(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <button id=b style="position:absolute;left:40px;top:60px;width:120px;height:40px"
          onclick="this.dataset.n = (+this.dataset.n || 0) + 1">count</button>""")
    counter = SpontaneousCounter()
    tab.focusProxy().installEventFilter(counter)
    x, y = center(qtbot, tab, "#b")
    for _ in range(3):
        call(qtbot, driver.click(x, y))  # right after load: the driver waits for the first paint itself
    wait_js(qtbot, tab, "+document.querySelector('#b').dataset.n", 3)
    seen = events(qtbot, tab, "mousedown", "mouseup", "click", "pointerdown", "pointerup")
    assert [e["type"] for e in seen if e["type"] == "click"] == ["click"] * 3
    assert all(e["trusted"] for e in seen) and all(e["target"] == "b" for e in seen)
    assert [e["detail"] for e in seen if e["type"] == "click"] == [1, 1, 1]  # three clicks, not a triple click
    assert counter.seen > 0 and counter.spontaneous == 0
    tab.focusProxy().removeEventFilter(counter)


def test_right_and_middle_click(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <div id=d style="width:200px;height:100px;background:#ddd"
          oncontextmenu="event.preventDefault()"></div>""")
    x, y = center(qtbot, tab, "#d")
    call(qtbot, driver.click(x, y, button="right"))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'contextmenu').length", 1)
    menu = events(qtbot, tab, "contextmenu")[0]
    assert menu["trusted"] and menu["button"] == 2 and menu["target"] == "d"
    assert [e["button"] for e in events(qtbot, tab, "mousedown")] == [2]
    assert not events(qtbot, tab, "click")
    clear_log(qtbot, tab)
    call(qtbot, driver.click(x, y, button="middle"))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'auxclick').length", 1)
    aux = events(qtbot, tab, "auxclick")[0]
    assert aux["trusted"] and aux["button"] == 1 and aux["target"] == "d"
    assert [e["button"] for e in events(qtbot, tab, "mousedown", "mouseup")] == [1, 1]
    assert not events(qtbot, tab, "click", "contextmenu")


def test_double_click(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<p id=p style='font-size:30px'>double me please</p>")
    x, y = center(qtbot, tab, "#p")
    call(qtbot, driver.click(x, y, count=2))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'dblclick').length", 1)
    dbl = events(qtbot, tab, "dblclick")[0]
    assert dbl["trusted"] and dbl["detail"] == 2
    assert [e["detail"] for e in events(qtbot, tab, "click")] == [1, 2]
    assert run_js(qtbot, tab, "getSelection().toString().trim()") in ("double", "me", "please")  # a word is selected
    # A later single click is a new sequence again.
    clear_log(qtbot, tab)
    call(qtbot, driver.click(x, y))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'click').length", 1)
    assert events(qtbot, tab, "click")[0]["detail"] == 1 and not events(qtbot, tab, "dblclick")


def test_ctrl_click_carries_the_modifier(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<div id=d style='width:100px;height:60px;background:#eee'></div>")
    x, y = center(qtbot, tab, "#d")
    call(qtbot, driver.ready())
    probes = events(qtbot, tab)  # the readiness probe: a trusted Shift key up, normally exactly one
    assert [(e["type"], e["key"], e["trusted"]) for e in probes] == [("keyup", "Shift", True)]
    clear_log(qtbot, tab)
    call(qtbot, driver.click(x, y, modifiers="shift"))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'click').length", 1)
    assert events(qtbot, tab, "click")[0]["shift"] is True
    assert [(e["type"], e["key"]) for e in events(qtbot, tab, "keydown", "keyup")] == [
        ("keydown", "Shift"), ("keyup", "Shift")]


def test_zoomed_page_still_clicks_the_right_element(qtbot: QtBot, shell: BrowserPilotApp,
                                                    server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "".join(
        f"<button id=b{i} style='display:block;width:160px;height:30px;margin:4px'>b{i}</button>" for i in range(8)))
    tab.setZoomFactor(1.5)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "Math.round(devicePixelRatio * 100)") == 150)
    for target in ("#b6", "#b1", "#b4"):
        clear_log(qtbot, tab)
        x, y = center(qtbot, tab, target)  # CSS pixels of the zoomed viewport
        call(qtbot, driver.click(x, y))
        wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'click').length", 1)
        assert events(qtbot, tab, "click")[0]["target"] == target[1:]


# -- keyboard ------------------------------------------------------------------------------------------
def focus_field(qtbot: QtBot, tab: BrowserTab, driver: InputDriver, selector: str) -> None:
    x, y = center(qtbot, tab, selector)
    call(qtbot, driver.click(x, y))
    wait_js(qtbot, tab, "document.activeElement && document.activeElement.id", selector[1:])
    clear_log(qtbot, tab)


def value(qtbot: QtBot, tab: BrowserTab, selector: str) -> str:
    return run_js(qtbot, tab, f"document.querySelector({json.dumps(selector)}).value")


def test_typing_ascii_is_key_by_key(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<input id=i style='width:400px'>")
    focus_field(qtbot, tab, driver, "#i")
    text = "Hello, World! 123 ~@#$%^&*()_+{}|:\"<>?`-=[]\\;',./"
    call(qtbot, driver.type_text(text))
    wait_js(qtbot, tab, "document.querySelector('#i').value", text)
    log = events(qtbot, tab)
    assert all(e["trusted"] for e in log)
    assert len([e for e in log if e["type"] == "keydown"]) == len(text)
    assert len([e for e in log if e["type"] == "keypress"]) == len(text)
    inputs = [e for e in log if e["type"] == "input"]
    assert len(inputs) == len(text) and {e["inputType"] for e in inputs} == {"insertText"}
    downs = [e for e in log if e["type"] == "keydown"]
    assert (downs[0]["key"], downs[0]["code"], downs[0]["shift"]) == ("H", "KeyH", True)
    assert (downs[1]["key"], downs[1]["code"], downs[1]["shift"]) == ("e", "KeyE", False)
    assert (downs[14]["key"], downs[14]["code"]) == ("1", "Digit1")
    assert (downs[5]["key"], downs[5]["code"]) == (",", "Comma")


@pytest.mark.parametrize("text", [
    "日本語テキスト",
    "café crème brûlée, ñandú, Ærøskøbing",
    "e\u0301 a\u0308",  # combining accents
    "😀 emoji 🎉",
    "👩‍💻 and 👍🏽 and 🇯🇵 and 1️⃣",  # ZWJ sequence, skin tone, flag, keycap
    "한국어 العربية עברית Ελληνικά",
])
def test_typing_unicode_gives_exactly_the_text(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                               text: str) -> None:
    tab, driver = open_page(qtbot, shell, server, "<input id=i style='width:600px'>")
    focus_field(qtbot, tab, driver, "#i")
    call(qtbot, driver.type_text(text))
    wait_js(qtbot, tab, "document.querySelector('#i').value", text)
    log = events(qtbot, tab)
    assert log and all(e["trusted"] for e in log)
    assert {e["inputType"] for e in log if e["type"] == "input"} == {"insertText"}
    assert any(e["type"] == "keydown" for e in log)


def test_typing_into_textarea_with_newlines(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<textarea id=t rows=8 cols=40></textarea>")
    focus_field(qtbot, tab, driver, "#t")
    text = "first line\nsecond line\n\nfourth, 日本語 😀"
    call(qtbot, driver.type_text(text))
    wait_js(qtbot, tab, "document.querySelector('#t').value", text)
    enters = [e for e in events(qtbot, tab, "keydown") if e["key"] == "Enter"]
    assert len(enters) == 3 and all(e["code"] == "Enter" and e["trusted"] for e in enters)


def test_a_long_text_lets_the_window_work_between_keys(qtbot: QtBot, shell: BrowserPilotApp,
                                                       server: LocalServer) -> None:
    """Typing 1,200 characters (~1 s of keys) gives the loop turns as it goes, so the window and other runs
    are not held until the last key; the text still arrives whole and in order."""
    tab, driver = open_page(qtbot, shell, server, "<textarea id=t rows=8 cols=60></textarea>")
    focus_field(qtbot, tab, driver, "#t")
    text = "".join(f"line {n:03d}: the quick brown fox. " for n in range(40))

    async def typing_with_a_ticker() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1

        ticking = asyncio.ensure_future(ticker())
        await asyncio.sleep(0)  # the ticker has started
        before = ticks
        try:
            await driver.type_text(text)
            return ticks - before
        finally:
            ticking.cancel()

    turns_while_typing = call(qtbot, typing_with_a_ticker(), timeout=60_000)
    wait_js(qtbot, tab, "document.querySelector('#t').value", text)
    assert turns_while_typing >= 10  # one turn per slice of keys (input.TYPING_SLICE); before, none at all
    assert len(events(qtbot, tab, "keydown")) == len(text)


def test_contenteditable_typing_and_paste(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server,
                            "<div id=c contenteditable style='width:400px;min-height:60px;border:1px solid'></div>")
    focus_field(qtbot, tab, driver, "#c")
    call(qtbot, driver.type_text("typed ünïcode 😀"))
    wait_js(qtbot, tab, "document.querySelector('#c').textContent", "typed ünïcode 😀")
    clear_log(qtbot, tab)
    call(qtbot, driver.paste(" + pasted block 日本"))
    wait_js(qtbot, tab, "document.querySelector('#c').textContent", "typed ünïcode 😀 + pasted block 日本")
    inputs = events(qtbot, tab, "input")
    assert len(inputs) == 1 and inputs[0]["trusted"] and inputs[0]["inputType"] == "insertText"
    assert not events(qtbot, tab, "keydown")


def test_paste_into_input_is_one_input_event(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<input id=i value='x' style='width:500px'>")
    focus_field(qtbot, tab, driver, "#i")
    call(qtbot, driver.key("end"))
    text = "a long pasted value, ünïcode 日本語 and 👩‍💻 too"
    clear_log(qtbot, tab)
    call(qtbot, driver.paste(text))
    wait_js(qtbot, tab, "document.querySelector('#i').value", "x" + text)
    inputs = events(qtbot, tab, "input")
    before = events(qtbot, tab, "beforeinput")
    assert len(inputs) == 1 and inputs[0]["trusted"] and inputs[0]["inputType"] == "insertText"
    assert inputs[0]["data"] == text and len(before) == 1
    assert not events(qtbot, tab, "keydown", "keypress")


def test_paste_into_textarea_keeps_line_breaks(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<textarea id=t rows=6></textarea>")
    focus_field(qtbot, tab, driver, "#t")
    call(qtbot, driver.paste("one\ntwo\nthree"))
    wait_js(qtbot, tab, "document.querySelector('#t').value", "one\ntwo\nthree")
    assert len(events(qtbot, tab, "beforeinput")) == 1  # one block; Blink reports an input per line


def test_select_all_then_backspace_clears(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<input id=i value='some existing text'>")
    focus_field(qtbot, tab, driver, "#i")
    call(qtbot, driver.key("ctrl+a"))
    wait_js(qtbot, tab, "[document.querySelector('#i').selectionStart, document.querySelector('#i').selectionEnd]",
            [0, 18])
    call(qtbot, driver.key("backspace"))
    wait_js(qtbot, tab, "document.querySelector('#i').value", "")
    downs = [(e["key"], e["code"], e["ctrl"]) for e in events(qtbot, tab, "keydown")]
    assert downs == [("Control", "ControlLeft", True), ("a", "KeyA", True), ("Backspace", "Backspace", False)]
    assert all(e["trusted"] for e in events(qtbot, tab))


def test_tab_and_shift_tab_move_focus(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<input id=a><input id=b><input id=c>")
    focus_field(qtbot, tab, driver, "#a")
    call(qtbot, driver.key("tab"))
    wait_js(qtbot, tab, "document.activeElement.id", "b")
    call(qtbot, driver.key("tab"))
    wait_js(qtbot, tab, "document.activeElement.id", "c")
    call(qtbot, driver.key("shift+tab"))
    wait_js(qtbot, tab, "document.activeElement.id", "b")
    tabs = [(e["key"], e["code"], e["shift"]) for e in events(qtbot, tab, "keydown") if e["key"] == "Tab"]
    assert tabs == [("Tab", "Tab", False), ("Tab", "Tab", False), ("Tab", "Tab", True)]


def test_enter_submits_the_form(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/done", "<title>done</title>submitted")
    tab, driver = open_page(qtbot, shell, server, "<form action=/done><input id=q name=q></form>")
    focus_field(qtbot, tab, driver, "#q")
    call(qtbot, driver.type_text("größe 42"))
    call(qtbot, driver.key("enter"))
    qtbot.waitUntil(lambda: bool(server.hits("/done")), timeout=10_000)  # the browser navigates on Qt's thread
    assert server.hits("/done")[0].arg("q") == "größe 42"


def test_arrows_in_select_and_input_and_escape(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <select id=s><option>one</option><option>two</option><option>three</option></select>
        <input id=i value='abcdef'>""")
    run_js(qtbot, tab, "document.querySelector('#s').focus()")
    call(qtbot, driver.key("arrowdown"))
    call(qtbot, driver.key("down"))
    wait_js(qtbot, tab, "document.querySelector('#s').value", "three")
    call(qtbot, driver.key("arrowup"))
    wait_js(qtbot, tab, "document.querySelector('#s').value", "two")
    focus_field(qtbot, tab, driver, "#i")
    call(qtbot, driver.key("home"))
    call(qtbot, driver.key("arrowright"))
    call(qtbot, driver.key("arrowright"))
    wait_js(qtbot, tab, "document.querySelector('#i').selectionStart", 2)
    call(qtbot, driver.key("shift+end"))
    wait_js(qtbot, tab, "document.querySelector('#i').selectionEnd - document.querySelector('#i').selectionStart", 4)
    call(qtbot, driver.key("esc"))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'keyup' && e.key === 'Escape').length", 1)
    esc = [e for e in events(qtbot, tab, "keydown") if e["key"] == "Escape"]
    assert len(esc) == 1 and esc[0]["code"] == "Escape" and esc[0]["keyCode"] == 27 and esc[0]["trusted"]
    arrows = [e["code"] for e in events(qtbot, tab, "keydown") if e["key"].startswith("Arrow")]
    assert arrows == ["ArrowRight", "ArrowRight"]


def test_function_and_browser_keys_reach_the_page_not_the_app(qtbot: QtBot, windowed_shell: BrowserPilotApp,
                                                              server: LocalServer) -> None:
    shell = windowed_shell  # the keys must not reach the environment windows' shortcuts
    tab, driver = open_page(qtbot, shell, server, "<input id=i>")
    window = tab.window()
    # Another window is active: Qt would resolve app shortcuts there.
    other = open_view(shell, shell.envs.create("Other").id, server.url("/"))
    wait_loaded(qtbot, other)
    triggered: list[str] = []
    for w in {window, other.window()}:
        for action in w.actions():
            action.triggered.connect(lambda _c=False, t=action.text(): triggered.append(t))
    count = len(window.tab_list())
    focus_field(qtbot, tab, driver, "#i")
    for shortcut in ("f5", "ctrl+r", "ctrl+w", "ctrl+t", "ctrl+l", "f1", "f12", "ctrl+shift+k", "meta+k"):
        call(qtbot, driver.key(shortcut))
    wait_js(qtbot, tab, "window.__log.filter(e => e.type === 'keyup' && e.code === 'KeyK').length", 2)
    qtbot.wait(100)  # unhandled keys come back to Qt asynchronously
    assert triggered == [] and len(window.tab_list()) == count
    downs = [(e["key"], e["code"]) for e in events(qtbot, tab, "keydown")]
    assert ("F5", "F5") in downs and ("r", "KeyR") in downs and ("w", "KeyW") in downs and ("F12", "F12") in downs
    assert ("K", "KeyK") in downs and ("Meta", "MetaLeft") in downs
    assert events(qtbot, tab, "keydown")[-1]["trusted"]


def test_unknown_keys_are_explained() -> None:
    with pytest.raises(ValueError) as caught:
        parse_shortcut("ctrl+banana")
    assert "'banana'" in str(caught.value) and "enter" in str(caught.value) and "pagedown" in str(caught.value)
    with pytest.raises(ValueError, match="unknown modifier 'hyper'"):
        parse_shortcut("hyper+a")
    with pytest.raises(ValueError, match="only modifiers"):
        parse_shortcut("ctrl+shift")
    assert parse_shortcut("ctrl++")[2] == "+"
    assert parse_shortcut("Escape")[0] == []
    assert parse_shortcut("Ctrl+A")[2:] == ("a", False)  # as people write it: select all, no Shift
    assert parse_shortcut("A")[2:] == ("A", True) and parse_shortcut("!")[2:] == ("!", True)


# -- drag, wheel, swipe --------------------------------------------------------------------------------
def test_drag_a_native_range_slider(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <input id=r type=range min=0 max=100 value=0
          style='width:400px;margin:0;position:absolute;left:50px;top:50px'>""")
    rect = run_js(qtbot, tab, "(() => { const r = document.querySelector('#r').getBoundingClientRect(); "
                              "return [r.x, r.y, r.width, r.height]; })()")
    # The thumb sits at the left end for value 0; drag it three quarters of the track to the right.
    thumb = 8  # half the thumb width on Chromium's default slider
    x0 = rect[0] + thumb
    y0 = rect[1] + rect[3] / 2
    call(qtbot, driver.drag(x0, y0, (rect[2] - 2 * thumb) * 0.75, 0))
    qtbot.waitUntil(lambda: abs(int(value(qtbot, tab, "#r")) - 75) <= 2, timeout=5_000)
    assert run_js(qtbot, tab, "window.__log.filter(e => e.type === 'input').every(e => e.trusted)")


def test_drag_custom_sliders_on_mouse_and_pointer_events(qtbot: QtBot, shell: BrowserPilotApp,
                                                         server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <div id=m style='position:absolute;left:20px;top:40px;width:300px;height:20px;background:#ccc'></div>
        <div id=p style='position:absolute;left:20px;top:120px;width:300px;height:20px;background:#ccc;
          touch-action:none'></div>
        <script>
        window.mouseValue = 0; window.pointerValue = 0; window.trustedMoves = true;
        const m = document.getElementById('m'); let dragging = false;
        m.addEventListener('mousedown', (e) => { dragging = true; });
        document.addEventListener('mousemove', (e) => {
          if (!e.isTrusted) window.trustedMoves = false;
          if (dragging && e.buttons === 1) window.mouseValue = Math.round((e.clientX - 20) / 3); });
        document.addEventListener('mouseup', () => { dragging = false; });
        const p = document.getElementById('p');
        p.addEventListener('pointerdown', (e) => { p.setPointerCapture(e.pointerId); });
        p.addEventListener('pointermove', (e) => {
          if (p.hasPointerCapture(e.pointerId)) window.pointerValue = Math.round((e.clientX - 20) / 3); });
        </script>""")
    call(qtbot, driver.drag(30, 50, 150, 0))  # ends at x = 180: (180 - 20) / 3
    wait_js(qtbot, tab, "window.mouseValue", 53)
    call(qtbot, driver.drag(30, 130, 240, 40, steps=5))  # pointer capture keeps the slider while leaving it
    wait_js(qtbot, tab, "window.pointerValue", 83)  # x = 270
    assert run_js(qtbot, tab, "window.trustedMoves") is True


def test_wheel_scrolls_the_page(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<div style='height:5000px'>tall</div>")
    call(qtbot, driver.wheel(200, 200, dy=300))
    wait_js(qtbot, tab, "Math.round(scrollY)", 300)
    call(qtbot, driver.wheel(200, 200, dy=-120))
    wait_js(qtbot, tab, "Math.round(scrollY)", 180)
    wheels = events(qtbot, tab, "wheel")
    assert len(wheels) == 2 and all(e["trusted"] for e in wheels)
    assert wheels[0]["deltaY"] == 300 and wheels[1]["deltaY"] == -120


def test_wheel_on_a_zoomed_page_scrolls_css_pixels(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, "<div style='height:5000px'>tall</div>")
    tab.setZoomFactor(1.5)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "Math.round(devicePixelRatio * 100)") == 150)
    call(qtbot, driver.wheel(100, 100, dy=200))
    qtbot.waitUntil(lambda: abs(run_js(qtbot, tab, "scrollY") - 200) <= 2, timeout=5_000)


def test_swipe_scrolls_a_horizontal_scroller_with_touch(qtbot: QtBot, shell: BrowserPilotApp,
                                                        server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <div id=h style='width:400px;overflow-x:auto;white-space:nowrap;margin-top:20px'>
          <div id=w style='width:3000px;height:150px;background:linear-gradient(90deg,red,blue)'></div></div>""")
    x, y = center(qtbot, tab, "#h")
    call(qtbot, driver.swipe(x + 150, y, "left", distance=250))
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('#h').scrollLeft") >= 150, timeout=5_000)
    assert run_js(qtbot, tab, "scrollY") == 0
    downs = events(qtbot, tab, "pointerdown", "touchstart")
    assert [e["type"] for e in downs] == ["pointerdown", "touchstart"]
    assert downs[0]["pointerType"] == "touch" and all(e["trusted"] and e["target"] == "w" for e in downs)
    before = run_js(qtbot, tab, "document.querySelector('#h').scrollLeft")
    call(qtbot, driver.swipe(x - 150, y, "right", distance=100))
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('#h').scrollLeft") < before, timeout=5_000)


# -- cost ----------------------------------------------------------------------------------------------
def test_cost_of_a_click_and_of_a_character(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <button id=b onclick="this.dataset.n = (+this.dataset.n || 0) + 1">b</button><input id=i>""")
    x, y = center(qtbot, tab, "#b")
    call(qtbot, driver.click(x, y))  # the first operation on a document waits for its first paint

    async def clicks(n: int) -> float:
        started = time.perf_counter()
        for _ in range(n):
            await driver.click(x, y)
        return (time.perf_counter() - started) / n

    per_click = call(qtbot, clicks(50))
    wait_js(qtbot, tab, "+document.querySelector('#b').dataset.n", 51)
    focus_field(qtbot, tab, driver, "#i")
    text = "abcdefghij" * 20

    async def typing() -> float:
        started = time.perf_counter()
        await driver.type_text(text)
        return (time.perf_counter() - started) / len(text)

    per_char = call(qtbot, typing())
    wait_js(qtbot, tab, "document.querySelector('#i').value", text)
    with capsys.disabled():
        print(f"\n[input cost] click {per_click * 1000:.2f} ms, character {per_char * 1000:.3f} ms")
    assert per_click < 0.02 and per_char < 0.01


# -- where the input goes ------------------------------------------------------------------------------
def test_nothing_the_driver_sends_is_spontaneous(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <input id=i style='display:block;width:300px'>
        <div id=h style='width:300px;overflow-x:auto'><div style='width:2000px;height:80px'></div></div>
        <div style='height:3000px'></div>""")
    call(qtbot, driver.ready())
    counter = SpontaneousCounter()
    proxy = tab.focusProxy()
    proxy.installEventFilter(counter)
    try:
        focus_field(qtbot, tab, driver, "#i")
        call(qtbot, driver.type_text("ab 日本 👍🏽"))
        call(qtbot, driver.paste(" pasted"))
        call(qtbot, driver.key("ctrl+a"))
        call(qtbot, driver.move(50, 300, steps=3))
        call(qtbot, driver.wheel(100, 300, dy=50))
        x, y = center(qtbot, tab, "#h")
        call(qtbot, driver.swipe(x, y, "left", 100, steps=3))
        call(qtbot, driver.drag(20, 400, 30, 0, steps=3))
        wait_js(qtbot, tab, "document.querySelector('#i').value", "ab 日本 👍🏽 pasted")
    finally:
        proxy.removeEventFilter(counter)
    assert counter.seen > 30 and counter.spontaneous == 0


def test_hover_with_move(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <div id=m style='width:200px;height:100px;background:#ddd'
          onmouseenter="this.dataset.hover = event.isTrusted ? 'trusted' : 'untrusted'"></div>""")
    call(qtbot, driver.move(300, 300))
    call(qtbot, driver.move(100, 50, steps=5))
    wait_js(qtbot, tab, "document.querySelector('#m').dataset.hover", "trusted")


def test_new_render_widget_after_cross_site_navigation(qtbot: QtBot, shell: BrowserPilotApp,
                                                       server: LocalServer) -> None:
    body = "<button id=b style='width:200px;height:50px' onclick='window.n = (window.n || 0) + 1'>b</button>"
    tab, driver = open_page(qtbot, shell, server, body)
    call(qtbot, driver.click(*center(qtbot, tab, "#b")))
    wait_js(qtbot, tab, "window.n", 1)
    before = tab.focusProxy()
    tab.open(server.url("/").replace("127.0.0.1", "localhost"))  # another site: another renderer
    wait_loaded(qtbot, tab)
    assert "localhost" in tab.url().host()
    assert tab.focusProxy() is not before  # QtWebEngine replaced the render widget
    call(qtbot, driver.click(*center(qtbot, tab, "#b")))
    wait_js(qtbot, tab, "window.n", 1)


def test_the_fence_waits_for_slow_handlers_and_installs_its_probe_once_per_document(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="browserpilot.page")  # where the page's console goes
    # The handler holds the page's main thread for 80 ms: what it writes must be there when the fence ends.
    body = """<button id=b style='width:200px;height:50px' onclick="const end = performance.now() + 80;
        while (performance.now() < end) {} window.n = (window.n || 0) + 1">b</button>"""
    tab, driver = open_page(qtbot, shell, server, body)
    point = center(qtbot, tab, "#b")
    installs: list[str] = []
    real_run_js = input_driver.run_js

    async def counting_run_js(page: Any, source: str, *args: Any, **kwargs: Any) -> Any:
        if source == input_probe.PROBE_INSTALL_JS:
            installs.append(source)
        return await real_run_js(page, source, *args, **kwargs)

    monkeypatch.setattr(input_driver, "run_js", counting_run_js)

    async def click_and_read() -> object:
        await driver.click(*point)
        await driver.fence()
        return await real_run_js(tab.page(), "window.n", world=MAIN_WORLD)  # right after the fence

    assert call(qtbot, click_and_read()) == 1
    assert len(installs) == 1  # ready()'s: the fences on this document start from the count it read
    first = len(installs)
    assert call(qtbot, click_and_read()) == 2 and call(qtbot, click_and_read()) == 3
    # Later fences count from the probe's own reports: no install round trip before the key-up.
    assert len(installs) == first
    tab.reload()  # a new document: its probe is installed again, and the fence still holds
    wait_loaded(qtbot, tab)
    assert call(qtbot, click_and_read()) == 1
    assert len(installs) > first
    # The probe's reports (of ready() and of the fences) are taken by the driver, not logged as console.
    assert not [r for r in caplog.records if input_probe.PROBE_TOKEN in r.getMessage()]


def test_background_tabs(qtbot: QtBot, windowed_shell: BrowserPilotApp, server: LocalServer) -> None:
    shell = windowed_shell  # a window's background tabs (a windowless tab is never in the background)
    body = "<input id=i style='display:block;width:300px;height:30px'>"
    first, driver = open_page(qtbot, shell, server, body)
    focus_field(qtbot, first, driver, "#i")
    second = open_view(shell, "env-default", server.url("/"))  # now the first tab is in the background
    wait_loaded(qtbot, second)
    assert not first.isVisible()
    call(qtbot, driver.type_text("typed in the background"))
    wait_js(qtbot, first, "document.querySelector('#i').value", "typed in the background")
    # A tab opened in the background has never painted: Chromium would drop the input, we say so at once.
    hidden = shell.service.new_tab("env-default", server.url("/"), control="shared", activate=False).view
    wait_loaded(qtbot, hidden)
    started = time.monotonic()
    with pytest.raises(InputError, match="background"):
        call(qtbot, InputDriver(hidden).click(20, 20))
    assert time.monotonic() - started < 3


def test_a_locked_tab_takes_the_drivers_input(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    tab, driver = open_page(qtbot, shell, server, """
        <input id=i style='display:block;width:300px'>
        <button id=b onclick='window.n = (window.n || 0) + 1'>b</button>""")
    control = TabControl.of(tab)
    assert control is not None
    control.set_state("agent")  # a person's input is filtered now; ours is not spontaneous
    assert control.locked
    focus_field(qtbot, tab, driver, "#i")
    call(qtbot, driver.type_text("abc 日本 👩‍💻"))
    call(qtbot, driver.paste(" +"))
    call(qtbot, driver.click(*center(qtbot, tab, "#b")))
    wait_js(qtbot, tab, "[document.querySelector('#i').value, window.n]", ["abc 日本 👩‍💻 +", 1])
