"""Navigations that wait the way a caller asked, and failures that name their reason.

`navigate(view, start, wait_until, timeout)` starts a navigation (load a URL, back, forward, reload) and
waits for `load` (the load finished), `domcontentloaded` (the new document is parsed) or `none` (it
started). The result carries the final URL, the title and the HTTP status where known; a failed load
raises `NavigationError` naming the reason (DNS, refused, blocked, certificate, HTTP 5xx); a navigation the
environment's domain policy stopped says so: `blocked by the policy of env-…: host (rule)`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Callable, Literal

from PySide6.QtWebEngineCore import QWebEngineLoadingInfo, QWebEnginePage

from app.browser.js import MAIN_WORLD, PageError, run_js
from app.browser.policy import block_reason

log = logging.getLogger("browserpilot.browser")

WaitUntil = Literal["load", "domcontentloaded", "none"]
Status = QWebEngineLoadingInfo.LoadStatus
Domain = QWebEngineLoadingInfo.ErrorDomain

_REASONS = {
    "ERR_NAME_NOT_RESOLVED": "DNS: the host name could not be resolved",
    "ERR_NAME_RESOLUTION_FAILED": "DNS: the host name could not be resolved",
    "ERR_CONNECTION_REFUSED": "the connection was refused",
    "ERR_CONNECTION_RESET": "the connection was reset",
    "ERR_CONNECTION_CLOSED": "the connection was closed",
    "ERR_EMPTY_RESPONSE": "the server sent an empty response",
    "ERR_ADDRESS_UNREACHABLE": "the address is unreachable",
    "ERR_INTERNET_DISCONNECTED": "there is no network",
    "ERR_TIMED_OUT": "the connection timed out",
    "ERR_CONNECTION_TIMED_OUT": "the connection timed out",
    "ERR_BLOCKED_BY_CLIENT": "blocked",
    "ERR_BLOCKED_BY_ADMINISTRATOR": "blocked",
    "ERR_BLOCKED_BY_RESPONSE": "blocked by the server's response headers",
    "ERR_UNSAFE_PORT": "blocked: the port is considered unsafe",
    "ERR_INVALID_URL": "the URL is not valid",
    "ERR_UNKNOWN_URL_SCHEME": "the URL scheme is not supported",
    "ERR_TOO_MANY_REDIRECTS": "too many redirects",
}


class NavigationError(PageError):
    def __init__(self, message: str, url: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


@dataclass
class LoadOutcome:
    status: Status
    url: str
    domain: Domain
    code: int
    error: str
    error_page: bool


def describe_failure(outcome: LoadOutcome) -> str:
    if outcome.domain == Domain.HttpStatusCodeDomain:
        return f"the server answered HTTP {outcome.code}"
    raw = outcome.error or f"error {outcome.code}"
    key = raw.replace("net::", "").strip()
    reason = _REASONS.get(key)
    if reason is None and outcome.domain == Domain.CertificateErrorDomain:
        reason = "the certificate was rejected"
    if reason is None and outcome.domain == Domain.DnsErrorDomain:
        reason = "DNS: the host name could not be resolved"
    return f"{reason} ({raw})" if reason else raw


class _LoadWatcher:
    """Collects the next load's start and end from `loadingChanged`."""

    def __init__(self, page: QWebEnginePage) -> None:
        loop = asyncio.get_running_loop()
        self.started: asyncio.Future[str] = loop.create_future()
        self.finished: asyncio.Future[LoadOutcome] = loop.create_future()
        self._page = page
        page.loadingChanged.connect(self._on_loading_changed)

    def _on_loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        status = info.status()
        if status == Status.LoadStartedStatus:
            if not self.started.done():
                self.started.set_result(info.url().toString())
            return
        if not self.started.done():
            return  # the end of a load that began before ours
        if not self.finished.done():
            self.finished.set_result(LoadOutcome(status, info.url().toString(), info.errorDomain(),
                                                 info.errorCode(), info.errorString(), info.isErrorPage()))

    def close(self) -> None:
        try:
            self._page.loadingChanged.disconnect(self._on_loading_changed)
        except (RuntimeError, TypeError):
            pass


async def _document_parsed(page: QWebEnginePage, old_document: str | None, deadline: float) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < deadline:
        try:
            state = await run_js(page, "[window.__bpDocumentId || null, document.readyState]",
                                 timeout=max(0.2, deadline - loop.time()))
        except PageError:
            state = None
        if state and state[0] != old_document and state[1] != "loading":
            return
        await asyncio.sleep(0.01)


async def http_status(page: QWebEnginePage) -> int | None:
    """The HTTP status of the current document, from the Navigation Timing API (None when unknown)."""
    try:
        value = await run_js(page, "(performance.getEntriesByType('navigation')[0] || {}).responseStatus || null",
                             timeout=2.0, world=MAIN_WORLD)
    except PageError:
        return None
    return int(value) if isinstance(value, (int, float)) and value else None


async def navigate(page: QWebEnginePage, start: Callable[[], None], wait_until: WaitUntil = "load",
                   timeout: float = 30.0) -> dict[str, object]:
    """Start a navigation with `start()` and wait as asked; return `{url, title, status}`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    old_document: str | None = None
    if wait_until == "domcontentloaded":
        try:
            old_document = await run_js(page, "window.__bpDocumentId || null", timeout=1.0)
        except PageError:
            old_document = None
    watcher = _LoadWatcher(page)
    started = time.time()
    try:
        start()
        if wait_until == "none":
            try:
                await asyncio.wait_for(asyncio.shield(watcher.started), timeout=min(timeout, 5.0))
            except asyncio.TimeoutError:
                pass
            return {"url": page.url().toString(), "title": page.title(), "status": None}
        if wait_until == "domcontentloaded":
            parsed = asyncio.ensure_future(_document_parsed(page, old_document, deadline))
            done, _pending = await asyncio.wait({parsed, watcher.finished}, timeout=timeout,
                                                return_when=asyncio.FIRST_COMPLETED)
            parsed.cancel()
            if not done:
                raise NavigationError(f"the page did not finish parsing within {timeout:g} s", page.url().toString())
            if watcher.finished.done():
                _check(watcher.finished.result(), page, started)
        else:
            try:
                outcome = await asyncio.wait_for(asyncio.shield(watcher.finished), timeout=timeout)
            except asyncio.TimeoutError:
                raise NavigationError(f"the page did not finish loading within {timeout:g} s",
                                      page.url().toString()) from None
            _check(outcome, page, started)
    finally:
        watcher.close()
    status = await http_status(page)
    if status is not None and status >= 500:
        raise NavigationError(f"the server answered HTTP {status} for {page.url().toString()}",
                              page.url().toString(), status)
    return {"url": page.url().toString(), "title": page.title(), "status": status}


def _check(outcome: LoadOutcome, page: QWebEnginePage, started: float) -> None:
    if outcome.status == Status.LoadSucceededStatus:
        return
    blocked = block_reason(page, outcome.url, started)
    if blocked is not None:
        raise NavigationError(blocked, outcome.url)
    if outcome.status == Status.LoadStoppedStatus:
        raise NavigationError(f"loading {outcome.url} was stopped", outcome.url)
    code = outcome.code if outcome.domain == Domain.HttpStatusCodeDomain else None
    if code is not None and code < 500:
        return  # 4xx pages are pages; the status is reported with the result
    raise NavigationError(f"could not load {outcome.url}: {describe_failure(outcome)}", outcome.url, code)
