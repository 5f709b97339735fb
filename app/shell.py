"""`BrowserPilotApp`: the running app's stores, keyed registries and windows; the browser port over Qt.

- profiles by environment id (`ProfileRegistry`), windows by environment id (`self.windows`);
- each environment's domain policy on its profile and pages (`PolicyRegistry`), the port-less DevTools
  channels (`CdpHub`) and per-tab network captures (`CaptureRegistry`);
- the main window (environments panel) and one `EnvWindow` per open environment;
- shutdown in order: windows and their pages first, then profiles (so cookies are flushed and no renderer
  is left behind), last the save manager's flush (every store's newest state on disk);
- the stores write through one `SaveManager` (envs/savemanager.py): off the Qt thread, debounced; partition
  and run-folder removals go to its thread too.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Sequence

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMessageBox

from app.browser.cdp import CdpHub
from app.browser.code_sandbox import CodeSandbox
from app.browser.driver import TabDriver
from app.browser.netcapture import CaptureRegistry, NetServices
from app.browser.policy import PolicyRegistry
from app.browser.profiles import ProfileRegistry
from app.browser.tab import BrowserTab
from app.browser.transfer import ProfileState
from app.mcp.service import McpService
from app.ops import OpContext, build_registry
from app.settings import SettingsStore
from app.ui.env_window import EnvWindow
from app.ui.op_runner import OpRunner
from envs.datadir import DataDir
from envs.model import DEFAULT_ENV_ID
from envs.savemanager import SaveManager, Saver
from envs.store import EnvEvent, EnvStore, purge_trash
from workflows.manager import RunManager
from workflows.ports import Control, TabInfo
from workflows.runs import RunRecord, RunStore
from workflows.store import WorkflowStore

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

log = logging.getLogger("browserpilot.app")


class _AnnouncingRunStore(RunStore):
    """The run store, telling the app each time it writes a record (when a run starts and when it ends)."""

    def __init__(self, data: DataDir, announce: Callable[[RunRecord], None], saver: Saver) -> None:
        super().__init__(data, saver)
        self._announce = announce

    def save(self, record: RunRecord) -> RunRecord:
        saved = super().save(record)
        self._announce(saved.model_copy())  # listeners only read it
        return saved


class BrowserPilotApp(QObject):
    run_saved = Signal(object)  # a RunRecord was written to runs.json: a run started or ended (GUI panels follow)
    save_failed = Signal(str)  # a store's file could not be written (from the saver's thread; kept in memory)

    def __init__(self, data: DataDir, *, headless: bool) -> None:
        super().__init__()
        self.data = data
        self.headless = headless
        self.exit_status = 0
        # Every store writes through this one saver, on its own thread (never the Qt thread); flushed last.
        self.saves = SaveManager(on_error=lambda _path, message: self.save_failed.emit(message))
        purge_trash(data, self.saves)
        self.envs = EnvStore(data, self.saves)
        self.settings = SettingsStore(data, self.saves)
        self.policies = PolicyRegistry(self.envs, self)
        self.policies.tabs_of_env = lambda env_id: [(t.tab_id, t.page()) for t in self.tabs() if t.env_id == env_id]
        self.profiles = ProfileRegistry(data, self, policies=self.policies)
        self.cdp = CdpHub(self)
        self.captures = CaptureRegistry()
        self.net = NetServices(self.cdp, self.captures, self.policies)
        self.windows: dict[str, EnvWindow] = {}
        self._drivers: dict[str, TabDriver] = {}
        self.registry = build_registry()
        self.ctx = OpContext(data=data, envs=self.envs, browser=self, saver=self.saves, settings=self.settings,
                             runs=_AnnouncingRunStore(data, self.run_saved.emit, self.saves),
                             workflows=WorkflowStore(data, self.saves))
        self.code_sandbox = CodeSandbox(self)
        self.ctx.settle_seconds = lambda: self.settings.current.settle_seconds
        self.ctx.runner = RunManager(self.ctx.runs, self._ops_for_run, self.code_sandbox, self.ctx.tab_holders,
                                     max_concurrency=self.settings.current.batch_concurrency,
                                     settle_seconds=self.ctx.settle_seconds)
        self.ops = OpRunner(self.registry, self.ctx)
        # The MCP server: started by the entry point (`start_mcp`), switched on and off in the settings.
        self.mcp = McpService(data, self.registry, self.ctx, self.settings)
        self.envs.subscribe(self._on_env_event)
        self.ctx.groups.subscribe(self._on_groups_changed)
        self.main_window: MainWindow | None = None
        self._shut_down = False
        self._quitting = False
        self._signal_timer: QTimer | None = None

    # -- start and stop --------------------------------------------------------------------------------
    def start(self, open_urls: list[tuple[str, str]]) -> None:
        """Show the main window, then open each (environment id, URL) given on the command line.

        An app `browserpilot mcp` started headless for an agent client builds its (unseen) main window only once
        the bridge's first call has been answered (or a few seconds later): that call does not need it."""
        self.save_failed.connect(self._report_save_problem, Qt.ConnectionType.QueuedConnection)
        self._start_editors()
        if self.headless and self.mcp.idle.armed:
            self.mcp.after_first_call(self._build_main_window)
        else:
            self._build_main_window()
        problems = [p for p in (self.envs.load_problem, self.settings.load_problem, self.ctx.workflows.load_problem,
                                self.ctx.runs.load_problem) if p]
        for problem in problems:
            log.warning("%s", problem)
            if not self.headless:
                QMessageBox.warning(self.main_window, "BrowserPilot", problem)
        for env_id, url in open_urls:
            if not self.envs.exists(env_id):
                log.error("there is no environment with id %r; %s not opened", env_id, url)
                self.exit_status = 1
                continue
            self.open_url(env_id, url)
        log.info("started on %s (headless=%s)", self.data.root, self.headless)
        # What start-up made lives as long as the app: keep it out of the collector's full passes (one such
        # pass stalled the Qt thread ~60 ms during a batch, bench/ui_stall.py). The collector was off while the
        # app started (`run_app`: start-up makes few cycles, and passes over ~100k new objects cost ~50 ms).
        gc.freeze()  # (the collector itself runs on the Qt thread: app/qt_asyncio.py)

    def _build_main_window(self) -> None:
        from app.ui.main_window import MainWindow

        if self._shut_down or self.main_window is not None:
            return
        self.main_window = MainWindow(self.data, self.envs, self.ops, self.show_environment, self.quit, mcp=self.mcp)
        self.run_saved.connect(self.main_window.run_saved)
        self.main_window.workflows_panel.edit_requested.connect(self.editors.open)
        self.main_window.new_workflow_requested.connect(self.editors.new_or_say)
        self.main_window.runs_panel_overlay_requested.connect(self.editors.show_run)
        self.main_window.show()
        if not self.headless:
            self.main_window.show_welcome_if_first_run()  # once per data folder

    def _start_editors(self) -> None:
        """The node-graph editor: opened from the Workflows panel, File → New Workflow and `editor_open`."""
        from app.ops import editor_ops
        from app.ui.editor.editors import Editors

        self.editors = Editors(self.ops, self)
        if "editor_open" not in self.registry.operations:
            self.registry.add(*editor_ops.OPERATIONS)
        self.ctx.open_editor = lambda workflow_id: self.editors.open(workflow_id).windowTitle()

    def _report_save_problem(self, message: str) -> None:
        """A store's file could not be written (a full disk): the change is kept in memory and written again
        later; the main window's status bar says so meanwhile."""
        if self.main_window is not None and shiboken6.isValid(self.main_window):
            self.main_window.statusBar().showMessage(self.tr("Not saved yet: {problem}").format(problem=message),
                                                     30_000)

    def _ops_for_run(self, run_id: str) -> Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]:
        """The operations as a workflow run calls them: its own tab is not busy for it."""
        ctx = self.ctx.for_run(run_id)
        return lambda name, params: self.registry.call(ctx, name, params)

    def start_mcp(self) -> None:
        """Serve MCP (unless switched off in the settings); call once the main loop is the current loop."""
        self.mcp.start_if_enabled()

    def install_quit_signals(self) -> None:
        """SIGINT and SIGTERM end the app in order, so logins are flushed to disk."""

        def handler(signum: int, frame: object) -> None:
            log.info("signal %s: quitting", signum)
            QTimer.singleShot(0, self.quit)

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)
        # Let the interpreter run now and then, so it notices signals while Qt's loop waits in C++.
        self._signal_timer = QTimer(self)
        self._signal_timer.timeout.connect(lambda: None)
        self._signal_timer.start(250)

    def quit(self) -> None:
        """End the app, once what the tabs it acted on still have in flight (the order an agent's last click
        posted) has landed, at most the settle time. Asked again meanwhile, it ends at once."""
        if self._quitting:
            QApplication.quit()
            return
        self._quitting = True

        async def settle_then_quit() -> None:
            try:
                pending = await self.settle_all()
                if pending:
                    log.warning("quitting with %d request(s) still in flight: %s", len(pending),
                                ", ".join(f"{item['method']} {item['url']}" for item in pending[:5]))
            finally:
                QApplication.quit()

        asyncio.ensure_future(settle_then_quit())

    def shutdown(self) -> None:
        """Delete every page, then every profile. Safe to call more than once."""
        if self._shut_down:
            return
        self._shut_down = True
        self.mcp.stop()  # first: no agent call may reach a page that is being deleted
        # Windows are deleted here, not left to deleteLater (the loop may not turn again) or to Python's
        # teardown, which can free them after the QApplication (a SIGTERM once crashed in libQt6Gui).
        for window in list(self.windows.values()):
            window.dispose_tabs()
            window.close()
            if shiboken6.isValid(window):
                shiboken6.delete(window)
        self.windows.clear()
        if getattr(self, "editors", None) is not None:
            self.editors.close_all()
        if self.main_window is not None and shiboken6.isValid(self.main_window):
            self.main_window.environments.model.detach()
            self.main_window.close()
            shiboken6.delete(self.main_window)
        self.main_window = None
        self.cdp.close_all()  # DevTools front-end pages before any profile
        self.code_sandbox.close()
        self.policies.close()
        self.profiles.close_all()
        for path, problem in self.saves.close().items():  # last: whatever the steps above changed is saved too
            log.error("not saved at exit: %s (%s)", path, problem)
            self.exit_status = 1
        log.info("shut down: pages and profiles released, stores saved")

    # -- windows ---------------------------------------------------------------------------------------
    def show_environment(self, env_id: str) -> EnvWindow:
        """Open (with one new tab) or raise the environment's window."""
        window, created = self._window_for(env_id)
        if created:
            window.new_tab()
        return window

    def open_url(self, env_id: str, url: str, control: Control = "shared", raise_window: bool = True) -> BrowserTab:
        """Open `url` in a new tab of the environment's window."""
        window, _created = self._window_for(env_id, raise_window)
        return window.new_tab(url, control=control)

    def _window_for(self, env_id: str, raise_window: bool = True) -> tuple[EnvWindow, bool]:
        window = self.windows.get(env_id)
        created = window is None
        if window is None:
            env = self.envs.get(env_id)
            window = EnvWindow(
                env.id, env.name, self.profiles.get(env.id),
                search_url=lambda: self.settings.current.search_url,
                home_url=lambda: self.settings.current.home_url,
                show_main_window=self.show_main_window,
                groups=self.ctx.groups, ops=self.ops,
            )
            window.closed.connect(self._on_window_closed)
            window.page_visited.connect(self.envs.record_visit)
            window.tab_opened.connect(self._on_tab_opened)
            self._attach_agent(window)
            self.windows[env_id] = window
            window.show()
        elif raise_window:
            window.showNormal()
        if raise_window:
            window.raise_()
            window.activateWindow()
        return window, created

    def _attach_agent(self, window: EnvWindow) -> None:
        from app.ui.agent_panel import attach_agent_panel

        attach_agent_panel(window, window.env_id, self.registry, self.ctx)

    def show_main_window(self) -> None:
        if self.main_window is not None:
            self.main_window.showNormal()
            self.main_window.raise_()
            self.main_window.activateWindow()

    def _on_tab_opened(self, tab: BrowserTab) -> None:
        # Redirects are checked before they are followed, and blocked navigations explained, on every page.
        self.policies.guard_page(tab.page(), tab.env_id, tab.tab_id)

    def _on_window_closed(self, env_id: str) -> None:
        self.windows.pop(env_id, None)

    def _on_groups_changed(self, env_id: str) -> None:
        window = self.windows.get(env_id)
        if window is not None:
            window.refresh_groups()

    def _on_env_event(self, event: EnvEvent) -> None:
        if event.kind == "deleted":
            self.ctx.groups.drop_env(event.env_id)
        window = self.windows.get(event.env_id)
        if window is not None and event.kind == "updated" and self.envs.exists(event.env_id):
            window.set_env_name(self.envs.get(event.env_id).name)

    def tabs(self) -> list[BrowserTab]:
        return [tab for window in self.windows.values() for tab in window.tab_list()]

    def find_tab(self, tab_id: str) -> tuple[EnvWindow, BrowserTab]:
        for window in self.windows.values():
            for tab in window.tab_list():
                if tab.tab_id == tab_id:
                    return window, tab
        raise LookupError(f"there is no open tab with id {tab_id!r}; tab_list shows the open tabs")

    def _tab_id_of_page(self, page: object) -> str | None:
        return next((tab.tab_id for tab in self.tabs() if tab.page() is page), None)

    # -- the browser port ------------------------------------------------------------------------------
    async def open_environment(self, env_id: str) -> None:
        self.show_environment(env_id)

    async def open_tab(self, env_id: str, url: str, control: Control = "agent") -> str:
        return self.open_url(env_id, url, control, raise_window=False).tab_id

    def list_tabs(self, env_id: str | None = None) -> list[TabInfo]:
        infos = []
        for window in self.windows.values():
            if env_id is not None and window.env_id != env_id:
                continue
            current = window.current_tab()
            for tab in window.tab_list():
                infos.append(TabInfo(id=tab.tab_id, env=tab.env_id, url=tab.url().toString(), title=tab.title(),
                                     control=str(EnvWindow.control_of(tab).state),  # type: ignore[arg-type]
                                     loading=tab.loading, active=tab is current))
        return infos

    async def close_tab(self, tab_id: str) -> None:
        window, tab = self.find_tab(tab_id)
        window.close_tab(tab)

    async def settle_tabs(self, tab_ids: Sequence[str], timeout: float) -> list[dict[str, Any]]:
        drivers = [self._drivers[tab_id] for tab_id in tab_ids if tab_id in self._drivers]
        results = await asyncio.gather(*(driver.settle(timeout) for driver in drivers), return_exceptions=True)
        pending: list[dict[str, Any]] = []
        for driver, result in zip(drivers, results):
            if isinstance(result, BaseException):
                log.info("could not wait for %s: %s", driver.tab_id, result)
                continue
            pending.extend({"tabId": driver.tab_id, **item} for item in result["pending"])
        return pending

    async def settle_all(self) -> list[dict[str, Any]]:
        """Before the app ends: what the tabs it acted on still have in flight lands (at most the settle time)."""
        return await self.settle_tabs(list(self._drivers), self.settings.current.settle_seconds)

    async def activate_tab(self, tab_id: str) -> None:
        window, tab = self.find_tab(tab_id)
        window.tabs.setCurrentWidget(tab)

    async def page(self, tab_id: str | None, env_id: str | None) -> TabDriver:
        if tab_id is not None:
            window, tab = self.find_tab(tab_id)
            if env_id is not None and tab.env_id != env_id:
                raise LookupError(f"tab {tab_id} belongs to {tab.env_id}, not {env_id}")
        else:
            env = self.envs.get(env_id or DEFAULT_ENV_ID)
            window, created = self._window_for(env.id, raise_window=False)
            tab = window.current_tab() or window.new_tab(control="agent")
        driver = self._drivers.get(tab.tab_id)
        if driver is None:
            driver = TabDriver(tab, EnvWindow.control_of(tab), self.data.captures(tab.env_id),
                               self.data.downloads(tab.env_id), self._tab_id_of_page, net=self.net)
            self._drivers[tab.tab_id] = driver
            drivers = self._drivers  # not `self`: a closure over the app would keep it alive after shutdown
            tab.destroyed.connect(lambda *_args, key=tab.tab_id: drivers.pop(key, None))
        return driver

    async def release_environment(self, env_id: str) -> None:
        window = self.windows.pop(env_id, None)
        if window is not None:
            window.dispose_tabs()
            window.close()
        self.profiles.release(env_id)

    # -- network (policy log, capture) ------------------------------------------------------------------
    def net_blocked(self, env_id: str | None = None, tab_id: str | None = None, limit: int = 500) -> list[dict[str, Any]]:
        """Recent requests the domain policies blocked (oldest first), of one environment or tab."""
        return self.policies.blocked(env_id, tab_id, limit)

    async def export_har(self, tab_id: str, path: str,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> str | None:
        """Write the HAR of the tab's capture (secret strings redacted) to `path`; None when capture never
        ran on that tab (or the tab is gone)."""
        if self.captures.get(tab_id) is None:
            return None
        try:
            driver = await self.page(tab_id, None)
        except LookupError:
            return None
        return str((await driver.net_export(path, redact))["path"])

    # -- environment transfer and tab groups --------------------------------------------------------------
    def _profile_state(self, env_id: str) -> ProfileState:
        pages = [tab.page() for tab in self.tabs() if tab.env_id == env_id]
        return ProfileState(self.cdp, self.profiles.get(env_id), pages)

    async def read_env_state(self, env_id: str, origins: Sequence[str] = ()) -> dict[str, Any]:
        return await self._profile_state(env_id).read(origins)

    async def write_env_state(self, env_id: str, cookies: Sequence[Mapping[str, Any]],
                              local_storage: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        return await self._profile_state(env_id).write(cookies, local_storage)

    def set_tab_group(self, tab_id: str, group_id: str | None) -> str:
        window, tab = self.find_tab(tab_id)
        window.set_tab_group(tab, group_id)
        return tab.env_id

    def tab_groups(self, env_id: str | None = None) -> dict[str, str]:
        return {tab_id: group for window in self.windows.values() if env_id in (None, window.env_id)
                for tab_id, group in window.tab_groups().items()}
