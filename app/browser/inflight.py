"""What a tab the app acts on still has in flight, and waiting until it has landed.

A run that ends, a tab closed by an operation and an app that quits must not cut off what the last actions
started: the order a click posted, a `fetch` the click fired, a beacon. `track(page)` puts
resources/js/inflight.js into every document of a page the app acts on (in the page's own world, where the
page calls fetch, XMLHttpRequest and sendBeacon); `in_flight(page)` lists what is still waiting for its
answer, with the main frame's navigation when one is on its way; `settle(page, timeout)` waits until that list
is empty, at most `timeout` seconds, and returns what was cut off at the bound.

Another site's frames (app/browser/frames.py: a payment form, a sign-in widget) are not readable from the page:
each is asked itself, through its `QWebEngineFrame`, for its requests and for a navigation it started (its
form's submission). Not seen: WebSockets and EventSource streams (they never "finish"), and requests made
before the app first acted on the tab.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any, Callable

from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage

from app.browser import frames
from app.browser.js import APP_WORLD, MAIN_WORLD, PageError, document_script, run_in_every_frame, run_js
from app.browser.navigation import START_GRACE
from app.resources import JS_DIR
from envs import loggers

log = logging.getLogger(loggers.BROWSER)

SCRIPT_NAME = "browserpilot-inflight"
KEY = f"__bp{secrets.token_hex(6)}"  # the property the tracker hides under: random per app process
SETTLE_POLL = 0.05  # seconds between looks while waiting for requests to land
_NAVIGATION = ("[document.readyState, !!(window.__bpNavigations && window.__bpNavigations.pending()), "
               "window.__bpNavigations ? window.__bpNavigations.last : null, "
               "window.__bpNavigations ? window.__bpNavigations.age() : 0]")
_source: str | None = None


def _script_source() -> str:
    global _source
    if _source is None:
        _source = (JS_DIR / "inflight.js").read_text("utf-8").replace("__BP_INFLIGHT_KEY__", KEY)
    return _source


def track(page: QWebEnginePage) -> None:
    """Count the requests of `page` from now on: its documents to come get the tracker at their creation, and
    the documents it shows now get it at once. Idempotent."""
    if page.scripts().find(SCRIPT_NAME):
        return
    source = _script_source()
    page.scripts().insert(document_script(SCRIPT_NAME, source, MAIN_WORLD))
    run_in_every_frame(page.mainFrame(), source, MAIN_WORLD)


def tracked(page: QWebEnginePage) -> bool:
    return bool(page.scripts().find(SCRIPT_NAME))


async def in_flight(page: QWebEnginePage, loading: bool) -> list[dict[str, Any]]:
    """What the page still waits for: the main frame's navigation (`loading`, or one the page started that has
    not begun loading yet) and every tracked request without its answer (`{kind, method, url, ms}`). A page
    that does not answer (busy, between documents) counts as one pending navigation."""
    found: list[dict[str, Any]] = []
    try:
        state, navigating, target, age = await run_js(page, _NAVIGATION, timeout=2.0, world=APP_WORLD)
    except PageError:
        return [{"kind": "navigation", "method": "GET", "url": page.url().toString(), "ms": None,
                 "note": "the page did not answer"}]
    if loading or (navigating and age <= START_GRACE * 1000):  # older, and not loading: the browser dropped it
        found.append({"kind": "navigation", "method": "GET", "url": target or page.url().toString(), "ms": None})
    if state == "loading":
        return found  # a new document: its tracker has nothing yet, and its navigation is counted above
    try:
        requests = await run_js(page, f"(window[{KEY!r}] ? window[{KEY!r}].list() : [])", timeout=2.0,
                                world=MAIN_WORLD)
    except PageError:
        requests = []
    found.extend(item for item in requests or [] if isinstance(item, dict))
    if page.mainFrame().children():
        for scope in (await frames.scopes(page))[1:]:
            found.extend(await _frame_in_flight(scope.frame))
    return found


async def _frame_in_flight(frame: QWebEngineFrame) -> list[dict[str, Any]]:
    """What another site's frame still waits for: a navigation it started that has not committed, and its
    tracked requests. A frame that does not answer (between documents) is left out: it cannot be told apart
    from one that left the page."""
    try:
        state, navigating, target, age = await run_js(frame, _NAVIGATION, timeout=1.0, world=APP_WORLD)
        requests = await run_js(frame, f"(window[{KEY!r}] ? window[{KEY!r}].list() : [])", timeout=1.0,
                                world=MAIN_WORLD)
    except PageError:
        return []
    found = []
    if navigating and age <= frames.FRAME_NAVIGATION_WAIT * 1000:
        found.append({"kind": "navigation", "method": "GET", "url": target or frame.url().toString(), "ms": None,
                      "frame": frame.url().toString()})
    if state != "loading":
        found.extend({**item, "frame": frame.url().toString()} for item in requests or [] if isinstance(item, dict))
    return found


async def settle(page: QWebEnginePage, timeout: float, loading: Callable[[], bool]) -> list[dict[str, Any]]:
    """Wait until the page has nothing in flight, at most `timeout` seconds; return what was still pending
    then (empty: everything landed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    while True:
        pending = await in_flight(page, loading())
        if not pending:
            return []
        if loop.time() >= deadline:
            log.info("%d request(s) still in flight after %.1f s: %s", len(pending), timeout,
                     ", ".join(f"{item['method']} {item['url']}" for item in pending[:5]))
            return pending
        await asyncio.sleep(SETTLE_POLL)

