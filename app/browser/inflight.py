"""What a tab the app acts on still has in flight, and waiting until what its last action started has landed.

A run that ends, a tab closed by an operation and an app that quits must not cut off what the last actions
started: the order a click posted, a `fetch` the click fired, and in a single-page app the Save that leaves a
moment after the click (a debounce, a token fetched first, a message on a WebSocket, a queue answered on an
EventSource, a Web Worker). `track(page)` puts resources/js/inflight.js into every document of a page the app
acts on (in the page's own world, where the page calls fetch, XMLHttpRequest, WebSocket, timers…); `look(page)`
asks every frame of the page what it has in flight and how busy the action's own work keeps it, with each
frame's navigation when one is on its way (resources/js/document.js), and the requests of the page's workers
(app/browser/worker_traffic.py); `settle(page, timeout)` waits until the tab has **settled**, at most
`timeout` seconds, and returns what was cut off at the bound.

Settled means: nothing in flight, none of the action's own work left (the timers it set, the frames it asked
for, the answers it waits for), and, when the action was an activation (a click that is not just focusing a
text field, Enter) or its work sent something, a quiet moment (`QUIET`) since the last of it, for what no
script can see (a database of the page, a message port). A click that starts nothing costs at most `QUIET`;
typing, reading and a navigation's end cost nothing. Each item cut off says whether the last action started
it (`lastAction`: its chain sent it, or it writes and started after the last input; a navigation on its way):
the run then does not end "ok" (workflows/engine.py).

Frames of other sites are asked too (`QWebEngineFrame` reaches them). Not seen: requests made before the app
first acted on the tab, a worker's WebSocket messages, and a wait on something no request shows (the page's own
database, a message port) longer than the quiet moment.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage

from app.browser.js import APP_WORLD, MAIN_WORLD, document_script, run_in_every_frame
from app.browser.navigation import START_GRACE
from app.startup.resources import JS_DIR
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

SCRIPT_NAME = "browserpilot-inflight"
KEY = f"__bp{secrets.token_hex(6)}"  # the property the tracker hides under: random per app process
WORKERS_NOTICE = f"{KEY}:workers"  # what the tracker says on the console when the page has workers
SETTLE_POLL = 0.05  # seconds between looks while waiting for the tab to settle
QUIET = 0.3  # seconds of quiet after the last activity of the last action (see the module docstring)
FRAME_TIMEOUT = 2.0  # seconds a frame gets to answer a look
_STATE = f"(window[{KEY!r}] ? window[{KEY!r}].state() : null)"
_NAVIGATION = ("(() => { const n = window.__bpNavigations; return [document.readyState, !!(n && n.pending()), "
               "n ? n.last : null, n ? n.age() : 0, n ? n.method : 'GET']; })()")
_source: str | None = None


class WorkerRequests(Protocol):
    """The requests of a page's workers (app/browser/worker_traffic.py)."""

    def pending(self, input_at: float | None) -> list[dict[str, Any]]: ...

    @property
    def active_at(self) -> float | None: ...


def _script_source() -> str:
    global _source
    if _source is None:
        _source = (JS_DIR / "inflight.js").read_text("utf-8").replace("__BP_INFLIGHT_KEY__", KEY)
    return _source


def track(page: QWebEnginePage, on_workers: Callable[[], None] | None = None) -> None:
    """Count what `page` sends from now on: its documents to come get the tracker at their creation, and the
    documents it shows now get it at once. `on_workers` is called (on the Qt thread) when a document of the
    page has workers, whose requests the tracker cannot see. Idempotent."""
    if page.scripts().find(SCRIPT_NAME):
        return
    source = _script_source()
    page.scripts().insert(document_script(SCRIPT_NAME, source, MAIN_WORLD))
    run_in_every_frame(page.mainFrame(), source, MAIN_WORLD)
    listeners = getattr(page, "console_listeners", None)
    if on_workers is not None and listeners is not None:
        def heard(message: str) -> bool:
            if message != WORKERS_NOTICE:
                return False
            on_workers()
            return True
        listeners.append(heard)


def tracked(page: QWebEnginePage) -> bool:
    return bool(page.scripts().find(SCRIPT_NAME))


@dataclass
class Look:
    """One look at a tab: what is in flight, the action's work left, when the last input and the last activity
    after it were (monotonic seconds), and when the look was taken."""

    pending: list[dict[str, Any]] = field(default_factory=list)
    work: int = 0
    input_at: float | None = None
    active_at: float | None = None
    at: float = 0.0

    def quiet_for(self) -> float | None:
        """Seconds since the last activity that followed the last input (None: there was none to wait after)."""
        if self.active_at is None or (self.input_at is not None and self.active_at < self.input_at):
            return None
        return self.at - self.active_at

    def settled(self, quiet: float = QUIET) -> bool:
        return not self.pending and self.work == 0 and self.quiet_left(quiet) <= 0

    def quiet_left(self, quiet: float = QUIET) -> float:
        """Seconds of the quiet window still to wait (0: none)."""
        quiet_for = self.quiet_for()
        return 0.0 if quiet_for is None else max(0.0, quiet - quiet_for)


def _frames(frame: QWebEngineFrame) -> list[QWebEngineFrame]:
    found = [frame]
    for child in frame.children():
        found.extend(_frames(child))
    return found


async def _ask(frame: QWebEngineFrame, expression: str, world: int) -> Any:
    """`expression` evaluated in `frame`, as JSON; None when the frame does not answer in time (busy, or its
    document being replaced)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    frame.runJavaScript(f"JSON.stringify({expression})", world,
                        lambda value: future.done() or future.set_result(value))
    try:
        raw = await asyncio.wait_for(future, FRAME_TIMEOUT)
    except asyncio.TimeoutError:
        return None
    try:
        return json.loads(raw) if isinstance(raw, str) and raw else None
    except ValueError:
        return None


async def look(page: QWebEnginePage, loading: bool, workers: WorkerRequests | None = None) -> Look:
    """Every frame of the page at once: its tracker's state (main world) and its navigation (our world). The main
    frame's navigation is on its way while the page is `loading`, or when it started one that has not begun
    loading yet; a main frame that does not answer (busy, between documents) counts as one pending navigation.
    A frame's navigation is on its way until its document is replaced."""
    frames = _frames(page.mainFrame())
    answers = await asyncio.gather(*(_ask(frame, expression, world) for frame in frames
                                     for expression, world in ((_NAVIGATION, APP_WORLD), (_STATE, MAIN_WORLD))))
    at = time.monotonic()
    seen = Look(at=at)
    for index, frame in enumerate(frames):
        navigation, state = answers[2 * index], answers[2 * index + 1]
        main = index == 0
        address = frame.url().toString()
        if main and not isinstance(navigation, list):
            seen.pending.append({"kind": "navigation", "method": "GET", "url": page.url().toString(), "ms": None,
                                 "lastAction": True, "note": "the page did not answer"})
            return seen
        if isinstance(navigation, list) and len(navigation) == 5:
            ready, navigating, target, age, method = navigation
            on_its_way = (loading or (navigating and age <= START_GRACE * 1000)) if main else bool(navigating)
            if on_its_way:  # (older and not loading: the browser dropped it, or made a download of it)
                item = {"kind": "navigation", "method": method or "GET", "url": target or address, "ms": None,
                        "lastAction": True}
                seen.pending.append(item if main else {**item, "frame": address})
            if ready == "loading":
                continue  # a new document: its tracker has nothing yet, and its navigation is counted above
        if not isinstance(state, dict):
            continue
        for item in state.get("items") or []:
            if isinstance(item, dict):
                own = bool(item.pop("own", False))
                seen.pending.append({**item, "lastAction": own, **({} if main else {"frame": address})})
        seen.work += int(state.get("work") or 0)
        for key, attribute in (("inputAgo", "input_at"), ("activeAgo", "active_at")):
            ago = state.get(key)
            if isinstance(ago, (int, float)):
                moment = at - ago / 1000
                current = getattr(seen, attribute)
                setattr(seen, attribute, moment if current is None else max(current, moment))
    if workers is not None:
        seen.pending.extend(workers.pending(seen.input_at))
        if workers.active_at is not None:
            seen.active_at = workers.active_at if seen.active_at is None else max(seen.active_at, workers.active_at)
    return seen


async def settle(page: QWebEnginePage, timeout: float, loading: Callable[[], bool],
                 workers: WorkerRequests | None = None, quiet: float = QUIET) -> list[dict[str, Any]]:
    """Wait until the tab has settled (see the module docstring), at most `timeout` seconds; return what was
    still in flight then (empty: everything landed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    while True:
        seen = await look(page, loading(), workers)
        if seen.settled(quiet):
            return []
        if loop.time() >= deadline:
            if seen.pending:
                log.info("%d request(s) still in flight after %.1f s: %s", len(seen.pending), timeout,
                         ", ".join(f"{item['method']} {item['url']}" for item in seen.pending[:5]))
            return seen.pending
        # Only the quiet window left: look again when it ends (or earlier, should something start meanwhile).
        wait = seen.quiet_left(quiet) if not seen.pending and seen.work == 0 else SETTLE_POLL
        await asyncio.sleep(max(0.005, min(wait, SETTLE_POLL * 2, deadline - loop.time())))
