"""The real windows, offscreen: environments panel, environment windows, tabs and popups."""

from __future__ import annotations

from pathlib import Path

import shiboken6

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox
import pytest
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui.env_panel import NewEnvironmentDialog
from tests.support.qt import click_element, open_view, run_js, run_op, wait_loaded, window_of
from tests.support.server import LocalServer


@pytest.fixture
def shell(windowed_shell: BrowserPilotApp) -> BrowserPilotApp:
    """These tests look at environment windows: the app shows its tabs in them (offscreen)."""
    return windowed_shell


def answer_dialog(qtbot: QtBot, fill: object) -> None:
    """Fill and accept the next modal dialog once it is shown."""

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, act)
            return
        fill(dialog)  # type: ignore[operator]

    QTimer.singleShot(0, act)


def test_create_an_environment_in_the_main_window(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    panel = shell.main_window.environments  # type: ignore[union-attr]

    def fill(dialog: NewEnvironmentDialog) -> None:
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert not ok.isEnabled()  # an empty name cannot be submitted
        dialog.name.setText("Shopping")
        dialog.remark.setPlainText("bob@example.com")
        ok.click()

    answer_dialog(qtbot, fill)
    panel.buttons["new"].click()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)
    created = next(env for env in shell.envs.list() if env.name == "Shopping")
    assert created.remark == "bob@example.com"
    qtbot.waitUntil(lambda: panel.selected_env() is not None and panel.selected_env().id == created.id)
    assert panel.buttons["delete"].isEnabled()
    panel.select_env("env-default")
    assert not panel.buttons["delete"].isEnabled()


def test_errors_from_the_gui_are_shown_and_change_nothing(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    panel = shell.main_window.environments  # type: ignore[union-attr]
    shown: list[str] = []

    def fill(dialog: NewEnvironmentDialog) -> None:
        dialog.name.setText("Default")  # same name as env-default
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        answer_dialog(qtbot, lambda box: (shown.append(box.text()), box.accept()))

    answer_dialog(qtbot, fill)
    panel.buttons["new"].click()
    qtbot.waitUntil(lambda: bool(shown))
    assert "already exists" in shown[0]
    assert len(shell.envs.list()) == 1


def test_environment_window_tabs_and_target_blank(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/", '<title>Start page</title><a id=out href="/other" target="_blank" '
                      'style="display:block;width:300px;height:80px">open in new tab</a>')
    server.route("/other", "<title>Other page</title><p>other</p>")
    env = shell.envs.create("Tabs")
    panel = shell.main_window.environments  # type: ignore[union-attr]
    panel.select_env(env.id)
    panel.buttons["open"].click()
    window = window_of(shell, env.id)
    assert window.windowTitle() == "Tabs — BrowserPilot"
    assert len(window.tab_list()) == 1

    # Open the page in the first tab through the address bar.
    window.address.setText(server.url("/")[len("http://"):])
    window.address.returnPressed.emit()
    tab = window.current_tab()
    qtbot.waitUntil(lambda: tab.title() == "Start page", timeout=15_000)
    wait_loaded(qtbot, tab)
    assert window.tabs.tabText(0) == "Start page"
    assert window.windowTitle() == "Start page — Tabs — BrowserPilot"

    # New tab (Ctrl+T) and close it again.
    new_tab_action = next(a for a in window.actions() if a.text() == "New Tab")
    new_tab_action.trigger()
    assert len(window.tab_list()) == 2
    window.tabs.tabCloseRequested.emit(window.tabs.currentIndex())
    qtbot.waitUntil(lambda: len(window.tab_list()) == 1)
    window.tabs.setCurrentIndex(0)

    # A person's click on a target=_blank link opens a tab of the same window, with the same login.
    click_element(qtbot, tab, "#out")
    qtbot.waitUntil(lambda: len(window.tab_list()) == 2, timeout=10_000)
    popup = window.current_tab()
    assert popup is not tab and popup.env_id == tab.env_id
    qtbot.waitUntil(lambda: popup.title() == "Other page", timeout=15_000)
    assert popup.page().profile() is tab.page().profile()
    assert server.hits("/other")

    # Reordering tabs keeps them working.
    window.tabs.tabBar().moveTab(1, 0)
    assert window.tab_list()[0] is popup

    # The visit is remembered for the environment.
    assert shell.envs.get(env.id).sites[0].domain == "127.0.0.1"


def test_window_follows_renames_and_closes_on_delete(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                                      data_dir: Path) -> None:
    server.route("/", "<title>Cookie</title><script>document.cookie='k=v; max-age=3600'</script>")
    env = shell.envs.create("Temp")
    tab = open_view(shell, env.id, server.url("/"))
    wait_loaded(qtbot, tab)
    assert run_js(qtbot, tab, "document.cookie") == "k=v"
    window = window_of(shell, env.id)
    assert run_op(qtbot, shell, "env_update", {"env": env.id, "name": "Temporary"})["ok"]
    qtbot.waitUntil(lambda: window.windowTitle().endswith("Temporary — BrowserPilot"))  # the window follows the store

    partition = data_dir / "partitions" / env.id
    assert partition.exists()
    result = run_op(qtbot, shell, "env_delete", {"env": env.id})
    assert result["ok"], result
    qtbot.waitUntil(lambda: not shiboken6.isValid(window))
    assert env.id not in shell.windows.windows
    # Renamed aside at once; what Chromium writes back while tearing the profile down is swept up soon after.
    qtbot.waitUntil(lambda: not partition.exists())
    qtbot.wait(500)
    assert not partition.exists()  # nothing comes back after the profile is gone


def test_delete_asks_for_confirmation(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    env = shell.envs.create("Keep")
    panel = shell.main_window.environments  # type: ignore[union-attr]
    panel.select_env(env.id)
    answer_dialog(qtbot, lambda box: box.button(QMessageBox.StandardButton.Cancel).click())
    panel.buttons["delete"].click()
    assert shell.envs.exists(env.id)
    answer_dialog(qtbot, lambda box: box.button(QMessageBox.StandardButton.Yes).click())
    panel.buttons["delete"].click()
    qtbot.waitUntil(lambda: not shell.envs.exists(env.id))
