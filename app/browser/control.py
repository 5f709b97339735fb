"""Who is in control of a tab: the agent, the person, or both.

Every tab has one `TabControl` (a child of its view, found with `TabControl.of(view)`), in one of three states:

- `agent`: BrowserPilot operates the page. The person's mouse, wheel, keyboard, touch, context-menu and drag
  input does not reach the page: the window shows an overlay over the view (app/ui/control_overlay.py), and —
  because an overlay stops the mouse but not the keyboard — an event filter swallows *spontaneous* input events
  (those that come from the window system) on the page's render widget. The app's own input
  (`QApplication.sendEvent` to `view.focusProxy()`, app/browser/input_driver.py) is not spontaneous and passes.
  While locked, the render widget also answers "input method enabled?" with no, so a person's input method
  cannot commit text either (its commits are not spontaneous); it then delivers plain, filtered key events.
- `handoff`: the person acts alone; a banner above the page shows a message and Done. Done returns to `agent`.
- `shared`: both act; nothing is shown or filtered.

Take over (on the overlay) switches to `shared` and sets a flag that the next operation result on the tab
reports once (`consume_taken_over`). Done switches back to `agent`.

QtWebEngine replaces the render widget (and with it the view's focus proxy) when the renderer changes: after a
crash and reload, and on cross-site navigations. The filter is installed on every render widget the moment
it becomes a child of the view (`ChildAdded`), and on the focus proxy whenever it is checked, so there is no
moment in which a new render widget takes a person's input unfiltered.

An acting operation that finds its tab in `handoff` calls `wait_handoff_end`: it waits until the person clicks
Done or the operation's target appears (`target_present`), at most 10 minutes, then re-locks the tab.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from enum import StrEnum
from typing import Awaitable, Callable, Iterator, Literal

import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QInputMethodQueryEvent, QPixmap
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QWidget

from app.browser.js import PageError, PageTimeout
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

CONTROL_OBJECT_NAME = "browserpilot-tab-control"
MAX_HANDOFF_WAIT = 600.0  # seconds: an operation waits at most 10 minutes for the person
HANDOFF_POLL = 0.25  # seconds between two checks for the operation's target
# Shown when the operation gave no message; translated when shown (the constants stay English).
DEFAULT_AGENT_MESSAGE = QT_TRANSLATE_NOOP("TabControl", "BrowserPilot is operating this page")
DEFAULT_HANDOFF_MESSAGE = QT_TRANSLATE_NOOP("TabControl",
                                            "BrowserPilot handed this page to you. Click Done when you are finished.")


class ControlState(StrEnum):
    AGENT = "agent"
    HANDOFF = "handoff"
    SHARED = "shared"


HandoffEnd = Literal["done", "target", "changed", "not_in_handoff"]


class HandoffTimeout(PageTimeout):
    """The person neither finished the handoff nor produced the operation's target in time."""

    code = "handoff_timeout"


class TabClosed(PageError):
    """The tab was closed while an operation waited for it."""

    code = "tab_closed"


_T = QEvent.Type
# Input a person gives the page. Leave and HoverLeave are not here: they only end hover states.
BLOCKED_INPUT = frozenset({
    _T.MouseButtonPress, _T.MouseButtonRelease, _T.MouseButtonDblClick, _T.MouseMove, _T.Wheel,
    _T.KeyPress, _T.KeyRelease, _T.InputMethod, _T.ContextMenu,
    _T.TouchBegin, _T.TouchUpdate, _T.TouchEnd, _T.TouchCancel,
    _T.TabletPress, _T.TabletMove, _T.TabletRelease, _T.NativeGesture, _T.Gesture,
    _T.HoverEnter, _T.HoverMove, _T.DragEnter, _T.DragMove, _T.Drop,
})
_WATCHED = BLOCKED_INPUT | {_T.ShortcutOverride, _T.InputMethodQuery, _T.ChildAdded}
_REFUSED = frozenset({_T.ShortcutOverride, _T.DragEnter, _T.DragMove, _T.Drop})


def _valid(obj: QObject | None) -> bool:
    return obj is not None and shiboken6.isValid(obj)


class TabControl(QObject):
    """The control state of one tab (a `QWebEngineView`); lives as a child of the view.

    `decorations` (the overlay and banner of the UI) are children of the view that the person must be able to
    use while the page is locked: they are never filtered, and `hidden_for_capture` hides them.
    """

    state_changed = Signal(str)  # the new state: "agent", "handoff" or "shared"

    def __init__(self, view: QWebEngineView, state: ControlState | str = ControlState.SHARED,
                 message: str | None = None) -> None:
        super().__init__(view)
        self.setObjectName(CONTROL_OBJECT_NAME)
        self.view = view
        self._state = ControlState(state)
        self._message = message or self._default_message(self._state)
        self._taken_over = False
        self._reason: HandoffEnd = "changed"
        self._decorations: list[QWidget] = []
        # The view is watched always (new render widgets arrive as its children); render widgets only while
        # locked, since a Python filter costs a little on every event they get.
        view.installEventFilter(self)
        page = view.page()
        page.renderProcessTerminated.connect(self._refresh_filters)
        view.loadStarted.connect(self._refresh_filters)
        view.loadFinished.connect(self._refresh_filters)
        if self.locked:
            self._install_filters()
        log.debug("tab control for %s starts in %s", getattr(view, "tab_id", "?"), self._state)

    # -- lookup ----------------------------------------------------------------------------------------
    @staticmethod
    def of(view: QWebEngineView) -> TabControl | None:
        """The control attached to `view`, if any."""
        found = view.findChild(QObject, CONTROL_OBJECT_NAME, Qt.FindChildOption.FindDirectChildrenOnly)
        return found if isinstance(found, TabControl) else None

    # -- state -----------------------------------------------------------------------------------------
    @property
    def state(self) -> ControlState:
        return self._state

    @property
    def message(self) -> str:
        """The overlay's text in `agent`, the banner's text in `handoff`."""
        return self._message

    @property
    def locked(self) -> bool:
        """True while the person's input does not reach the page (`agent`)."""
        return self._state is ControlState.AGENT

    @property
    def taken_over(self) -> bool:
        return self._taken_over

    def set_state(self, state: ControlState | str, message: str | None = None) -> None:
        """Switch to `state`; `message` is shown on the overlay (agent) or the banner (handoff)."""
        self._change(ControlState(state), message, "changed")

    def take_over(self) -> None:
        """The person's Take over: `shared`, and the next operation result reports it."""
        self._taken_over = True
        self._change(ControlState.SHARED, None, "changed")

    def done(self) -> None:
        """The person's Done at the end of a handoff: back to `agent`."""
        self._change(ControlState.AGENT, None, "done")

    def consume_taken_over(self) -> bool:
        """True once after the person clicked Take over; the next call is False again."""
        taken, self._taken_over = self._taken_over, False
        return taken

    def _change(self, new: ControlState, message: str | None, reason: HandoffEnd) -> None:
        text = message or self._default_message(new)
        if new is self._state and text == self._message:
            return
        old, self._state, self._message = self._state, new, text
        if new is ControlState.AGENT:
            self._install_filters()
        elif old is ControlState.AGENT:
            self._remove_filters()
        if new is not old:
            self._reason = reason
            log.info("tab %s: %s -> %s (%s)", getattr(self.view, "tab_id", "?"), old, new, reason)
            self._update_input_method()
        self.state_changed.emit(str(new))

    @staticmethod
    def _default_message(state: ControlState) -> str:
        text = {ControlState.AGENT: DEFAULT_AGENT_MESSAGE, ControlState.HANDOFF: DEFAULT_HANDOFF_MESSAGE}.get(state, "")
        return QCoreApplication.translate("TabControl", text) if text else ""

    # -- handoff ---------------------------------------------------------------------------------------
    async def wait_handoff_end(self, target_present: Callable[[], Awaitable[bool]] | None = None,
                               timeout: float = MAX_HANDOFF_WAIT, poll: float = HANDOFF_POLL) -> HandoffEnd:
        """Wait while the tab is in `handoff`, then make sure it is locked for the agent.

        Returns "done" (the person clicked Done), "target" (`target_present()` became true; the tab is switched
        to `agent`), "changed" (the state was changed otherwise, e.g. to `shared`; it is left as it is) or
        "not_in_handoff" (nothing to wait for). `target_present` is polled every `poll` seconds; a `PageError`
        from it counts as "not yet" (the page may be navigating). `timeout` is capped at 10 minutes; after it,
        `HandoffTimeout` is raised and the tab stays in `handoff`. `TabClosed` if the tab goes away.
        """
        if self._state is not ControlState.HANDOFF:
            return "not_in_handoff"
        timeout = max(0.0, min(timeout, MAX_HANDOFF_WAIT))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        ended: asyncio.Future[HandoffEnd] = loop.create_future()

        def on_state(state: str) -> None:
            if state != ControlState.HANDOFF and not ended.done():
                ended.set_result(self._reason if state == ControlState.AGENT else "changed")

        def on_closed() -> None:
            if not ended.done():
                ended.set_exception(TabClosed("the tab was closed while waiting for the person to finish"))

        view = self.view
        self.state_changed.connect(on_state)
        view.destroyed.connect(on_closed)
        probe: asyncio.Future[bool] | None = None
        last_error: PageError | None = None
        try:
            while (remaining := deadline - loop.time()) > 0:
                if target_present is not None:
                    probe = asyncio.ensure_future(target_present())
                    await asyncio.wait({ended, probe}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
                    if ended.done():
                        return ended.result()
                    if not probe.done():
                        break  # the deadline passed during the check
                    try:
                        present = bool(probe.result())
                    except PageError as error:
                        present, last_error = False, error
                    probe = None
                    if present:
                        self._change(ControlState.AGENT, None, "target")
                        return "target"
                    if (remaining := deadline - loop.time()) <= 0:
                        break
                await asyncio.wait({ended}, timeout=min(poll, remaining))
                if ended.done():
                    return ended.result()
        finally:
            if probe is not None and not probe.done():
                probe.cancel()
            if _valid(self):
                self.state_changed.disconnect(on_state)
            if _valid(view):
                view.destroyed.disconnect(on_closed)
        if ended.done():
            return ended.result()
        detail = f" (last check: {last_error})" if last_error is not None else ""
        raise HandoffTimeout(f"the person did not finish the handoff within {timeout:g} s and the target did "
                             f"not appear{detail}; the tab is still handed over: click Done in its banner")

    # -- screenshots -----------------------------------------------------------------------------------
    def add_decoration(self, widget: QWidget) -> None:
        """Register a widget of the UI shown over or above the page: it is never filtered (the person must
        reach Take over and Done) and `hidden_for_capture` hides it. Register it before parenting it to the
        view, or the filter may take it for a new render widget."""
        self._decorations.append(widget)
        widget.removeEventFilter(self)
        widget.destroyed.connect(self._forget_decoration)

    def _forget_decoration(self, gone: QObject | None = None) -> None:
        self._decorations = [d for d in self._decorations if d is not gone and _valid(d)]

    def _is_decoration(self, obj: QObject) -> bool:
        return any(obj is d for d in self._decorations)

    @contextlib.contextmanager
    def hidden_for_capture(self) -> Iterator[None]:
        """Hide the overlay and banner while grabbing the view (`view.grab()` paints child widgets).
        Grab synchronously inside the block: no events are processed, so the person never sees a change.
        Shown means shown within the view: a background tab's overlay is not `isVisible()`, yet `view.grab()`
        paints it."""
        hidden = [d for d in self._decorations if _valid(d) and d.isVisibleTo(self.view)]
        focus = QApplication.focusWidget()
        for widget in hidden:
            widget.setVisible(False)
        try:
            yield
        finally:
            for widget in hidden:
                if _valid(widget):
                    widget.setVisible(True)
            if focus is not None and _valid(focus) and QApplication.focusWidget() is not focus:
                focus.setFocus(Qt.FocusReason.OtherFocusReason)

    def page_rect(self) -> QRect:
        """Where the page is inside the view (below the handoff banner, if one is shown)."""
        return self.view.contentsRect()

    def grab_page(self, rect: QRect | None = None) -> QPixmap:
        """The page's pixels without overlay or banner: `rect` in the page's own coordinates (CSS px times
        zoom, like the input coordinates), the whole page area if None. Use instead of `view.grab(rect)`."""
        area = self.page_rect()
        target = area if rect is None else rect.translated(area.topLeft()).intersected(area)
        with self.hidden_for_capture():
            return self.view.grab(target)

    # -- the input filter ------------------------------------------------------------------------------
    def _render_widgets(self) -> list[QWidget]:
        """The view's render widget(s) and focus proxy: everything that takes input for the page."""
        widgets = [w for w in self.view.findChildren(QWidget, "", Qt.FindChildOption.FindDirectChildrenOnly)
                   if not self._is_decoration(w)]
        proxy = self.view.focusProxy()
        if proxy is not None and not self._is_decoration(proxy) and not any(proxy is w for w in widgets):
            widgets.append(proxy)
        return widgets

    def _install_filters(self) -> None:
        for widget in self._render_widgets():
            widget.removeEventFilter(self)  # never twice
            widget.installEventFilter(self)

    def _remove_filters(self) -> None:
        for widget in self._render_widgets():
            widget.removeEventFilter(self)

    def _refresh_filters(self, *_args: object) -> None:
        if _valid(self) and _valid(self.view) and self.locked:
            self._install_filters()

    def _update_input_method(self) -> None:
        """Make the platform input method ask again whether it may run, if the page has the focus."""
        focus = QGuiApplication.focusObject()
        if isinstance(focus, QWidget) and (focus is self.view or self.view.isAncestorOf(focus)):
            QGuiApplication.inputMethod().update(Qt.InputMethodQuery.ImEnabled)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind not in _WATCHED:
            return False
        if kind == _T.ChildAdded:
            if watched is self.view and self.locked:
                child = event.child()  # type: ignore[attr-defined]
                if child is not None and child.isWidgetType() and not self._is_decoration(child):
                    # A new render widget: filter it before it can take any input (it becomes the focus
                    # proxy only later), and look again once the view has finished swapping.
                    child.installEventFilter(self)
                    QTimer.singleShot(0, self, self._refresh_filters)
            return False
        if not self.locked or self._is_decoration(watched):
            return False
        if kind == _T.InputMethodQuery:
            return self._answer_input_method_query(watched, event)  # type: ignore[arg-type]
        if not event.spontaneous():
            return False  # the app's own input
        if kind in _REFUSED:
            event.ignore()  # no drop here; and the page claims no key, so the window's shortcuts still work
        else:
            event.accept()  # swallowed: not passed on to the view's parents either
        return True

    def _answer_input_method_query(self, watched: QObject, event: QInputMethodQueryEvent) -> bool:
        if watched is self.view or not (event.queries() & Qt.InputMethodQuery.ImEnabled):
            return False
        watched.event(event)  # let the page answer the rest, then say no input method while locked
        event.setValue(Qt.InputMethodQuery.ImEnabled, False)
        event.accept()
        return True
