"""How the input driver (app/browser/input_driver.py) knows a page takes input and has handled it: the probe.

Our isolated world counts trusted Shift key-ups and reports each count on the page's console with a random
token (`PROBE_TOKEN`); `ViewInput` (one per view) hears those reports, remembers each document's count, and
wakes whoever waits for one (`ready()` and the input fence, `Fenced`). input_driver.py's docstring says why.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtWebEngineCore import QWebEngineFrame
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

_T = QEvent.Type

# Our isolated world counts trusted Shift key-ups (the probe of `ready()` and `fence()`) and reports each count
# as a console message: this app's token, the document's probe id (its `__bpDocumentId`), the count, and 1 when a navigation this
# document started is on its way (resources/js/document.js), else 0. The report is sent while the key-up is
# handled: a form submission the action planned has fired its `submit` event by then (the navigation itself starts
# in a task of its own a moment later), a link or `location` its `navigate` event. Sending it from a task posted
# then instead waited for the next frame (Chromium runs posted tasks after the rendering that input schedules):
# 4-12 ms per action, against 0.7 ms. Both scripts answer [probe id, count]; the read answers -1 on a document
# without the probe (a new one).
PROBE_TOKEN = f"\x01browserpilot-input-{secrets.token_hex(8)}:"
PROBE_INSTALL_JS = """(() => {
  if (!window.__bpInputProbe) {
    const box = window.__bpInputProbe = {id: window.__bpDocumentId || Math.random().toString(36).slice(2), n: 0};
    const report = (n) => {
      const nav = window.__bpNavigations;
      console.debug(%s + box.id + ':' + n + ':' + (nav && nav.pending && nav.pending() ? 1 : 0));
    };
    const onKey = (e) => {
      if (e.isTrusted && e.key === 'Shift') {
        report(box.n += 1);
      }
    };
    // The key-up goes to the frame that has the focus: listen in every same-origin frame too, and in each
    // frame document loaded later (a frame's load event reaches its parent window's capture listeners).
    const hooked = new WeakSet();
    const hook = (win) => {
      try {
        if (!win || hooked.has(win.document)) return;
        hooked.add(win.document);
        win.addEventListener('keyup', onKey, true);
        win.addEventListener('load', (e) => {
          const t = e.target;
          if (t && (t.localName === 'iframe' || t.localName === 'frame')) hook(t.contentWindow);
        }, true);
        for (let i = 0; i < win.frames.length; i++) hook(win.frames[i]);
      } catch (err) { /* a cross-origin frame: the fence waits for its time limit there */ }
    };
    hook(window);
  }
  return [window.__bpInputProbe.id, window.__bpInputProbe.n];
})()""" % json.dumps(PROBE_TOKEN)
PROBE_READ_JS = "(window.__bpInputProbe ? [window.__bpInputProbe.id, window.__bpInputProbe.n] : -1)"
NAVIGATING_JS = "!!(window.__bpNavigations && window.__bpNavigations.pending())"
FENCE_POLL = 0.01  # seconds between reads while a fence waits for its report (a replaced document sends none)


def probe_count(value: object) -> tuple[str, int] | None:
    """[probe id, count] as the probe scripts answer it, or None (no probe: -1, or not an answer of ours)."""
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and \
            isinstance(value[1], (int, float)):
        return value[0], int(value[1])
    return None


@dataclass(frozen=True)
class Fenced:
    """What a fence saw: the document (its probe id) that handled the input, whether a navigation that document
    started was on its way, and whether the document was replaced before the fence could tell. `frame` is the
    frame of another site whose document handled it (None: the page's own documents)."""

    document: str | None
    navigating: bool = False
    replaced: bool = False
    frame: QWebEngineFrame | None = None

    @property
    def navigation(self) -> bool:
        """The action may have started a navigation that is not over yet."""
        return self.navigating or self.replaced



# -- per-view state ------------------------------------------------------------------------------------
class ViewInput(QObject):
    """What all drivers of one view share: mouse position and buttons, which document is known to take
    input, and the filter that keeps app shortcuts from taking our keys.

    The filter swallows the `ShortcutOverride` Qt makes for our key presses: on the render widget while we
    send a key press; on the view's parent (where QtWebEngine re-sends keys the page did not handle) for
    key events that carry one of our recent timestamps.
    """

    NAME = "browserpilot-input"

    def __init__(self, view: QWebEngineView) -> None:
        super().__init__(view)
        self.setObjectName(self.NAME)
        self.view = view
        self.generation = 0
        self.ready_for: tuple[int, int] | None = None
        self.wheel_ready_at = 0.0  # loop time before which a fresh page may still lose a wheel event
        self.position: QPointF | None = None  # last mouse position (render widget coordinates)
        self.buttons = Qt.MouseButton.NoButton
        self.sending = False
        self.stamps: deque[int] = deque(maxlen=512)
        self._watched: set[int] = set()
        # The probe count of one document, from its reports: (document key, probe id, count).
        self.probe: tuple[tuple[int, int], str, int] | None = None
        self._waiters: list[tuple[str, int, asyncio.Future[bool]]] = []  # (probe id, count to pass, future)
        self._reporting: object | None = None  # the page whose console reports reach `_on_console`
        view.loadStarted.connect(self._new_document)
        view.loadFinished.connect(self._new_document)
        view.renderProcessTerminated.connect(self._new_document)

    @classmethod
    def of(cls, view: QWebEngineView) -> ViewInput:
        found = view.findChild(QObject, cls.NAME, Qt.FindChildOption.FindDirectChildrenOnly)
        return found if isinstance(found, cls) else cls(view)

    def _new_document(self, *_args: object) -> None:
        self.generation += 1
        self.probe = None

    # -- the probe's reports -----------------------------------------------------------------------------
    def listen(self) -> bool:
        """Take the probe's reports from the view's page's console; False: this page has no console listeners
        (not a `BrowserPage`), so fences poll."""
        page = self.view.page()
        listeners = getattr(page, "console_listeners", None)
        if listeners is None:
            return False
        if self._reporting is not page:
            listeners.append(self._on_console)
            self._reporting = page
        return True

    def _on_console(self, message: str) -> bool:
        if not message.startswith(PROBE_TOKEN):
            return False
        parts = message[len(PROBE_TOKEN):].split(":")
        if len(parts) != 3 or not parts[1].isdigit():
            return True
        probe_id, count, navigating = parts[0], int(parts[1]), parts[2] == "1"
        if self.probe is not None and self.probe[1] == probe_id:
            self.probe = (self.probe[0], probe_id, max(count, self.probe[2]))
        for waiter in list(self._waiters):
            if waiter[0] == probe_id and count > waiter[1] and not waiter[2].done():
                waiter[2].set_result(navigating)
        return True

    def wait_for_probe(self, probe_id: str, passing: int) -> asyncio.Future[bool]:
        """A future that is done once the document `probe_id` reports a count above `passing`; its value says
        whether a navigation that document started was on its way at that moment."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        waiter = (probe_id, passing, future)
        self._waiters.append(waiter)
        future.add_done_callback(lambda _f: self._waiters.remove(waiter) if waiter in self._waiters else None)
        return future

    def watch(self, widget: QWidget | None) -> None:
        if widget is None or not shiboken6.isValid(widget):
            return
        address = shiboken6.getCppPointer(widget)[0]
        if address in self._watched:
            return
        self._watched.add(address)
        widget.installEventFilter(self)
        widget.destroyed.connect(lambda *_a, a=address: self._watched.discard(a))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != _T.ShortcutOverride or event.spontaneous():
            return False
        if self.sending or event.timestamp() in self.stamps:  # type: ignore[attr-defined]
            event.accept()
            return True
        return False


