"""What every part of a tab shares: the view and its page, the control state, trusted input, the folders a
tab writes to, the network services, and the rules every action follows.

- `guarded(awaitable)`: fail fast when the renderer dies; after a timeout, check whether the page hung (and
  recover it).
- `acting(act, timeout)`: send input, wait until the page has handled it (the input fence), and when the
  action started a navigation (a link, a form submission, Enter in a form), wait until it has committed
  (failing with its reason), then for its load to finish (app/browser/navigation.py); in another site's
  frame, until the frame has its new document (app/browser/frames.py).
- What the tab sends is counted from the app's first operation on it (app/browser/inflight.py); the requests
  of its workers are watched once the page says it has some (`workers`, app/browser/worker_traffic.py).
- `point(locator, …)` / `target(…)`: where to act, once the target is actionable (app/browser/locators.py).
  An element in another site's frame is acted on only while the environment's domain policy allows that
  frame's own address; when nothing matches, the frames the policy kept from loading are named.
- `tracer`: set while a trace or video records the tab (app/browser/trace.py); `acting` tells it the moment
  of acting and the element acted on (the target `point` found last), so the trace shows it outlined.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtWebEngineCore import QWebEngineFrame

from app.browser import frames, inflight, locators
from app.browser.control import TabControl
from app.browser.health import ensure_responsive
from app.browser.input_driver import InputDriver
from app.browser.js import PageTimeout
from app.browser.navigation import NAVIGATION_TIMEOUT, NavigationError, NavigationWatch, committed
from app.browser.netcapture import NetServices
from app.browser.tab import BrowserPage, BrowserTab
from app.browser.worker_traffic import WorkerTraffic
from plumbing import loggers
from workflows.ports import Locator, PageError

log = logging.getLogger(loggers.BROWSER)

T = TypeVar("T")


def capture_name(prefix: str, suffix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}{suffix}"


class ActingWatcher(Protocol):
    """What records a tab (app/browser/trace.py) hears from its parts."""

    async def acting(self, target: locators.ClickTarget | None) -> None:
        """The tab is about to get input (on `target`, the element last found actionable, if any); returns when
        the input may be sent (once the picture of the moment before it is taken)."""

    async def typing_secret(self) -> None:
        """A secret is about to be typed into the focused field: mask it from now on."""

    def names_secret(self, text: str) -> bool:
        """Whether `text` holds a secret of the run being recorded."""


@dataclass(frozen=True)
class TabFolders:
    captures: Path   # screenshots, PDFs, HAR files
    downloads: Path  # the environment's downloads


class TabCore:
    """The shared state of one tab's parts."""

    def __init__(self, view: BrowserTab, control: TabControl, folders: TabFolders,
                 tab_id_of_page: Callable[[object], str | None], net: NetServices | None = None) -> None:
        self.view = view
        self.tab_id = view.tab_id
        self.env_id = view.env_id
        self.control = control
        self.folders = folders
        self.tab_id_of_page = tab_id_of_page
        self.net = net
        self._input: InputDriver | None = None
        self.tracer: ActingWatcher | None = None
        self._target: locators.ClickTarget | None = None  # the element `target` found last, for the tracer
        self.workers: WorkerTraffic | None = None
        inflight.track(self.page, self._watch_workers)  # from the app's first operation on it, what the tab sends

    @property
    def page(self) -> BrowserPage:
        return self.view.browser_page

    @property
    def input(self) -> InputDriver:
        """The tab's trusted input, made on first use: its first use in the app loads Qt's key and event enums
        (~0.1 s), which a cold app's first call (a navigation, typically) does not need."""
        if self._input is None:
            self._input = InputDriver(self.view)
        return self._input

    def _watch_workers(self) -> None:
        """The page has workers: watch their requests too (once per tab, on its DevTools channel)."""
        if self.workers is None and self.net is not None:
            self.workers = WorkerTraffic(self.net.cdp.channel(self.page))
            self.workers.start()

    def net_services(self) -> NetServices:
        if self.net is None:
            raise PageError("DevTools and network capture are not available in this app", code="unavailable")
        return self.net

    def blocked(self, url: str) -> str | None:
        """Why the environment's domain policy refuses `url`, or None."""
        if self.net is None or self.net.policies is None:
            return None
        verdict = self.net.policies.policy(self.env_id).check_url(url)
        return verdict.describe(self.env_id) if verdict is not None else None

    async def guarded(self, awaitable: Awaitable[T]) -> T:
        """Fail fast when the renderer dies; after a timeout, check whether it hung (and recover it)."""
        try:
            return await self.view.health.guard(awaitable)
        except locators.LocatorError:
            raise  # the page answered: the condition just did not hold in time
        except PageTimeout:
            if not await ensure_responsive(self.page):
                raise PageError("the page stopped responding (a script is stuck); it was reloaded",
                                code="page_hung") from None
            raise

    # -- actions and the navigations they start -------------------------------------------------------
    async def acting(self, act: Callable[[], Awaitable[None]], timeout: float) -> bool:
        """Send input and wait until the page has handled it. When it started a navigation (a link, a form
        submission, Enter in a form, a script the click ran), wait until that navigation has committed
        (failing with its reason: a network error, the domain policy, the page stopping it), then for its
        load to finish, so the next step sees the new page. Returns whether a navigation happened."""
        if self.tracer is not None:
            await self.tracer.acting(self._target)
        self._target = None
        if self.workers is not None:
            await self.workers.ready()  # what the page's workers do for this action is seen
        with NavigationWatch(self.page) as watch:
            shown = frames.addresses(self.page)  # the frames' addresses before (none, and no cost, without frames)
            await act()
            fenced = await self.input.fence()
            if fenced.frame is not None:  # another site's frame handled it (app/browser/frames.py)
                framed = fenced.navigating and await self.frame_navigated(fenced.frame, fenced.document, timeout)
                if watch.started or self.page.isLoading():  # and the page itself navigates (target=_top)
                    return await self.after_navigation(watch, None, False, timeout)
                return framed
            self.refuse_frame_navigations(shown)
            return await self.after_navigation(watch, fenced.document, fenced.navigation, timeout)

    def refuse_frame_navigations(self, shown: list[tuple[QWebEngineFrame, str]]) -> None:
        """A frame that was in the page before the action and now shows an address the domain policy refuses:
        the action navigated it there (its form's submission failed so fast that its document was gone before
        the fence could ask it) and it failed; a frame added meanwhile (a tracker the policy keeps out) does not
        count."""
        for frame, before in shown:
            now = frame.url().toString() if frame.isValid() else before
            refused = self.blocked(now) if now != before else None
            if refused is not None:
                raise NavigationError(refused, now, code="blocked")

    async def frame_navigated(self, frame: QWebEngineFrame, document: str | None, timeout: float) -> bool:
        """Wait for the navigation an action started in another site's frame to commit; the domain policy's
        refusal, or the frame's error, fails the action."""
        try:
            url = await self.guarded(frames.frame_committed(frame, document, max(timeout, NAVIGATION_TIMEOUT)))
            return url is not None
        except PageError as error:
            refused = self.blocked(frame.url().toString()) if frame.isValid() else None
            if refused is not None:
                raise NavigationError(refused, frame.url().toString(), code="blocked") from None
            raise error

    async def after_navigation(self, watch: NavigationWatch, document: str | None, navigating: bool,
                               timeout: float) -> bool:
        wait = max(timeout, NAVIGATION_TIMEOUT)
        if not await self.guarded(committed(self.page, watch, document, navigating, wait)):
            return False
        await self.settled(wait, watch)
        return True

    async def settled(self, timeout: float = 30.0, watch: NavigationWatch | None = None) -> None:
        """Wait for a load in progress (e.g. started by the click before) to finish: woken by the load's end
        when a `watch` of the page's loads is at hand, polled every 10 ms otherwise."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.view.loading and loop.time() < deadline:
            if watch is not None:
                await watch.changed(0.01)
            else:
                await asyncio.sleep(0.01)

    async def point(self, locator: Locator | None, x: float | None, y: float | None, timeout: float,
                    **checks: bool) -> tuple[float, float, str | None]:
        """Where to act: the centre of the actionable element, or the given point."""
        self._target = None
        if locator is None:
            assert x is not None and y is not None
            return x, y, None
        target = await self.target(locator, timeout, **checks)
        return target.x, target.y, target.description

    async def target(self, locator: Locator, timeout: float, **checks: bool) -> locators.ClickTarget:
        """The actionable element and where it is. In another site's frame, the domain policy is asked about
        that frame's own address first (a frame loaded before its host was blocked is not acted in)."""
        try:
            target = await self.guarded(locators.wait_actionable(self.page, locator, timeout, **checks))
        except locators.NoMatch as error:
            kept = self.frames_blocked()
            if kept:
                raise locators.NoMatch(f"{error}; {kept[0]}") from None
            raise
        if target.frame_url is not None:
            refused = self.blocked(target.frame_url)
            if refused is not None:
                raise PageError(f"{target.description} is in a frame of {frames.site(target.frame_url)}, "
                                f"{refused}: nothing was done", code="blocked")
        self._target = target  # the element the next action acts on, for the tracer
        return target

    def frames_blocked(self) -> list[str]:
        """The page's frames whose address the domain policy refuses (they show an error page, not their
        content), said as `the frame of … was not loaded: blocked by the policy of …`."""
        found: list[str] = []
        pending = list(self.page.mainFrame().children())
        while pending:
            frame = pending.pop(0)
            pending.extend(frame.children())
            url = frame.url().toString()
            refused = self.blocked(url) if url.startswith(("http:", "https:", "ws:", "wss:")) else None
            if refused is not None:
                found.append(f"the frame of {frames.site(url)} was not loaded: {refused}")
        return found

    async def offset_point(self, locator: Locator, offset: tuple[float, float]) -> tuple[float, float]:
        """The point at `offset` (fractions of the box) of the element, which `point` just scrolled into
        view."""
        found = await self.guarded(locators.query(self.page, locator, limit=1))
        if found.count != 1:
            raise PageError(f'"{locator.label()}" matches {found.count} elements (exactly one is needed)',
                            code="ambiguous")
        rect = found.rows[0].rect
        return rect.x + offset[0] * rect.width, rect.y + offset[1] * rect.height

    def state(self) -> dict[str, Any]:
        """The tab's address and title now, for logs."""
        return {"url": self.page.url().toString(), "title": self.page.title()}
