"""The app on a real desktop, unattended: Xvfb with a window manager, a session bus of its own, dunst as the
notification server and trayer as the system tray (tests/support/desktop.py starts them; skipped only when
they are not installed - ./dev.sh setup installs them).

- Closing the main window (through the window manager, as a person does) leaves the app running with its icon
  in the tray; the icon gets its amber "needs you" badge while a run waits for the person.
- A schedule fires a workflow that hands its tab to the person: the notification is read back from the bus;
  choosing its "Open" action in dunst's menu brings the environment's window to the front (un-minimised) on the
  waiting tab; the person types into the page, presses Enter and clicks Done on the banner (real X input,
  xdotool; the Done button is found on a screenshot by the banner's amber line); Done gives the tab back while
  the page's answer is still held, then the run finishes ok with what the person typed at the server. (A
  handoff node goes on when the next node's element appears, as the original's does: Done alone does not
  resume it.)
- An MCP client's `page_handoff` (not a workflow's) notifies too.
"""

from __future__ import annotations

import json
import subprocess
import threading
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtGui import QColor, QImage

from app.mcp.client import forward_operation
from app.stores.settings import SettingsStore
from plumbing.datadir import DataDir
from tests.support.app_process import app_on_desktop, run_cli
from app.desktop.tray import NEEDS_YOU_COLOR
from tests.support.desktop import Desktop, desktop, missing_tools, wait_until  # noqa: F401 (a fixture)
from tests.support.server import LocalServer, Request, Response

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(bool(missing_tools()), reason=f"no desktop tools: {', '.join(missing_tools())} "
                                                                "(./dev.sh setup installs them)")]

BANNER_LINE = (0x00, 0xA1, 0xE0, 0xFF)  # the handoff banner's 2-pixel bottom line, #e0a100, as RGB32 bytes
GATE = """<!doctype html><title>Gate check</title>
<style>input { position: fixed; inset: 0; width: 100%; height: 100%; font-size: 40px; border: 0 }</style>
<form action="/login"><input id="code" name="code" autofocus placeholder="the code"></form>"""


def gate_workflow(server: LocalServer) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "go", "data": {"type": "goto", "url": server.url("/gate")}},
             {"id": "ask", "data": {"type": "handoff", "message": "Type the code from your phone, press Enter, "
                                                                  "then click Done"}},
             {"id": "in", "data": {"type": "wait", "locator": {"selector": "#welcome"}, "state": "appear",
                                   "timeout": 30}},
             {"id": "end", "data": {"type": "end"}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Gate", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                             for a, b in zip(nodes, nodes[1:])]}}}


class Held:
    """A route that answers only when the test lets it (the person's Enter is in flight meanwhile)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.release = threading.Event()

    def __call__(self, request: Request) -> Response:
        self.release.wait(60)
        return Response(self.body)


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[LocalServer, Held]]:
    login = Held("<!doctype html><title>Welcome</title><h1 id='welcome'>Welcome in</h1>")
    with LocalServer() as local:
        local.route("/gate", GATE)
        local.route("/login", login)
        local.route("/elsewhere", "<!doctype html><title>Elsewhere</title><p>another page</p>")
        yield local, login
        login.release.set()


@pytest.fixture(scope="module")
def app(desktop: Desktop, site: tuple[LocalServer, Held], tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """The app with windows on the desktop; it has one switched-on schedule (far away), so it may stay."""
    folder = tmp_path_factory.mktemp("unattended")
    data = folder / "data"
    data.mkdir()
    SettingsStore(DataDir(data)).update(welcome_shown=True)
    (folder / "gate.json").write_text(json.dumps(gate_workflow(site[0])))
    assert run_cli(data, "workflow", "import", str(folder / "gate.json")).returncode == 0
    added = run_cli(data, "schedule", "add", "Gate", "--name", "Nightly gate", "--daily", "03:00", "--json")
    assert added.returncode == 0, added.stderr
    with app_on_desktop(data, desktop.env(), folder / "app.log") as process:
        yield process, data


def call(data: Path, operation: str, /, **params: Any) -> dict[str, Any]:
    result = forward_operation(DataDir(data), operation, params)
    assert result.get("ok"), result
    return result


def screenshot(desktop: Desktop, path: Path) -> QImage:
    return QImage(str(desktop.screenshot(path))).convertToFormat(QImage.Format.Format_RGB32)


def banner_of(image: QImage) -> tuple[int, int, int, int] | None:
    """The handoff banner on the screen: (left, top, right, bottom line's y), found by its amber bottom line."""
    width = image.width()
    raw = bytes(image.constBits())  # type: ignore[arg-type]
    stride = image.bytesPerLine()
    line = bytes(BANNER_LINE) * 200
    for y in range(image.height()):
        row = raw[y * stride: y * stride + width * 4]
        at = row.find(line)
        if at < 0 or at % 4:
            continue
        left = right = at // 4
        while right < width and row[right * 4: right * 4 + 4] == bytes(BANNER_LINE):
            right += 1
        background = image.pixel(right - 3, y - 3)
        top = y - 3
        while top > 0 and image.pixel(right - 3, top - 1) == background:
            top -= 1
        return left, top, right, y
    return None


def tray_shows(desktop: Desktop, image: QImage, color: str) -> bool:
    """Whether BrowserPilot's tray icon, as drawn on the screen, has pixels of `color` (its badge)."""
    wanted = QColor(color)
    icon = next(wid for wid, instance in desktop.tray_icons().items() if instance == "browserpilot")
    x0, y0, width, height = desktop.geometry(icon)
    for x in range(x0, x0 + width):
        for y in range(y0, y0 + height):
            pixel = image.pixelColor(x, y)
            if max(abs(pixel.red() - wanted.red()), abs(pixel.green() - wanted.green()),
                   abs(pixel.blue() - wanted.blue())) <= 24:
                return True
    return False


def runs_of(data: Path, schedule_id: str) -> list[dict[str, Any]]:
    try:
        runs = json.loads((data / "runs.json").read_text())["runs"]
    except (OSError, ValueError, KeyError):
        return []
    return [run for run in runs if run.get("trigger") == {"schedule": schedule_id}]


def test_closing_the_main_window_leaves_the_app_in_the_tray(desktop: Desktop, app: tuple[subprocess.Popen[bytes],
                                                                                          Path], tmp_path: Path) -> None:
    process, data = app
    main = wait_until(lambda: desktop.window_titled(r"^BrowserPilot$"), 60, "the main window")
    wait_until(lambda: "browserpilot" in desktop.tray_icons().values(), 30, "BrowserPilot's icon in the tray")
    desktop.close_window(main)
    wait_until(lambda: main not in desktop.client_windows(), 20, "the main window to go")
    assert process.poll() is None, "the app quit when its window closed"
    assert "browserpilot" in desktop.tray_icons().values(), "the tray icon went with the window"
    assert not tray_shows(desktop, screenshot(desktop, tmp_path / "idle.png"), NEEDS_YOU_COLOR)  # idle: no badge
    assert call(data, "schedule_list")["schedules"]  # and it still answers


def test_a_scheduled_handoff_notifies_and_open_brings_its_tab_then_done_lets_the_run_finish(
        desktop: Desktop, app: tuple[subprocess.Popen[bytes], Path], site: tuple[LocalServer, Held],
        tmp_path: Path) -> None:
    process, data = app
    server, login = site
    at = (datetime.now() + timedelta(seconds=8)).replace(microsecond=0)  # room for the command to reach the app
    added = run_cli(data, "schedule", "add", "Gate", "--at", at.isoformat(), "--json")  # to the running app
    assert added.returncode == 0, added.stderr
    schedule_id = json.loads(added.stdout)["id"]

    # The run hands its tab over: a notification, read back from the bus.
    needed = wait_until(lambda: [n for n in desktop.notifications() if n.summary == "A person is needed: Gate"],
                        60, "the notification that a person is needed")
    assert "Type the code from your phone" in needed[0].body and needed[0].body.startswith("Default: ")
    assert "Open" in needed[0].actions
    waiting = wait_until(lambda: [t for t in call(data, "tab_list")["tabs"] if t["control"] == "handoff"], 20,
                         "the handed-over tab")
    assert len(waiting) == 1 and waiting[0]["title"] == "Gate check"
    gate_tab = waiting[0]["id"]
    assert runs_of(data, schedule_id)[0]["status"] == "running"
    wait_until(lambda: tray_shows(desktop, screenshot(desktop, tmp_path / "tray.png"), NEEDS_YOU_COLOR), 10,
               "the tray icon's amber \"needs you\" badge")

    # Meanwhile the person looked elsewhere: another tab in front, the window minimised.
    call(data, "tab_open", url=server.url("/elsewhere"))
    window = wait_until(lambda: desktop.window_titled(r"^Elsewhere — "), 20, "the environment's window on Elsewhere")
    desktop.run("xdotool", "windowminimize", "--sync", str(window))
    wait_until(lambda: "_NET_WM_STATE_HIDDEN" in desktop.window_state(window), 10, "the window minimised")
    assert desktop.active_window() != window

    # The person chooses "Open" in the notification's menu: the window comes to the front on the waiting tab.
    desktop.invoke_action("Open")
    wait_until(lambda: desktop.active_window() == window, 20, "the environment's window to be the active one")
    assert "_NET_WM_STATE_HIDDEN" not in desktop.window_state(window)
    wait_until(lambda: desktop.client_windows().get(window, "").startswith("Gate check — "), 10,
               "the window to show the waiting tab")
    assert "open" in desktop.invoked_actions()
    assert next(t for t in call(data, "tab_list")["tabs"] if t["id"] == gate_tab)["active"]

    # The person types the code into the page and presses Enter (real X input), then clicks Done.
    banner = wait_until(lambda: banner_of(screenshot(desktop, tmp_path / "handoff.png")), 20, "the handoff banner")
    left, top, right, line = banner
    desktop.run("xdotool", "mousemove", str((left + right) // 2), str(line + 200), "click", "1")
    desktop.run("xdotool", "type", "--delay", "40", "424242")
    desktop.run("xdotool", "key", "Return")
    server.wait_for("/login")  # the page's answer is held: the run still waits for the person
    desktop.run("xdotool", "mousemove", str(right - 8 - 14), str((top + line) // 2), "click", "1")
    wait_until(lambda: next(t for t in call(data, "tab_list")["tabs"] if t["id"] == gate_tab)["control"] == "agent",
               20, "Done to give the tab back")
    assert runs_of(data, schedule_id)[0]["status"] == "running"
    login.release.set()
    finished = wait_until(lambda: [r for r in runs_of(data, schedule_id) if r["status"] != "running"], 60,
                          "the run to finish")
    assert finished[0]["status"] == "ok", finished[0]
    assert server.hits("/login")[0].arg("code") == "424242"
    assert process.poll() is None


def test_an_mcp_clients_handoff_notifies_too(desktop: Desktop, app: tuple[subprocess.Popen[bytes], Path],
                                             site: tuple[LocalServer, Held]) -> None:
    """No workflow run: an agent works in a tab no window shows and asks for a login."""
    _process, data = app
    server, _login = site
    before = len(desktop.notifications())
    shop = call(data, "env_create", name="Shop")["env"]
    tab = call(data, "tab_open", env=shop, url=server.url("/elsewhere"), show=False)["tabId"]
    call(data, "page_handoff", tabId=tab, message="Please log in to the shop")
    notified = wait_until(lambda: desktop.notifications()[before:], 30, "a notification for the agent's handoff")
    assert [(n.summary, n.body) for n in notified] == [("A person is needed", "Shop: Please log in to the shop")]
    assert "Open" in notified[0].actions
    # The tab came into the Shop window, which a person can bring back with the notification.
    window = wait_until(lambda: desktop.window_titled(r"^Elsewhere — Shop"), 20, "the Shop window on the tab")
    desktop.run("xdotool", "windowminimize", "--sync", str(window))
    wait_until(lambda: "_NET_WM_STATE_HIDDEN" in desktop.window_state(window), 10, "the window minimised")
    desktop.invoke_action("Open")
    wait_until(lambda: desktop.active_window() == window, 20, "the Shop window to be the active one")


def test_the_sessions_end_quits_the_app_in_order_although_its_schedules_keep_it_in_the_tray(
        desktop: Desktop, app: tuple[subprocess.Popen[bytes], Path]) -> None:
    """Logging out sends SIGTERM (the tray's Quit takes the same way): the app ends, its stores saved, although
    closing its window only hides it to the tray (it once refused the close and never ended)."""
    process, data = app
    assert process.poll() is None and "browserpilot" in desktop.tray_icons().values()
    process.terminate()
    try:
        status = process.wait(20)
    except subprocess.TimeoutExpired:
        raise AssertionError("the app did not end within 20 s of SIGTERM") from None
    assert status == 0
    log = (data / "logs" / "browserpilot.log").read_text()
    assert "stores saved" in log.split("signal 15: quitting")[-1], log[-2000:]
