"""A person at a real X display, for recorder tests: the app runs as a subprocess with its windows on an Xvfb
desktop (tests/support/desktop.py), operations reach it through its endpoint (as the CLI forwards them), and
the person's mouse and keyboard are xdotool's: real X input, through the window system, into the page.

`XApp.open(url)` opens a tab a person can use (shared control, no agent overlay) and finds where its page sits
on the screen: the pointer is moved onto the window and the page's own `mousemove` says where it is in the page
(`screenX - clientX`), so no window layout is assumed. `XPerson` then clicks elements (found by a locator through
`page_query`, before acting), types, presses keys and turns the wheel. Nothing here waits on a clock: every wait
is for something the app or the page reports.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Iterator

from app.mcp.client import forward_operation
from app.stores.settings import SettingsStore
from plumbing.datadir import DataDir
from tests.support.app_process import app_command, app_env
from tests.support.desktop import Desktop, wait_until

# The page's last trusted mouse move, kept in the page's own world by a script the test adds while calibrating.
CALIBRATE = """window.__xMove = null;
addEventListener('mousemove', (e) => { window.__xMove = [e.screenX - e.clientX, e.screenY - e.clientY]; }, true);
return true;"""


class XApp:
    """The app on the desktop, with a data folder of its own."""

    def __init__(self, desktop: Desktop, folder: Path) -> None:
        self.desktop = desktop
        self.data = folder / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        SettingsStore(DataDir(self.data)).update(welcome_shown=True)
        self.log = folder / "app.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [*app_command(), "--data-dir", str(self.data)], stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                env=app_env(**desktop.env(), QTWEBENGINE_DISABLE_SANDBOX="1", BROWSERPILOT_LANG="en"))

    def call(self, operation: str, /, **params: Any) -> dict[str, Any]:
        """One operation in the running app; its envelope (ok or not)."""
        return forward_operation(DataDir(self.data), operation, params, timeout=60)

    def ok(self, operation: str, /, **params: Any) -> dict[str, Any]:
        result = self.call(operation, **params)
        assert result.get("ok"), (operation, result)
        return result

    def open(self, url: str) -> "XPerson":
        """A new tab on `url`, in the person's hands, and the person in front of it."""
        tab = self.ok("tab_open", url=url)["tabId"]
        self.ok("page_navigate", tabId=tab, url=url)
        self.ok("page_unlock", tabId=tab)
        # The environment's window ("<page title> — <environment> — BrowserPilot"), in front and maximised.
        window = wait_until(lambda: self.desktop.window_titled(r" — BrowserPilot$"), 60, "the environment's window")
        self.desktop.run("wmctrl", "-i", "-r", hex(window), "-b", "add,maximized_vert,maximized_horz")
        self.desktop.run("wmctrl", "-i", "-a", hex(window))
        # The window manager maximises when it gets to it: the page's place on the screen is read after that (a
        # place read before it put every later click beside its element).
        wait_until(lambda: "_NET_WM_STATE_MAXIMIZED_HORZ" in self.desktop.window_state(window), 20,
                   "the window maximised")
        placed: list[tuple[int, int, int, int]] = []

        def settled() -> bool:
            placed.append(self.desktop.geometry(window))
            return len(placed) > 1 and placed[-1] == placed[-2]

        wait_until(settled, 20, "the window to keep its place", every=0.2)
        return XPerson(self, tab, window)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class XPerson:
    """A person's mouse and keyboard on one tab (xdotool)."""

    def __init__(self, app: XApp, tab: str, window: int) -> None:
        self.app = app
        self.tab = tab
        self.window = window
        self.origin = (0.0, 0.0)
        self.viewport = (0.0, 0.0)
        self.calibrate()

    def xdotool(self, *args: str) -> None:
        self.app.desktop.run("xdotool", *args)

    def calibrate(self) -> None:
        """Where the page's (0, 0) is on the screen: move the pointer over the window; the page tells."""
        self.app.ok("page_script", tabId=self.tab, source=CALIBRATE)
        x, y, width, height = self.app.desktop.geometry(self.window)
        spots = iter([(x + width // 2, y + height // 2), (x + width // 2 + 7, y + height // 2 + 5)] * 20)

        def moved() -> Any:
            sx, sy = next(spots)
            self.xdotool("mousemove", str(sx), str(sy))
            return self.app.ok("page_script", tabId=self.tab, source="return window.__xMove")["value"]

        self.origin = tuple(wait_until(moved, 20, "the page to see the pointer", every=0.2))  # type: ignore[assignment]
        self.viewport = tuple(self.app.ok("page_script", tabId=self.tab, source="return [innerWidth, innerHeight]")["value"])

    def rect(self, locator: dict[str, str], index: int = 0) -> dict[str, float]:
        found = self.app.ok("page_query", tabId=self.tab, locator=locator)
        assert found["elements"] and found["count"] > index, (locator, found)
        return found["elements"][index]["rect"]

    def point(self, locator: dict[str, str], fx: float = 0.5, fy: float = 0.5, index: int = 0) -> tuple[int, int]:
        rect = self.rect(locator, index)
        return (round(self.origin[0] + rect["x"] + rect["width"] * fx),
                round(self.origin[1] + rect["y"] + rect["height"] * fy))

    def click(self, selector: str | dict[str, str], fx: float = 0.5, fy: float = 0.5, index: int = 0) -> None:
        locator = {"selector": selector} if isinstance(selector, str) else selector
        x, y = self.point(locator, fx, fy, index)
        self.xdotool("mousemove", str(x), str(y), "click", "1")

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "25", text)

    def key(self, *keys: str) -> None:
        self.xdotool("key", "--delay", "40", *keys)

    def wheel(self, notches: int, over: str | dict[str, str] | None = None) -> None:
        """Turn the wheel `notches` clicks (positive: down) over an element, or over the middle of the page."""
        if over is not None:
            x, y = self.point({"selector": over} if isinstance(over, str) else over)
        else:
            x, y = round(self.origin[0] + self.viewport[0] / 2), round(self.origin[1] + self.viewport[1] / 2)
        self.xdotool("mousemove", str(x), str(y))
        self.xdotool("click", "--repeat", str(abs(notches)), "--delay", "60", "5" if notches > 0 else "4")

    def js(self, source: str) -> Any:
        """Read the page (the app's page_script): for the test's checks, never for acting."""
        return self.app.ok("page_script", tabId=self.tab, source=source)["value"]

    # -- the recording -----------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        return self.app.ok("record_status", tabId=self.tab)

    def steps_when(self, predicate: Any, timeout: float = 15) -> list[dict[str, Any]]:
        box: list[list[dict[str, Any]]] = []

        def check() -> bool:
            box[:] = [self.status()["steps"]]
            return bool(predicate(box[0]))

        try:
            wait_until(check, timeout, "the recorded steps", every=0.2)
        except AssertionError:
            raise AssertionError("steps now: " + json.dumps([s["words"] for s in box[0]] if box else None)) from None
        return box[0]


def x_app(desktop: Desktop, folder: Path) -> Iterator[XApp]:
    """For a module fixture: the app on the desktop until the module ends."""
    app = XApp(desktop, folder)
    try:
        wait_until(lambda: (app.data / "mcp.json").exists() or app.process.poll() is not None, 60, "the app's endpoint")
        assert app.process.poll() is None, app.log.read_text(errors="replace")[-3000:]
        yield app
    finally:
        app.stop()
