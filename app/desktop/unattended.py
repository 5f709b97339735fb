"""Work nobody watches, wired into the app: the scheduler, the runs waiting for a person, desktop
notifications, the tray, and an app that stays when its windows close.

`Unattended` is made by the shell (one wiring block in app/wiring/shell.py) and owns:

- the `Scheduler` (app/schedules/service.py), started with the app (`start`), also headless;
- the `AttentionWatcher` (app/schedules/attention.py): tabs handed to the person (a workflow's handoff or
  captcha, an agent's or an MCP client's `page_handoff`);
- the `Notifier` (app/desktop/notifications.py): a person is needed (always for a run a schedule started, otherwise
  only when the run's window is not the active one: a person who looks at it needs no notification), a
  scheduled run failed, a scheduled batch finished, a schedule skipped or missed a time; "Open" raises the
  environment's window on the waiting tab (`tab_activate`), "Show run" opens it in the Runs panel;
- the `Tray` (app/desktop/tray.py), with windows only: idle, running (n), needs you, and the same events in its menu;
- staying: with schedules switched on and the setting on (`keepInTray`), closing the main window hides it to
  the tray (the first time with a message that says so); where the desktop has no tray, the window is
  minimised instead and the app says why once. The app quits when its last window closes only when it has no
  reason to stay (Qt's own quit-on-last-window is off; `lastWindowClosed` decides);
- the Schedules panel of the main window, and start at login (`--minimized`: in the tray from the start).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMessageBox

from app.desktop.notifications import Action, NotificationKind, Notifier
from app.desktop.settings_section import DesktopSection
from app.desktop.tray import Tray, TrayEntry
from app.ops import tab_ops
from app.schedules.attention import AttentionWatcher, Waiting
from app.schedules.service import ScheduleNotice, Scheduler
from app.startup.resources import APP_ICON
from plumbing import loggers

if TYPE_CHECKING:
    from app.browser.service import BrowserService
    from app.ops import OpContext
    from app.ops.registry import OperationRegistry
    from app.stores.settings import SettingsStore
    from app.ui.env_window import EnvWindow
    from app.ui.env_windows import EnvWindows
    from app.ui.main_window import MainWindow
    from app.ui.op_runner import OpRunner
    from envs.store import EnvStore

log = logging.getLogger(loggers.SCHEDULES)

SETTING_OF_KIND: dict[NotificationKind, str] = {
    "needs_person": "notify_needs_person", "run_failed": "notify_run_failed",
    "batch_finished": "notify_batch_finished", "schedule_skipped": "notify_schedule_skipped"}


class UnattendedHost(Protocol):
    """What `Unattended` uses of the app that makes it (app/wiring/shell.py): its stores, its browser, its windows."""

    headless: bool
    settings: SettingsStore
    registry: OperationRegistry
    ctx: OpContext
    ops: OpRunner
    envs: EnvStore
    service: BrowserService
    windows: EnvWindows | None

    def quit(self) -> None: ...

    def show_main_window(self) -> None: ...

    def show_environment(self, env_id: str) -> EnvWindow | None: ...


class Unattended(QObject):
    """See the module docstring."""

    def __init__(self, shell: UnattendedHost) -> None:
        super().__init__(shell)
        self.shell = shell
        self.start_minimized = False
        settings = shell.settings
        self.scheduler = Scheduler(shell.registry, shell.ctx, paused=settings.current.schedules_paused)
        shell.ctx.scheduler = self.scheduler
        self.notifier = Notifier(lambda kind: bool(getattr(settings.current, SETTING_OF_KIND[kind])),
                                 icon=str(APP_ICON))
        assert shell.ctx.runner is not None
        self.attention = AttentionWatcher(shell.ctx.runner.events, shell.service, self)
        self.attention.needed.connect(self._on_needed)
        self.attention.changed.connect(lambda _waiting: self._update_tray())
        self.scheduler.subscribe(self._on_notice)
        self.tray: Tray | None = None
        self.main_window: MainWindow | None = None
        self._run_events = shell.ctx.runner.events.subscribe(self._on_run_event)
        self._said_no_tray = False
        self._started = False

    # -- life ----------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start firing schedules; with windows, take over what closing the last window does."""
        self._started = True
        self.scheduler.start()
        if not self.shell.headless:
            app = QApplication.instance()
            assert isinstance(app, QApplication)
            app.setQuitOnLastWindowClosed(False)
            app.lastWindowClosed.connect(self._on_last_window_closed)

    def stop(self) -> None:
        self.scheduler.stop()
        self.attention.close()
        self._run_events()
        if self._started and not self.shell.headless:
            app = QApplication.instance()
            if app is not None:
                try:
                    app.lastWindowClosed.disconnect(self._on_last_window_closed)
                except (RuntimeError, TypeError):
                    pass
        if self.tray is not None:
            self.tray.close()
            self.tray = None

    def attach(self, window: "MainWindow") -> None:
        """The main window exists: its Schedules panel, the Settings dialog's desktop section, the tray, closing to
        the tray, start minimised."""
        from app.ui.schedules_panel import add_schedules_panel

        self.main_window = window
        add_schedules_panel(window, self.shell.ops)
        window.settings_sections.append(DesktopSection)
        window.installEventFilter(self)
        if self.shell.headless:
            return
        self.tray = Tray(self)
        self.tray.set_paused(self.scheduler.paused)
        self.tray.open_requested.connect(self.shell.show_main_window)
        self.tray.quit_requested.connect(self.shell.quit)
        self.tray.pause_toggled.connect(self.set_paused)
        if self.keeps_running() or self.start_minimized:
            self.tray.show()
        if self.start_minimized:
            if self.tray.available:
                window.hide()
            else:
                window.showMinimized()

    def set_paused(self, paused: bool) -> None:
        """Pause or resume every schedule; remembered across restarts."""
        self.scheduler.set_paused(paused)
        try:
            self.shell.settings.update(schedules_paused=paused)
        except OSError as exc:
            log.warning("cannot remember that schedules are %s: %s", "paused" if paused else "resumed", exc)
        if self.tray is not None:
            self.tray.set_paused(paused)

    # -- staying in the tray -------------------------------------------------------------------------------
    def keeps_running(self) -> bool:
        """Closing the windows leaves the app running: it has switched-on schedules and the setting says so."""
        return (not self.shell.headless and self.shell.settings.current.keep_in_tray
                and any(schedule.enabled for schedule in self.shell.ctx.schedules.list()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        # Closed by a person, the window goes to the tray; closed because the app ends (its Quit, the session's
        # SIGTERM), it closes: refused, Qt would call the quit off and the app would never end.
        if watched is self.main_window and event.type() == QEvent.Type.Close and self.keeps_running() \
                and not self.shell.quitting:
            event.ignore()
            self._stay(watched)
            return True
        return False

    def _stay(self, window: Any) -> None:
        tray = self.tray
        if tray is not None and tray.show():
            window.hide()
            if not self.shell.settings.current.tray_notice_shown:
                tray.show_message(self.tr("BrowserPilot is still running"),
                                  self.tr("Your schedules run from the tray. Quit from the tray's menu; turn this "
                                          "off in Settings."))
                try:
                    self.shell.settings.update(tray_notice_shown=True)
                except OSError as exc:
                    log.warning("cannot remember the tray notice: %s", exc)
            return
        window.showMinimized()
        if not self._said_no_tray:
            self._said_no_tray = True
            QMessageBox.information(window, self.tr("No System Tray"),
                                    self.tr("This desktop has no system tray, so BrowserPilot stays open (minimised) "
                                            "to run your schedules. Quit with File → Quit."))

    def _on_last_window_closed(self) -> None:
        if not self.keeps_running():
            self.shell.quit()

    # -- people and events ---------------------------------------------------------------------------------
    def open_waiting(self, waiting: Waiting) -> None:
        """Raise the environment's window on the waiting tab (a windowless one is shown in it first)."""
        if not self.shell.envs.exists(waiting.env_id):
            return
        try:
            self.shell.service.show_tab(waiting.tab_id)
        except LookupError:  # the tab is gone: the environment's window, at least
            self.shell.show_environment(waiting.env_id)
            return
        self.shell.ops.start(tab_ops.tab_activate, {"tab_id": waiting.tab_id}, lambda _answer: None)

    def show_run(self, run_id: str | None) -> None:
        self.shell.show_main_window()
        if self.main_window is not None and shiboken6.isValid(self.main_window):
            if run_id:
                self.main_window.show_run(run_id)
            else:
                self.main_window.panels.setCurrentWidget(self.main_window.runs_panel)

    def show_schedules(self) -> None:
        self.shell.show_main_window()
        panel = getattr(self.main_window, "schedules_panel", None)
        if panel is not None:
            self.main_window.panels.setCurrentWidget(panel)  # type: ignore[union-attr]

    def _env_name(self, env_id: str) -> str:
        return self.shell.envs.get(env_id).name if self.shell.envs.exists(env_id) else env_id

    def _window_active(self, env_id: str) -> bool:
        window = self.shell.windows.windows.get(env_id) if self.shell.windows is not None else None
        return window is not None and window.isVisible() and window.isActiveWindow()

    def _on_needed(self, waiting: Waiting) -> None:
        if waiting.schedule_id is None and self._window_active(waiting.env_id):
            return  # the person is looking at it
        title = (self.tr("A person is needed: {workflow}").format(workflow=waiting.workflow) if waiting.workflow
                 else self.tr("A person is needed"))
        self.notifier.notify("needs_person", title,
                             self.tr("{env}: {message}").format(env=self._env_name(waiting.env_id),
                                                                message=waiting.message),
                             Action(self.tr("Open"), lambda w=waiting: self.open_waiting(w)))

    def _on_notice(self, notice: ScheduleNotice) -> None:
        if notice.kind == "batch_finished":
            title = self.tr("Batch finished: {name}").format(name=notice.schedule_name)
            body = self.tr("{ok} ok, {failed} failed of {total}").format(
                ok=notice.counts.get("succeeded", 0), failed=notice.counts.get("failed", 0),
                total=notice.counts.get("total", 0))
            kind: NotificationKind = "batch_finished"
            action = Action(self.tr("Show Runs"), lambda: self.show_run(None))
        elif notice.kind == "run_failed":
            title = self.tr("Run failed: {name}").format(name=notice.schedule_name)
            body = notice.text
            kind = "run_failed"
            action = Action(self.tr("Show Run"), lambda run_id=notice.run_id: self.show_run(run_id))
        else:
            title = (self.tr("Schedule skipped: {name}") if notice.kind == "skipped"
                     else self.tr("Schedule missed: {name}")).format(name=notice.schedule_name)
            body = notice.text
            kind = "schedule_skipped"
            action = Action(self.tr("Show Schedules"), self.show_schedules)
        self.notifier.notify(kind, title, body, action)
        if self.tray is not None:
            self.tray.add_event(TrayEntry(f"{title} — {body}"[:120], action.callback))

    def _waiting_text(self, waiting: Waiting) -> str:
        where = self.tr("{env}: {message}").format(env=self._env_name(waiting.env_id), message=waiting.message)
        return self.tr("{workflow} — {where}").format(workflow=waiting.workflow, where=where) if waiting.workflow \
            else where

    def _on_run_event(self, event: Any) -> None:
        if event.kind in ("run_started", "run_finished"):
            self._update_tray()

    def _update_tray(self) -> None:
        tray = self.tray
        if tray is None:
            return
        runner = self.shell.ctx.runner
        tray.set_running(len(runner.active_runs()) if runner is not None else 0)
        tray.set_waiting([TrayEntry(self._waiting_text(w)[:120], lambda w=w: self.open_waiting(w))
                          for w in self.attention.waiting()])
        if (self.keeps_running() or tray.state != "idle") and not tray.icon.isVisible():
            tray.show()
