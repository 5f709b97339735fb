"""The app's own window: panels (Environments, Workflows, Runs), menus and shortcuts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.ui.env_panel import EnvironmentsPanel
from app.ui.op_runner import OpRunner
from app.ui.agent_runs_panel import AgentRunsPanel
from app.ui.runs_panel import RunsPanel
from app.ui.workflows_panel import WorkflowsPanel
from envs.datadir import DataDir
from envs.store import EnvStore

if TYPE_CHECKING:
    from app.mcp.service import McpService


class McpSection(QGroupBox):
    """The MCP server in the settings: on/off, status and URL, the token, ready-to-paste client configurations."""

    def __init__(self, mcp: "McpService", parent: QWidget | None = None) -> None:
        super().__init__("MCP server for AI agents", parent)
        self.mcp = mcp
        self.enabled = QCheckBox("Serve MCP to agents on this computer (127.0.0.1 only, with a token)", self)
        self.enabled.setObjectName("mcp-enabled")
        self.enabled.setChecked(mcp.enabled)
        self.enabled.toggled.connect(self._toggle)
        self.status = QLabel(self)
        self.status.setObjectName("mcp-status")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setWordWrap(True)
        copy_token = QPushButton("Copy Token", self)
        copy_token.setObjectName("mcp-copy-token")
        copy_token.clicked.connect(lambda: self._copy(self.mcp.token(), "Token copied"))
        regenerate = QPushButton("Regenerate Token…", self)
        regenerate.setObjectName("mcp-regenerate")
        regenerate.clicked.connect(self._regenerate)
        self.choice = QComboBox(self)
        self.choice.setObjectName("mcp-config-choice")
        self.choice.currentIndexChanged.connect(lambda _index: self._show_config())
        self.config = QPlainTextEdit(self)
        self.config.setObjectName("mcp-config")
        self.config.setReadOnly(True)
        self.config.setMinimumHeight(120)
        copy_config = QPushButton("Copy Configuration", self)
        copy_config.setObjectName("mcp-copy-config")
        copy_config.clicked.connect(lambda: self._copy(self.config.toPlainText(), "Configuration copied"))
        self.note = QLabel(self)
        token_row = QHBoxLayout()
        token_row.addWidget(copy_token)
        token_row.addWidget(regenerate)
        token_row.addStretch(1)
        config_row = QHBoxLayout()
        config_row.addWidget(QLabel("Client:", self))
        config_row.addWidget(self.choice, 1)
        config_row.addWidget(copy_config)
        layout = QVBoxLayout(self)
        layout.addWidget(self.enabled)
        layout.addWidget(self.status)
        layout.addLayout(token_row)
        layout.addLayout(config_row)
        layout.addWidget(self.config)
        layout.addWidget(self.note)
        self._configs: dict[str, str] = {}
        self.detach = mcp.subscribe(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        status = self.mcp.status
        if status == "running":
            self.status.setText(f"Running at {self.mcp.url}")
        elif status == "starting":
            self.status.setText(f"Starting at {self.mcp.url}…")
        elif status == "failed":
            self.status.setText(f"Not running: {self.mcp.problem}")
        else:
            self.status.setText("Off" if not self.mcp.enabled else "Not running")
        configs = self.mcp.configs()
        chosen = self.choice.currentText()
        self.choice.blockSignals(True)
        self.choice.clear()
        self.choice.addItems(list(configs))
        if chosen in configs:
            self.choice.setCurrentText(chosen)
        self.choice.blockSignals(False)
        self._configs = configs
        self._show_config()

    def _show_config(self) -> None:
        self.config.setPlainText(self._configs.get(self.choice.currentText(), ""))

    def _toggle(self, on: bool) -> None:
        self.mcp.set_enabled(on)
        self.note.setText("")

    def _regenerate(self) -> None:
        answer = QMessageBox.question(self, "Regenerate MCP Token",
                                      "Make a new token? Clients configured with the current token stop working "
                                      "until you paste the new configuration.")
        if answer == QMessageBox.StandardButton.Yes:
            self.mcp.regenerate_token()
            self.note.setText("New token made: update your clients' configuration.")

    def _copy(self, text: str, message: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.note.setText(message)


class AboutDialog(QDialog):
    """About and settings: the version, where the data lives, the log file, the MCP server."""

    def __init__(self, data: DataDir, parent: QWidget | None = None, mcp: "McpService | None" = None) -> None:
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
        self.mcp_section = McpSection(mcp, self) if mcp is not None else None
        if self.mcp_section is not None:
            layout.addWidget(self.mcp_section)
            self.finished.connect(lambda _result: self.mcp_section.detach() if self.mcp_section else None)
        layout.addWidget(buttons)


class MainWindow(QMainWindow):
    run_saved = Signal(object)  # a RunRecord was written (the app's run_saved): the Workflows and Runs panels follow
    new_workflow_requested = Signal(str)        # a name: open the editor on a new workflow
    runs_panel_overlay_requested = Signal(str)  # a run id: show it on its workflow's graph

    def __init__(self, data: DataDir, store: EnvStore, ops: OpRunner, open_env: Callable[[str], None],
                 quit_app: Callable[[], None], parent: QWidget | None = None, *,
                 mcp: "McpService | None" = None) -> None:
        super().__init__(parent)
        self.data = data
        self.mcp = mcp
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
        self.workflows_panel = WorkflowsPanel(ops, self)
        self.panels.addTab(self.workflows_panel, "Workflows")
        self.runs_panel = RunsPanel(ops, self)
        self.panels.addTab(self.runs_panel, "Runs")
        self.agent_runs_panel = AgentRunsPanel(ops, self)
        self.panels.addTab(self.agent_runs_panel, "Agent runs")
        self.run_saved.connect(self.workflows_panel.on_run_saved)
        self.run_saved.connect(self.runs_panel.on_run_saved)
        self.workflows_panel.show_run_requested.connect(self.show_run)
        self.runs_panel.overlay_requested.connect(self.runs_panel_overlay_requested)
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
        self._add("file", "New &Workflow…", "Ctrl+Shift+N", self.ask_new_workflow)
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

    def ask_new_workflow(self) -> None:
        """File → New Workflow: its name, then the editor with a start and an end node."""
        from PySide6.QtWidgets import QInputDialog

        name, ok = QInputDialog.getText(self, "New Workflow", "Name of the new workflow:")
        if ok and name.strip():
            self.new_workflow_requested.emit(name.strip())

    def show_run(self, run_id: str) -> None:
        """Open a run's detail in the Runs panel."""
        self.panels.setCurrentWidget(self.runs_panel)
        self.runs_panel.select_run(run_id)

    def show_about(self) -> None:
        dialog = AboutDialog(self.data, self, mcp=self.mcp)
        dialog.exec()
        dialog.deleteLater()
