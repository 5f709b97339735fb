"""Navigations that wait the way a caller asked, and failures that name their reason.

`navigate(view, start, wait_until, timeout)` starts a navigation (load a URL, back, forward, reload) and
waits for `load` (the load finished), `domcontentloaded` (the new document is parsed) or `none` (it
started). The result carries the final URL, the title and the HTTP status where known; a failed load
raises `NavigationError` naming the reason (DNS, refused, blocked, certificate, HTTP 5xx); a navigation the
environment's domain policy stopped says so: `blocked by the policy of env-…: host (rule)`.

`NavigationWatch` is what an action (a click, Enter in a form, a script calling `form.submit()`) uses to
wait for the navigation it started: the page's own `navigate` event (resources/js/document.js) says that a
cross-document navigation is on its way, even before the browser has heard of it (a form submission is a
task the page runs after the click), and the browser's loading signals say how it ends. `committed()`
returns once the new document exists (HTTP error pages included: they are documents), and raises
`NavigationError` when the navigation failed (network error, the domain policy, stopped by the page).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Callable, Literal

from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEngineLoadingInfo, QWebEnginePage

from app.browser.js import APP_WORLD, MAIN_WORLD, PageError, run_js
from app.browser.policy import block_reason
from plumbing import loggers
from workflows.results import LoadResult

log = logging.getLogger(loggers.BROWSER)

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
    """A navigation failed (code `navigation_failed`), or the domain policy stopped it (code `blocked`)."""

    code = "navigation_failed"

    def __init__(self, message: str, url: str = "", status: int | None = None, code: str | None = None) -> None:
        super().__init__(message, code)
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
    """Collects the next load's start and end from `loadingChanged`; with `url`, only a load of that address
    counts as the start (a load another navigation began meanwhile is not ours)."""

    def __init__(self, page: QWebEnginePage, url: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.started: asyncio.Future[str] = loop.create_future()
        self.finished: asyncio.Future[LoadOutcome] = loop.create_future()
        self._page = page
        self.url = _comparable(url) if url else None  # None: any load is ours
        page.loadingChanged.connect(self._on_loading_changed)

    def _on_loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        status = info.status()
        if status == Status.LoadStartedStatus:
            if not self.started.done() and (self.url is None or _comparable(info.url().toString()) == self.url):
                self.started.set_result(info.url().toString())
            elif not self.started.done():
                log.debug("a load of %s started, not of %s: not this navigation's", info.url().toString(), self.url)
            return
        if not self.started.done():
            if self.url is None or _comparable(info.url().toString()) != self.url:
                return  # the end of a load that began before ours
            # Our address loaded without a start of its own: Chromium tells one start for loads that follow each
            # other while the page is loading (an error page still finishing, say).
            self.started.set_result(info.url().toString())
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


def _comparable(url: str) -> str | None:
    """An http(s) URL as Chromium reports a load of it: lower-case scheme and host, no default port, `/` for
    an empty path, no fragment. None for other schemes (any load counts for them)."""
    parsed = QUrl(url)
    scheme = parsed.scheme().lower()
    if scheme not in ("http", "https"):
        return None
    port = parsed.port()
    host = parsed.host().lower() + (f":{port}" if port not in (-1, 80 if scheme == "http" else 443) else "")
    path = parsed.path(QUrl.ComponentFormattingOption.FullyEncoded) or "/"
    query = parsed.query(QUrl.ComponentFormattingOption.FullyEncoded)
    return f"{scheme}://{host}{path}" + (f"?{query}" if parsed.hasQuery() else "")


async def navigate(page: QWebEnginePage, start: Callable[[], None], wait_until: WaitUntil = "load",
                   timeout: float = 30.0, url: str | None = None) -> LoadResult:
    """Start a navigation with `start()` and wait as asked; return where it landed (`url, title, status`).
    With `url` (the address `start` loads), only a load of that address is this navigation's: one that another
    navigation began meanwhile (a form the step before submitted) is not mistaken for it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    old_document: str | None = None
    if wait_until in ("domcontentloaded", "load"):
        try:
            old_document = await run_js(page, "window.__bpDocumentId || null", timeout=1.0)
        except PageError:
            old_document = None
    watcher = _LoadWatcher(page, url)
    started = time.time()
    try:
        start()
        if wait_until == "none":
            try:
                await asyncio.wait_for(asyncio.shield(watcher.started), timeout=min(timeout, 5.0))
            except asyncio.TimeoutError:
                pass
            return LoadResult(url=page.url().toString(), title=page.title(), status=None)
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
            outcome = await _loaded(page, watcher, old_document, deadline)
            if outcome is None:
                raise NavigationError(f"the page did not finish loading within {timeout:g} s",
                                      page.url().toString())
            _check(outcome, page, started)
    finally:
        watcher.close()
    status = await http_status(page)
    if status is not None and status >= 500:
        raise NavigationError(f"the server answered HTTP {status} for {page.url().toString()}",
                              page.url().toString(), status)
    return LoadResult(url=page.url().toString(), title=page.title(), status=status)


_LOADED_CHECK = 0.25  # seconds between looks at the page while a load's end is awaited


async def _loaded(page: QWebEnginePage, watcher: _LoadWatcher, old_document: str | None,
                  deadline: float) -> LoadOutcome | None:
    """How this navigation's load ended, or None at the deadline. Usually the browser says so; when it said
    nothing that was taken for this load (its start was folded into a load still running before it, which ended
    at another address), a new document at this address that has finished loading is its end too."""
    loop = asyncio.get_running_loop()
    while loop.time() < deadline:
        done, _pending = await asyncio.wait({watcher.finished}, timeout=min(_LOADED_CHECK, deadline - loop.time()))
        if done:
            return watcher.finished.result()
        if old_document is None or page.isLoading() or watcher.url is None \
                or _comparable(page.url().toString()) != watcher.url:
            continue  # without the document before, a new one cannot be told from it
        try:
            document = await run_js(page, "document.readyState === 'complete' && (window.__bpDocumentId || null)",
                                    timeout=1.0, world=APP_WORLD)
        except PageError:
            continue
        if document and document != old_document and not watcher.finished.done():
            log.info("the load of %s ended without the browser saying so; its document is there", watcher.url)
            return LoadOutcome(Status.LoadSucceededStatus, page.url().toString(), Domain.NoErrorDomain, 0, "", False)
    return None


def _check(outcome: LoadOutcome, page: QWebEnginePage, started: float) -> None:
    if outcome.status == Status.LoadSucceededStatus:
        return
    blocked = block_reason(page, outcome.url, started)
    if blocked is not None:
        raise NavigationError(blocked, outcome.url, code="blocked")
    if outcome.status == Status.LoadStoppedStatus:
        raise NavigationError(f"loading {outcome.url} was stopped", outcome.url)
    code = outcome.code if outcome.domain == Domain.HttpStatusCodeDomain else None
    if code is not None and code < 500:
        return  # 4xx pages are pages; the status is reported with the result
    raise NavigationError(f"could not load {outcome.url}: {describe_failure(outcome)}", outcome.url, code)


# -- navigations that an action started ----------------------------------------------------------------
NAVIGATION_TIMEOUT = 30.0  # an action waits at least this long for the navigation it started to commit
START_GRACE = 3.0  # seconds the browser gets to begin loading a navigation the page started
_COMMIT_POLL = 0.01
# The document now: its id (resources/js/document.js), whether a navigation it started is on its way (and how
# long ago it started, ms), and whether it is Chromium's error page.
_DOCUMENT_STATE = ("[window.__bpDocumentId || null, "
                   "!!(window.__bpNavigations && window.__bpNavigations.pending()), location.protocol, "
                   "window.__bpNavigations ? window.__bpNavigations.age() : 0]")
_CLEAR = "(window.__bpNavigations && window.__bpNavigations.clear(), true)"


class NavigationWatch:
    """The main frame's loads from the moment an action starts: which began, and how the latest one ended
    (or that it became a download). Use as a context manager around the action and the wait."""

    def __init__(self, page: QWebEnginePage) -> None:
        self.page = page
        self.since = time.time()
        self.started: list[str] = []
        self.outcome: LoadOutcome | None = None
        self.download = False
        self.cancelled = False  # the page's leave-page question was answered "stay"
        self._changed = asyncio.Event()  # something happened to the main frame's loads since the last `changed`
        page.loadingChanged.connect(self._on_loading_changed)
        page.urlChanged.connect(self._on_url_changed)  # a navigation committed
        cancelled = getattr(page, "navigation_cancelled", None)
        self._cancelled_signal = cancelled
        if cancelled is not None:
            cancelled.connect(self._on_cancelled)

    def __enter__(self) -> "NavigationWatch":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    async def changed(self, timeout: float) -> None:
        """Return when a load started, committed or ended since the last call, or after `timeout` (waiting
        polls stay for what no signal tells: the page's own report of a navigation on its way)."""
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        self._changed.clear()

    def _on_url_changed(self, _url: object) -> None:
        self._changed.set()

    def _on_loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        self._changed.set()
        status = info.status()
        if status == Status.LoadStartedStatus:
            self.started.append(info.url().toString())
            self.outcome = None
            return
        if not self.started:
            return  # the end of a load that began before the action
        self.download = self.download or info.isDownload()
        self.outcome = LoadOutcome(status, info.url().toString(), info.errorDomain(), info.errorCode(),
                                   info.errorString(), info.isErrorPage())

    def _on_cancelled(self) -> None:
        self.cancelled = True

    def close(self) -> None:
        for signal, slot in ((self.page.loadingChanged, self._on_loading_changed),
                             (self.page.urlChanged, self._on_url_changed),
                             (self._cancelled_signal, self._on_cancelled)):
            if signal is None:
                continue
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass

    def failure(self) -> str | None:
        """Why the latest load failed, or None (it succeeded, is an HTTP error page, or became a download)."""
        outcome = self.outcome
        if outcome is None or outcome.status == Status.LoadSucceededStatus or self.download:
            return None
        blocked = block_reason(self.page, outcome.url, self.since)
        if blocked is not None:
            return blocked
        if outcome.domain == Domain.HttpStatusCodeDomain:
            return None  # the server answered with an error page: a document, committed
        if outcome.status == Status.LoadStoppedStatus:
            return f"loading {outcome.url} was stopped"
        return f"could not load {outcome.url}: {describe_failure(outcome)}"


async def committed(page: QWebEnginePage, watch: NavigationWatch, document: str | None, navigating: bool,
                    timeout: float) -> bool:
    """After an action: when it started a navigation (the page said one was on its way, `navigating`, or the
    browser began a load), wait until that navigation has committed (a new document exists; an HTTP error
    page is one) and return True; False when there was none. `document` is the id of the document that
    handled the action (`__bpDocumentId`, which the input probe uses as its id). Raises `NavigationError` when the navigation failed or did not commit in `timeout`."""
    if not (navigating or watch.started or page.isLoading()):
        return False
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    target = lambda: watch.started[-1] if watch.started else page.url().toString()  # noqa: E731
    while True:
        if watch.cancelled:
            raise NavigationError(f"the page asked to stay (its leave-page question was answered \"stay\"), so "
                                  f"the navigation to {target()} did not happen", target())
        if watch.outcome is not None:
            await _forget_started(page)  # a download or a failure leaves the document: not on its way any more
            reason = watch.failure()
            if reason is not None:
                raise NavigationError(reason, watch.outcome.url,
                                      code="blocked" if block_reason(page, watch.outcome.url, watch.since) else None)
            return True
        try:
            probe, pending, protocol, age = await run_js(page, _DOCUMENT_STATE,
                                                         timeout=max(0.2, min(2.0, deadline - loop.time())),
                                                         world=APP_WORLD)
        except PageError:  # between two documents, or busy
            probe, pending, protocol, age = document, True, "", 0
        if protocol != "chrome-error:":  # an error page: its load's end (just behind) says why
            if probe != document:
                return True  # a new document: committed
            loading = bool(watch.started) or page.isLoading()
            if not loading and (not pending or age > START_GRACE * 1000):
                # Cancelled by the page, made a same-document one, or never begun by the browser: none to wait for.
                return False
        if loop.time() >= deadline:
            raise NavigationError(f"the navigation to {target()} that this action started did not commit within "
                                  f"{timeout:g} s", target())
        await watch.changed(_COMMIT_POLL)


async def _forget_started(page: QWebEnginePage) -> None:
    try:
        await run_js(page, _CLEAR, timeout=1.0, world=APP_WORLD)
    except PageError:
        pass


async def document_now(page: QWebEnginePage) -> tuple[str | None, bool]:
    """The document's id and whether a navigation it started is on its way, right after a script ran: what it
    started has said so by then (`location = …` fires `navigate`; `form.submit()`, whose navigation begins in a
    task of its own, is told by resources/js/inflight.js as it is called). Asked at once, not after the page's
    queued tasks: Chromium runs a posted task only after the next frame, ~10 ms. `(None, True)` when the
    document went meanwhile."""
    try:
        found = await run_js(page, "[window.__bpDocumentId || null, "
                                   "!!(window.__bpNavigations && window.__bpNavigations.pending())]",
                             timeout=5.0, world=APP_WORLD)
    except PageError:
        return None, True
    return (found[0], bool(found[1])) if isinstance(found, list) and len(found) == 2 else (None, True)
