"""Issue 35: the main window shows what agents, commands and schedules change, without a Refresh button.

The real app with its windows on a real desktop (Xvfb, openbox: tests/support/desktop.py), read as a person reads
it (screenshots read by tesseract: tests/support/screen_text.py) and used with real input (xdotool clicks on the
panels' tabs and rows). With each panel visible and one of its rows selected by a click, its store is changed
through MCP (an agent client's call) and through the command line (a verb the CLI forwards to the running app):
one second after the change answered, the screenshot shows the new row (or no longer shows the removed one) and
the row the person selected is still the selected one. Runs and agent runs cannot be deleted: their rows appear.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from app.mcp.client import forward_operation, wait_for_endpoint
from app.stores.settings import SettingsStore
from plumbing.datadir import DataDir
from tests.support.app_process import app_command, app_env, run_cli
from tests.support.desktop import Desktop, desktop, missing_tools, wait_until  # noqa: F401 (a fixture)
from tests.support.fake_anthropic import FakeAnthropic, Reply, tool
from tests.support.screen_text import TOOLS, Screen, Words, row_color

_missing = missing_tools() + [name for name in TOOLS if shutil.which(name) is None]
pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(bool(_missing), reason=f"no desktop tools: {', '.join(_missing)} "
                                                         "(./dev.sh setup installs them)")]

DEADLINE_S = 1.0  # the promise: a change shows within a second
# Parts of the main window read (left, top, width, height; a negative height leaves out the status bar): the
# line of the panels' tabs under the toolbar, and the panel under them (its buttons and its table).
TABS = (0, 30, 900, 60)
ROWS = (0, 95, 1100, -40)


def workflow(name: str) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start"}}, {"id": "end", "data": {"type": "end"}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": "start", "target": "end"}]}}}


@pytest.fixture(scope="module")
def model() -> Iterator[FakeAnthropic]:
    """The stand-in Messages API: each agent run says it is done at once (the judge passes it)."""
    with FakeAnthropic([Reply([tool("done", success=True, answer="done")]) for _ in range(2)]) as fake:
        yield fake


class Person:
    """The app's main window, and a person looking at it and clicking."""

    def __init__(self, desktop: Desktop, data: Path, folder: Path) -> None:
        self.desktop = desktop
        self.data = data
        self.screen = Screen(desktop.display, folder)
        self.window = wait_until(lambda: self.desktop.window_titled(r"^BrowserPilot$"), 60, "the main window")

    def look(self, part: tuple[int, int, int, int] | None = ROWS) -> tuple[Words, Any]:
        """Bring the main window to the front (it may be behind an environment window a run opened) and read
        `part` of it: its panel's rows, by default."""
        self.desktop.run("xdotool", "windowactivate", "--sync", str(self.window))
        return self.screen.read(self.window, part)

    def click(self, x: int, y: int) -> None:
        self.desktop.run("xdotool", "mousemove", "--sync", str(x), str(y), "click", "1")

    def show_panel(self, label: str, showing: str) -> None:
        """Click the panel's tab (its label's first word) until the panel shows `showing` (a click that comes
        while the app is still busy starting may be lost, and a person then clicks again)."""
        for _attempt in range(3):
            tab = wait_until(lambda: self.look(TABS)[0].find(label, ignore_case=True), 30, f"the tab {label!r}")
            self.click(*tab.center)
            try:
                wait_until(lambda: self.look()[0].has(showing), 6, f"{showing!r} in the {label} panel")
                return
            except AssertionError:
                continue
        raise AssertionError(f"the {label} panel does not show {showing!r}")

    def select(self, text: str) -> int:
        """Click the row that shows `text`; the colour its row has now (selected)."""
        words = wait_until(lambda: (seen := self.look()[0]).has(text) and seen, 10, f"a row {text!r}")
        target = words.find(text)
        assert target is not None
        self.click(*target.center)
        return wait_until(lambda: self._color_if_selected(text), 10, f"the row {text!r} selected")

    def _color_if_selected(self, text: str) -> int | None:
        words, image = self.look()
        word = words.find(text)
        if word is None:
            return None
        color = row_color(image, word)
        others = [row_color(image, other) for other in words
                  if other.left < word.left + 20 and abs(other.top - word.top) > word.height * 2 and
                  abs(other.left - word.left) < 20]
        return color if others and all(color != other for other in others) else None

    def after(self, change: Callable[[], Any]) -> tuple[Words, Any]:
        """Make the change (it has happened when the call answers), then look once the deadline has passed.
        The wait is the promise under test, not a synchronisation: the screen must show it by then."""
        change()
        answered = time.monotonic()
        time.sleep(max(0.0, DEADLINE_S - (time.monotonic() - answered)))
        return self.look()

    def mcp(self, operation: str, **params: Any) -> dict[str, Any]:
        result = forward_operation(DataDir(self.data), operation, params)
        assert result.get("ok"), result
        return result

    def cli(self, *args: str) -> dict[str, Any] | None:
        done = run_cli(self.data, *args, timeout=120, env=app_env(**self.desktop.env()))
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if "--json" in args else None


def still_selected(person: Person, words: Words, image: Any, text: str, color: int) -> None:
    word = words.find(text)
    assert word is not None, (text, [w.text for w in words])
    assert row_color(image, word) == color, f"{text!r} is no longer the selected row"


@pytest.fixture(scope="module")
def person(desktop: Desktop, model: FakeAnthropic, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Person]:
    folder = tmp_path_factory.mktemp("live-panels")
    data = folder / "data"
    data.mkdir()
    SettingsStore(DataDir(data)).update(welcome_shown=True)
    for name in ("Apple", "Banana"):
        (folder / f"{name}.json").write_text(json.dumps(workflow(name)))
        assert run_cli(data, "workflow", "import", str(folder / f"{name}.json")).returncode == 0
    for name in ("Lemon", "Melon"):
        assert run_cli(data, "env", "create", name).returncode == 0
    for name, time_of_day in (("Morning", "03:00"), ("Evening", "21:00")):
        assert run_cli(data, "schedule", "add", "Apple", "--name", name, "--daily", time_of_day).returncode == 0
    env = app_env(**desktop.env(), QTWEBENGINE_DISABLE_SANDBOX="1", BROWSERPILOT_LANG="en",
                  ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="test-key")
    with (folder / "app.log").open("wb") as log:
        process = subprocess.Popen([*app_command(), "--data-dir", str(data)], stdout=log, stderr=log,
                                   stdin=subprocess.DEVNULL, env=env)
    try:
        wait_for_endpoint(DataDir(data), timeout=90)
        yield Person(desktop, data, folder)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def comes_and_goes(person: Person, panel: str, chosen: str, other: str, new: str,
                   made_over_mcp: Callable[[], dict[str, Any]],
                   removed_by_cli: Callable[[dict[str, Any]], Any]) -> None:
    """With the panel shown and the row `chosen` selected by a click: a row `new` made over MCP shows, and goes
    when the command line removes it; `chosen` stays selected, `other` stays listed."""
    person.show_panel(panel, chosen)
    selected = person.select(chosen)
    made: dict[str, Any] = {}
    words, image = person.after(lambda: made.update(made_over_mcp()))
    assert words.has(new), [w.text for w in words]
    still_selected(person, words, image, chosen, selected)
    words, image = person.after(lambda: removed_by_cli(made))
    assert not words.has(new) and words.has(other), [w.text for w in words]
    still_selected(person, words, image, chosen, selected)


def test_the_workflows_panel_follows_an_agent_and_the_command_line(person: Person) -> None:
    comes_and_goes(person, "Workflows", "Banana", "Apple", "Cherry",
                   lambda: person.mcp("workflow_write", workflow=workflow("Cherry")),
                   lambda _made: person.cli("workflow", "delete", "Cherry"))


def test_the_environments_panel_follows(person: Person) -> None:
    comes_and_goes(person, "Environments", "Melon", "Lemon", "Olive",
                   lambda: person.mcp("env_create", name="Olive"),
                   lambda made: person.cli("env", "delete", made["env"]))


def test_the_schedules_panel_follows(person: Person) -> None:
    comes_and_goes(person, "Schedules", "Evening", "Morning", "Noon",
                   lambda: person.mcp("schedule_create", workflow="Apple", name="Noon", daily="12:00"),
                   lambda made: person.cli("schedule", "remove", made["schedule"]["id"]))


def test_the_runs_panel_follows(person: Person) -> None:
    person.show_panel("Runs", "yet")
    words, _image = person.after(lambda: person.mcp("workflow_run", name="Apple"))
    assert words.has("Apple"), [w.text for w in words]
    selected = person.select("Apple")
    words, image = person.after(lambda: person.cli("run", "Banana", "--json"))
    assert words.has("Banana"), [w.text for w in words]
    still_selected(person, words, image, "Apple", selected)


def test_the_agent_runs_panel_follows(person: Person, model: FakeAnthropic) -> None:
    person.show_panel("Agent", "yet")
    words, _image = person.after(lambda: person.mcp("agent_run", task="Kiwi"))
    assert words.has("Kiwi"), [w.text for w in words]
    selected = person.select("Kiwi")
    words, image = person.after(lambda: person.cli("agent", "Papaya", "--json"))
    assert words.has("Papaya"), [w.text for w in words]
    still_selected(person, words, image, "Kiwi", selected)
    assert model.problems == []
