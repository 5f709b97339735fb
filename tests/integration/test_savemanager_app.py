"""The app's stores write off the Qt thread: deleting an environment returns before its Chromium profile is gone
(the folder is renamed aside at once), a change waiting out the debounce is on disk after shutdown, and a
failed write is shown in the main window while the change stays."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from plumbing.jsonstore import JsonStore
from envs.model import EnvsDocument
from tests.support.qt import open_view, run_op, running_app, wait_loaded, window_of
from tests.support.server import LocalServer


@pytest.fixture
def shell(windowed_shell: BrowserPilotApp) -> BrowserPilotApp:
    """These tests look at environment windows: the app shows its tabs in them (offscreen)."""
    return windowed_shell


def names_on_disk(path: Path) -> list[str]:
    return [env.name for env in JsonStore(path, EnvsDocument, EnvsDocument).load().document.environments]


def test_deleting_an_environment_returns_before_its_profile_is_gone(qtbot: QtBot, shell: BrowserPilotApp,
                                                                    server: LocalServer, data_dir: Path) -> None:
    server.route("/", "<title>Cookie</title><script>document.cookie='k=v; max-age=3600'</script>")
    env = shell.envs.create("Temp")
    tab = open_view(shell, env.id, server.url("/"))
    wait_loaded(qtbot, tab)
    window = window_of(shell, env.id)
    partition = data_dir / "partitions" / env.id
    assert partition.exists()
    entered, release = threading.Event(), threading.Event()
    shell.saves.run(lambda: (entered.set(), release.wait(30)), "hold the saver")  # the worker is busy
    assert entered.wait(10)
    try:
        result = run_op(qtbot, shell, "env_delete", {"env": env.id})
        assert result["ok"], result
        qtbot.waitUntil(lambda: not shiboken6.isValid(window))
        trash = [p for p in (data_dir / "partitions").iterdir() if p.name.startswith(".trash-")]
        assert len(trash) == 1 and (trash[0] / "Cookies").exists()  # renamed aside at once, still there ...
        assert env.id not in [e["id"] for e in run_op(qtbot, shell, "env_list", {})["environments"]]
    finally:
        release.set()

    def gone() -> bool:  # ... until the saver's thread removed it (and whatever Chromium wrote back late)
        return not partition.exists() and not any(p.name.startswith(".trash-")
                                                  for p in (data_dir / "partitions").iterdir())

    qtbot.waitUntil(gone, timeout=20_000)


def test_a_change_waiting_out_the_debounce_is_saved_at_shutdown(qapp: QApplication, qtbot: QtBot,
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with running_app(qapp, folder, windows=True) as app:
        first = run_op(qtbot, app, "env_create", {"name": "First"})
        qtbot.waitUntil(lambda: "First" in names_on_disk(app.data.envs_json))
        app.saves.delay = 3600.0  # envs.json was just written: nothing but the exit may write the next change
        second = run_op(qtbot, app, "env_create", {"name": "Second"})
        assert first["ok"] and second["ok"]
        assert "Second" not in names_on_disk(app.data.envs_json)  # memory is ahead of the disk ...
        assert "Second" in [e["name"] for e in run_op(qtbot, app, "env_list", {})["environments"]]
        app.shutdown()  # what the app's aboutToQuit does
        assert names_on_disk(app.data.envs_json) == ["Default", "First", "Second"]  # ... until the exit
        assert app.exit_status == 0


def test_a_failed_write_is_shown_and_the_change_kept(qapp: QApplication, qtbot: QtBot, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data"
    with running_app(qapp, folder, windows=True) as app:
        app.saves.flush()

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "fsync", full)
        created = run_op(qtbot, app, "env_create", {"name": "Kept"})
        assert created["ok"]
        assert app.main_window is not None
        bar = app.main_window.statusBar()
        qtbot.waitUntil(lambda: "No space left on device" in bar.currentMessage())
        assert bar.currentMessage().startswith("Not saved yet: cannot write")
        assert "Kept" in [e["name"] for e in run_op(qtbot, app, "env_list", {})["environments"]]
        assert names_on_disk(app.data.envs_json) == ["Default"]
        monkeypatch.undo()
        assert app.saves.flush() == {}
        assert json.loads(app.data.envs_json.read_text("utf-8"))["environments"][1]["name"] == "Kept"
