"""The settings dialog's MCP section, in process: status and URL, copy token, regenerate, switch off and on."""

from __future__ import annotations

import json

import httpx
import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from app.mcp import config
from app.wiring.shell import BrowserPilotApp
from app.ui.main_window import SettingsDialog
from tests.support.qt import saved


def initialize(url: str, token: str) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    try:
        response = httpx.post(url, json=body, timeout=5, trust_env=False,
                              headers={"Authorization": f"Bearer {token}",
                                       "Accept": "application/json, text/event-stream"})
    except httpx.ConnectError:
        return 0
    return response.status_code


def button(parent: QWidget, name: str) -> QPushButton:
    found = parent.findChild(QPushButton, name)
    assert found is not None, name
    return found


def test_settings_dialog_shows_and_controls_the_mcp_server(qtbot: QtBot, shell: BrowserPilotApp,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    shell.start_mcp()
    qtbot.waitUntil(lambda: shell.mcp.status == "running", timeout=20_000)
    url = shell.mcp.url
    assert url is not None and url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

    dialog = SettingsDialog(shell.data, shell.main_window, mcp=shell.mcp)
    qtbot.addWidget(dialog)
    section = dialog.mcp_section
    assert section is not None
    assert section.status.text() == f"Running at {url}"
    assert section.enabled.isChecked()
    choices = [section.choice.itemText(i) for i in range(section.choice.count())]
    assert choices == ["Claude Desktop (stdio)", "Claude Code (HTTP)", "Cursor (HTTP)"]
    token = shell.mcp.token()
    section.choice.setCurrentText("Claude Code (HTTP)")
    assert section.config.toPlainText() == (f"claude mcp add --transport http browserpilot {url} "
                                            f'--header "Authorization: Bearer {token}"')
    section.choice.setCurrentText("Claude Desktop (stdio)")
    desktop = json.loads(section.config.toPlainText())["mcpServers"]["browserpilot"]
    assert desktop["args"] == ["mcp", "--data-dir", str(shell.data.root)]

    # The tool profile: the configurations ask for it (the default, core, needs nothing).
    assert section.tools.profile == "core" and "tools_enable" in section.tools.hint.text()
    section.tools.choose("original")
    assert "original BrowserPilot" in section.tools.hint.text()
    desktop = json.loads(section.config.toPlainText())["mcpServers"]["browserpilot"]
    assert desktop["args"] == ["mcp", "--tools", "original", "--data-dir", str(shell.data.root)]
    section.choice.setCurrentText("Cursor (HTTP)")
    original_url = json.loads(section.config.toPlainText())["mcpServers"]["browserpilot"]["url"]
    assert original_url == f"{url}?tools=original" and initialize(original_url, token) == 200
    section.tools.choose("core")
    section.choice.setCurrentText("Claude Desktop (stdio)")
    assert json.loads(section.config.toPlainText())["mcpServers"]["browserpilot"]["args"][1] == "--data-dir"

    button(section, "mcp-copy-token").click()
    assert QApplication.clipboard().text() == token
    assert initialize(url, token) == 200

    monkeypatch.setattr(QMessageBox, "question", lambda *args, **kwargs: QMessageBox.StandardButton.Yes)
    button(section, "mcp-regenerate").click()
    renewed = shell.mcp.token()
    assert renewed != token and config.read_mcp_file(shell.data).token == renewed  # type: ignore[union-attr]
    section.choice.setCurrentText("Cursor (HTTP)")
    cursor = json.loads(section.config.toPlainText())["mcpServers"]["browserpilot"]
    assert cursor == {"url": url, "headers": {"Authorization": f"Bearer {renewed}"}}
    assert initialize(url, token) == 401 and initialize(url, renewed) == 200

    section.enabled.setChecked(False)  # returns at once: the server stops on a thread of its own
    assert shell.mcp.status == "off" and section.status.text() == "Off"
    saved(qtbot, shell)  # settings.json is written off the Qt thread
    assert json.loads(shell.data.settings_json.read_text())["mcpEnabled"] is False
    qtbot.waitUntil(lambda: config.read_mcp_file(shell.data).pid is None, timeout=20_000)  # type: ignore[union-attr]
    assert initialize(url, renewed) == 0  # nothing listens any more

    # Off and on again at once: the new server starts once the old one has let go of the port.
    section.enabled.setChecked(True)
    section.enabled.setChecked(False)
    section.enabled.setChecked(True)
    qtbot.waitUntil(lambda: section.status.text().startswith("Running at "), timeout=20_000)
    saved(qtbot, shell)  # settings.json is written off the Qt thread
    assert json.loads(shell.data.settings_json.read_text())["mcpEnabled"] is True
    assert initialize(shell.mcp.url or "", renewed) == 200
    dialog.done(0)


def test_settings_dialog_sets_the_idle_exit_of_an_app_started_for_agents(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    dialog = SettingsDialog(shell.data, shell.main_window, mcp=shell.mcp)
    qtbot.addWidget(dialog)
    minutes = dialog.findChild(QSpinBox, "idle-exit-minutes")
    assert minutes is not None and minutes.value() == 10 and minutes.isVisibleTo(dialog)
    minutes.setValue(25)
    saved(qtbot, shell)  # settings.json is written off the Qt thread
    assert json.loads(shell.data.settings_json.read_text())["idleExitMinutes"] == 25
    assert shell.mcp.idle.state()["idleExit"]["wontStopBecause"] == "started by a person: it never quits by itself"
    minutes.setValue(0)
    assert minutes.text() == "Never" and shell.settings.current.idle_exit_minutes == 0
    assert shell.mcp.idle.state()["idleExit"]["timeoutSeconds"] is None
    minutes.setValue(10)

    settle = dialog.findChild(QSpinBox, "settle-seconds")
    assert settle is not None and settle.value() == 10 and settle.isVisibleTo(dialog)
    settle.setValue(3)
    saved(qtbot, shell)  # settings.json is written off the Qt thread
    assert json.loads(shell.data.settings_json.read_text())["settleSeconds"] == 3
    assert shell.ctx.settle_seconds() == 3
    settle.setValue(0)
    assert settle.text() == "Don't wait"
    dialog.done(0)


def test_the_desktop_adds_its_section_to_the_settings_dialog(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    """The tray, notifications and start at login live in app/desktop, above the windows: it hands the main window
    its section (the windows do not import it), and the dialog File → Settings opens shows it."""
    from PySide6.QtWidgets import QCheckBox

    from app.desktop.settings_section import DesktopSection

    main = shell.main_window
    assert main is not None and DesktopSection in main.settings_sections
    dialog = SettingsDialog(shell.data, main, mcp=shell.mcp, sections=main.settings_sections)
    qtbot.addWidget(dialog)
    keep = dialog.findChild(QCheckBox, "keep-in-tray")
    assert keep is not None and dialog.findChild(QCheckBox, "start-at-login") is not None
    before = shell.settings.current.keep_in_tray
    keep.click()
    assert shell.settings.current.keep_in_tray is (not before)
    keep.click()
    assert shell.settings.current.keep_in_tray is before
