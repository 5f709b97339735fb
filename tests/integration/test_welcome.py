"""The first-run welcome: on a fresh data folder the app with windows shows it once (the data folder, the
MCP configuration for each client with a Copy button, the README link), and not again after a restart."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.support.qt import running_app



def test_the_welcome_shows_once_per_data_folder(qapp: QApplication, qtbot: QtBot, data_dir: Path) -> None:
    with running_app(qapp, data_dir, headless=False) as app:
        window = app.main_window
        assert window is not None
        welcome = window.welcome
        assert welcome is not None
        qtbot.waitUntil(welcome.isVisible)
        assert welcome.data_folder.text() == str(data_dir)
        assert list(welcome.config_texts) == ["Claude Desktop (stdio)", "Claude Code (HTTP)", "Cursor (HTTP)"]
        desktop = json.loads(welcome.config_texts["Claude Desktop (stdio)"].toPlainText())
        assert desktop["mcpServers"]["browserpilot"]["args"] == ["mcp", "--data-dir", str(data_dir)]
        welcome.tools.choose("full")  # every tool, for clients that take them all
        desktop = json.loads(welcome.config_texts["Claude Desktop (stdio)"].toPlainText())
        assert desktop["mcpServers"]["browserpilot"]["args"] == ["mcp", "--tools", "full", "--data-dir", str(data_dir)]
        assert "?tools=full" in welcome.config_texts["Cursor (HTTP)"].toPlainText()
        welcome.tools.choose("core")
        welcome.copy_buttons["Claude Code (HTTP)"].click()
        copied = QApplication.clipboard().text()
        assert copied.startswith("claude mcp add --transport http browserpilot http://127.0.0.1:")
        assert f"Bearer {app.mcp.token()}" in copied and "Claude Code" in welcome.note.text()
        assert "README" in welcome.readme.text()
        welcome.accept()
        qtbot.waitUntil(lambda: window.welcome is None)
        # Help → Welcome shows it again whenever asked.
        window.actions_by_name["welcome"].trigger()
        assert window.welcome is not None and window.welcome.isVisible()
        window.welcome.reject()

    assert json.loads((data_dir / "settings.json").read_text("utf-8"))["welcomeShown"] is True  # remembered
    with running_app(qapp, data_dir, headless=False) as again:  # a restart on the same folder: no welcome
        assert again.main_window is not None and again.main_window.welcome is None
