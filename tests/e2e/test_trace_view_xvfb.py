"""The Runs panel's Trace view as a person uses it: the real app on an X server (Xvfb, openbox), a traced run,
then real clicks through the X server (xdotool) from the app's first panel: the Runs tab, the run's row, the
Trace tab, the filmstrip's steps and Play (tests/support/trace_view_gui.py runs the app and says where things are
and what they show)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtGui import QImage

from tests.support.desktop import Desktop, missing_tools, wait_until
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
COLOURS = {"red": (220, 30, 30), "green": (30, 180, 60), "blue": (40, 60, 220)}
PAGE = """<!doctype html><title>Colours</title><style>body { margin: 0; height: 100vh; background: #fff; }
button { font: 20px sans-serif; margin: 20px 10px; }</style>
""" + "".join(f"<button id={name} onclick=\"document.body.style.background='rgb{rgb}'\">{name}</button>"
              for name, rgb in COLOURS.items())


class Gui:
    """tests/support/trace_view_gui.py in its own process on the desktop: its lines, and commands to it."""

    def __init__(self, desktop: Desktop, folder: Path, url: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "BROWSERPILOT_HOME")}
        env.update(desktop.env(), QTWEBENGINE_DISABLE_SANDBOX="1", BROWSERPILOT_LANG="en")
        self.errors = (folder / "gui.err").open("wb")
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.trace_view_gui", str(folder / "data"),
                                         url], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.errors, text=True)
        self.state: dict[str, Any] = {}

    def line(self, key: str, timeout: float = 90) -> Any:
        """The next line carrying `key` (state lines on the way are kept)."""
        assert self.process.stdout is not None
        while True:
            text = self.process.stdout.readline()
            if not text:
                raise AssertionError(f"the app ended before saying {key!r} ({self.process.poll()})")
            data = json.loads(text)
            if "state" in data:
                self.state = data["state"]
            if key in data:
                return data[key]

    def until(self, condition: Any, what: str) -> dict[str, Any]:
        while not condition(self.state):
            self.line("state")
        return self.state

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.poll() is None:
            self.send(quit=True)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.errors):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desktop]:
    missing = missing_tools()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    screen = Desktop(tmp_path_factory.mktemp("desktop")).start()
    try:
        yield screen
    finally:
        screen.stop()


def near(colour: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 40 for a, b in zip(colour, wanted))


def click(desktop: Desktop, place: list[int]) -> None:
    """A left click where a person would click: through the X server."""
    desktop.run("xdotool", "mousemove", str(place[0]), str(place[1]), "click", "1")


def colour_at(path: Path, x: int, y: int) -> tuple[int, int, int]:
    pixel = QImage(str(path)).pixelColor(x, y)
    return pixel.red(), pixel.green(), pixel.blue()


def test_choose_steps_on_the_filmstrip_and_play_the_video(desktop: Desktop, tmp_path: Path,
                                                          server: LocalServer) -> None:
    server.route("/colours", PAGE)
    gui = Gui(desktop, tmp_path, server.url("/colours"))
    try:
        run = gui.line("run")
        assert run["status"] == "ok" and run["video"]
        state = gui.until(lambda s: "runsTab" in s.get("navigation", {}), "the Runs tab")
        assert not state["onTrace"] and state["selectedRun"] is None  # the app opened on its first panel
        click(desktop, state["navigation"]["runsTab"])
        state = gui.until(lambda s: "runRow" in s["navigation"], "the run's row")
        click(desktop, state["navigation"]["runRow"])
        gui.until(lambda s: s["selectedRun"] == run["id"], "the run selected")
        click(desktop, gui.state["navigation"]["traceTab"])
        places = gui.line("places")  # said once the Trace tab shows this run's filmstrip
        steps = run["trace"]
        assert len(places["items"]) == len(steps) == 6
        for index, name in ((3, "green"), (2, "red"), (4, "blue")):
            click(desktop, places["items"][index])
            state = gui.until(lambda s, i=index: s.get("current") == i and s.get("afterShown"), f"step {index}")
            assert state["after"] == steps[index]["after"] and state["before"] == steps[index]["before"]
            shot = tmp_path / f"screen-{index}.png"
            gui.send(grab=str(shot))
            gui.line("grabbed")
            ax, ay = places["after"]  # the middle of the after picture, as the view shows it
            written = QImage(steps[index]["after"])
            middle = colour_at(Path(steps[index]["after"]), written.width() // 2, written.height() // 2)
            assert near(colour_at(shot, ax, ay), middle), (name, colour_at(shot, ax, ay), middle)
            if name == "blue":  # the last step's after picture is taken once what it did is drawn (the run's end
                # waits for it); an earlier one may be taken as the next click acts, before its colour is drawn
                assert near(middle, COLOURS[name]), (name, middle)
        click(desktop, places["play"])
        playing = gui.until(lambda s: (s.get("player") or {}).get("frames", 0) >= 3
                            and (s.get("player") or {}).get("position", 0) > 0, "the video playing")
        assert playing["player"]["visible"] and playing["player"]["title"] == f"Video of {run['id']}"
        wait_until(lambda: desktop.window_titled(f"Video of {run['id']}"), 10, "the player's window")
    finally:
        gui.close()
