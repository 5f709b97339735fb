"""A tab's input part: acting as a person does, with trusted input (app/browser/input_driver.py). Each action waits
for its target to be actionable (app/browser/locators.py) and, when it starts a navigation, until that has
committed (`TabCore.acting`).

Typing and choosing are where a run's bound secrets are filled in (workflows/secret_binding.py): the address
of the document holding the field (the page's, or another site's frame's) is checked before anything is done,
and again once the field has the focus, from the addresses of the frames down to the one holding the focus
(app/browser/focus.py); only then is `<secret:name>` replaced by its value and typed. A refusal types
nothing."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from app.browser import locators
from app.browser.focus import focus_chain
from app.browser.js import PageTimeout, run_js
from app.browser.parts.core import TabCore
from app.browser.tab import check_upload_paths, upload_files
from plumbing import loggers
from workflows.ports import Direction, Locator, MouseButton, PageError
from workflows.results import ClickResult, DragResult, KeyResult, ScrollResult, SelectResult, TypeResult, UploadResult
from workflows.secret_binding import SecretBinding

log = logging.getLogger(loggers.BROWSER)

CLICK_UNTIL_TRIES = 3
SCROLL_STEPS = 16
SWIPE_STEPS = 20
VIEWPORT = "[innerWidth, innerHeight]"
SCROLL_END_POLL = 0.1  # seconds between looks at a page that ended, for it to load more
SCROLL_AGAIN = 1.0  # seconds before turning the wheel again at a page's end
SCROLL_STATE = """(() => { const parts = []; let e = document.elementFromPoint(%f, %f);
  for (; e; e = e.parentElement) if (e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth)
    parts.push(e.scrollTop, e.scrollLeft, e.scrollHeight, e.scrollWidth);
  const root = document.scrollingElement || document.documentElement;
  parts.push(root.scrollTop, root.scrollLeft, root.scrollHeight, root.scrollWidth);
  return parts.join(' '); })()"""
WIDGET_LIST_WAIT = 1.0  # seconds for an opened widget's list to show the option before typing its text
WIDGET_CHECK_WAIT = 2.0  # seconds for the widget to show the option chosen
WIDGET_SCROLLS = 30  # wheel turns over a widget's list to bring an option into it
WIDGET_WHEEL_PX = 120.0  # at most this far per turn
WIDGET_TURN_WAIT = 0.5  # seconds, at most, for a wheel turn over a widget's list to move it


class TabInput:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    async def click(self, locator: Locator | None, x: float | None, y: float | None, button: MouseButton,
                    count: int, until: Locator | None, timeout: float,
                    offset: tuple[float, float] | None = None) -> ClickResult:
        core = self._core
        tries = CLICK_UNTIL_TRIES if until is not None else 1
        for attempt in range(1, tries + 1):
            px, py, description = await core.point(locator, x, y, timeout)
            if offset is not None and locator is not None:
                px, py = await core.offset_point(locator, offset)
            await core.acting(lambda: core.input.click(px, py, button, count), timeout)
            if until is None:
                break
            try:
                await core.guarded(locators.wait_state(core.page, until, "appear", timeout / tries))
                break
            except PageTimeout:
                if attempt == tries:
                    raise PageError(f'"{until.label()}" did not appear after {tries} clicks', code="timeout") from None
                log.info("click %s: %s not there yet, clicking again", core.tab_id, until.label())
        if description:
            return ClickResult(x=round(px, 1), y=round(py, 1), element=description)
        return ClickResult(x=round(px, 1), y=round(py, 1))

    async def type_text(self, text: str, locator: Locator | None, paste: bool, timeout: float,
                        replace: bool = False, secrets: SecretBinding | None = None) -> TypeResult:
        core = self._core
        result: dict[str, Any] = {}  # what the model says beyond `typed`, only what happened
        bound = secrets is not None and bool(secrets.names_in(text))
        if locator is not None:
            target = await core.target(locator, timeout, editable=True, stable=False)
            if bound:
                assert secrets is not None  # another site's field: refused before acting
                secrets.check(text, self._documents(target))
            px, py, description = target.x, target.y, target.description
            if await locators.has_focus(core.page, locator):
                # A click would collapse a selection just made (ctrl+a): keep the focus, as Playwright's type.
                result["clicked"] = False
            else:
                await core.input.click(px, py)
                if bound:  # the click handled (by another site's renderer, maybe) before asking where the focus is
                    await core.input.fence()
            result["element"] = description
        if bound:
            assert secrets is not None
            text = secrets.fill(text, await focus_chain(core.page), core.tab_id)
        if core.tracer is not None and (bound or core.tracer.names_secret(text)):
            await core.input.fence()  # the click that focused the field is handled: the field is the focused one
            await core.tracer.typing_secret()  # masked in the trace and the video before a key lands
        if replace:
            await core.input.key("ctrl+a")
        await core.acting(lambda: core.input.paste(text) if paste else core.input.type_text(text), timeout)
        return TypeResult(typed=len(text), **result)

    async def select(self, option: str, locator: Locator, timeout: float,
                     secrets: SecretBinding | None = None) -> SelectResult:
        """Choose with the keyboard on the focused, closed <select> (arrow keys: trusted input and a trusted
        change event, no popup needed); fall back to setting the value when that does not land. A bound secret
        in `option` is filled in once the <select> has the focus and its frames' addresses allow it. A custom
        select widget (the widget, or the hidden <select> it keeps in step) is chosen in as a person does:
        `choose_in_widget`."""
        core = self._core
        widget = await core.guarded(locators.widget_of(core.page, locator, timeout))
        if widget is not None:
            return await self.choose_in_widget(option, widget, timeout, secrets)
        if secrets is not None and secrets.names_in(option):
            target = await core.target(locator, timeout, hit_test=False)
            secrets.check(option, self._documents(target))
            await core.guarded(locators.focus(core.page, locator, timeout))
            option = secrets.fill(option, await focus_chain(core.page), core.tab_id)
        wanted = await core.guarded(locators.find_option(core.page, locator, option, timeout))
        result = SelectResult(element=wanted.description, value=wanted.value, text=wanted.text, index=wanted.index)
        delta = wanted.index - wanted.previous_index
        if delta == 0:
            return result
        await core.guarded(locators.focus(core.page, locator, timeout))

        async def arrows() -> None:
            for _ in range(abs(delta)):
                await core.input.key("arrowdown" if delta > 0 else "arrowup")

        if await core.acting(arrows, timeout):
            return result  # the choice navigated (an onchange that loads another page): nothing left to check
        now = await core.guarded(locators.find_option(core.page, locator, option, timeout))
        if now.previous_index != wanted.index:
            log.info("select %s: keyboard landed on option %s, not %s; setting it", core.tab_id,
                     now.previous_index, wanted.index)
            await core.guarded(locators.select_option(core.page, locator, option, timeout))
            result.method = "value"
        return result

    def _documents(self, target: locators.ClickTarget) -> list[str]:
        """The page's address, and the frame's when the target is in another site's frame (what a secret's
        binding is checked against: the last one)."""
        page = self._core.page.url().toString()
        return [page, target.frame_url] if target.frame_url else [page]

    async def choose_in_widget(self, option: str, widget: locators.Widget, timeout: float,
                               secrets: SecretBinding | None = None) -> SelectResult:
        """Open the widget (a trusted click), find the option whose text is `option` in the list it opens, typing
        the text into its search box when the list does not show it, and click it; then check that the widget
        (its native <select> when it has one) shows it."""
        core = self._core
        page_url = core.page.url().toString()
        if secrets is not None and secrets.names_in(option):
            secrets.check(option, [page_url, widget.frame_url] if widget.frame_url else [page_url])
        opener = await core.guarded(locators.wait_actionable(core.page, {"ref": widget.trigger}, timeout))
        await core.acting(lambda: core.input.click(opener.x, opener.y), timeout)
        if secrets is not None and secrets.names_in(option):
            option = secrets.fill(option, await focus_chain(core.page), core.tab_id)
        found = await core.guarded(locators.widget_option(core.page, widget, option, min(timeout, WIDGET_LIST_WAIT)))
        typed = False
        if found.get("status") != "ok" and found.get("typing"):
            await core.acting(lambda: core.input.type_text(option), timeout)  # a search box has the focus
            typed = True
            found = await core.guarded(locators.widget_option(core.page, widget, option, timeout))
        if found.get("status") != "ok":
            listed = ", ".join(json.dumps(o, ensure_ascii=False) for o in found.get("options") or [])
            more = f", … {found['more']} more" if found.get("more") else ""
            raise locators.NoSuchOption(f"{widget.description} has no option {json.dumps(option, ensure_ascii=False)} "
                                        f"(options shown: {listed or 'none'}{more})", widget.description)
        loop = asyncio.get_running_loop()
        place = await core.guarded(locators.widget_reveal(core.page, str(found["ref"])))
        for _ in range(WIDGET_SCROLLS):  # the option below or above what its list shows: the wheel, over the list
            if place.get("status") != "scroll":
                break
            dy = max(-WIDGET_WHEEL_PX, min(WIDGET_WHEEL_PX, float(place["dy"])))
            await core.input.wheel(float(place["x"]), float(place["y"]), 0.0, dy)
            # Look again once the list has moved (a busy compositor applies a turn late: a look before it would
            # turn the wheel again by as much, past the option).
            turned, before = loop.time() + WIDGET_TURN_WAIT, place
            while True:
                await asyncio.sleep(0.025)
                place = await core.guarded(locators.widget_reveal(core.page, str(found["ref"])))
                if place.get("status") != "scroll" or place.get("dy") != before.get("dy") or loop.time() >= turned:
                    break
        target = await core.guarded(locators.wait_actionable(core.page, {"ref": str(found["ref"])}, timeout))
        await core.acting(lambda: core.input.click(target.x, target.y), timeout)
        deadline = loop.time() + WIDGET_CHECK_WAIT
        while True:
            shown = await core.guarded(locators.widget_shows(core.page, widget))
            if (shown.strip() == option.strip()) if widget.native else option.strip().lower() in shown.lower():
                break
            if loop.time() >= deadline:
                raise PageError(f"{widget.description} shows {json.dumps(shown.strip(), ensure_ascii=False)} after "
                                f"choosing {json.dumps(option, ensure_ascii=False)}", code="not_chosen")
            await asyncio.sleep(0.025)
        if typed:
            return SelectResult(element=widget.description, text=option, widget=True, typed=True)
        return SelectResult(element=widget.description, text=option, widget=True)

    async def key(self, shortcut: str) -> KeyResult:
        core = self._core
        try:
            await core.acting(lambda: core.input.key(shortcut), 30.0)
        except ValueError as exc:
            raise PageError(str(exc), code="invalid_key") from None
        return KeyResult(shortcut=shortcut)

    async def scroll(self, direction: Direction, locator: Locator | None, until: Locator | None, swipe: bool,
                     timeout: float, distance: float | None = None) -> ScrollResult:
        core = self._core
        if not swipe and direction not in ("up", "down"):
            raise PageError("page_scroll goes up or down; use page_swipe for left and right", code="invalid_argument")
        width, height = await run_js(core.page, VIEWPORT)
        if locator is not None:
            x, y, _description = await core.point(locator, None, None, timeout, hit_test=False)
        else:
            x, y = width / 2, height / 2
        step = (height if direction in ("up", "down") else width) * 0.6
        if until is None:
            await self._scroll_once(x, y, direction, distance or step, swipe)
            return ScrollResult(steps=1, distance=round(distance or step))
        distance = step
        steps = SWIPE_STEPS if swipe else SCROLL_STEPS
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        moved = 0
        while True:
            if await self._in_view(until):
                return ScrollResult(steps=moved, visible=True)
            if moved >= steps:
                raise PageError(f'"{until.label()}" did not come into view after {steps} '
                                f'{"swipes" if swipe else "scroll steps"} {direction}', code="timeout")
            before = await self._scroll_state(x, y)
            await self._scroll_once(x, y, direction, distance, swipe)
            if await self._scroll_state(x, y) != before:
                moved += 1
                continue
            # Nothing moved: the end of what the page holds, or a turn the page had no room for yet (it grew a
            # moment ago). A page that loads more as it is scrolled (a feed) may still be fetching it: wait for it
            # to grow, within the step's timeout, turning the wheel again now and then as a person would.
            again = loop.time() + SCROLL_AGAIN
            while await self._scroll_state(x, y) == before:
                if loop.time() >= deadline:
                    raise PageError(f'"{until.label()}" did not come into view: the page ended after {moved} '
                                    f'{"swipes" if swipe else "scroll steps"} {direction} and nothing more came '
                                    f'within {timeout:g} s', code="timeout")
                if loop.time() >= again:
                    await self._scroll_once(x, y, direction, distance, swipe)
                    again = loop.time() + SCROLL_AGAIN
                await asyncio.sleep(SCROLL_END_POLL)

    async def _scroll_state(self, x: float, y: float) -> str:
        """Where the page and every scrolling box under (x, y) stand, and how much each holds: it changes when a
        scroll moved something or the page loaded more."""
        return str(await run_js(self._core.page, SCROLL_STATE % (x, y)))

    async def _scroll_once(self, x: float, y: float, direction: Direction, distance: float, swipe: bool) -> None:
        core = self._core
        if swipe:
            await core.input.swipe(x, y, direction, distance)
        else:
            await core.input.wheel(x, y, 0.0, distance if direction == "down" else -distance)
        await asyncio.sleep(0.05)  # let the compositor apply the scroll before looking again

    async def _in_view(self, locator: Locator) -> bool:
        page = self._core.page
        found = await locators.query(page, locator, limit=5)
        if not found.rows:
            return False
        width, height = await run_js(page, VIEWPORT)
        return any(row.visible and row.rect.width > 0 and row.rect.height > 0 and row.rect.y < height
                   and row.rect.y + row.rect.height > 0 and row.rect.x < width and row.rect.x + row.rect.width > 0
                   for row in found.rows)

    async def drag(self, locator: Locator | None, x: float | None, y: float | None, dx: float, dy: float,
                   timeout: float, offset: tuple[float, float] | None = None) -> DragResult:
        core = self._core
        px, py, description = await core.point(locator, x, y, timeout)
        if offset is not None and locator is not None:
            px, py = await core.offset_point(locator, offset)
        await core.acting(lambda: core.input.drag(px, py, dx, dy), timeout)
        start, end = [round(px, 1), round(py, 1)], [round(px + dx, 1), round(py + dy, 1)]
        if description:
            return DragResult(from_=start, to=end, element=description)
        return DragResult(from_=start, to=end)

    async def upload(self, paths: list[str], locator: Locator, timeout: float) -> UploadResult:
        core = self._core
        checked = check_upload_paths(paths)  # before anything is clicked
        px, py, description = await core.point(locator, None, None, timeout)
        await upload_files(core.page, checked, lambda: core.input.click(px, py))
        return UploadResult(element=description, files=checked)
