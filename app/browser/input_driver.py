"""The input driver: input that pages believe: trusted mouse, wheel, touch and keyboard events for a `QWebEngineView`.

`InputDriver(view)` builds fresh Qt events and delivers them with `QApplication.sendEvent` to the view's
*current* focus proxy (QtWebEngine's render widget, a `QQuickWidget` that it replaces after crashes and
cross-site navigations). QtWebEngine turns them into Chromium input events, so the page sees
`isTrusted == true`; none of them is spontaneous, so the control layer's lock filter lets them through.
Coordinates are CSS pixels of the top-level viewport; the widget point is `css * zoomFactor` (Qt widget
coordinates are device-independent pixels, so the device pixel ratio does not enter). Nothing here takes Qt
focus or activates a window: QtWebEngine accepts keys for the page's focused element without it.

API (all coroutines): `ready()`, `click(x, y, button, count, modifiers)`, `move(x, y, steps)`,
`down/up(x, y, button)`, `drag(x, y, dx, dy, steps, button, step_delay)`, `wheel(x, y, dx, dy, modifiers)`,
`swipe(x, y, direction, distance, steps)`, `key(shortcut)`, `type_text(text, delay)`, `paste(text)`.

What we found, and why the code does what it does (QtWebEngine 6.12, Chromium 140, offscreen):

- **Input before the first paint is dropped.** Blink drops every non-move input event until a new page's
  first visually non-empty paint (`kDropInputEventsBeforeFirstPaint`); for the first page of a new view that
  was up to ~0.5 s after `loadFinished`. Every operation therefore awaits `ready()`: once per document it sends
  a harmless probe -- a trusted `keyup` of Shift, which the page can see -- until a listener in our isolated
  world reports it, then waits two more frames (a wheel event sent in the very same moment was lost about
  once in 30 tries; none in 80 after the pause). The document (render widget + load generation) is then
  remembered and later operations pay nothing. A background tab whose page has not painted since it loaded
  never paints: `ready()` says so with an `InputError` after `HIDDEN_GRACE`; bring the tab to the front.
- **Click count.** QtWebEngine counts clicks itself from the *event timestamps* (same button, within the
  double-click interval and the drag distance). A fresh `QMouseEvent` has timestamp 0, so two separate clicks
  would become a double click. Our events carry timestamps from a private clock; the first press of a
  `click()` is placed after the double-click interval, the further presses of `click(count=n)` right after,
  which gives `detail == n` and `dblclick` for n == 2. QtWebEngine ignores `MouseButtonDblClick`, so none is
  sent.
- **Keys.** Chromium's `event.code` comes from the native scan code when there is one and otherwise from the
  Qt key through the US layout; with no scan code (always, here) plain Qt keys give `KeyA`, `Digit1`, `Comma`,
  `Enter`, `ArrowUp`, `ControlLeft`, `MetaLeft`…; `event.key` is the event text or the Qt key's name. Text with
  Ctrl/Alt/Meta is left empty, as X11 does (`ctrl+a` -> key "a", select all). Uppercase letters and US-shifted
  symbols carry the Shift modifier. Of the named keys only Enter and Space produce text (and a `keypress`),
  as in Chrome.
- **App shortcuts never fire.** A non-spontaneous `KeyPress` sent to a widget first goes through Qt's shortcut
  map, resolved in the *active* window: `F5` sent to a tab of window A reloaded window B's tab and the page
  never saw the key down. We let QtWebEngine see the `ShortcutOverride` (it picks editing commands such as
  select-all from it), then swallow the one Qt generates for our key press; keys the page leaves unhandled come
  back to the view's parent with our timestamp and their `ShortcutOverride` is swallowed too. So `key("ctrl+w")`
  or `key("f5")` is a key for the page, never "close tab" or "reload".
- **Unicode.** A key event carries at most 3 UTF-16 code units of text into Chromium (4 fill its buffer and
  the text is silently dropped). Text is typed one grapheme per key event (`keydown`, `keypress`,
  `beforeinput`, `input` with `insertText`, `keyup`, all trusted): ASCII, accents (also combining), CJK,
  Hangul, RTL scripts, surrogate pairs such as 😀 and 3-unit keycaps work. Longer graphemes (👍🏽, 🇯🇵,
  👩‍💻) are committed with a `QInputMethodEvent`, as an emoji picker or input method does: one trusted
  `insertText` input event, no key events. Newlines become Enter and tabs Tab, as on a keyboard.
- **Paste** is a `QInputMethodEvent` commit of the whole text: one `beforeinput`; one `input` event
  (`insertText`, `data` = the text) in `<input>` (which turns line breaks into spaces), and one per line in
  textareas and contenteditable, where Blink splits the commit at line breaks. The clipboard is never touched.
- **Swipe** is a touch gesture (`QTouchEvent` from a touch screen device): pages see `pointerType == "touch"`
  and `touchstart`/`touchmove`, and Chromium scrolls scrollable elements natively (then `pointercancel`), as
  on a phone. `QEventPoint` has no position setter in Python, so the points come from `QMouseEvent.point(0)`,
  which carries the widget position. Touch moves are one frame apart: Chromium's gesture detector works from
  the time between them.
- **Wheel**: QtWebEngine ignores `pixelDelta` and scrolls `angleDelta / 120 * wheelScrollLines * 20` DIPs;
  `wheel()` computes `angleDelta` from the wanted CSS pixels (times zoom). Scrolling is not animated here.
- **The fence** (`fence()`, after every action): input and `runJavaScript` reach the renderer on different
  channels, so a read right after an action could see the page as it was before. The fence sends a trusted
  Shift key-up behind the action's events; our isolated world counts such key-ups and reports each count on
  its console (a random token per app and document, `BrowserPage.console_listeners`), which arrives 0.5-1 ms
  after the key-up was handled. The count of the current document is remembered from those reports, so a
  fence on a document it has seen needs no JavaScript round trip at all; a round trip right after a click
  took 2-3 ms here, as long as the rest of the click. Polling (every `FENCE_POLL`) still ends a fence whose
  document was replaced meanwhile. The key-up goes to the frame that has the focus: the page's listener hears
  it in its own frames, and each frame of another site (app/browser/frames.py), which runs in a renderer of
  its own, gets a probe of its own before every fence on such a page (one round trip to all of them at once);
  its report ends the fence too, naming that frame (`Fenced.frame`). Before, a key-up there was never heard
  and every action in such a frame waited the fence's whole limit (1 s).
- **PySide6 6.12 on Python 3.11** drops a reference to None on every call of a method returning nothing; see
  `app/startup/pyside_fix.py` (applied at start-up).

Costs measured on this machine (offscreen, software rendering): sending a click (move, press, release) takes
0.2-1.4 ms and the page's `click` handler has run 1.3-4 ms after the call started (JS round trip 0.2 ms);
typing costs 0.15-0.4 ms per character to send, about 0.6-0.9 ms per character until the page holds the value.
The first operation on a new document pays `ready()`: 45-60 ms when the page has painted, up to ~0.5 s before.

Not covered: HTML drag and drop (`draggable`) starts a platform drag in QtWebEngine, which mouse events from
here do not drive; pinch zoom; the popup of a `<select>` (use the keyboard on the focused select).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Literal

import shiboken6
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import (
    QGuiApplication,
    QInputDevice,
    QInputMethodEvent,
    QKeyEvent,
    QMouseEvent,
    QPointingDevice,
    QTouchEvent,
    QWheelEvent,
)
from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QWidget

from app.browser import frames
from app.browser.input_probe import (
    FENCE_POLL,
    NAVIGATING_JS,
    PROBE_INSTALL_JS,
    PROBE_READ_JS,
    Fenced,
    ViewInput,
    probe_count,
)
from app.browser.js import APP_WORLD, PageError, PageTimeout, run_js
from app.browser.keys import (
    MAX_KEY_TEXT_UNITS,
    MODIFIERS,
    char_key,
    graphemes,
    modifier_names,
    parse_shortcut,
    utf16_units,
)
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

MouseButton = Literal["left", "right", "middle"]
Direction = Literal["left", "right", "up", "down"]

_T = QEvent.Type
_K = Qt.Key
_M = Qt.KeyboardModifier
_NO_MODS = _M.NoModifier

BUTTONS: dict[str, Qt.MouseButton] = {
    "left": Qt.MouseButton.LeftButton,
    "right": Qt.MouseButton.RightButton,
    "middle": Qt.MouseButton.MiddleButton,
}

# Modifier names -> (Qt modifier flag, the key that holds it).
# Chromium drops non-move input until the first paint of a new page; `ready()` waits for that.
READY_TIMEOUT = 10.0
HIDDEN_GRACE = 0.5  # seconds a background tab gets to show that it takes input
FRAME = 1 / 60  # seconds between touch moves
SETTLE = 2 * FRAME  # after a new page first takes input
MARK_KEY = _K.Key_F24  # `mark()`: the end of the app's own input, for the recorder

class InputError(PageError):
    """Input cannot be delivered (no render widget, the page does not take input)."""

    code = "input_failed"


# -- timestamps ----------------------------------------------------------------------------------------
class _Clock:
    """Strictly increasing event timestamps in ms (QtWebEngine counts clicks from them)."""

    def __init__(self) -> None:
        self._last = 0
        self.last_press = -(10**9)

    def next(self, at_least: int = 0) -> int:
        value = max(int(time.monotonic() * 1000), self._last + 1, at_least)
        self._last = value
        return value

    def fresh_press(self) -> int:
        """A press that starts a new click sequence: later than the double-click interval."""
        interval = QGuiApplication.styleHints().mouseDoubleClickInterval()
        self.last_press = self.next(self.last_press + interval + 1)
        return self.last_press

    def repeat_press(self) -> int:
        """The next press of the same click sequence (double, triple click)."""
        self.last_press = self.next()
        return self.last_press


# Keys are sent for at most this long (seconds) before the Qt thread is let go for one loop turn: each key is
# three synchronous events into Chromium, and a long text sent in one go held the window (bench/ui_stall.py).
TYPING_SLICE = 0.004

_CLOCK = _Clock()
_TOUCH_CLOCK = _Clock()  # real time only: QtWebEngine maps touch timestamps to Chromium's clock once

_touch_device: QPointingDevice | None = None


def _touchscreen() -> QPointingDevice:
    global _touch_device
    if _touch_device is None:
        _touch_device = QPointingDevice(
            "browserpilot-touch", 0x4250_7400, QInputDevice.DeviceType.TouchScreen,
            QPointingDevice.PointerType.Finger,
            QInputDevice.Capability.Position | QInputDevice.Capability.Area, 10, 0)
    return _touch_device


# -- parsing -------------------------------------------------------------------------------------------
def _button(name: str) -> Qt.MouseButton:
    try:
        return BUTTONS[name.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown mouse button {name!r}; use one of: {', '.join(BUTTONS)}") from None



# -- the driver ----------------------------------------------------------------------------------------
class InputDriver:
    """Trusted input for one `QWebEngineView`. Coordinates are CSS pixels of the top-level viewport.

    All methods are coroutines (they may wait for the page to take input); the events themselves are sent
    synchronously, so an operation costs well under a millisecond once the page is ready. Drivers of the
    same view share their state, so creating one per operation is cheap.
    """

    def __init__(self, view: QWebEngineView) -> None:
        self.view = view
        self._state = ViewInput.of(view)

    # -- plumbing --------------------------------------------------------------------------------------
    def target(self) -> QWidget:
        """The widget that takes the page's input now (QtWebEngine may replace it at any navigation)."""
        if not shiboken6.isValid(self.view):
            raise InputError("the tab was closed")
        proxy = self.view.focusProxy()
        if proxy is None or not shiboken6.isValid(proxy):
            raise InputError("the page has no render widget (it is starting or its renderer crashed)")
        self._state.watch(proxy)
        return proxy

    def _doc_key(self, proxy: QWidget) -> tuple[int, int]:
        return shiboken6.getCppPointer(proxy)[0], self._state.generation

    def to_widget(self, x: float, y: float) -> QPointF:
        """CSS pixels of the viewport -> render widget coordinates (device-independent pixels)."""
        zoom = self.view.zoomFactor()
        return QPointF(float(x) * zoom, float(y) * zoom)

    async def ready(self, timeout: float = READY_TIMEOUT) -> None:
        """Wait until the page takes input (Chromium drops clicks and keys before a new page's first paint).

        Free once a document has been seen taking input; otherwise sends a trusted Shift key-up until a
        listener in our isolated world reports it. A tab in the background whose page has not painted since
        it loaded never will: that fails after `HIDDEN_GRACE` seconds with an `InputError`.
        """
        proxy = self.target()
        key = self._doc_key(proxy)
        if self._state.ready_for == key:
            return
        self._state.listen()  # the probe's reports are ours: none reaches the log
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + timeout
        page = self.view.page()
        probes = 0

        def remaining() -> float:
            now = loop.time()
            if not self.view.isVisible() and not self.view.page().isVisible() and now - started > HIDDEN_GRACE:
                raise InputError("the tab is in the background and its page has not been shown since it loaded; "
                                 "Chromium drops clicks and keys until a page has painted: bring the tab to the "
                                 "front first")
            if now >= deadline:
                raise PageTimeout(f"the page did not take input within {timeout:g} s (it has not painted yet: "
                                  "is it still loading?)")
            return max(0.2, min(deadline - now, 5.0))

        async def js(expression: str) -> object:
            return await run_js(page, expression, timeout=remaining(), world=APP_WORLD)

        while True:
            try:
                before = probe_count(await js(PROBE_INSTALL_JS))
                proxy = self.target()
                key = self._doc_key(proxy)
                self._send_key(proxy, _T.KeyRelease, _K.Key_Shift, _NO_MODS, "")
                probes += 1
                # A dropped probe never arrives; an accepted one arrives within a frame or so. Look a few
                # times before sending another, so that the page normally sees a single probe.
                probe_end = loop.time() + 0.1
                while loop.time() < probe_end:
                    after = probe_count(await js(PROBE_READ_JS))
                    if after is not None and before is not None and after[0] == before[0] and after[1] > before[1]:
                        if self._doc_key(self.target()) == key:
                            # Keys and clicks are taken now, but a wheel event sent in the same moment was
                            # still lost now and then (1 in 30 to 50): `wheel` waits two more frames.
                            self._state.wheel_ready_at = loop.time() + SETTLE
                            self._state.ready_for = key
                            self._state.probe = (key, after[0], after[1])  # the first fence reads no count
                            log.debug("page takes input after %.0f ms (%d probes)",
                                      (loop.time() - started) * 1000, probes)
                            return
                        break
                    if after is None or (before is not None and after[0] != before[0]):
                        break  # the document was replaced
                    await asyncio.sleep(0.01)
            except PageTimeout:
                remaining()  # raises once the overall deadline has passed
            except InputError:
                raise
            except PageError:  # navigating: the document is being replaced
                await asyncio.sleep(0.02)
            remaining()

    # -- mouse -----------------------------------------------------------------------------------------
    def _send_mouse(self, proxy: QWidget, kind: QEvent.Type, local: QPointF, button: Qt.MouseButton,
                    buttons: Qt.MouseButton, mods: Qt.KeyboardModifier, stamp: int | None = None) -> None:
        global_pos = QPointF(proxy.mapToGlobal(local))
        event = QMouseEvent(kind, local, global_pos, button, buttons, mods)
        event.setTimestamp(stamp if stamp is not None else _CLOCK.next())
        QApplication.sendEvent(proxy, event)
        self._state.position = local

    def _move_to(self, proxy: QWidget, local: QPointF, mods: Qt.KeyboardModifier) -> None:
        self._send_mouse(proxy, _T.MouseMove, local, Qt.MouseButton.NoButton, self._state.buttons, mods)

    def _press_button(self, proxy: QWidget, local: QPointF, button: Qt.MouseButton, mods: Qt.KeyboardModifier,
                      stamp: int) -> None:
        self._state.buttons |= button
        self._send_mouse(proxy, _T.MouseButtonPress, local, button, self._state.buttons, mods, stamp)

    def _release_button(self, proxy: QWidget, local: QPointF, button: Qt.MouseButton,
                        mods: Qt.KeyboardModifier) -> None:
        self._state.buttons &= ~button
        self._send_mouse(proxy, _T.MouseButtonRelease, local, button, self._state.buttons, mods)

    @contextmanager
    def _held(self, proxy: QWidget, names: Sequence[str]) -> Iterator[Qt.KeyboardModifier]:
        """Hold modifier keys (key down before, key up after, like a person) and yield the flags."""
        flags = _NO_MODS
        pressed: list[str] = []
        try:
            for name in names:
                flag, key = MODIFIERS[name]
                flags |= flag
                self._send_key(proxy, _T.KeyPress, key, flags, "")
                pressed.append(name)
            yield flags
        finally:
            for name in reversed(pressed):
                flag, key = MODIFIERS[name]
                self._send_key(proxy, _T.KeyRelease, key, flags, "")
                flags &= ~flag

    async def fence(self, timeout: float = 1.0) -> Fenced:
        """Wait until the page has handled every input event sent before this call, and say what it saw.

        Input events and `runJavaScript` reach the renderer on different channels, so a read right after an
        action could see the page as it was before it. A trusted Shift key-up travels behind the earlier
        events on the input channel; once our isolated-world listener has counted it (its report arrives on
        the console), they have all been handled. The count to pass is the one the document last reported;
        on a document not seen yet, the probe is installed first (one JavaScript round trip). Gives up quietly
        when the document is replaced (a navigation) or after `timeout`.

        The result names the document that handled the input and whether a navigation it started was on its
        way then (`navigating`), or that the document was replaced meanwhile (`replaced`): an action waits for
        such a navigation to commit (app/browser/navigation.py).

        A person's own Shift key-up counts too (in a shared tab): one handled just before ours can end the
        fence a moment early."""
        page = self.view.page()
        loop = asyncio.get_running_loop()
        state = self._state
        reports = state.listen()
        waiters: dict[asyncio.Future[bool], tuple[str, QWebEngineFrame | None]] = {}
        probe_id: str | None = None
        others: asyncio.Future[list[tuple[QWebEngineFrame, str, int]]] | None = None
        try:
            key = self._doc_key(self.target())
            others = self._frame_probes(page, timeout)  # another site's frames: a probe each, asked meanwhile
            if reports and state.probe is not None and state.probe[0] == key:
                _key, probe_id, before = state.probe
            else:
                found = probe_count(await run_js(page, PROBE_INSTALL_JS, timeout=timeout, world=APP_WORLD))
                if found is None:
                    return Fenced(None, replaced=True)
                probe_id, before = found
                if self._doc_key(self.target()) == key:
                    state.probe = (key, probe_id, before)
            framed = await others if others is not None else []
            if reports:
                waiters[state.wait_for_probe(probe_id, before)] = (probe_id, None)
                for frame, frame_probe, frame_before in framed:
                    waiters[state.wait_for_probe(frame_probe, frame_before)] = (frame_probe, frame)
            self._send_key(self.target(), _T.KeyRelease, _K.Key_Shift, _NO_MODS, "")
            deadline = loop.time() + timeout
            while loop.time() < deadline:
                if waiters:
                    done, _pending = await asyncio.wait(list(waiters), timeout=FENCE_POLL,
                                                        return_when=asyncio.FIRST_COMPLETED)
                    for future in done:
                        document, frame = waiters[future]
                        return Fenced(document, navigating=future.result(), frame=frame)
                else:
                    await asyncio.sleep(0.002)
                after = probe_count(await run_js(page, PROBE_READ_JS, timeout=timeout, world=APP_WORLD))
                if after is None or after[0] != probe_id:
                    return Fenced(probe_id, replaced=True)
                if after[1] > before:  # handled; no report to read (a page without console listeners)
                    return Fenced(probe_id, navigating=bool(await run_js(page, NAVIGATING_JS, timeout=timeout,
                                                                         world=APP_WORLD)))
        except PageError:  # InputError too: the render widget is gone
            return Fenced(probe_id, replaced=True)  # the document is changing
        finally:
            for future in [*waiters, *([others] if others is not None else [])]:
                if not future.done():
                    future.cancel()
        return await self._frame_navigating(page) or Fenced(probe_id)

    async def _frame_navigating(self, page: QWebEnginePage) -> Fenced | None:
        """After a fence that heard no report (on a busy machine a frame's probe may not have been installed in
        time): a frame of another site with a navigation on its way (the action submitted its form) is where the
        input went; None when there is none."""
        if not page.mainFrame().children():
            return None
        for scope in await frames.scopes(page):
            if scope.main:
                continue
            try:
                found = await run_js(scope.frame, f"[window.__bpDocumentId || null, {NAVIGATING_JS}]", timeout=1.0,
                                     world=APP_WORLD)
            except PageError:
                continue
            if isinstance(found, list) and len(found) == 2 and found[1]:
                return Fenced(found[0], navigating=True, frame=scope.frame)
        return None

    def _frame_probes(self, page: QWebEnginePage, timeout: float
                      ) -> asyncio.Future[list[tuple[QWebEngineFrame, str, int]]] | None:
        """The probe of each frame of another site (installed if new): (frame, probe id, count), asked of all of
        them at once; None (and no JavaScript, no task) on a page without frames. A frame that does not answer in
        time is left out: its key-up then ends the fence at its limit, as before."""
        if not page.mainFrame().children():
            return None

        async def probes() -> list[tuple[QWebEngineFrame, str, int]]:
            others = [scope for scope in await frames.scopes(page) if not scope.main]

            async def install(frame: QWebEngineFrame) -> tuple[QWebEngineFrame, str, int] | None:
                try:
                    found = probe_count(await run_js(frame, PROBE_INSTALL_JS, timeout=timeout, world=APP_WORLD))
                except PageError:
                    return None
                return (frame, *found) if found is not None else None

            return [found for found in await asyncio.gather(*(install(s.frame) for s in others)) if found]
        return asyncio.ensure_future(probes())

    def mark(self) -> None:
        """Send a lone trusted key-up of F24 (a key keyboards do not have; pages do not act on a key-up alone)
        behind every event sent so far, on the same input channel. The recorder's world reports it
        (app/browser/recorder.py): what the page did before it came from the app, what follows from a person.
        A page that has not painted yet drops it, like any input."""
        self._send_key(self.target(), _T.KeyRelease, MARK_KEY, _NO_MODS, "")

    async def click(self, x: float, y: float, button: MouseButton | str = "left", count: int = 1,
                    modifiers: str | Sequence[str] = ()) -> None:
        """Click at (x, y): move there, then `count` press/release pairs (count=2 is a double click).

        `modifiers` ("ctrl", "shift+alt", ["meta"]) are held around the click, with their key events.
        """
        qt_button = _button(button)
        if not isinstance(count, int) or not 1 <= count <= 3:
            raise ValueError(f"count must be 1, 2 or 3, not {count!r}")
        names = modifier_names(modifiers)
        await self.ready()
        started = time.perf_counter()
        proxy = self.target()
        local = self.to_widget(x, y)
        with self._held(proxy, names) as mods:
            self._move_to(proxy, local, mods)
            for index in range(count):
                stamp = _CLOCK.fresh_press() if index == 0 else _CLOCK.repeat_press()
                self._press_button(proxy, local, qt_button, mods, stamp)
                self._release_button(proxy, local, qt_button, mods)
        log.debug("click %s x%d at (%.1f, %.1f) in %.2f ms", button, count, x, y,
                  (time.perf_counter() - started) * 1000)

    async def move(self, x: float, y: float, steps: int = 1) -> None:
        """Move the mouse to (x, y), in `steps` moves from the last position (hover effects, tooltips).

        Moves are never dropped by Chromium, so this does not wait for the page."""
        proxy = self.target()
        end = self.to_widget(x, y)
        last = self._state.position
        start = last if last is not None and steps > 1 else end
        for point in _path(start, end, max(1, steps)):
            self._move_to(proxy, point, _NO_MODS)

    async def down(self, x: float, y: float, button: MouseButton | str = "left") -> None:
        """Press a button at (x, y) and keep it down (finish with `up`)."""
        qt_button = _button(button)
        await self.ready()
        proxy = self.target()
        local = self.to_widget(x, y)
        self._move_to(proxy, local, _NO_MODS)
        self._press_button(proxy, local, qt_button, _NO_MODS, _CLOCK.fresh_press())

    async def up(self, x: float, y: float, button: MouseButton | str = "left") -> None:
        """Release a button at (x, y)."""
        qt_button = _button(button)
        proxy = self.target()
        local = self.to_widget(x, y)
        if self._state.position != local:
            self._move_to(proxy, local, _NO_MODS)
        self._release_button(proxy, local, qt_button, _NO_MODS)

    async def drag(self, x: float, y: float, dx: float, dy: float, steps: int = 12,
                   button: MouseButton | str = "left", step_delay: float = 0.0) -> None:
        """Press at (x, y), move by (dx, dy) in `steps` moves, release there.

        Works for native range inputs and for sliders built on mouse or pointer events. Moves are sent
        back to back (Chromium coalesces them per frame and flushes them before the release); give
        `step_delay` (seconds) for pages that sample the pointer on a timer.
        """
        qt_button = _button(button)
        if steps < 1:
            raise ValueError(f"steps must be at least 1, not {steps!r}")
        await self.ready()
        proxy = self.target()
        start = self.to_widget(x, y)
        end = self.to_widget(x + dx, y + dy)
        self._move_to(proxy, start, _NO_MODS)
        self._press_button(proxy, start, qt_button, _NO_MODS, _CLOCK.fresh_press())
        try:
            for point in _path(start, end, steps):
                if step_delay > 0:
                    await asyncio.sleep(step_delay)
                    proxy = self.target()
                self._move_to(proxy, point, _NO_MODS)
        finally:
            self._release_button(self.target(), end, qt_button, _NO_MODS)

    async def wheel(self, x: float, y: float, dx: float = 0.0, dy: float = 0.0,
                    modifiers: str | Sequence[str] = ()) -> None:
        """Turn the wheel over (x, y): scroll by (dx, dy) CSS pixels (positive dy scrolls down, positive dx
        right). The page gets one trusted `wheel` event with `deltaY == dy`; scrolling is not animated."""
        names = modifier_names(modifiers)
        await self.ready()
        wait = self._state.wheel_ready_at - asyncio.get_running_loop().time()
        if wait > 0:
            await asyncio.sleep(wait)
        zoom = self.view.zoomFactor()
        # QtWebEngine scrolls angleDelta / 120 * wheelScrollLines * 20 DIPs and ignores pixelDelta.
        per_unit = QGuiApplication.styleHints().wheelScrollLines() * 20 / 120
        angle_x = -round(dx * zoom / per_unit)
        angle_y = -round(dy * zoom / per_unit)
        if angle_x == 0 and angle_y == 0:
            return
        proxy = self.target()
        local = self.to_widget(x, y)
        with self._held(proxy, names) as mods:
            self._move_to(proxy, local, mods)
            event = QWheelEvent(local, QPointF(proxy.mapToGlobal(local)),
                                _point(-dx * zoom, -dy * zoom), _point(angle_x, angle_y),
                                self._state.buttons, mods, Qt.ScrollPhase.NoScrollPhase, False)
            event.setTimestamp(_CLOCK.next())
            QApplication.sendEvent(proxy, event)

    async def swipe(self, x: float, y: float, direction: Direction | str, distance: float = 300.0,
                    steps: int = 10) -> None:
        """A one-finger touch swipe starting at (x, y): the finger moves `distance` CSS pixels towards
        `direction` ("left" moves the finger left, which scrolls content to the right, as on a phone).

        Takes about (steps + 1) frames: Chromium recognises gestures from the time between touch moves, so
        they are one frame apart.
        """
        vectors = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
        try:
            ux, uy = vectors[str(direction).lower()]
        except KeyError:
            raise ValueError(f"unknown swipe direction {direction!r}; use one of: {', '.join(vectors)}") from None
        if steps < 1:
            raise ValueError(f"steps must be at least 1, not {steps!r}")
        await self.ready()
        start = self.to_widget(x, y)
        end = self.to_widget(x + ux * distance, y + uy * distance)
        self._touch(_T.TouchBegin, start)
        try:
            for point in _path(start, end, steps):
                await asyncio.sleep(FRAME)
                self._touch(_T.TouchUpdate, point)
            await asyncio.sleep(FRAME)
        finally:
            self._touch(_T.TouchEnd, end)

    def _touch(self, kind: QEvent.Type, local: QPointF) -> None:
        proxy = self.target()
        mouse_kind = {_T.TouchBegin: _T.MouseButtonPress, _T.TouchUpdate: _T.MouseMove,
                      _T.TouchEnd: _T.MouseButtonRelease}[kind]
        # QEventPoint has no position setter in Python; a mouse event's point carries the widget position
        # and the right state (pressed, updated, released).
        carrier = QMouseEvent(mouse_kind, local, QPointF(proxy.mapToGlobal(local)),
                              Qt.MouseButton.LeftButton if kind != _T.TouchUpdate else Qt.MouseButton.NoButton,
                              Qt.MouseButton.LeftButton, _NO_MODS)
        event = QTouchEvent(kind, _touchscreen(), _NO_MODS, [carrier.point(0)])
        event.setTimestamp(_TOUCH_CLOCK.next())
        QApplication.sendEvent(proxy, event)

    # -- keyboard --------------------------------------------------------------------------------------
    def _send_key(self, proxy: QWidget, kind: QEvent.Type, key: Qt.Key | int, mods: Qt.KeyboardModifier,
                  text: str) -> None:
        state = self._state
        stamp = _CLOCK.next()
        if kind == _T.KeyPress:
            # Let QtWebEngine see the shortcut override as Qt would (it picks editing commands from it)...
            override = QKeyEvent(_T.ShortcutOverride, int(key), mods, text)
            override.setTimestamp(stamp)
            QApplication.sendEvent(proxy, override)
        state.stamps.append(stamp)
        state.watch(self.view.parentWidget())
        event = QKeyEvent(kind, int(key), mods, text)
        event.setTimestamp(stamp)
        # ...but never let the app's shortcuts (resolved in whichever window is active) take our key.
        state.sending = kind == _T.KeyPress
        try:
            QApplication.sendEvent(proxy, event)
        finally:
            state.sending = False

    def _press(self, proxy: QWidget, key: Qt.Key | int, mods: Qt.KeyboardModifier, text: str) -> None:
        self._send_key(proxy, _T.KeyPress, key, mods, text)
        self._send_key(proxy, _T.KeyRelease, key, mods, text)

    async def key(self, shortcut: str) -> None:
        """Press a key or a shortcut: "enter", "tab", "shift+tab", "ctrl+a", "ctrl+shift+k", "arrowdown",
        "esc", "f5", "a", "é"… Modifier keys go down in the given order and up in reverse.

        The key goes to the page only: app shortcuts (Ctrl+W, F5…) are not triggered.
        """
        names, key, text, shifted = parse_shortcut(shortcut)
        if shifted and "shift" not in names:
            names.append("shift")
        if key == _K.Key_Tab and "shift" in names:
            key = _K.Key_Backtab  # what Qt itself delivers for Shift+Tab
        if any(MODIFIERS[n][0] & (_M.ControlModifier | _M.AltModifier | _M.MetaModifier) for n in names):
            text = ""  # as X11 does; Chromium then reads the key itself (ctrl+a -> key "a")
        elif "shift" in names and len(text) == 1:
            text = text.upper()
        await self.ready()
        proxy = self.target()
        with self._held(proxy, names) as mods:
            self._press(proxy, key, mods, text)

    async def type_text(self, text: str, delay: float = 0.0) -> None:
        """Type `text` key by key into whatever has focus. Any Unicode; "\\n" is Enter, "\\t" is Tab.

        `delay` (seconds) waits between characters; none by default.
        """
        if not text:
            return
        await self.ready()
        started = slice_began = time.perf_counter()
        for cluster in graphemes(text):
            proxy = self.target()
            if cluster in ("\n", "\r", "\r\n"):
                self._press(proxy, _K.Key_Return, _NO_MODS, "\r")
            elif cluster == "\t":
                self._press(proxy, _K.Key_Tab, _NO_MODS, "")
            elif utf16_units(cluster) <= MAX_KEY_TEXT_UNITS:
                key, shifted = char_key(cluster)
                self._press(proxy, key, _M.ShiftModifier if shifted else _NO_MODS, cluster)
            else:
                self._commit(proxy, cluster)
            if delay > 0:
                await asyncio.sleep(delay)
            elif time.perf_counter() - slice_began > TYPING_SLICE:
                await asyncio.sleep(0)  # the window (and every other run) gets a turn between keys
                slice_began = time.perf_counter()
        log.debug("typed %d characters in %.1f ms", len(text), (time.perf_counter() - started) * 1000)

    def _commit(self, proxy: QWidget, text: str) -> None:
        event = QInputMethodEvent("", [])
        event.setCommitString(text)
        QApplication.sendEvent(proxy, event)

    async def paste(self, text: str) -> None:
        """Insert `text` as one block at the caret of the focused editable element, as an input method
        commit: one `beforeinput`, and `input` events with inputType `insertText` (one per line in textareas
        and contenteditable). The clipboard is not used."""
        if not text:
            return
        await self.ready()
        self._commit(self.target(), text)


def _point(x: float, y: float) -> QPoint:
    return QPoint(round(x), round(y))


def _path(start: QPointF, end: QPointF, steps: int) -> list[QPointF]:
    """`steps` points from just after `start` to exactly `end`."""
    return [QPointF(start.x() + (end.x() - start.x()) * i / steps, start.y() + (end.y() - start.y()) * i / steps)
            for i in range(1, steps + 1)]
