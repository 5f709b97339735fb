"""`TabDriver`: one tab's capabilities (the `PagePort` of workflows/ports.py) over QtWebEngine.

It composes the page layer's pieces and adds nothing of its own but their order: locate the target and
wait until it is actionable (`locators`), act with trusted input (`input`), guard against crashes
(`health`), and capture files (`capture`, `downloads`, uploads in `tab`). DevTools commands (`cdp`) and
network capture (`net_*`, HAR export) go through the tab's port-less CDP channel (`cdp`, `netcapture`).
Results are plain dicts; errors are `PageError`s whose message a person can act on.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Awaitable, Callable, Literal, Mapping, Sequence, TypeVar

from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import qWebEngineChromiumVersion

from app import __version__

from app.browser import capture, direct, inflight, inspect, locators, media
from app.browser.cdp import refusal
from app.browser.control import ControlState, TabControl
from app.browser.downloads import expect_download
from app.browser.health import ensure_responsive
from app.browser.input import InputDriver
from app.browser.js import MAIN_WORLD, NavigatedAway, PageTimeout, run_js, run_js_async
from app.browser.navigation import NAVIGATION_TIMEOUT, NavigationWatch, committed, document_now, navigate
from app.browser.netcapture import CaptureError, NetServices, TabCapture, write_har_file
from app.browser.netmock import MockRule
from app.browser.record import app_acting
from app.browser.tab import BrowserTab, check_upload_paths, upload_files
from app.browser.urls import as_address
from envs.savemanager import in_thread
from workflows.ports import Control, Direction, Locator, MouseButton, PageError, Paper, WaitUntil

log = logging.getLogger("browserpilot.browser")

T = TypeVar("T")

CLICK_UNTIL_TRIES = 3
SCROLL_STEPS = 16
SWIPE_STEPS = 20
_VIEWPORT = "[innerWidth, innerHeight]"


def capture_name(prefix: str, suffix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}{suffix}"


class TabDriver:
    """Implements `workflows.ports.PagePort` for one `BrowserTab`."""

    def __init__(self, tab: BrowserTab, control: TabControl, captures: Path, downloads: Path,
                 tab_id_of_page: Callable[[object], str | None], net: NetServices | None = None) -> None:
        self.tab = tab
        self.tab_id = tab.tab_id
        self.env_id = tab.env_id
        self._control = control
        self._captures = captures
        self._downloads = downloads
        self._tab_id_of_page = tab_id_of_page
        self._net = net
        self._input: InputDriver | None = None
        inflight.track(self.page)  # from the app's first operation on it, the tab's requests are counted

    @property
    def input(self) -> InputDriver:
        """The tab's trusted input, made on first use: its first use in the app loads Qt's key and event enums
        (~0.1 s), which a cold app's first call (a navigation, typically) does not need."""
        if self._input is None:
            self._input = InputDriver(self.tab)
        return self._input

    # -- control and reporting ---------------------------------------------------------------------------
    @property
    def page(self) -> Any:
        return self.tab.browser_page

    @property
    def control(self) -> Control:
        return str(self._control.state)  # type: ignore[return-value]

    def consume_taken_over(self) -> bool:
        return self._control.consume_taken_over()

    def drain_events(self) -> dict[str, Any]:
        events: dict[str, Any] = {}
        dialogs = self.page.drain_dialogs()
        if dialogs:
            events["dialogs"] = dialogs
        new_tabs = [tab_id for tab_id in (self._tab_id_of_page(p) for p in self.page.drain_new_pages()) if tab_id]
        if new_tabs:
            events["newTabs"] = new_tabs
        return events

    async def error_shot(self) -> str | None:
        try:
            result = await capture.screenshot(self.tab, self._captures / capture_name("error", ".png"), timeout=5.0)
        except Exception as exc:  # a failure report must not fail because its picture could not be taken
            log.info("no error screenshot for %s: %s", self.tab_id, exc)
            return None
        return str(result["path"])

    def app_acting(self) -> AbstractContextManager[None]:
        return app_acting(self.tab)

    async def before_acting(self, target: Locator | None, timeout: float) -> None:
        """In handoff, wait for the person (Done) or for the target to appear, then lock for the agent."""
        self.tab.health.check()
        if not self.tab.isVisible() and not self.page.isVisible():
            # A tab in the background (a batch runs several per window) gets no frames, and Chromium drops
            # input and file choosers until a page has painted: let its page render while hidden.
            self.page.setVisible(True)
        if self._control.state is not ControlState.HANDOFF:
            return

        async def target_present() -> bool:
            return target is not None and await locators.is_visible(self.page, target)

        await self._control.wait_handoff_end(target_present if target is not None else None, timeout)

    async def set_control(self, control: Control, message: str | None = None) -> None:
        self._control.set_state(control, message)

    async def wait_handoff_done(self, timeout: float) -> str:
        return await self._control.wait_handoff_end(None, timeout)

    async def _guarded(self, awaitable: Awaitable[T]) -> T:
        """Fail fast when the renderer dies; after a timeout, check whether it hung (and recover it)."""
        try:
            return await self.tab.health.guard(awaitable)
        except locators.LocatorError:
            raise  # the page answered: the condition just did not hold in time
        except PageTimeout:
            if not await ensure_responsive(self.page):
                raise PageError("the page stopped responding (a script is stuck); it was reloaded") from None
            raise

    # -- navigation --------------------------------------------------------------------------------------
    async def navigate(self, url: str, wait_until: WaitUntil, timeout: float) -> dict[str, Any]:
        """Load `url`, made an address the way the address bar makes one (`127.0.0.1:8765/x` is http://…);
        text that is no address is an error naming it, never a blank page reported as loaded."""
        address = as_address(url)
        if address is None:
            raise PageError(f"{url!r} is not an address to load (give a URL such as https://example.com/page)")
        return await self._guarded(navigate(self.page, lambda: self.tab.open(address), wait_until, timeout,
                                            url=address))

    async def history(self, action: Literal["back", "forward", "reload"], wait_until: WaitUntil,
                      timeout: float) -> dict[str, Any]:
        history = self.tab.history()
        if action == "back" and not history.canGoBack():
            raise PageError("there is no previous page in this tab's history")
        if action == "forward" and not history.canGoForward():
            raise PageError("there is no next page in this tab's history")
        return await self._guarded(navigate(self.page, getattr(self.tab, action), wait_until, timeout))

    # -- acting ------------------------------------------------------------------------------------------
    async def _acting(self, act: Callable[[], Awaitable[None]], timeout: float) -> bool:
        """Send input and wait until the page has handled it. When it started a navigation (a link, a form
        submission, Enter in a form, a script the click ran), wait until that navigation has committed
        (failing with its reason: a network error, the domain policy, the page stopping it), then for its
        load to finish, so the next step sees the new page. Returns whether a navigation happened."""
        with NavigationWatch(self.page) as watch:
            await act()
            fenced = await self.input.fence()
            return await self._after_navigation(watch, fenced.document, fenced.navigation, timeout)

    async def _after_navigation(self, watch: NavigationWatch, document: str | None, navigating: bool,
                                timeout: float) -> bool:
        wait = max(timeout, NAVIGATION_TIMEOUT)
        if not await self._guarded(committed(self.page, watch, document, navigating, wait)):
            return False
        await self._settled(wait)
        return True

    async def _point(self, locator: Locator | None, x: float | None, y: float | None, timeout: float,
                     **checks: bool) -> tuple[float, float, str | None]:
        if locator is None:
            assert x is not None and y is not None
            return x, y, None
        target = await self._guarded(locators.wait_actionable(self.page, locator, timeout, **checks))
        return target.x, target.y, target.description

    async def click(self, locator: Locator | None, x: float | None, y: float | None, button: MouseButton,
                    count: int, until: Locator | None, timeout: float,
                    offset: tuple[float, float] | None = None) -> dict[str, Any]:
        tries = CLICK_UNTIL_TRIES if until is not None else 1
        for attempt in range(1, tries + 1):
            px, py, description = await self._point(locator, x, y, timeout)
            if offset is not None and locator is not None:
                px, py = await self._offset_point(locator, offset)
            await self._acting(lambda: self.input.click(px, py, button, count), timeout)
            if until is None:
                break
            try:
                await self._guarded(locators.wait_state(self.page, until, "appear", timeout / tries))
                break
            except PageTimeout:
                if attempt == tries:
                    raise PageError(f'"{until.label()}" did not appear after {tries} clicks') from None
                log.info("click %s: %s not there yet, clicking again", self.tab_id, until.label())
        result: dict[str, Any] = {"x": round(px, 1), "y": round(py, 1)}
        if description:
            result["element"] = description
        return result

    async def _offset_point(self, locator: Locator, offset: tuple[float, float]) -> tuple[float, float]:
        """The point at `offset` (fractions of the box) of the element, which `_point` just scrolled into
        view."""
        found = await self._guarded(locators.query(self.page, locator, limit=1))
        if found.count != 1:
            raise PageError(f'"{locator.label()}" matches {found.count} elements (exactly one is needed)')
        rect = found.rows[0].rect
        return rect.x + offset[0] * rect.width, rect.y + offset[1] * rect.height

    async def type_text(self, text: str, locator: Locator | None, paste: bool, timeout: float,
                        replace: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {}
        if locator is not None:
            px, py, description = await self._point(locator, None, None, timeout, editable=True, stable=False)
            if await locators.has_focus(self.page, locator):
                # A click would collapse a selection just made (ctrl+a): keep the focus, as Playwright's type.
                result["clicked"] = False
            else:
                await self.input.click(px, py)
            result["element"] = description
        if replace:
            await self.input.key("ctrl+a")
        await self._acting(lambda: self.input.paste(text) if paste else self.input.type_text(text), timeout)
        result["typed"] = len(text)
        return result

    async def select(self, option: str, locator: Locator, timeout: float) -> dict[str, Any]:
        """Choose with the keyboard on the focused, closed <select> (arrow keys: trusted input and a trusted
        change event, no popup needed); fall back to setting the value when that does not land."""
        wanted = await self._guarded(locators.find_option(self.page, locator, option, timeout))
        result = {"element": wanted.description, "value": wanted.value, "text": wanted.text, "index": wanted.index}
        delta = wanted.index - wanted.previous_index
        if delta == 0:
            return result
        await self._guarded(locators.focus(self.page, locator, timeout))

        async def arrows() -> None:
            for _ in range(abs(delta)):
                await self.input.key("arrowdown" if delta > 0 else "arrowup")

        if await self._acting(arrows, timeout):
            return result  # the choice navigated (an onchange that loads another page): nothing left to check
        now = await self._guarded(locators.find_option(self.page, locator, option, timeout))
        if now.previous_index != wanted.index:
            log.info("select %s: keyboard landed on option %s, not %s; setting it", self.tab_id,
                     now.previous_index, wanted.index)
            await self._guarded(locators.select_option(self.page, locator, option, timeout))
            result["method"] = "value"
        return result

    async def key(self, shortcut: str) -> dict[str, Any]:
        try:
            await self._acting(lambda: self.input.key(shortcut), 30.0)
        except ValueError as exc:
            raise PageError(str(exc)) from None
        return {"shortcut": shortcut}

    async def scroll(self, direction: Direction, locator: Locator | None, until: Locator | None, swipe: bool,
                     timeout: float, distance: float | None = None) -> dict[str, Any]:
        if not swipe and direction not in ("up", "down"):
            raise PageError("page_scroll goes up or down; use page_swipe for left and right")
        width, height = await run_js(self.page, _VIEWPORT)
        if locator is not None:
            x, y, _description = await self._point(locator, None, None, timeout, hit_test=False)
        else:
            x, y = width / 2, height / 2
        step = (height if direction in ("up", "down") else width) * 0.6
        if until is None:
            await self._scroll_once(x, y, direction, distance or step, swipe)
            return {"steps": 1, "distance": round(distance or step)}
        distance = step
        steps = SWIPE_STEPS if swipe else SCROLL_STEPS
        for step in range(steps + 1):
            if await self._in_view(until):
                return {"steps": step, "visible": True}
            if step < steps:
                await self._scroll_once(x, y, direction, distance, swipe)
        raise PageError(f'"{until.label()}" did not come into view after {steps} '
                        f'{"swipes" if swipe else "scroll steps"} {direction}')

    async def _scroll_once(self, x: float, y: float, direction: Direction, distance: float, swipe: bool) -> None:
        if swipe:
            await self.input.swipe(x, y, direction, distance)
        else:
            await self.input.wheel(x, y, 0.0, distance if direction == "down" else -distance)
        await asyncio.sleep(0.05)  # let the compositor apply the scroll before looking again

    async def _in_view(self, locator: Locator) -> bool:
        found = await locators.query(self.page, locator, limit=5)
        if not found.rows:
            return False
        width, height = await run_js(self.page, _VIEWPORT)
        return any(row.visible and row.rect.width > 0 and row.rect.height > 0 and row.rect.y < height
                   and row.rect.y + row.rect.height > 0 and row.rect.x < width and row.rect.x + row.rect.width > 0
                   for row in found.rows)

    async def drag(self, locator: Locator | None, x: float | None, y: float | None, dx: float, dy: float,
                   timeout: float, offset: tuple[float, float] | None = None) -> dict[str, Any]:
        px, py, description = await self._point(locator, x, y, timeout)
        if offset is not None and locator is not None:
            px, py = await self._offset_point(locator, offset)
        await self._acting(lambda: self.input.drag(px, py, dx, dy), timeout)
        result: dict[str, Any] = {"from": [round(px, 1), round(py, 1)], "to": [round(px + dx, 1), round(py + dy, 1)]}
        if description:
            result["element"] = description
        return result

    async def upload(self, paths: list[str], locator: Locator, timeout: float) -> dict[str, Any]:
        checked = check_upload_paths(paths)  # before anything is clicked
        px, py, description = await self._point(locator, None, None, timeout)
        await upload_files(self.page, checked, lambda: self.input.click(px, py))
        return {"element": description, "files": checked}

    async def download(self, locator: Locator | None, url: str | None, save_as: str | None,
                       timeout: float) -> dict[str, Any]:
        if url is not None:
            if self._net is not None and self._net.policies is not None:
                verdict = self._net.policies.policy(self.env_id).check_url(url)
                if verdict is not None:  # the interceptor would block it: say why instead of waiting
                    raise PageError(verdict.describe(self.env_id))

            def trigger() -> None:
                self.page.download(QUrl(url), save_as or "")
        else:
            assert locator is not None
            source = await self._guarded(inspect.media_source(self.page, locator))
            if source["media"]:  # a media element: save its source; clicking it would start no download
                return await self._save_source(source, self._downloads, save_as, timeout)
            px, py, _description = await self._point(locator, None, None, timeout)

            async def trigger() -> None:  # type: ignore[misc]
                await self.input.click(px, py)
        return await expect_download(self.page, trigger, folder=self._downloads, name=save_as,
                                     start_timeout=min(timeout, 15.0), timeout=timeout)

    # -- reading -----------------------------------------------------------------------------------------
    async def wait(self, locator: Locator, state: Literal["appear", "gone"], timeout: float) -> dict[str, Any]:
        visible = await self._guarded(locators.wait_state(self.page, locator, state, timeout))
        return {"state": state, "visible": visible}

    async def query(self, locator: Locator) -> dict[str, Any]:
        return (await self._guarded(locators.query(self.page, locator))).to_dict()

    async def snapshot(self, locator: Locator | None = None, start: int = 1, items: int = 25) -> dict[str, Any]:
        snap = await self._guarded(locators.snapshot(self.page, locator, start=start, items=items))
        return {"url": snap.url, "title": snap.title, "snapshot": snap.text, "refs": snap.refs,
                "folded": snap.folded, "truncated": snap.truncated}

    async def source(self) -> dict[str, Any]:
        html = await self._guarded(run_js(
            self.page, "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
                       " + document.documentElement.outerHTML", world=MAIN_WORLD))
        return {"url": self.page.url().toString(), "html": html}

    async def screenshot(self, full_page: bool, locator: Locator | None) -> dict[str, Any]:
        clip = None
        if locator is not None:
            await self._guarded(locators.wait_actionable(self.page, locator, 10.0, hit_test=False, enabled=False))
            found = await locators.query(self.page, locator, limit=2)
            rect = found.rows[0].rect
            clip = (rect.x, rect.y, rect.width, rect.height)
        path = self._captures / capture_name("shot", ".png")
        return await capture.screenshot(self.tab, path, full_page=full_page and clip is None, clip=clip)

    async def pdf(self, paper: Paper, landscape: bool, background: bool, header_footer: bool) -> dict[str, Any]:
        path = self._captures / capture_name("page", ".pdf")
        return await capture.pdf(self.page, path, paper, landscape, background, header_footer)

    async def settle(self, timeout: float) -> dict[str, Any]:
        """Let what the tab still has in flight (a navigation, a form post, fetch/XHR, beacons) land, at most
        `timeout` seconds: `{pending}` lists what had not (empty: everything landed)."""
        pending = await inflight.settle(self.page, timeout, lambda: self.tab.loading or self.page.isLoading())
        return {"pending": pending, "settled": not pending}

    async def _settled(self, timeout: float = 30.0) -> None:
        """Wait for a load in progress (e.g. started by the click before) to finish."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.tab.loading and loop.time() < deadline:
            await asyncio.sleep(0.01)

    async def script(self, source: str, args: Any, timeout: float) -> dict[str, Any]:
        """Run the script; when it started a navigation (`form.submit()`, `location = …`), wait until that
        navigation has committed, as after a click."""
        await self._settled()
        with NavigationWatch(self.page) as watch:
            try:
                value = await self._guarded(run_js_async(self.page, source, args, timeout))
            except NavigatedAway:
                # A navigation started just as the script did (a link clicked by the step before): run it on the
                # new document instead.
                await asyncio.sleep(0.05)
                await self._settled()
                value = await self._guarded(run_js_async(self.page, source, args, timeout))
            document, navigating = await document_now(self.page)
            await self._after_navigation(watch, document, navigating, NAVIGATION_TIMEOUT)
        return {"value": value}

    # -- DevTools protocol and network capture -----------------------------------------------------------
    def _net_services(self) -> NetServices:
        if self._net is None:
            raise PageError("DevTools and network capture are not available in this app")
        return self._net

    async def cdp(self, method: str, params: dict[str, Any] | None, timeout: float) -> dict[str, Any]:
        net = self._net_services()
        if method == "Network.loadNetworkResource" and net.policies is not None:
            # This command loads through the browser without the profile's request interceptor.
            verdict = net.policies.policy(self.env_id).check_url(str((params or {}).get("url", "")))
            if verdict is not None:
                raise PageError(f"page_cdp refuses {method}: {verdict.describe(self.env_id)}")
        channel = net.cdp.channel(self.page)
        result = await self._guarded(channel.user_command(method, params, timeout))
        return {"result": result}

    def _capture(self, create: bool = False) -> TabCapture:
        net = self._net_services()
        recording = net.captures.get(self.tab_id)
        if recording is None and create:
            recording = net.captures.ensure(self.tab_id, net.cdp.channel(self.page),
                                            lambda: (self.page.url().toString(), self.page.title()))
        if recording is None:
            raise CaptureError("network capture was never started on this tab; call net_start first")
        return recording

    async def net_start(self) -> dict[str, Any]:
        recording = self._capture(create=True)
        await self._guarded(recording.start())
        return {"capturing": True}

    async def net_stop(self) -> dict[str, Any]:
        recording = self._capture()
        await recording.stop()
        return {"capturing": False, "entries": len(recording.entries)}

    async def net_list(self, url_contains: str | None, limit: int) -> dict[str, Any]:
        recording = self._capture()
        await recording.settle(2.0)
        return {"capturing": recording.running, "requests": recording.list(url_contains, limit),
                "dropped": recording.dropped}

    async def net_get(self, request_id: str) -> dict[str, Any]:
        recording = self._capture()
        await recording.settle(2.0)
        return {"request": recording.get(request_id)}

    async def net_export(self, path: str | None = None,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> dict[str, Any]:
        """Write the tab's capture as HAR 1.2 (default: the environment's captures folder)."""
        recording = self._capture()
        await recording.settle(5.0)
        target = Path(path) if path else self._captures / capture_name("net", ".har")
        har = recording.har(__version__, qWebEngineChromiumVersion())  # here: it reads the live capture
        result = await in_thread(write_har_file, target, har, redact, name="browserpilot-har")  # redacts it too
        result["capturing"] = recording.running
        return result

    async def direct_request(self, method: str, url: str, headers: dict[str, str], body: str | None,
                             timeout: float) -> dict[str, Any]:
        net = self._net_services()
        policy = net.policies.policy(self.env_id) if net.policies is not None else None

        def blocked(target: str) -> str | None:
            verdict = policy.check_url(target) if policy is not None else None
            return verdict.describe(self.env_id) if verdict is not None else None

        async def cookies_for(target: str) -> dict[str, str]:
            channel = net.cdp.channel(self.page)
            found = await self._guarded(channel.user_command("Network.getCookies", {"urls": [target]}, 10.0))
            return {cookie["name"]: cookie["value"] for cookie in found.get("cookies", [])}

        recording = net.captures.get(self.tab_id)
        record = recording.add_direct if recording is not None and recording.running else None
        try:
            return await direct.send(method, url, headers, body, timeout, blocked=blocked, cookies_for=cookies_for,
                                     record=record)
        except direct.DirectRequestError as exc:
            raise PageError(str(exc)) from None

    # -- inspecting, media, request mocks (the original's page_inspect, page_hit, page_watch, ...) ---------
    async def inspect(self, locator: Locator) -> dict[str, Any]:
        return await self._guarded(inspect.inspect(self.page, locator))

    async def hit(self, x: float, y: float) -> dict[str, Any]:
        return await self._guarded(inspect.hit(self.page, x, y))

    async def watch(self, locator: Locator, timeout: float, interval: float, stop_on_change: bool) -> dict[str, Any]:
        return await inspect.watch(self.page, locator, timeout, interval, stop_on_change)

    async def cdp_batch(self, commands: Sequence[Mapping[str, Any]], timeout: float) -> dict[str, Any]:
        """Commands in order on the caller's session; all are checked before the first is sent, and the
        batch stops at the first failure (its error is its result)."""
        for index, command in enumerate(commands):
            reason = refusal(str(command["method"]), command.get("params"))
            if reason is not None:
                raise PageError(f"page_cdp_batch refuses commands[{index}] {command['method']}: {reason}; "
                                f"nothing was sent")
        results: list[dict[str, Any]] = []
        for command in commands:
            method = str(command["method"])
            try:
                reply = await self.cdp(method, command.get("params"), timeout)
            except PageError as exc:
                results.append({"method": method, "ok": False, "error": str(exc)})
                break
            results.append({"method": method, "ok": True, "result": reply["result"]})
            if command.get("delay_ms"):
                await asyncio.sleep(float(command["delay_ms"]) / 1000)
        return {"results": results, "completed": len(results) == len(commands) and results[-1]["ok"]}

    async def save_media(self, locator: Locator, save_path: str | None, timeout: float) -> dict[str, Any]:
        source = await self._guarded(inspect.media_source(self.page, locator))
        if not source["media"]:
            raise PageError(f"{source['desc']} is not an img, video, audio, source or picture element; "
                            f"use page_download for links and buttons")
        folder, name = self._downloads, None
        if save_path:
            target = Path(save_path).expanduser()
            if not target.is_absolute():
                raise PageError(f"savePath must be absolute: {save_path}")
            if save_path.endswith(("/", "\\")) or target.is_dir():
                folder = target
            else:
                folder, name = target.parent, target.name
        return await self._save_source(source, folder, name, timeout)

    async def _save_source(self, source: Mapping[str, Any], folder: Path, name: str | None,
                           timeout: float) -> dict[str, Any]:
        """Save a media element's current source: data: decoded here, blob: read in the page, anything
        else downloaded through the environment's profile (its cookies, its domain policy)."""
        url = str(source.get("src") or "")
        if not url:
            raise PageError(f"{source['desc']} has no source (no src, currentSrc or <source>)")
        scheme = url.split(":", 1)[0].lower()
        if scheme in ("data", "blob"):
            if scheme == "data":
                mime, payload = media.decode_data_url(url)
            else:
                mime, payload = await self._guarded(media.read_blob(self.page, url, timeout))
            path = media.write_new_file(folder, name or media.default_name(mime), payload)
            return {"path": str(path), "name": path.name, "bytes": len(payload), "mime": mime, "url": url[:200]}
        if self._net is not None and self._net.policies is not None:
            verdict = self._net.policies.policy(self.env_id).check_url(url)
            if verdict is not None:
                raise PageError(verdict.describe(self.env_id))
        return await expect_download(self.page, lambda: self.page.download(QUrl(url), name or ""), folder=folder,
                                     name=name, start_timeout=min(timeout, 15.0), timeout=timeout)

    async def mock_start(self, rules: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Rules: `{url_contains, status, body, headers}` each (see app/browser/netmock.py)."""
        net = self._net_services()
        policies = net.policies

        def blocked(url: str) -> str | None:
            verdict = policies.policy(self.env_id).check_url(url) if policies is not None else None
            return verdict.describe(self.env_id) if verdict is not None else None

        mock = net.mocks.ensure(self.tab_id, net.cdp.channel(self.page), blocked, lambda: self.page.url().toString())
        await self._guarded(mock.start([MockRule(str(r["url_contains"]), int(r.get("status", 200)),
                                                 str(r.get("body", "{}")), dict(r.get("headers") or {}))
                                        for r in rules]))
        return {"rules": len(rules)}

    async def mock_stop(self) -> dict[str, Any]:
        mock = self._net_services().mocks.drop(self.tab_id)
        if mock is None:
            return {"mocked": False}
        return {"mocked": False, **(await mock.stop())}
