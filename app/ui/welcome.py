"""The first-run welcome: where the data lives, how to connect an AI agent over MCP, where to read more.

Shown once per data folder (`Settings.welcome_shown`, set when it is first shown) by the main window, and
again on Help → Welcome. The MCP configurations are the MCP service's own (`McpService.configs`, built by
`app.mcp.config.client_configs`), one block per client with a Copy button, for the tool profile chosen above
them (core by default; full; the original BrowserPilot's tools).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import app as app_package
from app.ui.empty_state import PANEL_STYLE
from app.ui.screen_fit import fit_on_screen
from app.ui.theme import icon
from app.ui.tool_profile_choice import ToolProfileChoice
from plumbing.datadir import DataDir

if TYPE_CHECKING:
    from app.mcp.service import McpService


def readme_url() -> QUrl | None:
    """The README next to the app's package (a checkout or a bundle that ships it), or None."""
    readme = Path(app_package.__file__).resolve().parent.parent / "README.md"
    return QUrl.fromLocalFile(str(readme)) if readme.is_file() else None


class WelcomeDialog(QDialog):
    """Welcome to BrowserPilot: the data folder, the MCP configuration for the usual clients, the README."""

    def __init__(self, data: DataDir, mcp: "McpService | None", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setWindowTitle(self.tr("Welcome to BrowserPilot"))
        self.setStyleSheet(PANEL_STYLE)
        title = QLabel(self.tr("Welcome to BrowserPilot"), self)
        title.setObjectName("welcome-title")
        intro = QLabel(self.tr("One shared browser for you and your AI agents: environments keep their own logins, "
                               "workflows replay what you or an agent did, and every run is recorded."), self)
        intro.setWordWrap(True)

        data_heading = QLabel(self.tr("Your data folder"), self)
        data_heading.setObjectName("welcome-section")
        self.data_folder = QLabel(str(data.root), self)
        self.data_folder.setObjectName("welcome-data-folder")
        self.data_folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.data_folder.setWordWrap(True)
        open_folder = QPushButton(icon("folder-open"), self.tr("Open Folder"), self)
        open_folder.setObjectName("welcome-open-folder")
        open_folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(data.root))))
        data_row = QHBoxLayout()
        data_row.addWidget(self.data_folder, 1)
        data_row.addWidget(open_folder)
        data_hint = QLabel(self.tr("Environments, workflows, runs and settings are kept here. Start with "
                                   "--data-dir or BROWSERPILOT_HOME to use another folder."), self)
        data_hint.setProperty("role", "hint")
        data_hint.setWordWrap(True)

        mcp_heading = QLabel(self.tr("Connect an AI agent (MCP)"), self)
        mcp_heading.setObjectName("welcome-section")
        mcp_hint = QLabel(self.tr("Paste one of these into your agent's configuration. The HTTP ones reach this app "
                                  "while it runs; the stdio one starts it when needed."), self)
        mcp_hint.setWordWrap(True)
        mcp_hint.setProperty("role", "hint")
        self.mcp = mcp
        self.tools = ToolProfileChoice(self)
        self.tools.changed.connect(self._show_configs)
        self.configs = QTabWidget(self)
        self.configs.setObjectName("welcome-configs")
        self.copy_buttons: dict[str, QPushButton] = {}
        self.config_texts: dict[str, QPlainTextEdit] = {}
        for client, text in (mcp.configs() if mcp is not None else {}).items():
            self._add_config(client, text)
        self.note = QLabel(self)
        self.note.setObjectName("welcome-note")
        self.note.setProperty("role", "note")

        url = readme_url()
        self.readme = QLabel(self)
        self.readme.setObjectName("welcome-readme")
        self.readme.setOpenExternalLinks(True)
        self.readme.setTextFormat(Qt.TextFormat.RichText)
        if url is not None:
            self.readme.setText(self.tr('Read the <a href="{url}">README</a> for the environments, workflows, the '
                                        'command line and every MCP tool.').format(url=url.toString()))
        else:
            self.readme.setText(self.tr("The README (in the source distribution) describes the environments, "
                                        "workflows, the command line and every MCP tool."))

        buttons = QDialogButtonBox(self)
        start = buttons.addButton(self.tr("Get Started"), QDialogButtonBox.ButtonRole.AcceptRole)
        start.setObjectName("welcome-start")
        start.setIcon(icon("circle-check"))
        buttons.accepted.connect(self.accept)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 16)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addSpacing(6)
        layout.addWidget(data_heading)
        layout.addLayout(data_row)
        layout.addWidget(data_hint)
        layout.addSpacing(6)
        layout.addWidget(mcp_heading)
        layout.addWidget(mcp_hint)
        layout.addWidget(self.tools)
        layout.addWidget(self.configs, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.readme)
        layout.addWidget(buttons)
        hint = self.sizeHint()  # the texts wrap longer in some languages (Chinese): the dialog grows, not the box
        fit_on_screen(self, max(660, hint.width()), max(620, hint.height()))

    def _add_config(self, client: str, text: str) -> None:
        page = QWidget(self)
        editor = QPlainTextEdit(text, page)
        editor.setObjectName("welcome-config")
        editor.setReadOnly(True)
        copy = QPushButton(icon("copy"), self.tr("Copy"), page)
        copy.setObjectName("welcome-copy")
        copy.clicked.connect(lambda: self._copy(client, editor.toPlainText()))
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(copy)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(editor, 1)
        layout.addLayout(row)
        # The whole configuration shows without a scroll bar (it is meant to be read and copied).
        lines = max(1, text.count("\n") + 1)
        editor.setMinimumHeight(editor.fontMetrics().lineSpacing() * lines + 2 * editor.frameWidth()
                                + int(editor.document().documentMargin() * 2) + 6)
        self.configs.addTab(page, client)
        self.copy_buttons[client] = copy
        self.config_texts[client] = editor

    def _show_configs(self, profile: str) -> None:
        """The configurations for another tool profile, in the same blocks."""
        if self.mcp is None:
            return
        for client, text in self.mcp.configs(profile=profile).items():
            if client in self.config_texts:
                self.config_texts[client].setPlainText(text)

    def _copy(self, client: str, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.note.setText(self.tr("Copied the configuration for {client}.").format(client=client))
