"""A tab: a `QWebEngineView` showing a `BrowserPage` of one environment's profile.

`BrowserPage` is where the page layer meets QtWebEngine's virtual hooks:

- new windows (`target=_blank`, `window.open`) get a new `BrowserPage` of the same profile; the window
  hosting the tab puts it in a new tab (`popup_requested`), and the opener records it for the next
  `drain_new_pages()` so an operation can report the tabs it opened;
- file choosers: `arm_upload(paths)` answers the next chooser with those files (QtWebEngine only asks after
  a trusted click); a chooser nobody armed is a person's, and gets the normal dialog;
- JavaScript dialogs (`alert`, `confirm`, `prompt`, and the leave-page question of `beforeunload`) never
  block: they are answered by `dialog_policy` at once and recorded for `drain_dialogs()`;
- every page has a `PageHealth` (`app/browser/health.py`) that notices a crashed renderer and reloads it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from PySide6.QtCore import QCoreApplication, QTimer, QUrl, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from app.browser.health import PageHealth
from app.browser.js import APP_WORLD, PageError, PageTimeout
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)
page_log = logging.getLogger(loggers.PAGE)

DialogPolicy = Literal["accept", "dismiss"]
DialogType = Literal["alert", "confirm", "prompt", "beforeunload"]

# QtWebEngine asks about leaving a page (`beforeunload`) through `javaScriptConfirm` with this fixed text
# (qwebenginepage.cpp, UnloadDialog); the page's own text never reaches us (browsers stopped showing it).
_UNLOAD_SOURCE = "Are you sure you want to leave this page? Changes that you made may not be saved."
MAX_RECORDED = 200  # dialogs / new pages kept between drains; older ones are dropped
# After "stay", the browser drops its navigation only once the page has sent it the answer: a navigation asked for
# before that is dropped with it. `navigation_cancelled` waits for the page to answer a script (the page sends its
# answer first), or this many ms when it cannot answer (it crashed, or went away).
CANCEL_SETTLE_MS = 1000
UPLOAD_ARM_TTL = 60.0  # seconds an armed upload waits for its chooser; later, a chooser is a person's again


def new_tab_id() -> str:
    return f"tab-{secrets.token_hex(4)}"


class UploadError(PageError):
    """Files cannot be uploaded (missing, unreadable, a folder, or the page asked for something else)."""

    code = "upload_failed"


def check_upload_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Absolute paths of readable regular files, or `UploadError` naming every problem.

    Call this before clicking anything: QtWebEngine silently uploads an empty file for a path that does
    not exist.
    """
    checked: list[str] = []
    problems: list[str] = []
    for raw in paths:
        text = os.fspath(raw)
        if not text.strip():
            problems.append("an empty path")
            continue
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if not path.exists():
            problems.append(f"{text}: no such file")
        elif not path.is_file():
            problems.append(f"{text}: not a regular file" + (" (a folder)" if path.is_dir() else ""))
        elif not os.access(path, os.R_OK):
            problems.append(f"{text}: not readable (permission denied)")
        else:
            checked.append(str(path.resolve()))
    if not checked and not problems:
        problems.append("no files given")
    if problems:
        raise UploadError("cannot upload: " + "; ".join(problems))
    return checked


@dataclass
class FileChooserEvent:
    """One file chooser the page opened, and how it was answered."""

    mode: str  # "single", "multiple", "folder" or "save"
    accepted_types: list[str]
    files: list[str]  # the files given to the page; empty when refused (the input is then empty too)
    armed: bool  # answered from `arm_upload` (False: a person's chooser, shown as a dialog)
    error: str | None = None  # set when the armed files did not fit the chooser (they were not given)

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "acceptedTypes": self.accepted_types, "files": self.files,
                "armed": self.armed, **({"error": self.error} if self.error else {})}


_MODES = {
    QWebEnginePage.FileSelectionMode.FileSelectOpen: "single",
    QWebEnginePage.FileSelectionMode.FileSelectOpenMultiple: "multiple",
    QWebEnginePage.FileSelectionMode.FileSelectUploadFolder: "folder",
    QWebEnginePage.FileSelectionMode.FileSelectSave: "save",
}


@dataclass
class _ArmedUpload:
    files: list[str]
    armed_at: float = field(default_factory=time.monotonic)


_CONSOLE_LEVELS = {QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel: "info",
                   QWebEnginePage.JavaScriptConsoleMessageLevel.WarningMessageLevel: "warning",
                   QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel: "error"}


class BrowserPage(QWebEnginePage):
    popup_requested = Signal(object)  # the new BrowserPage
    file_chooser_answered = Signal(object)  # FileChooserEvent
    dialog_answered = Signal(object)  # the recorded dialog dict
    navigation_cancelled = Signal()  # a leave-page question (beforeunload) was answered "stay"

    def __init__(self, profile: QWebEngineProfile, parent: Any = None) -> None:
        super().__init__(profile, parent)
        # The environment's profile, kept here: never ask a page for `profile()`. PySide6 then counts the profile's
        # Python object as the page's child, and deleting the page (closing its tab) invalidates it while the
        # profile lives on, so the environment could not open a tab again ("QWebEngineProfile already deleted").
        self.env_profile = profile
        self.opener: BrowserPage | None = None
        self.dialog_policy: DialogPolicy = "accept"
        self.prompt_text: str | None = None  # answer to prompt(); None: the prompt's default text
        self._dialogs: list[dict[str, Any]] = []
        self._new_pages: list[BrowserPage] = []
        self._armed_upload: _ArmedUpload | None = None
        self.health = PageHealth(self)
        # Called with each console message first; one that returns True consumed it (the recorder's messages,
        # app/browser/recorder.py, which never reach the log).
        self.console_listeners: list[Callable[[str], bool]] = []
        # The page's own console messages (not consumed by a listener) while a trace records the tab
        # (app/browser/trace.py): (time.time(), level, message, source, line); None when nobody records.
        self.console_journal: deque[tuple[float, str, str, str, int]] | None = None

    def javaScriptConsoleMessage(self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str,  # noqa: N802
                                 line: int, source: str) -> None:
        """The page's console goes to the debug log (Qt would print it as warnings), and to a trace."""
        for listener in list(self.console_listeners):
            if listener(message):
                return
        if self.console_journal is not None:
            self.console_journal.append((time.time(), _CONSOLE_LEVELS.get(level, "log"), message, source, line))
        page_log.debug("console %s:%s %s", source, line, message)

    # -- popups ----------------------------------------------------------------------------------------
    def createWindow(self, kind: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        page = BrowserPage(self.env_profile)
        page.opener = self
        page.dialog_policy, page.prompt_text = self.dialog_policy, self.prompt_text
        self._new_pages.append(page)
        del self._new_pages[:-MAX_RECORDED]
        log.info("page %s opened a new %s", self.url().toString(), kind.name)
        self.popup_requested.emit(page)
        return page

    def drain_new_pages(self) -> list[BrowserPage]:
        """Pages this page opened since the last call (oldest first), whether or not they still exist."""
        pages, self._new_pages = self._new_pages, []
        return pages

    # -- uploads ---------------------------------------------------------------------------------------
    def arm_upload(self, paths: Sequence[str | os.PathLike[str]]) -> list[str]:
        """Answer the next file chooser with `paths` (checked first; raises `UploadError`). Returns the
        absolute paths. The chooser must open after a trusted click on the file input."""
        files = check_upload_paths(paths)
        self._armed_upload = _ArmedUpload(files)
        return files

    def disarm_upload(self) -> None:
        self._armed_upload = None

    @property
    def upload_armed(self) -> bool:
        return self._armed_upload is not None

    def chooseFiles(self, mode: QWebEnginePage.FileSelectionMode, oldFiles: Sequence[str],
                    acceptedMimeTypes: Sequence[str]) -> list[str]:
        kind = _MODES.get(mode, str(mode))
        armed, self._armed_upload = self._armed_upload, None
        if armed is not None and time.monotonic() - armed.armed_at > UPLOAD_ARM_TTL:
            log.warning("ignoring files armed %.0f s ago for an upload that never came",
                        time.monotonic() - armed.armed_at)
            armed = None
        if armed is None:
            files = list(super().chooseFiles(mode, oldFiles, acceptedMimeTypes))
            self.file_chooser_answered.emit(FileChooserEvent(kind, list(acceptedMimeTypes), files, armed=False))
            return files
        error = None
        if kind == "single" and len(armed.files) > 1:
            error = f"the file input takes one file, but {len(armed.files)} were given"
        elif kind == "folder":
            error = "the page asks for a folder; uploading folders is not supported"
        elif kind == "save":
            error = "the page asks where to save a file, not for files to upload"
        files = [] if error else armed.files
        event = FileChooserEvent(kind, list(acceptedMimeTypes), files, armed=True, error=error)
        log.info("file chooser (%s) answered with %d file(s)%s", kind, len(files), f": {error}" if error else "")
        self.file_chooser_answered.emit(event)
        return files  # refused: nothing chosen, which (as in Chrome) empties the input

    # -- JavaScript dialogs ----------------------------------------------------------------------------
    def _record_dialog(self, kind: DialogType, origin: QUrl, message: str, **extra: Any) -> None:
        entry = {"type": kind, "message": message, "url": origin.toString(), **extra}
        self._dialogs.append(entry)
        del self._dialogs[:-MAX_RECORDED]
        log.info("answered %s dialog: %r -> %r", kind, message[:200], extra)
        self.dialog_answered.emit(entry)

    def javaScriptAlert(self, securityOrigin: QUrl, msg: str) -> None:
        self._record_dialog("alert", securityOrigin, msg)

    def javaScriptConfirm(self, securityOrigin: QUrl, msg: str) -> bool:
        accept = self.dialog_policy == "accept"
        if msg == _UNLOAD_SOURCE or msg == QCoreApplication.translate("QWebEnginePage", _UNLOAD_SOURCE):
            self._record_dialog("beforeunload", securityOrigin, "", accepted=accept)
            if not accept:
                QTimer.singleShot(0, self._say_cancelled_once_dropped)
        else:
            self._record_dialog("confirm", securityOrigin, msg, accepted=accept)
        return accept

    def _say_cancelled_once_dropped(self) -> None:
        """Emit `navigation_cancelled` once the browser has dropped the navigation the page asked to stay on: a
        navigation asked for the moment "stay" was answered would be dropped with it (seen every time)."""
        said = False

        def say(*_result: object) -> None:
            nonlocal said
            if not said:  # (emitted outside the script's callback: a slot may wait for a script itself)
                said = True
                QTimer.singleShot(0, self, self.navigation_cancelled.emit)

        self.runJavaScript("0", APP_WORLD, say)
        QTimer.singleShot(CANCEL_SETTLE_MS, self, say)

    def javaScriptPrompt(self, securityOrigin: QUrl, msg: str, defaultValue: str) -> tuple[bool, str]:
        if self.dialog_policy != "accept":
            self._record_dialog("prompt", securityOrigin, msg, default=defaultValue, accepted=False)
            return False, ""
        value = defaultValue if self.prompt_text is None else self.prompt_text
        self._record_dialog("prompt", securityOrigin, msg, default=defaultValue, accepted=True, value=value)
        return True, value

    def drain_dialogs(self) -> list[dict[str, Any]]:
        """Dialogs answered since the last call, oldest first: `{type, message, url, accepted?, ...}`."""
        dialogs, self._dialogs = self._dialogs, []
        return dialogs


async def upload_files(page: BrowserPage, paths: Sequence[str | os.PathLike[str]],
                       trigger: Callable[[], Awaitable[Any] | Any], timeout: float = 5.0) -> FileChooserEvent:
    """Check `paths` (nothing is clicked if one is missing), arm them, run `trigger` (a trusted click on the
    file input or on what opens it), and wait for the page's file chooser to take them."""
    page.arm_upload(paths)
    answered: asyncio.Future[FileChooserEvent] = asyncio.get_running_loop().create_future()

    def on_answer(event: FileChooserEvent) -> None:
        if event.armed and not answered.done():
            answered.set_result(event)

    page.file_chooser_answered.connect(on_answer)
    try:
        outcome = trigger()
        if inspect.isawaitable(outcome):
            await outcome
        try:
            event = await page.health.guard(asyncio.wait_for(answered, timeout))
        except asyncio.TimeoutError:
            raise PageTimeout(f"no file chooser opened within {timeout:g} s; the target must be a file input "
                              f"(or something that opens one) and must be clicked, not scripted") from None
    finally:
        page.file_chooser_answered.disconnect(on_answer)
        page.disarm_upload()
    if event.error:
        raise UploadError(event.error)
    return event


class BrowserTab(QWebEngineView):
    """One tab of an environment window."""

    def __init__(self, env_id: str, profile: QWebEngineProfile, page: BrowserPage | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tab_id = new_tab_id()
        self.env_id = env_id
        self.browser_page = page if page is not None else BrowserPage(profile)
        self.browser_page.setParent(self)
        self.setPage(self.browser_page)
        self.loading = False
        self.loadStarted.connect(self._on_load_started)
        self.loadFinished.connect(self._on_load_finished)
        self.browser_page.navigation_cancelled.connect(self._on_navigation_cancelled)

    @property
    def health(self) -> PageHealth:
        return self.browser_page.health

    def _on_load_started(self) -> None:
        self.loading = True

    def _on_load_finished(self, ok: bool) -> None:
        self.loading = False

    def _on_navigation_cancelled(self) -> None:
        # `open` marked the tab loading before the page asked to stay: no load will start or finish.
        self.loading = self.browser_page.isLoading()

    def open(self, url: str) -> None:
        self.loading = True  # before loadStarted arrives, so nobody mistakes the old page for the new one
        self.setUrl(QUrl(url))
