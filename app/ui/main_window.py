"""The app's own window: panels (Environments now; Workflows and Runs come later), menus and shortcuts."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.ui.env_panel import EnvironmentsPanel
from app.ui.op_runner import OpRunner
from envs.datadir import DataDir
from envs.store import EnvStore


class AboutDialog(QDialog):
    """About and settings: the version, where the data lives, the log file."""

    def __init__(self, data: DataDir, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About BrowserPilot")
        title = QLabel(f"<h2>BrowserPilot {__version__}</h2>"
                       "<p>One shared, persistent, multi-environment browser for people and AI agents.</p>", self)
        title.setWordWrap(True)
        self.data_folder = QLabel(str(data.root), self)
        self.data_folder.setObjectName("data-folder")
        self.data_folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        log_file = QLabel(str(data.logs / "browserpilot.log"), self)
        log_file.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        form.addRow("Data folder:", self.data_folder)
        form.addRow("Log file:", log_file)
        open_folder = QPushButton("Open Data Folder", self)
        open_folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(data.root))))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(open_folder, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(buttons)


class MainWindow(QMainWindow):
    def __init__(self, data: DataDir, store: EnvStore, ops: OpRunner, open_env: Callable[[str], None],
                 quit_app: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = data
        self._quit_app = quit_app
        self.setObjectName("main-window")
        self.setWindowTitle("BrowserPilot")
        self.resize(980, 620)
        self.panels = QTabWidget(self)
        self.panels.setObjectName("panels")
        self.panels.setDocumentMode(True)
        self.environments = EnvironmentsPanel(store, ops, self)
        self.environments.open_requested.connect(open_env)
        self.panels.addTab(self.environments, "Environments")
        self.setCentralWidget(self.panels)
        self._build_menus()
        self.statusBar().showMessage(f"Data folder: {data.root}")

    def _add(self, menu_name: str, text: str, shortcut: QKeySequence | str | None, handler: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: handler())
        self._menus[menu_name].addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self._menus = {name: bar.addMenu(label) for name, label in
                       (("file", "&File"), ("env", "&Environment"), ("help", "&Help"))}
        panel = self.environments
        self._add("file", "&New Environment…", QKeySequence.StandardKey.New, panel.create_environment)
        self._add("file", "&Settings and Data Folder…", QKeySequence.StandardKey.Preferences, self.show_about)
        self._add("file", "Open &Data Folder", None,
                  lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.data.root))))
        self._menus["file"].addSeparator()
        self._add("file", "&Quit", QKeySequence.StandardKey.Quit, self._quit_app)
        self._add("env", "&Open", "Ctrl+O", panel.open_selected)
        self._add("env", "&Rename…", "F2", panel.rename_selected)
        self._add("env", "Edit Re&mark…", "Ctrl+E", panel.edit_remark_selected)
        self._add("env", "&Delete…", QKeySequence.StandardKey.Delete, panel.delete_selected)
        self._add("help", "&About BrowserPilot", "F1", self.show_about)

    def show_about(self) -> None:
        AboutDialog(self.data, self).exec()
