"""A real little desktop for tests that need one (`Desktop`; `Screen` is its bare X screen): Xvfb, a window manager (openbox), a session bus of its own
(`dbus-daemon`), a notification server (dunst) and a system tray host (trayer), all from Debian and started
here (./dev.sh installs them; see /work/shared/TESTING.md for why each one).

- The bus has no service folders, so nothing is D-Bus-activated behind the test's back (a second dunst with the
  default configuration would take the notifications); it lets a monitor read every message.
- dunst keeps every notification until it is closed (no timeouts), and its context menu ("dmenu") is a script
  that chooses the action whose label the test names (`Desktop.invoke_action`), as a person choosing it would.
- `dbus-monitor` records the notifications sent (`Desktop.notifications()`) and the actions invoked.

`missing_tools()` names what is not installed, for a clean skip.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest

TOOLS = ("Xvfb", "openbox", "trayer", "dunst", "dunstctl", "dbus-daemon", "dbus-monitor", "dbus-send", "wmctrl",
         "xdotool", "xwininfo", "xprop")
T = TypeVar("T")

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

DUNST_CONFIG = """[global]
    dmenu = {pick}
    browser = /bin/true
    idle_threshold = 0
    sticky_history = yes
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""

# dunst hands its context menu's lines (one per action: "#LABEL [summary]") to this "dmenu" on stdin and
# invokes the line it prints.
PICK_SCRIPT = """#!/bin/sh
grep -m1 -F -- "#$(cat {label_file})"
"""


# A screenshot of the whole screen as X shows it, taken by a small Qt program of its own (xcb).
SCREENSHOT = """import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv)
sys.exit(0 if app.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)
"""


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def wait_until(condition: Callable[[], T], timeout: float, what: str, every: float = 0.1) -> T:
    """Poll `condition` (another process's state) until it is truthy; its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


@dataclass
class Notification:
    """One `Notify` call the monitor saw."""

    summary: str
    body: str
    actions: list[str]  # identifier, label, identifier, label, …


@dataclass
class Screen:
    """Xvfb on a display it picks itself (-displayfd) with openbox; `stop()` ends what it started, by pid.
    `Desktop` adds a session bus, a notification server and a tray host; bench/realapps.py's person uses the bare
    screen (tests/support/xinput.py)."""

    folder: Path
    width: int = 2200
    height: int = 1100
    display: str = ""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    # -- start and stop ------------------------------------------------------------------------------------
    def start(self) -> "Screen":
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> "Screen":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        read, write = os.pipe()
        self._spawn(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{self.width}x{self.height}x24",
                     "-nolisten", "tcp"], pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as pipe:
            self.display = ":" + pipe.readline().strip()
        wait_until(lambda: self._ok(["xwininfo", "-root"]), 10, "Xvfb")
        self._start_window_manager()

    def _start_window_manager(self) -> None:
        # openbox now and then ends at once when the X server has only just started: start it again then.
        for _attempt in range(3):
            openbox = self._spawn(["openbox", "--sm-disable"])
            if wait_until(lambda: openbox.poll() is not None or self._ok(["wmctrl", "-m"]), 20, "openbox") \
                    and openbox.poll() is None:
                return
        raise AssertionError(f"openbox does not start: {(self.folder / 'openbox.err').read_text()}")

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def env(self) -> dict[str, str]:
        """What a program on this screen needs in its environment."""
        return {"DISPLAY": self.display}

    def screenshot(self, path: Path) -> Path:
        """The whole screen as a PNG file."""
        env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "BROWSERPILOT_HOME")}
        subprocess.run([sys.executable, "-c", SCREENSHOT, str(path)], check=True, timeout=30, capture_output=True,
                       env={**env, **self.env(), "QT_QPA_PLATFORM": "xcb"})
        return path

    def _spawn(self, command: list[str], stdout: Path | None = None, pass_fds: tuple[int, ...] = ()
               ) -> subprocess.Popen[bytes]:
        """Start a program on the screen; its stderr (and `stdout`, if given) into files of the folder."""
        with (self.folder / f"{Path(command[0]).name}.err").open("ab") as errors, \
                (stdout.open("ab") if stdout else open(os.devnull, "wb")) as output:
            process = subprocess.Popen(command, env={**os.environ, **self.env()}, stdin=subprocess.DEVNULL,
                                       stdout=output, stderr=errors, pass_fds=pass_fds)
        self.processes.append(process)
        return process

    def run(self, *command: str, check: bool = True, timeout: float = 60) -> str:
        done = subprocess.run(command, env={**os.environ, **self.env()}, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
        return done.stdout

    def _ok(self, command: list[str]) -> bool:
        return subprocess.run(command, env={**os.environ, **self.env()}, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=20).returncode == 0

    # -- windows -------------------------------------------------------------------------------------------
    def windows(self, name: str) -> list[int]:
        """Visible windows whose title matches the regular expression `name`."""
        found = self.run("xdotool", "search", "--onlyvisible", "--name", name, check=False)
        return [int(line) for line in found.split()]

    def place(self, wid: int, x: int, y: int, width: int, height: int) -> None:
        self.run("xdotool", "windowmove", str(wid), str(x), str(y), "windowsize", str(wid), str(width), str(height))



@dataclass
class Desktop(Screen):
    """A screen with a session bus of its own, dunst and trayer."""

    width: int = 1400
    height: int = 900
    bus: str = ""

    def start(self) -> "Desktop":
        super().start()
        return self

    def _start(self) -> None:
        super()._start()
        socket = self.folder / "bus"
        (self.folder / "bus.conf").write_text(BUS_CONFIG.format(socket=socket))
        self._spawn(["dbus-daemon", "--nofork", f"--config-file={self.folder / 'bus.conf'}"])
        self.bus = f"unix:path={socket}"
        wait_until(socket.exists, 10, "the session bus")
        self._spawn(["dbus-monitor", "--address", self.bus,
                     "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
                     "type='signal',interface='org.freedesktop.Notifications'"], stdout=self.folder / "monitor.log")
        pick = self.folder / "pick.sh"
        pick.write_text(PICK_SCRIPT.format(label_file=self.folder / "pick"))
        pick.chmod(0o755)
        (self.folder / "dunstrc").write_text(DUNST_CONFIG.format(pick=pick))
        self._spawn(["dunst", "-config", str(self.folder / "dunstrc")])
        wait_until(self._dunst_owns_notifications, 10, "dunst on the bus")
        self._spawn(["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "120",
                     "--height", "24", "--SetDockType", "true"])
        wait_until(lambda: self.windows_of_class("panel"), 10, "trayer's panel")

    def env(self) -> dict[str, str]:
        return {**super().env(), "DBUS_SESSION_BUS_ADDRESS": self.bus}

    def _dunst_owns_notifications(self) -> bool:
        return self._ok(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                         "org.freedesktop.DBus.GetNameOwner", "string:org.freedesktop.Notifications"])

    # -- windows -------------------------------------------------------------------------------------------
    def windows_of_class(self, name: str) -> list[int]:
        found = self.run("xdotool", "search", "--classname", name, check=False)
        return [int(line) for line in found.split()]

    def client_windows(self) -> dict[int, str]:
        """The windows the window manager manages: id -> title (`wmctrl -l`)."""
        listed: dict[int, str] = {}
        for line in self.run("wmctrl", "-l").splitlines():
            parts = line.split(None, 3)
            if len(parts) >= 3:
                listed[int(parts[0], 16)] = parts[3] if len(parts) == 4 else ""
        return listed

    def window_titled(self, pattern: str) -> int | None:
        return next((wid for wid, title in self.client_windows().items() if re.search(pattern, title)), None)

    def active_window(self) -> int | None:
        found = re.search(r"window id # (0x[0-9a-f]+)", self.run("xprop", "-root", "_NET_ACTIVE_WINDOW"))
        return int(found.group(1), 16) if found and int(found.group(1), 16) else None

    def geometry(self, wid: int) -> tuple[int, int, int, int]:
        """A window's place on the screen: x, y, width, height."""
        info = self.run("xwininfo", "-id", str(wid))
        value = {key: int(re.search(rf"{key}:\s+(-?\d+)", info).group(1))  # type: ignore[union-attr]
                 for key in ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")}
        return (value["Absolute upper-left X"], value["Absolute upper-left Y"], value["Width"], value["Height"])

    def window_state(self, wid: int) -> str:
        return self.run("xprop", "-id", hex(wid), "_NET_WM_STATE", "WM_STATE", check=False)

    def close_window(self, wid: int) -> None:
        """Close as a person does: ask the window manager (the window gets a close event)."""
        self.run("wmctrl", "-i", "-c", hex(wid))

    def tray_icons(self) -> dict[int, str]:
        """The icons embedded in trayer's panel: window id -> the program's WM_CLASS instance name."""
        icons: dict[int, str] = {}
        for panel in self.windows_of_class("panel"):
            tree = self.run("xwininfo", "-tree", "-id", str(panel), check=False)
            for wid, instance in re.findall(r'^\s+(0x[0-9a-f]+) .*?: \("([^"]*)" "[^"]*"\)', tree, re.M):
                if int(wid, 16) != panel:
                    icons[int(wid, 16)] = instance
        return icons

    # -- notifications -------------------------------------------------------------------------------------
    def notifications(self) -> list[Notification]:
        """Every `Notify` call seen on the bus so far."""
        text = (self.folder / "monitor.log").read_text(errors="replace")
        found: list[Notification] = []
        for call in text.split("method call")[1:]:
            if "member=Notify" not in call.splitlines()[0]:
                continue
            strings = re.findall(r'^\s+string "((?:[^"\\]|\\.)*)"', call, re.M)
            # app_name, app_icon, summary, body, then the actions (identifier, label, …), then the hints' keys
            actions_part = call.split("array [", 1)[1].split("]", 1)[0] if "array [" in call else ""
            actions = re.findall(r'string "((?:[^"\\]|\\.)*)"', actions_part)
            if len(strings) >= 4:
                found.append(Notification(summary=strings[2], body=strings[3], actions=actions))
        return found

    def invoked_actions(self) -> list[str]:
        text = (self.folder / "monitor.log").read_text(errors="replace")
        return re.findall(r'member=ActionInvoked\s+uint32 \d+\s+string "([^"]*)"', text)

    def invoke_action(self, label: str) -> None:
        """Open dunst's context menu and choose the action labelled `label`, as a person would."""
        (self.folder / "pick").write_text(label)
        self.run("dunstctl", "context")


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desktop]:
    """A desktop for the test module (import this fixture into it)."""
    screen = Desktop(tmp_path_factory.mktemp("desktop")).start()
    try:
        yield screen
    finally:
        screen.stop()
