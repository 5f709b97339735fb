"""The app's own window: panels (Environments, Workflows, Runs, Agent runs), a toolbar, menus and shortcuts.

Every action has a Lucide icon (`app.ui.theme.icon`); the panels show what to do when they are empty (the
Workflows panel's Record and Ask an Agent open an environment window and start its recorder or its Agent
panel). On a data folder's first start with windows, the welcome (`app.ui.welcome`) shows the data folder and
the MCP configuration, once (`Settings.welcome_shown`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from PySide6.QtCore import QCoreApplication, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.startup.i18n import button_text
from app.ui.empty_state import PANEL_STYLE
from app.ui.env_panel import EnvironmentsPanel
from app.ui.op_runner import OpRunner
from app.ui.agent_runs_panel import AgentRunsPanel
from app.ui.runs_panel import RunsPanel
from app.ui.theme import icon
from app.ui.tool_profile_choice import ToolProfileChoice
from app.ui.welcome import WelcomeDialog
from app.ui.workflows_panel import WorkflowsPanel
from plumbing import loggers
from plumbing.datadir import DataDir
from envs.store import EnvStore

if TYPE_CHECKING:
    from app.mcp.service import McpService
    from app.stores.settings import SettingsStore

log = logging.getLogger(loggers.UI)

WORKFLOW_ACTIONS = ("run-workflow", "batch-workflow", "edit-workflow", "export-workflow", "delete-workflow")


class McpSection(QGroupBox):
    """The MCP server in the settings: on/off, status and URL, the token, ready-to-paste client configurations
    for the chosen tool profile (core, full, original)."""

    def __init__(self, mcp: "McpService", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("MCP server for AI agents"))
        self.mcp = mcp
        self.enabled = QCheckBox(self.tr("Serve MCP to agents on this computer (127.0.0.1 only, with a token)"), self)
        self.enabled.setObjectName("mcp-enabled")
        self.enabled.setChecked(mcp.enabled)
        self.enabled.toggled.connect(self._toggle)
        self.status = QLabel(self)
        self.status.setObjectName("mcp-status")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setWordWrap(True)
        copy_token = QPushButton(icon("key"), self.tr("Copy Token"), self)
        copy_token.setObjectName("mcp-copy-token")
        copy_token.clicked.connect(lambda: self._copy(self.mcp.token(), self.tr("Token copied")))
        regenerate = QPushButton(icon("refresh-cw"), self.tr("Regenerate Token…"), self)
        regenerate.setObjectName("mcp-regenerate")
        regenerate.clicked.connect(self._regenerate)
        self.tools = ToolProfileChoice(self)
        self.tools.changed.connect(lambda _profile: self.refresh())
        self.choice = QComboBox(self)
        self.choice.setObjectName("mcp-config-choice")
        self.choice.currentIndexChanged.connect(lambda _index: self._show_config())
        self.config = QPlainTextEdit(self)
        self.config.setObjectName("mcp-config")
        self.config.setReadOnly(True)
        self.config.setMinimumHeight(120)
        copy_config = QPushButton(icon("copy"), self.tr("Copy Configuration"), self)
        copy_config.setObjectName("mcp-copy-config")
        copy_config.clicked.connect(lambda: self._copy(self.config.toPlainText(), self.tr("Configuration copied")))
        self.note = QLabel(self)
        token_row = QHBoxLayout()
        token_row.addWidget(copy_token)
        token_row.addWidget(regenerate)
        token_row.addStretch(1)
        config_row = QHBoxLayout()
        config_row.addWidget(QLabel(self.tr("Client:"), self))
        config_row.addWidget(self.choice, 1)
        config_row.addWidget(copy_config)
        layout = QVBoxLayout(self)
        layout.addWidget(self.enabled)
        layout.addWidget(self.status)
        layout.addLayout(token_row)
        layout.addWidget(self.tools)
        layout.addLayout(config_row)
        layout.addWidget(self.config)
        layout.addWidget(self.note)
        self._configs: dict[str, str] = {}
        self.detach = mcp.subscribe(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        status = self.mcp.status
        if status == "running":
            self.status.setText(self.tr("Running at {url}").format(url=self.mcp.url))
        elif status == "starting":
            self.status.setText(self.tr("Starting at {url}…").format(url=self.mcp.url))
        elif status == "failed":
            self.status.setText(self.tr("Not running: {problem}").format(problem=self.mcp.problem))
        else:
            self.status.setText(self.tr("Off") if not self.mcp.enabled else self.tr("Not running"))
        configs = self.mcp.configs(profile=self.tools.profile)
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
        answer = QMessageBox.question(self, self.tr("Regenerate MCP Token"),
                                      self.tr("Make a new token? Clients configured with the current token stop "
                                              "working until you paste the new configuration."))
        if answer == QMessageBox.StandardButton.Yes:
            self.mcp.regenerate_token()
            self.note.setText(self.tr("New token made: update your clients' configuration."))

    def _copy(self, text: str, message: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.note.setText(message)


def data_folder_form(data: DataDir, parent: QWidget) -> tuple[QFormLayout, QLabel]:
    """Where the data lives and the log file, selectable (the data folder's label is returned too)."""
    translate = QCoreApplication.translate
    data_folder = QLabel(str(data.root), parent)
    data_folder.setObjectName("data-folder")
    data_folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    log_file = QLabel(str(data.logs / "browserpilot.log"), parent)
    log_file.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    form = QFormLayout()
    form.addRow(translate("AboutDialog", "Data folder:"), data_folder)
    form.addRow(translate("AboutDialog", "Log file:"), log_file)
    return form, data_folder


def close_buttons(data: DataDir, dialog: QDialog) -> QDialogButtonBox:
    """Close, and Open Data Folder."""
    open_folder = QPushButton(icon("folder-open"), QCoreApplication.translate("AboutDialog", "Open Data Folder"), dialog)
    open_folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(data.root))))
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.addButton(open_folder, QDialogButtonBox.ButtonRole.ActionRole)
    buttons.rejected.connect(dialog.reject)
    return buttons


class AboutDialog(QDialog):
    """Help → About: the version, what the app is, where the data lives, the log file."""

    def __init__(self, data: DataDir, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("about-dialog")
        self.setWindowTitle(self.tr("About BrowserPilot"))
        title = QLabel(f"<h2>BrowserPilot {__version__}</h2><p>"
                       + self.tr("One shared, persistent, multi-environment browser for people and AI agents.")
                       + "</p>", self)
        title.setWordWrap(True)
        form, self.data_folder = data_folder_form(data, self)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(close_buttons(data, self))


# A section of the Settings dialog that a layer above the windows adds (app/desktop: the tray, notifications and
# start at login), made with the app's settings store, the data folder and the dialog's body.
SettingsSection = Callable[["SettingsStore", Path, QWidget], QWidget]


class SettingsDialog(QDialog):
    """File → Settings and Data Folder: where the data lives, the MCP server, runs and agents, the desktop; in a
    scroll area, so that the dialog fits a small screen (and the wheel scrolls it)."""

    def __init__(self, data: DataDir, parent: QWidget | None = None, mcp: "McpService | None" = None,
                 sections: Sequence[SettingsSection] = ()) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle(self.tr("Settings"))
        body = QWidget(self)
        inner = QVBoxLayout(body)
        form, self.data_folder = data_folder_form(data, body)
        inner.addLayout(form)
        self.mcp_section = McpSection(mcp, body) if mcp is not None else None
        if self.mcp_section is not None:
            inner.addWidget(self.mcp_section)
            self.finished.connect(lambda _result: self.mcp_section.detach() if self.mcp_section else None)
            from app.ui.settings_dialog import UnattendedSection

            self.unattended = UnattendedSection(self.mcp_section.mcp.settings, body)
            inner.addWidget(self.unattended)
            self.sections = [make(self.mcp_section.mcp.settings, data.root, body) for make in sections]
            for section in self.sections:
                inner.addWidget(section)
        inner.addStretch(1)
        self.scroll = QScrollArea(self)
        self.scroll.setObjectName("settings-scroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(close_buttons(data, self))
        screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
        height = min(body.sizeHint().height() + 80, int(screen.availableGeometry().height() * 0.85)) if screen \
            else body.sizeHint().height() + 80
        self.resize(max(body.sizeHint().width() + 40, 560), height)


class MainWindow(QMainWindow):
    new_workflow_requested = Signal(str)        # a name: open the editor on a new workflow
    runs_panel_overlay_requested = Signal(str)  # a run id: show it on its workflow's graph

    def __init__(self, data: DataDir, store: EnvStore, ops: OpRunner,
                 open_env: Callable[[str], QMainWindow | None], quit_app: Callable[[], None],
                 parent: QWidget | None = None, *, mcp: "McpService | None" = None) -> None:
        super().__init__(parent)
        self.data = data
        self.mcp = mcp
        self.settings = ops.ctx.settings  # the app's one settings store
        # Sections the Settings dialog shows below its own (added by app/desktop when it attaches).
        self.settings_sections: list[SettingsSection] = []
        self._ops = ops
        self._ctx = ops.ctx
        self._changes = ops.changes  # the stores' changes, for the dialogs opened here
        self._open_env = open_env
        self._quit_app = quit_app
        self.welcome: WelcomeDialog | None = None
        self.setObjectName("main-window")
        self.setWindowTitle(self.tr("BrowserPilot"))
        self.setWindowIcon(icon("globe"))
        self.setStyleSheet(PANEL_STYLE)
        self.resize(1040, 660)
        self.panels = QTabWidget(self)
        self.panels.setObjectName("panels")
        self.panels.setDocumentMode(True)
        self.panels.setIconSize(QSize(16, 16))
        self.environments = EnvironmentsPanel(store, ops, self)
        self.environments.open_requested.connect(open_env)
        self.panels.addTab(self.environments, icon("globe"), self.tr("Environments"))
        self.workflows_panel = WorkflowsPanel(ops, self)
        self.panels.addTab(self.workflows_panel, icon("workflow"), self.tr("Workflows"))
        self.runs_panel = RunsPanel(ops, self)
        self.panels.addTab(self.runs_panel, icon("history"), self.tr("Runs"))
        self.agent_runs_panel = AgentRunsPanel(ops, self)
        self.panels.addTab(self.agent_runs_panel, icon("bot"), self.tr("Agent runs"))
        self.workflows_panel.show_run_requested.connect(self.show_run)
        self.workflows_panel.record_requested.connect(self.record_in_environment)
        self.workflows_panel.agent_requested.connect(self.ask_agent)
        self.runs_panel.overlay_requested.connect(self.runs_panel_overlay_requested)
        self.runs_panel.workflows_requested.connect(lambda: self.panels.setCurrentWidget(self.workflows_panel))
        self.agent_runs_panel.agent_requested.connect(self.ask_agent)
        self.setCentralWidget(self.panels)
        self._build_menus()
        self._build_toolbar()
        self.workflows_panel.chosen_changed.connect(self._workflow_actions_follow)
        self._workflow_actions_follow(self.workflows_panel.selected_workflow() is not None)
        self.statusBar().showMessage(self.tr("Data folder: {path}").format(path=data.root))

    def _action(self, text: str, icon_name: str, shortcut: QKeySequence | str | QKeySequence.StandardKey | None,
                handler: Callable[[], object], name: str) -> QAction:
        action = QAction(icon(icon_name), text, self)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: handler())
        return action

    def _add(self, menu_name: str, text: str, icon_name: str,
             shortcut: QKeySequence | str | QKeySequence.StandardKey | None, handler: Callable[[], object],
             name: str) -> QAction:
        action = self._action(text, icon_name, shortcut, handler, name)
        self._menus[menu_name].addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.actions_by_name: dict[str, QAction] = {}
        self._menus = {name: bar.addMenu(label) for name, label in
                       (("file", self.tr("&File")), ("env", self.tr("&Environment")), ("workflow", self.tr("&Workflow")),
                        ("help", self.tr("&Help")))}
        for name, menu in self._menus.items():
            menu.setObjectName(f"menu-{name}")
        panel = self.environments
        workflows = self.workflows_panel
        self._add("file", self.tr("&New Environment…"), "plus", QKeySequence.StandardKey.New,
                  panel.create_environment, "new-environment")
        self._add("file", self.tr("New &Workflow…"), "workflow", "Ctrl+Shift+N", self.ask_new_workflow, "new-workflow")
        self._add("file", self.tr("&Import Workflows…"), "upload", "Ctrl+I", self.import_workflows, "import-workflows")
        self._menus["file"].addSeparator()
        self._add("file", self.tr("&Settings and Data Folder…"), "settings", QKeySequence.StandardKey.Preferences,
                  self.show_settings, "settings")
        self._add("file", self.tr("Open &Data Folder"), "folder-open", None,
                  lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.data.root))), "open-data-folder")
        self._menus["file"].addSeparator()
        self._add("file", self.tr("&Quit"), "power", QKeySequence.StandardKey.Quit, self.quit_when_meant, "quit")
        self._add("env", self.tr("&Open"), "app-window", "Ctrl+O", panel.open_selected, "open-environment")
        self._add("env", self.tr("&Rename…"), "pencil", "F2", panel.rename_selected, "rename-environment")
        self._add("env", self.tr("Edit Re&mark…"), "square-pen", "Ctrl+E", panel.edit_remark_selected,
                  "edit-remark")
        self._add("env", self.tr("&Settings…"), "sliders-horizontal", None, panel.edit_settings_selected,
                  "environment-settings")
        self._add("env", self.tr("Import &Login from Browser…"), "cookie", None, self.import_browser_login,
                  "import-browser-login")
        self._menus["env"].addSeparator()
        self._add("env", self.tr("&Record a Workflow"), "circle-dot", "Ctrl+Shift+R", self.record_in_environment,
                  "record")
        self._add("env", self.tr("Ask an &Agent"), "bot", "Ctrl+Shift+A", self.ask_agent, "ask-agent")
        self._menus["env"].addSeparator()
        self._add("env", self.tr("&Delete…"), "trash-2", QKeySequence.StandardKey.Delete, panel.delete_selected,
                  "delete-environment")
        self._add("workflow", self.tr("&Run…"), "play", "Ctrl+R", self._on_workflows(workflows.run_selected),
                  "run-workflow")
        self._add("workflow", self.tr("Run as &Batch…"), "layers", "Ctrl+Shift+B",
                  self._on_workflows(workflows.batch_selected), "batch-workflow")
        self._add("workflow", self.tr("&Edit"), "pencil", None, self._on_workflows(workflows.edit_selected),
                  "edit-workflow")
        self._add("workflow", self.tr("E&xport…"), "download", None, self._on_workflows(workflows.export_selected),
                  "export-workflow")
        self._menus["workflow"].addSeparator()
        self._add("workflow", self.tr("&Delete Workflow…"), "trash-2", None,
                  self._on_workflows(workflows.delete_selected), "delete-workflow")
        self._add("help", self.tr("&Welcome and MCP Setup"), "sparkles", None, self.show_welcome, "welcome")
        self._add("help", self.tr("&About BrowserPilot"), "info", "F1", self.show_about, "about")

    def _build_toolbar(self) -> None:
        """The main actions, as icon buttons with their names beside them."""
        toolbar = self.addToolBar(self.tr("Main"))
        toolbar.setObjectName("main-toolbar")
        toolbar.setMovable(False)
        toolbar.setIconSize(QSize(18, 18))
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for name in ("new-environment", "open-environment", None, "new-workflow", "import-workflows", "record",
                     "ask-agent", None, "run-workflow", "batch-workflow"):
            if name is None:
                toolbar.addSeparator()
            else:
                action = self.actions_by_name[name]
                action.setIconText(button_text(action.text()))  # no "(R)" of a Chinese "运行(&R)" beside the icon
                toolbar.addAction(action)
        spacer = QWidget(toolbar)
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        toolbar.addWidget(spacer)
        toolbar.addAction(self.actions_by_name["settings"])
        self.toolbar = toolbar
        # The less frequent ones show their icon only (their name is the tooltip).
        for name in ("open-environment", "import-workflows", "batch-workflow", "settings"):
            self.actions_by_name[name].setPriority(QAction.Priority.LowPriority)

    def _workflow_actions_follow(self, chosen: bool) -> None:
        """The Workflow actions act on the selected workflow: without one they are disabled, and say why."""
        why = "" if chosen else self.workflows_panel.why_nothing_chosen()
        for name in WORKFLOW_ACTIONS:
            action = self.actions_by_name[name]
            action.setEnabled(chosen)
            action.setToolTip(button_text(action.text()) if chosen else f"{button_text(action.text())} — {why}")
            action.setStatusTip(why)

    def quit_when_meant(self) -> bool:
        """File → Quit: runs still running or tabs still recording are said first, and quitting waits for a yes.
        Returns whether the app quits."""
        runner, browser = self._ctx.runner, self._ctx.browser
        runs = len(runner.active_runs()) if runner is not None else 0
        recordings = len(browser.recording_tabs()) if browser is not None else 0
        if runs or recordings:
            lines = ([self.tr("%n run(s) still running will stop.", "", runs)] if runs else []) + \
                ([self.tr("%n recording(s) not saved will be lost.", "", recordings)] if recordings else [])
            box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Quit BrowserPilot"),
                              self.tr("Quit now?") + "\n\n" + "\n".join(lines), QMessageBox.StandardButton.NoButton,
                              self)
            box.setObjectName("quit-confirm")
            quit_button = box.addButton(self.tr("Quit"), QMessageBox.ButtonRole.DestructiveRole)
            quit_button.setObjectName("quit-confirm-quit")
            stay = box.addButton(self.tr("Don't Quit"), QMessageBox.ButtonRole.RejectRole)
            stay.setObjectName("quit-confirm-stay")
            box.setDefaultButton(stay)
            box.exec()
            quitting = box.clickedButton() is quit_button
            box.deleteLater()
            if not quitting:
                return False
        self._quit_app()
        return True

    def _on_workflows(self, handler: Callable[[], object]) -> Callable[[], None]:
        """A Workflow-menu action: show the Workflows panel, then act on its selected workflow."""

        def act() -> None:
            self.panels.setCurrentWidget(self.workflows_panel)
            handler()

        return act

    # -- actions -----------------------------------------------------------------------------------------
    def ask_new_workflow(self) -> None:
        """File → New Workflow: its name, then the editor with a start and an end node."""
        from PySide6.QtWidgets import QInputDialog

        name, ok = QInputDialog.getText(self, self.tr("New Workflow"), self.tr("Name of the new workflow:"))
        if ok and name.strip():
            self.new_workflow_requested.emit(name.strip())

    def import_workflows(self) -> None:
        self.panels.setCurrentWidget(self.workflows_panel)
        self.workflows_panel.import_dialog()

    def _chosen_env(self) -> str:
        """The environment selected in the Environments panel, else the default one."""
        env = self.environments.selected_env()
        return env.id if env is not None else "env-default"

    def _env_window(self) -> QMainWindow | None:
        return self._open_env(self._chosen_env())

    def record_in_environment(self) -> None:
        """Open the chosen environment's window and start recording its tab (the window's own Record)."""
        window = self._env_window()
        action = window.findChild(QAction, "record") if window is not None else None
        if action is None:
            self.statusBar().showMessage(self.tr("Recording needs an environment window."), 5000)
            return
        if not action.isChecked():
            action.trigger()

    def import_browser_login(self) -> QDialog:
        """Environment → Import Login from Browser…: into the selected environment or a new one."""
        from app.ui.browser_login_dialog import BrowserLoginDialog

        selected = self.environments.selected_env()
        dialog = BrowserLoginDialog(self._ops, selected.id if selected else None, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._changes.follow(dialog, ("envs",), lambda _changed: dialog.environments_changed())
        dialog.show()
        return dialog

    def ask_agent(self) -> None:
        """Open the chosen environment's window with its Agent panel showing, ready for a task."""
        window = self._env_window()
        dock = window.findChild(QDockWidget, "agent-dock") if window is not None else None
        if dock is None:
            self.statusBar().showMessage(self.tr("The agent needs an environment window."), 5000)
            return
        dock.show()
        dock.raise_()
        task = dock.findChild(QPlainTextEdit, "agent-task")
        if task is not None:
            task.setFocus()

    def show_run(self, run_id: str) -> None:
        """Open a run's detail in the Runs panel."""
        self.panels.setCurrentWidget(self.runs_panel)
        self.runs_panel.select_run(run_id)

    def show_about(self) -> None:
        dialog = AboutDialog(self.data, self)
        dialog.exec()
        dialog.deleteLater()

    def show_settings(self) -> None:
        dialog = SettingsDialog(self.data, self, mcp=self.mcp, sections=self.settings_sections)
        dialog.exec()
        dialog.deleteLater()

    def show_welcome(self) -> WelcomeDialog:
        """The welcome (data folder, MCP configuration, README), without blocking."""
        if self.welcome is None:
            self.welcome = WelcomeDialog(self.data, self.mcp, self)
            self.welcome.finished.connect(lambda _result: self._forget_welcome())
        self.welcome.show()
        self.welcome.raise_()
        return self.welcome

    def _forget_welcome(self) -> None:
        if self.welcome is not None:
            self.welcome.deleteLater()
            self.welcome = None

    def show_welcome_if_first_run(self) -> WelcomeDialog | None:
        """The welcome, the first time windows are shown on this data folder (remembered in the settings)."""
        if self.settings.current.welcome_shown:
            return None
        try:
            self.settings.update(welcome_shown=True)
        except OSError as exc:  # a read-only folder: welcome again next time, rather than never
            log.warning("cannot remember that the welcome was shown: %s", exc)
        return self.show_welcome()
