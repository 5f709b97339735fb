"""The isolated engine for `code` nodes: Chromium's JavaScript in a page of its own off-the-record profile.

- no network: every request of the profile is blocked by an interceptor, and the page's Content-Security-
  Policy allows nothing;
- no access to any page or to the app: a separate profile means a separate renderer process, and the page
  holds nothing but an empty document;
- a real time limit: when the code does not finish in time (`while (true) {}` included) its renderer process
  is killed and the page is made anew for the next call.
- nothing alive while unused: the page (and so its renderer process, about 15-20 MB of PSS) is made on the
  first call and deleted after `idle_release` seconds without calls (default `IDLE_RELEASE`, 60 s); the next
  call makes it again (about 100 ms). The off-the-record profile stays: it holds no renderer.
The code is the body of an async function with one global `inputs`; its `return` value comes back as JSON.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QTimer, QUrl
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)

from app.browser.js import MAIN_WORLD, PageTimeout, run_js, run_js_async
from plumbing import loggers
from workflows.ports import PageError

log = logging.getLogger(loggers.BROWSER)

IDLE_RELEASE = 60.0  # seconds without calls after which the page and its renderer are deleted

SANDBOX_HTML = ("<!doctype html><meta charset=utf-8><meta http-equiv=Content-Security-Policy "
                "content=\"default-src 'none'; script-src 'unsafe-eval' 'unsafe-inline'\"><title>code</title>")


class CodeTimeout(PageError):
    """The code did not finish within its time limit and was stopped."""

    code = "code_timeout"


class _BlockEverything(QWebEngineUrlRequestInterceptor):
    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:  # noqa: N802 (Qt's name)
        if info.requestUrl().scheme() not in ("data", "about"):
            info.block(True)


class _SandboxPage(QWebEnginePage):
    def javaScriptConsoleMessage(self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str,  # noqa: N802
                                 line: int, source: str) -> None:
        log.debug("code node console (line %s): %s", line, message)


class CodeSandbox(QObject):
    """Callable as the engine's `CodePort`: `await sandbox(code, inputs, timeout)`."""

    def __init__(self, parent: QObject | None = None, idle_release: float = IDLE_RELEASE) -> None:
        super().__init__(parent)
        self._profile: QWebEngineProfile | None = None
        self._interceptor: _BlockEverything | None = None
        self._page: QWebEnginePage | None = None
        self._lock = asyncio.Lock()
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.timeout.connect(self._on_idle)
        self.set_idle_release(idle_release)

    def set_idle_release(self, seconds: float) -> None:
        """How long the page outlives its last call (a running timer keeps its old interval)."""
        self._idle.setInterval(max(0, int(seconds * 1000)))

    @property
    def page_alive(self) -> bool:
        """Whether the page (and so a renderer process) exists now."""
        return self._page is not None and shiboken6.isValid(self._page)

    @property
    def renderer_pid(self) -> int:
        """The page's renderer process id (0 when there is no page)."""
        return self._page.renderProcessPid() if self.page_alive else 0  # type: ignore[union-attr]

    def _on_idle(self) -> None:
        if self._lock.locked():  # a call is running (it restarts the timer when it ends)
            return
        if self.page_alive:
            log.info("code sandbox idle for %.0f s: releasing its page", self._idle.interval() / 1000)
            page, self._page = self._page, None
            page.deleteLater()  # its renderer process exits with its last page

    async def _ready_page(self) -> QWebEnginePage:
        if self._page is not None and shiboken6.isValid(self._page):
            return self._page
        if self._profile is None:
            self._profile = QWebEngineProfile(self)  # off the record: nothing is stored
            self._interceptor = _BlockEverything(self._profile)
            self._profile.setUrlRequestInterceptor(self._interceptor)
        page = _SandboxPage(self._profile, self)
        loaded: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        page.loadFinished.connect(lambda ok: loaded.done() or loaded.set_result(ok))
        page.setHtml(SANDBOX_HTML, QUrl("about:blank"))
        await asyncio.wait_for(loaded, 15)
        self._page = page
        return page

    def _discard_page(self) -> None:
        page, self._page = self._page, None
        if page is None or not shiboken6.isValid(page):
            return
        pid = page.renderProcessPid()
        if pid > 0:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        page.deleteLater()

    async def __call__(self, code: str, inputs: dict[str, Any], timeout: float) -> Any:
        async with self._lock:
            self._idle.stop()
            try:
                return await self._run(code, inputs, timeout)
            finally:
                self._idle.start()

    async def _run(self, code: str, inputs: dict[str, Any], timeout: float) -> Any:
        """One call, under the lock."""
        page = await self._ready_page()
        try:
            # On the same line as the code, so error line numbers stay the code's own.
            return await run_js_async(page, "const inputs = args; " + code, inputs, timeout, world=MAIN_WORLD)
        except PageTimeout:
            log.info("code node exceeded %s s: stopping its engine", timeout)
            self._discard_page()
            raise CodeTimeout(f"the code did not finish within {timeout:g} s and was stopped") from None
        except PageError:
            # A script error leaves the engine usable; anything else: start afresh next time.
            if not await _alive(page):
                self._discard_page()
            raise

    def close(self) -> None:
        """Delete the page before its profile (called at shutdown)."""
        self._idle.stop()
        if self._page is not None and shiboken6.isValid(self._page):
            shiboken6.delete(self._page)
        self._page = None
        if self._profile is not None and shiboken6.isValid(self._profile):
            shiboken6.delete(self._profile)
        self._profile = None


async def _alive(page: QWebEnginePage) -> bool:
    try:
        return await run_js(page, "1", timeout=1.0, world=MAIN_WORLD) == 1
    except PageError:
        return False
