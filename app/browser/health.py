"""Crashed and hung renderers: notice them, fail the operation that was waiting, and reload the page.

- A renderer that dies (crash, out of memory, killed) reports `renderProcessTerminated` within
  milliseconds. `PageHealth` marks the page crashed, fails every `guard()`ed await with `PageCrashed`
  ("the page crashed …") at once (a `runJavaScript` callback would never arrive), and reloads the page;
  the page is recovered when the reload finishes (about 70 ms for a small page). A page that crashes
  `CRASH_LOOP_LIMIT` times within `CRASH_LOOP_WINDOW` seconds is not reloaded again automatically: a
  reload (by a person or an operation) recovers it.
- A renderer stuck in a script (`while (true) {}`) answers nothing. `ensure_responsive(page)` pings it
  with a short timeout; if it does not answer, the renderer process is killed (SIGKILL) and the page is
  reloaded as after a crash. Pages that share that renderer process (same site, opened from each other)
  die and reload too.

Signals (`crashed(reason)`, `recovered()`) let a window show what happened; nothing here needs a window.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser.js import APP_WORLD, PageError, PageTimeout, run_js
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

T = TypeVar("T")

CRASH_LOOP_LIMIT = 3
CRASH_LOOP_WINDOW = 60.0
MAX_EVENTS = 50

_STATUS_TEXT = {
    QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus: "the renderer exited",
    QWebEnginePage.RenderProcessTerminationStatus.AbnormalTerminationStatus: "the renderer crashed",
    QWebEnginePage.RenderProcessTerminationStatus.CrashedTerminationStatus: "the renderer crashed",
    QWebEnginePage.RenderProcessTerminationStatus.KilledTerminationStatus: "the renderer was killed",
}


class PageCrashed(PageError):
    """The page's renderer died while an operation was using it."""

    code = "page_crashed"


class PageHealth(QObject):
    """Crash state of one page; created by `BrowserPage` (or `PageHealth.of(page)` for any page)."""

    crashed = Signal(str)  # why, for a person
    recovered = Signal()

    def __init__(self, page: QWebEnginePage) -> None:
        super().__init__(page)
        self.setObjectName("browserpilot-health")
        self._page = page
        self.is_crashed = False
        self.crash_count = 0
        self.last_reason: str | None = None
        self.auto_reload = True
        self.events: list[dict[str, Any]] = []
        self._crash_times: list[float] = []
        self._kill_reason: str | None = None
        self._reload_pending = False
        self._disposed = False
        self._crash_waiters: set[asyncio.Future[str]] = set()
        self._recover_waiters: set[asyncio.Future[None]] = set()
        page.renderProcessTerminated.connect(self._on_terminated)
        page.loadFinished.connect(self._on_load_finished)
        page._q_aboutToDelete.connect(self._on_about_to_delete)

    @staticmethod
    def of(page: QWebEnginePage) -> "PageHealth":
        """The page's tracker, created on first use for pages that are not `BrowserPage`s."""
        health = getattr(page, "health", None)
        if isinstance(health, PageHealth):
            return health
        found = page.findChild(PageHealth, "browserpilot-health")
        return found if isinstance(found, PageHealth) else PageHealth(page)

    # -- state changes ---------------------------------------------------------------------------------
    def _on_about_to_delete(self) -> None:
        self._disposed = True
        self._fail_waiters("the tab was closed")

    def _record(self, kind: str, **data: Any) -> None:
        self.events.append({"event": kind, "at": time.time(), **data})
        del self.events[:-MAX_EVENTS]

    def _on_terminated(self, status: QWebEnginePage.RenderProcessTerminationStatus, exit_code: int) -> None:
        if self._disposed:
            return
        reason = self._kill_reason or _STATUS_TEXT.get(status, "the renderer stopped")
        self._kill_reason = None
        self.is_crashed = True
        self.crash_count += 1
        self.last_reason = reason
        now = time.monotonic()
        self._crash_times = [t for t in self._crash_times if now - t < CRASH_LOOP_WINDOW] + [now]
        looping = len(self._crash_times) >= CRASH_LOOP_LIMIT
        log.warning("page %s: %s (status %s, exit code %s)%s", self._page.url().toString(), reason,
                    status.name, exit_code, "; crashing repeatedly, not reloading" if looping else "; reloading")
        self._record("crashed", reason=reason, status=status.name, exitCode=exit_code)
        self._fail_waiters(reason)
        self.crashed.emit(reason)
        if self.auto_reload and not looping and not self._reload_pending:
            self._reload_pending = True
            QTimer.singleShot(0, self._reload)

    def _reload(self) -> None:
        self._reload_pending = False
        if self._disposed or not shiboken6.isValid(self._page) or not self.is_crashed:
            return
        url = self._page.url()
        if url.isEmpty():
            url = self._page.requestedUrl()
        if url.isEmpty():
            return
        log.info("reloading crashed page %s", url.toString())
        self._page.triggerAction(QWebEnginePage.WebAction.Reload)

    def _on_load_finished(self, ok: bool) -> None:
        if not self.is_crashed or self._disposed or self._page.renderProcessPid() <= 0:
            return
        self.is_crashed = False
        log.info("page %s recovered after %s", self._page.url().toString(), self.last_reason)
        self._record("recovered", ok=ok)
        for waiter in list(self._recover_waiters):
            if not waiter.done():
                waiter.set_result(None)
        self._recover_waiters.clear()
        self.recovered.emit()

    def _fail_waiters(self, reason: str) -> None:
        for waiter in list(self._crash_waiters):
            if not waiter.done():
                waiter.set_result(reason)
        self._crash_waiters.clear()
        if self._disposed:
            for recover in list(self._recover_waiters):
                if not recover.done():
                    recover.set_exception(PageCrashed(f"the page is gone: {reason}"))
            self._recover_waiters.clear()

    # -- for operations --------------------------------------------------------------------------------
    def check(self) -> None:
        """Raise `PageCrashed` while the page is crashed (before it has reloaded)."""
        if self._disposed:
            raise PageCrashed("the tab was closed")
        if self.is_crashed:
            raise PageCrashed(f"the page crashed ({self.last_reason}) and has not reloaded yet")

    async def guard(self, awaitable: Awaitable[T]) -> T:
        """Await `awaitable`, but fail with `PageCrashed` as soon as the renderer dies."""
        self.check()
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(awaitable)
        crash: asyncio.Future[str] = loop.create_future()
        self._crash_waiters.add(crash)
        try:
            await asyncio.wait({task, crash}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._crash_waiters.discard(crash)
        if task.done():
            crash.cancel()
            return task.result()
        task.cancel()
        reason = crash.result()
        if self._disposed:
            raise PageCrashed(reason)
        raise PageCrashed(f"the page crashed ({reason}); it is being reloaded")

    async def wait_recovered(self, timeout: float = 15.0) -> None:
        """Wait until a crashed page has reloaded; return at once if it is not crashed."""
        if self._disposed:
            raise PageCrashed("the tab was closed")
        if not self.is_crashed:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._recover_waiters.add(waiter)
        if not self._reload_pending and self.auto_reload and not self._page.isLoading():
            # e.g. the crash-loop guard held the automatic reload back: an explicit wait asks for one
            self._reload_pending = True
            QTimer.singleShot(0, self._reload)
        try:
            await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            raise PageTimeout(f"the page crashed ({self.last_reason}) and did not reload within {timeout:g} s") \
                from None
        finally:
            self._recover_waiters.discard(waiter)

    def kill_renderer(self, reason: str) -> bool:
        """Kill the page's renderer process (SIGKILL); the crash handling then reloads the page.
        False when there is no renderer process to kill."""
        pid = self._page.renderProcessPid()
        if pid <= 0 or pid == os.getpid() or not _is_renderer(pid):
            log.warning("not killing pid %s: not this page's renderer", pid)
            return False
        self._kill_reason = reason
        self._record("killed", reason=reason, pid=pid)
        log.warning("killing renderer %s of %s: %s", pid, self._page.url().toString(), reason)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return False
        return True


def _is_renderer(pid: int) -> bool:
    """On Linux, make sure `pid` is one of our QtWebEngine processes before killing it (pids are reused):
    a `QtWebEngineProcess` descended from this process (renderers are forked from its zygote)."""
    if not Path("/proc/self").exists():
        return True
    try:
        program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False
    if not program.endswith(b"QtWebEngineProcess"):
        return False
    current, me = pid, os.getpid()
    for _level in range(8):
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
        except OSError:
            return False
        current = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent pid
        if current == me:
            return True
        if current <= 1:
            return False
    return False


async def ping(page: QWebEnginePage, timeout: float = 2.0) -> bool:
    """True when the renderer answers a trivial script within `timeout` seconds."""
    try:
        await run_js(page, "1", timeout=timeout, world=APP_WORLD)
    except PageTimeout:
        return False
    except PageError:
        return True  # it answered, if oddly (navigating): the renderer is alive
    return True


async def ensure_responsive(page: QWebEnginePage, timeout: float = 2.0, recover_timeout: float = 15.0) -> bool:
    """Make sure the page's renderer answers. True: it did. False: it was crashed or hung (then it was
    killed) and has been reloaded. Raises `PageTimeout`/`PageCrashed` if it could not be recovered."""
    health = PageHealth.of(page)
    if health.is_crashed:
        await health.wait_recovered(recover_timeout)
        return False
    crashes = health.crash_count
    if await ping(page, timeout):
        return True
    if health.crash_count != crashes or health.is_crashed:  # it died while we waited
        await health.wait_recovered(recover_timeout)
        return False
    if page.isLoading() and await ping(page, timeout):  # a new document may just have been committing
        return True
    if not health.kill_renderer(f"the page did not respond within {timeout:g} s (a script may be stuck)"):
        raise PageTimeout(f"the page did not respond within {timeout:g} s and its renderer could not be stopped")
    deadline = time.monotonic() + recover_timeout
    while not health.is_crashed and health.crash_count == crashes:  # the termination signal is near
        if time.monotonic() > deadline:
            raise PageTimeout("the stuck renderer was killed but the page did not notice")
        await asyncio.sleep(0.01)
    await health.wait_recovered(max(0.1, deadline - time.monotonic()))
    return False
