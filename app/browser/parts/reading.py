"""A tab's reading part: looking at the page (waiting for elements, querying, the accessibility snapshot, the
source, one element closely) and running scripts in it. A script that starts a navigation (`form.submit()`,
`location = …`) is waited for, as after a click."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from app.browser import frames, inspect, locators
from app.browser.js import MAIN_WORLD, NavigatedAway, run_js, run_js_async
from app.browser.navigation import NAVIGATION_TIMEOUT, NavigationWatch, document_now
from app.browser.parts.core import TabCore
from workflows.ports import Locator, PageError
from workflows.results_devtools import ElementHit, ElementInspection, WatchResult
from workflows.results import FindResult, QueryResult, ScriptValue, SnapshotResult, SourceResult, WaitResult

_SOURCE = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
           " + document.documentElement.outerHTML")


class TabReading:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    async def wait(self, locator: Locator, state: Literal["appear", "gone"], timeout: float) -> WaitResult:
        visible = await self._core.guarded(locators.wait_state(self._core.page, locator, state, timeout))
        return WaitResult(state=state, visible=visible)

    async def query(self, locator: Locator) -> QueryResult:
        """Every element the locator matches; `total` and `matches` (the original's names) are the same count and
        rows."""
        found = (await self._core.guarded(locators.query(self._core.page, locator))).to_dict()
        # Built as it is: the rows are our dataclasses' dicts, maybe many (the tests' result check validates them).
        return QueryResult.model_construct(count=found["count"], elements=found["elements"], total=found["count"],
                                           matches=found["elements"])

    async def find(self, candidates: list[Locator], fingerprint: dict[str, Any] | None,
                   heal: bool = True) -> FindResult:
        """One look for a node's element (locators.find); when none is found, `blocked` names the frames the
        domain policy kept from loading. What the page's script found is validated into its model here, once."""
        found = await self._core.guarded(locators.find(self._core.page, candidates, fingerprint, heal=heal))
        if found.get("status") not in ("found", "healed"):
            blocked = self._core.frames_blocked()
            if blocked:
                found["blocked"] = blocked
        return FindResult.model_validate(found)

    async def snapshot(self, locator: Locator | None = None, start: int = 1, items: int = 25) -> SnapshotResult:
        snap = await self._core.guarded(locators.snapshot(self._core.page, locator, start=start, items=items))
        return SnapshotResult(url=snap.url, title=snap.title, snapshot=snap.text, refs=snap.refs, folded=snap.folded,
                              truncated=snap.truncated)

    async def source(self) -> SourceResult:
        html = await self._core.guarded(run_js(self._core.page, _SOURCE, world=MAIN_WORLD))
        return SourceResult(kind="html", url=self._core.page.url().toString(), html=html)

    async def script(self, source: str, args: Any, timeout: float) -> ScriptValue:
        """Run the script; when it started a navigation (`form.submit()`, `location = …`), wait until that
        navigation has committed, as after a click."""
        core = self._core
        await core.settled()
        with NavigationWatch(core.page) as watch:
            try:
                value = await core.guarded(run_js_async(core.page, source, args, timeout))
            except NavigatedAway:
                # A navigation started just as the script did (a link clicked by the step before): run it on the
                # new document instead.
                await asyncio.sleep(0.05)
                await core.settled()
                value = await core.guarded(run_js_async(core.page, source, args, timeout))
            document, navigating = await document_now(core.page)
            await core.after_navigation(watch, document, navigating, NAVIGATION_TIMEOUT)
        return ScriptValue(value=value)

    async def script_in_frame(self, address: str, source: str, args: Any, timeout: float) -> ScriptValue | None:
        """Run the script in the first frame of another site (app/browser/frames.py) whose address contains
        `address`, in its own page world; None when there is none. The environment's domain policy is asked
        about that frame's address first."""
        core = self._core
        found = next((scope for scope in await frames.scopes(core.page) if not scope.main and address in scope.url),
                     None)
        if found is None:
            return None
        refused = core.blocked(found.url)
        if refused is not None:
            raise PageError(f"the frame of {frames.site(found.url)} is {refused}: nothing was run", code="blocked")
        return ScriptValue(value=await core.guarded(run_js_async(found.frame, source, args, timeout)), frame=found.url)

    async def inspect(self, locator: Locator) -> ElementInspection:
        return await self._core.guarded(inspect.inspect(self._core.page, locator))

    async def hit(self, x: float, y: float) -> ElementHit:
        return await self._core.guarded(inspect.hit(self._core.page, x, y))

    async def watch(self, locator: Locator, timeout: float, interval: float, stop_on_change: bool) -> WatchResult:
        return await inspect.watch(self._core.page, locator, timeout, interval, stop_on_change)
