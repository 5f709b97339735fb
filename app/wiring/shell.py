"""`BrowserPilotApp`: where the running app is wired together, and nothing else.

- the stores (envs, settings, workflows, runs, groups) and the one save manager they write through (off the
  Qt thread, debounced; flushed last), and the one change feed they all publish on (plumbing/changes.py; the GUI
  follows it through `ops.changes`, app/ui/follow.py);
- the browser service (app/browser/service.py): profiles, policies, DevTools channels, captures and every tab;
- the environments' windows (app/ui/env_windows.py), which only show the service's tabs, in an app a person
  sees; the main window; the workflow editors;
- the operations registry and its context, the run manager, the MCP service;
- start and shutdown in order: the MCP server first, then windows, then the service (pages before profiles,
  so cookies are flushed and no renderer is left behind), last the save manager's flush.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMessageBox

from app.browser.recorder import TabRecorder
from app.browser.service import BrowserService
from app.mcp.service import McpService
from app.ops import OpContext
from app.wiring.registry import build_registry
from app.ops.workflow_ops import auto_repair
from app.stores.settings import SettingsStore
from app.ui.env_window import EnvWindow
from app.ui.env_windows import EnvWindows
from app.ui.op_runner import OpRunner
from app.ui.wheel_guard import install_wheel_guard
from app.desktop.unattended import Unattended
from plumbing import loggers
from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from plumbing.savemanager import SaveManager
from envs.store import EnvEvent, EnvStore, purge_trash
from workflows.events import RunEvent
from workflows.manager import RunManager
from workflows.operations import OperationsPort
from workflows.runs import RunRecord, RunStore
from workflows.schedules import ScheduleStore
from workflows.secret_binding import SecretBinding
from workflows.store import WorkflowStore

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

log = logging.getLogger(loggers.APP)


class BrowserPilotApp(QObject):
    save_failed = Signal(str)  # a store's file could not be written (from the saver's thread; kept in memory)

    def __init__(self, data: DataDir, *, headless: bool, windows: bool | None = None) -> None:
        """`headless`: no window a person sees (no main window shown, no welcome). `windows`: environment windows
        show the tabs asked to be shown (default: not headless; a headless app with windows draws them offscreen,
        as the tests and the screenshot script do)."""
        super().__init__()
        install_wheel_guard()  # the wheel changes only the focused widget's value
        self.data = data
        self.headless = headless
        with_windows = not headless if windows is None else windows
        self.exit_status = 0
        # Every store writes through this one saver, on its own thread (never the Qt thread); flushed last.
        self.saves = SaveManager(on_error=lambda _path, message: self.save_failed.emit(message))
        # Every store tells of its changes here, whoever made them (the GUI follows: `ops.changes`).
        self.changes = StoreChanges()
        purge_trash(data, self.saves)
        self.envs = EnvStore(data, self.saves, self.changes)
        self.settings = SettingsStore(data, self.saves, self.changes)
        self.registry = build_registry()
        self.ctx = OpContext(data=data, envs=self.envs, operations=self.registry, saver=self.saves,
                             changes=self.changes, settings=self.settings,
                             runs=RunStore(data, self.saves, self.changes),
                             workflows=WorkflowStore(data, self.saves, self.changes),
                             schedules=ScheduleStore(data, self.saves, self.changes))
        self.service = BrowserService(data, self.envs, self.ctx.groups, with_windows=with_windows,
                                      home_url=lambda: self.settings.current.home_url, parent=self)
        self.ctx.browser = self.service
        self.ctx.settle_seconds = lambda: self.settings.current.settle_seconds
        self.ctx.runner = RunManager(self.ctx.runs, self._ops_for_run, self.service.code_sandbox,
                                     self.service.tab_state, self.ctx.tab_holders,
                                     max_concurrency=self.settings.current.batch_concurrency,
                                     settle_seconds=self.ctx.settle_seconds, tracer=self.service.tracing,
                                     trace_defaults=lambda: self.settings.current.trace_defaults())
        self.ctx.runner.events.subscribe(self._on_run_event)
        self.ops = OpRunner(self.registry, self.ctx)
        self.windows: EnvWindows | None = None
        if with_windows:
            self.windows = EnvWindows(self.service, self.envs, self.ctx.groups, self.ops,
                                      search_url=lambda: self.settings.current.search_url,
                                      home_url=lambda: self.settings.current.home_url,
                                      show_main_window=self.show_main_window, furnish=self._attach_agent)
            self.windows.close_refused.connect(self._quit_refused)
        # The MCP server: started by the entry point (`start_mcp`), switched on and off in the settings.
        self._start_editors()
        self.mcp = McpService(data, self.registry, self.ctx, self.settings, headless=headless, quit_app=self.quit,
                              editors_open=lambda: bool(self.editors.windows))
        self.envs.subscribe(self._on_env_event)
        self.main_window: MainWindow | None = None
        # Schedules, the tray, desktop notifications, staying when windows close: app/desktop/unattended.py.
        self.unattended = Unattended(self)
        self._shut_down = False
        self._quitting = False
        self._nobody_to_ask = False
        self._signal_timer: QTimer | None = None

    # -- start and stop --------------------------------------------------------------------------------
    def start(self, open_urls: list[tuple[str, str]]) -> None:
        """Show the main window, then open each (environment id, URL) given on the command line.

        An app `browserpilot mcp` started headless for an agent client builds its (unseen) main window only once
        the bridge's first call has been answered (or a few seconds later): that call does not need it."""
        self.save_failed.connect(self._report_save_problem, Qt.ConnectionType.QueuedConnection)
        if self.headless and self.mcp.idle.armed:
            self.mcp.after_first_call(self._build_main_window)
        else:
            self._build_main_window()
        problems = [p for p in (self.envs.load_problem, self.settings.load_problem, self.ctx.workflows.load_problem,
                                self.ctx.runs.load_problem, self.ctx.schedules.load_problem) if p]
        for problem in problems:
            log.warning("%s", problem)
            if not self.headless:
                QMessageBox.warning(self.main_window, "BrowserPilot", problem)
        for env_id, url in open_urls:
            if not self.envs.exists(env_id):
                log.error("there is no environment with id %r; %s not opened", env_id, url)
                self.exit_status = 1
                continue
            self.service.new_tab(env_id, url, control="shared")
        self.unattended.start()  # the scheduler fires from now on (also headless)
        log.info("started on %s (headless=%s)", self.data.root, self.headless)
        # What start-up made lives as long as the app: keep it out of the collector's full passes (one such
        # pass stalled the Qt thread ~60 ms during a batch, bench/ui_stall.py). The collector was off while the
        # app started (`run_app`: start-up makes few cycles, and passes over ~100k new objects cost ~50 ms).
        gc.freeze()  # (the collector itself runs on the Qt thread: app/startup/qt_asyncio.py)

    def _build_main_window(self) -> None:
        from app.ui.main_window import MainWindow

        if self._shut_down or self.main_window is not None:
            return
        self.main_window = MainWindow(self.data, self.envs, self.ops, self.show_environment, self.quit, mcp=self.mcp)
        self.main_window.workflows_panel.edit_requested.connect(self.editors.open)
        self.main_window.new_workflow_requested.connect(self.editors.new_or_say)
        self.main_window.runs_panel_overlay_requested.connect(self.editors.show_run)
        self.main_window.show()
        self.unattended.attach(self.main_window)  # the Schedules panel, the tray, start minimised
        if not self.headless and not self.unattended.start_minimized:
            self.main_window.show_welcome_if_first_run()  # once per data folder

    def _start_editors(self) -> None:
        """The node-graph editor: opened from the Workflows panel, File → New Workflow and `editor_open`."""
        from app.ops import editor_ops
        from app.ui.editor.editors import Editors

        self.editors = Editors(self.ops, self.front_tab)
        if "editor_open" not in self.registry.operations:
            self.registry.add(*editor_ops.OPERATIONS)
        self.ctx.open_editor = lambda workflow_id: self.editors.open(workflow_id).windowTitle()

    def front_tab(self) -> Any:
        """The tab a person looks at (the editor's Pick and Test act on it): the front tab of the active
        environment window, else of any."""
        windows = list(self.windows.windows.values()) if self.windows is not None else []
        for window in sorted(windows, key=lambda w: not w.isActiveWindow()):
            if window.current_tab() is not None:
                return window.current_tab()
        return None

    def _report_save_problem(self, message: str) -> None:
        """A store's file could not be written (a full disk): the change is kept in memory and written again
        later; the main window's status bar says so meanwhile."""
        if self.main_window is not None and shiboken6.isValid(self.main_window):
            self.main_window.statusBar().showMessage(self.tr("Not saved yet: {problem}").format(problem=message),
                                                     30_000)

    def _ops_for_run(self, run_id: str, secrets: SecretBinding | None = None) -> OperationsPort:
        """The operations as a workflow run calls them (typed): its own tab is not busy for it, and its bound
        secrets are filled in only where they may be typed."""
        return self.registry.port(self.ctx.for_run(run_id, secrets))

    def start_mcp(self) -> None:
        """Serve MCP (unless switched off in the settings); call once the main loop is the current loop."""
        self.mcp.start_if_enabled()

    def install_quit_signals(self) -> None:
        """SIGINT and SIGTERM end the app in order, so logins are flushed to disk."""

        def handler(signum: int, frame: object) -> None:
            log.info("signal %s: quitting", signum)
            QTimer.singleShot(0, lambda: self.quit(nobody_to_ask=True))

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)
        # Let the interpreter run now and then, so it notices signals while Qt's loop waits in C++.
        self._signal_timer = QTimer(self)
        self._signal_timer.timeout.connect(lambda: None)
        self._signal_timer.start(250)

    async def settle_all(self) -> list[dict[str, Any]]:
        """Before the app ends: what the tabs it acted on still have in flight lands (at most the settle time)."""
        return await self.service.settle_all(self.settings.current.settle_seconds)

    @property
    def quitting(self) -> bool:
        """Asked to end (File → Quit, the tray's Quit, SIGTERM): a window that would stay for the tray lets go."""
        return self._quitting

    def quit(self, nobody_to_ask: bool = False) -> None:
        """End the app, once what the tabs it acted on still have in flight (the order an agent's last click
        posted) has landed, at most the settle time. Asked again meanwhile, it ends at once.

        `nobody_to_ask`: the session is ending (SIGTERM, SIGINT): windows close without asking (a window that
        records would otherwise wait for a person with its Save/Discard question, and the session's manager kill
        the app with its stores unsaved); a recording in progress is then dropped, and the log says which."""
        self._nobody_to_ask = self._nobody_to_ask or nobody_to_ask
        if self._quitting:
            self._end_loop()
            return
        self._quitting = True

        async def settle_then_quit() -> None:
            try:
                await self.service.tracing.stop_all()  # a screen recording still running is written, not cut
                pending = await self.settle_all()
                if pending:
                    log.warning("quitting with %d request(s) still in flight: %s", len(pending),
                                ", ".join(f"{item['method']} {item['url']}" for item in pending[:5]))
            finally:
                self._end_loop()

        asyncio.ensure_future(settle_then_quit())

    def _quit_refused(self, env_id: str) -> None:
        """A person kept a window open when quitting asked it to close (Keep Recording, or Save first): Qt does not
        quit, so neither does the app; the main window goes back to staying in the tray when closed."""
        if self._quitting and not self._nobody_to_ask:
            log.info("quitting cancelled: the window of %s stays open", env_id)
            self._quitting = False

    def _end_loop(self) -> None:
        if self._nobody_to_ask:
            self._close_windows_without_asking()
        QApplication.quit()

    def _close_windows_without_asking(self) -> None:
        for window in list(self.windows.windows.values()) if self.windows is not None else []:
            for tab in window.tab_list():
                if TabRecorder.of(tab) is not None:
                    log.warning("the session ended while tab %s (%s) was recording: its recording is dropped",
                                tab.tab_id, tab.url().toString())
            window.close_quietly()

    def shutdown(self) -> None:
        """Close the windows, then the browser (pages before profiles), then flush the stores. Safe to call
        more than once."""
        if self._shut_down:
            return
        self._shut_down = True
        self.mcp.stop()  # first: no agent call may reach a page that is being deleted
        self.ops.changes.close()  # the views being closed read nothing more
        self.unattended.stop()  # no schedule fires into a shutting-down app
        if self.windows is not None:
            # Deleted here, not left to deleteLater (the loop may not turn again) or to Python's teardown, which
            # can free them after the QApplication (a SIGTERM once crashed in libQt6Gui).
            for window in list(self.windows.windows.values()):
                window.close_quietly()
                if shiboken6.isValid(window):
                    shiboken6.delete(window)
            self.windows.windows.clear()
        self.editors.close_all()
        if self.main_window is not None and shiboken6.isValid(self.main_window):
            self.main_window.close()
            shiboken6.delete(self.main_window)
        self.main_window = None
        self.service.shutdown()
        for path, problem in self.saves.close().items():  # last: whatever the steps above changed is saved too
            log.error("not saved at exit: %s (%s)", path, problem)
            self.exit_status = 1
        log.info("shut down: pages and profiles released, stores saved")

    # -- windows ---------------------------------------------------------------------------------------
    def show_environment(self, env_id: str) -> EnvWindow | None:
        """A person opens an environment: its window, with a tab (a headless app makes sure it has a tab)."""
        if self.windows is None:
            asyncio.ensure_future(self.service.open_environment(env_id))
            return None
        return self.windows.show_environment(env_id)

    def _attach_agent(self, window: EnvWindow) -> None:
        from app.ui.agent_panel import attach_agent_panel

        attach_agent_panel(window, window.env_id, self.registry, self.ctx, self.ops.changes)

    def show_main_window(self) -> None:
        if self.main_window is not None:
            self.main_window.showNormal()
            self.main_window.raise_()
            self.main_window.activateWindow()

    def _on_run_event(self, event: RunEvent) -> None:
        """A run ended: its workflow may accept its repairs by itself (`app.autoRepair`, workflow_ops)."""
        if event.kind == "run_finished" and event.record and event.record.get("healed"):
            auto_repair(self.ctx, RunRecord.model_validate(event.record))

    def _on_env_event(self, event: EnvEvent) -> None:
        if event.kind == "deleted":
            self.ctx.groups.drop_env(event.env_id)
