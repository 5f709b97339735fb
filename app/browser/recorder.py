"""Recording a person's actions in a tab: the Qt side of the recorder.

`TabRecorder(tab)` is the one recording of a tab (found again with `TabRecorder.of(tab)`; a child of the tab,
so it goes with it). It puts the recorder script into the tab's page as a named `QWebEngineScript`
(`browserpilot-recorder`) in its own isolated world (`RECORD_WORLD`), on every frame, and runs it once in the
documents already shown (in every frame, through `QWebEngineFrame`). The script (resources/js/recorder.js,
on locator.js + locator_gen.js in that same world) only listens to trusted events and reports raw steps as console messages of its world carrying a
random token; `BrowserPage.console_listeners` hands them here before anything is logged, and
`workflows.recording.Recording` merges them into steps.

A step made in another site's frame (a payment form, a sign-in widget: a renderer of its own, which the
top frame cannot read) comes with locators from that frame's own generator; they are made the page's
(app/browser/recorder_frames.py: chains through the frame's `<iframe>`) before the step is added, and the
messages behind it wait their turn, so the steps keep their order.

What the page does not tell the script comes from the tab: an address typed in the address bar (a *typed*
main-frame navigation) → `goto`; the files a person chose in a file chooser → the `upload` (the click that
opened it is dropped); a download the person's click started → `download`; a new tab the person's click opened
→ the recording follows into it, and the click gets `followNewTab` so replay follows as well.

Only a person's input is recorded, told apart from the app's by where it is in the page's input stream,
not by time. While an operation acts on the tab (an agent, a workflow run: every operation goes through
`app.ops.page_session.on_page`, which enters `app_acting(tab)` unless the operation only reads: a read sends
the page no input and never pauses a recording), the recording pauses, drops what it sees and says so
(`paused`). When the operation ends, the app sends a marker behind its own events on the same
input channel (`InputDriver.mark()`: a lone trusted F24 key-up) and the recorder's world reports it on the
same console channel as the steps: everything reported before the marker is the app's doing, everything after
it is a person's, so a person's click 50 ms after an agent's is recorded and the agent's is not. A marker the
page never takes (a new document that has not painted drops all input) ends the pause after `MARK_TIMEOUT`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest, QWebEngineNavigationRequest

from app.browser.input_driver import InputDriver, InputError
from app.browser.js import HELPER_SCRIPTS, PageError, document_script, run_in_every_frame
from app.browser.recorder_frames import page_locator
from app.browser.tab import BrowserPage, BrowserTab, FileChooserEvent
from app.startup.resources import JS_DIR
from plumbing import loggers
from workflows.recording import Recording, new_session_token

log = logging.getLogger(loggers.RECORD)

RECORD_WORLD = 3  # the recorder's own isolated world (0 is the page's, 1 our helpers')
SCRIPT_NAME = "browserpilot-recorder"
RECORDER_OBJECT_NAME = "browserpilot-recorder"
MARK_TIMEOUT = 2.0  # seconds to wait for the end-of-operation marker before resuming anyway (a dropped marker)
FRAME_STEP_TIMEOUT = 5.0  # seconds a step of another site's frame may take to get the page's locators
PAUSED_BY_APP = "paused while the app acts on this tab (an agent or a workflow run); their steps are not recorded"


@functools.cache
def _library() -> str:
    return "\n;\n".join((JS_DIR / name).read_text("utf-8") for name in HELPER_SCRIPTS if name != "document.js")


@functools.cache
def _recorder_source() -> str:
    return (JS_DIR / "recorder.js").read_text("utf-8")


def recorder_script(token: str) -> str:
    """The whole source the recorder's world runs: the locator engines, the generator, the recorder."""
    return f"{_library()}\n;\n({_recorder_source()})({json.dumps(token)});"


class RecorderError(Exception):
    """Recording cannot start or stop as asked (already recording, not recording)."""


class TabRecorder(QObject):
    changed = Signal()  # a step was added or changed, or the recording paused / resumed

    def __init__(self, tab: BrowserTab) -> None:
        if TabRecorder.of(tab) is not None:
            raise RecorderError(f"tab {tab.tab_id} is already being recorded (one recording per tab)")
        super().__init__(tab)
        self.setObjectName(RECORDER_OBJECT_NAME)
        self.tab = tab
        self.token = new_session_token()
        url = tab.url().toString()
        self.recording = Recording(start_url=url if url and url != "about:blank" else None)
        self.events = 0  # raw steps received from the page (recorded or not)
        self._app_depth = 0
        self._paused_since = 0.0  # when the app began acting (epoch ms): typing reported later but done before
        self._marks_due = 0  # markers sent at the end of operations, not reported by the page yet
        self._marks_deadline = 0.0
        self._was_paused = False
        self._pages: list[BrowserPage] = []
        self._listeners: list[functools.partial[bool]] = []
        self._inbox: deque[tuple[BrowserPage | None, dict[str, Any]]] = deque()  # messages not taken yet, in order
        self._framing: asyncio.Future[None] | None = None  # a frame step getting the page's locators
        self._profile = tab.browser_page.env_profile  # not `.profile()`: see BrowserPage
        self._profile.downloadRequested.connect(self._on_download)
        self.attach(tab.browser_page, run_now=True)
        log.info("recording tab %s from %s", tab.tab_id, url or "a blank page")

    @staticmethod
    def of(tab: BrowserTab) -> TabRecorder | None:
        found = tab.findChild(QObject, RECORDER_OBJECT_NAME, Qt.FindChildOption.FindDirectChildrenOnly)
        return found if isinstance(found, TabRecorder) else None

    # -- pages -----------------------------------------------------------------------------------------
    def attach(self, page: BrowserPage, run_now: bool) -> None:
        """Record `page` too: its future documents get the script, and (`run_now`) its current one."""
        source = recorder_script(self.token)
        page.scripts().insert(document_script(SCRIPT_NAME, source, RECORD_WORLD))
        if run_now:  # the documents already shown when recording starts
            run_in_every_frame(page.mainFrame(), source, RECORD_WORLD)
        listener = functools.partial(self._on_console, page=page)
        self._listeners.append(listener)
        page.console_listeners.append(listener)
        page.file_chooser_answered.connect(self._on_files)
        page.navigationRequested.connect(self._on_navigation)
        page.popup_requested.connect(self._on_popup)
        self._pages.append(page)

    def stop(self) -> Recording:
        """Stop listening everywhere; the recording (steps) stays readable."""
        if self._framing is not None:  # a frame step still getting its locators: taken as its frame made them
            self._framing.cancel()
            self._framing = None
        while self._inbox:
            self._handle(self._inbox.popleft()[1])
        for page in self._pages:
            if not shiboken6.isValid(page):
                continue
            for script in page.scripts().find(SCRIPT_NAME):
                page.scripts().remove(script)
            for listener in self._listeners:
                if listener in page.console_listeners:
                    page.console_listeners.remove(listener)
            for signal, slot in ((page.file_chooser_answered, self._on_files),
                                 (page.navigationRequested, self._on_navigation),
                                 (page.popup_requested, self._on_popup)):
                signal.disconnect(slot)
            # The document shown keeps its listeners until it goes; without a listener here they are mute.
        self._pages.clear()
        self._listeners.clear()
        if shiboken6.isValid(self._profile):
            self._profile.downloadRequested.disconnect(self._on_download)
        self.setParent(None)
        self.deleteLater()
        log.info("recording of tab %s stopped: %d steps", self.tab.tab_id, len(self.recording.steps))
        return self.recording

    # -- the app acting --------------------------------------------------------------------------------
    @property
    def paused(self) -> str | None:
        """Why the recording is paused now, or None."""
        if self._marks_due and time.monotonic() >= self._marks_deadline:
            log.info("tab %s: %d end-of-operation marker(s) never reported; recording again", self.tab.tab_id,
                     self._marks_due)
            self._marks_due = 0
        return PAUSED_BY_APP if self._app_depth or self._marks_due else None

    def app_started(self) -> None:
        if self.paused is None:
            self._paused_since = time.time() * 1000  # wall-clock ms, the clock of the page's `at`
        self._app_depth += 1
        self._announce_pause()

    def app_finished(self) -> None:
        self._app_depth = max(0, self._app_depth - 1)
        if self._app_depth:
            return
        try:
            InputDriver(self.tab).mark()  # behind the operation's last event: what follows is a person's
        except InputError:  # no render widget (closed, crashed): nothing of the app's can still arrive
            self._announce_pause()
            return
        self._marks_due += 1
        self._marks_deadline = time.monotonic() + MARK_TIMEOUT
        QTimer.singleShot(int(MARK_TIMEOUT * 1000) + 50, self, self._announce_pause)

    def _marked(self) -> None:
        """The page reported a marker: the app's events sent before it have all been reported."""
        self._marks_due = max(0, self._marks_due - 1)
        self._announce_pause()

    def _announce_pause(self) -> None:
        paused = self.paused is not None
        if paused != self._was_paused:
            self._was_paused = paused
            self.changed.emit()

    def _take(self, raw: dict[str, Any], paused: bool | None = None) -> None:
        """Add a raw step, unless the app was acting when it came (`paused`: as it was on arrival, for a step
        that waited its turn; else now)."""
        self.events += 1
        self._announce_pause()
        if (self.paused if paused is None else paused) and not self._typed_before_pause(raw):
            log.debug("tab %s: dropped the app's %s", self.tab.tab_id, raw.get("kind"))
            return
        step = self.recording.add(raw)
        log.debug("tab %s: %s -> %s", self.tab.tab_id, raw.get("kind"), step.type if step else "(merged)")
        self.changed.emit()

    def _typed_before_pause(self, raw: dict[str, Any]) -> bool:
        """A field's fill reported during a pause whose last key the person typed before the app began acting
        (the page sends a typing burst's fill when it ends, which may be after an operation started)."""
        at = raw.get("at")
        return raw.get("kind") == "fill" and isinstance(at, (int, float)) and at < self._paused_since

    # -- what the page and the tab report ----------------------------------------------------------------
    def _on_console(self, message: str, page: BrowserPage | None = None) -> bool:
        if not message.startswith(self.token):
            return False
        try:
            raw = json.loads(message[len(self.token):])
        except ValueError:
            log.warning("tab %s: unreadable recorder message", self.tab.tab_id)
            return True
        if isinstance(raw, dict):
            self._queue(raw, page)
        return True

    def _queue(self, raw: dict[str, Any], page: BrowserPage | None = None) -> None:
        """Take a raw step in its turn: behind a step of another site's frame still getting its locators."""
        self._inbox.append((page, raw))
        self._drain()

    def _handle(self, raw: dict[str, Any], paused: bool | None = None) -> None:
        if raw.get("kind") == "mark":
            self._marked()
        else:
            self._take(raw, paused)

    def _drain(self) -> None:
        """Take the messages in order; a step of another site's frame first gets the page's locators."""
        while self._inbox and self._framing is None:
            page, raw = self._inbox[0]
            if raw.get("framePath") is not None and isinstance(raw.get("loc"), dict) and page is not None:
                # Whether the app is acting is decided now, when everything before the step has been taken.
                self._framing = asyncio.ensure_future(self._frame_step(page, raw, self.paused is not None))
                return
            self._inbox.popleft()
            self._handle(raw)

    async def _frame_step(self, page: BrowserPage, raw: dict[str, Any], paused: bool) -> None:
        path = raw.pop("framePath")
        try:
            # The element's locator, and a widget's native <select> (made by the same frame's generator).
            for key in ("loc", "native"):
                if isinstance(raw.get(key), dict):
                    raw[key] = await asyncio.wait_for(page_locator(page, raw[key], path), FRAME_STEP_TIMEOUT)
        except (asyncio.TimeoutError, PageError) as exc:
            log.info("tab %s: a step in another site's frame keeps its frame's locators: %s", self.tab.tab_id, exc)
        except asyncio.CancelledError:
            return
        if not shiboken6.isValid(self) or self._framing is None:
            return
        self._framing = None
        if self._inbox and self._inbox[0][1] is raw:
            self._inbox.popleft()
            self._handle(raw, paused)
        self._drain()

    def _on_files(self, event: FileChooserEvent) -> None:
        if not event.armed:
            self._queue({"kind": "files", "paths": list(event.files)})

    def _on_navigation(self, request: QWebEngineNavigationRequest) -> None:
        if request.isMainFrame() and request.navigationType() == QWebEngineNavigationRequest.NavigationType.TypedNavigation:
            self._queue({"kind": "goto", "url": request.url().toString()})

    def _on_popup(self, page: BrowserPage) -> None:
        if not self.paused:
            self.attach(page, run_now=False)
            log.info("tab %s: the recording follows into a new tab", self.tab.tab_id)
            self._queue({"kind": "newTab"})  # the click that opened it: replay follows too

    def _on_download(self, request: QWebEngineDownloadRequest) -> None:
        if request.page() in self._pages:
            self._queue({"kind": "download", "url": request.url().toString()})


@contextmanager
def app_acting(tab: BrowserTab | None) -> Iterator[None]:
    """While the app itself acts on `tab`, its recording (if any) pauses."""
    recorder = TabRecorder.of(tab) if isinstance(tab, BrowserTab) else None
    if recorder is None:
        yield
        return
    recorder.app_started()
    try:
        yield
    finally:
        if shiboken6.isValid(recorder):
            recorder.app_finished()
