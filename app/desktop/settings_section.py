"""Settings of the app on the desktop (File → Settings and Data Folder…), each saved when changed:

- stay in the tray when the windows close while schedules are on (`keepInTray`); where the desktop has no
  tray, the section says so (the app then stays open, minimised);
- start at login: writes or removes the XDG autostart entry (app/desktop/autostart.py), which starts the app in
  the tray;
- which desktop notifications to send: a person is needed, a scheduled run failed, a scheduled batch finished, a
  schedule skipped or missed a time (`notify*` in settings.json).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QGroupBox, QLabel, QSystemTrayIcon, QVBoxLayout, QWidget

from app.desktop import autostart
from app.stores.settings import SettingsStore
from plumbing import loggers
from plumbing.jsonstore import StoreError

log = logging.getLogger(loggers.UI)


class DesktopSection(QGroupBox):
    def __init__(self, settings: SettingsStore, data_root: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Tray, notifications and start at login"))
        self.settings = settings
        self.data_root = data_root
        layout = QVBoxLayout(self)
        self.keep = self._setting("keep-in-tray", "keep_in_tray",
                                  self.tr("When schedules are on, closing the window leaves BrowserPilot in the tray"))
        layout.addWidget(self.keep)
        if not QSystemTrayIcon.isSystemTrayAvailable():
            note = QLabel(self.tr("This desktop has no system tray: BrowserPilot stays open, minimised, instead."), self)
            note.setObjectName("no-tray-note")
            note.setWordWrap(True)
            layout.addWidget(note)
        self.login = QCheckBox(self.tr("Start BrowserPilot at login (in the tray)"), self)
        self.login.setObjectName("start-at-login")
        self.login.setChecked(autostart.is_enabled())
        self.login.toggled.connect(self._set_login)
        layout.addWidget(self.login)
        layout.addWidget(QLabel(self.tr("Notify me when:"), self))
        for name, field, text in (
                ("notify-needs-person", "notify_needs_person", self.tr("A run needs a person (a handoff or a captcha)")),
                ("notify-run-failed", "notify_run_failed", self.tr("A scheduled run failed")),
                ("notify-batch-finished", "notify_batch_finished", self.tr("A scheduled batch finished")),
                ("notify-schedule-skipped", "notify_schedule_skipped",
                 self.tr("A schedule skipped or missed a time"))):
            layout.addWidget(self._setting(name, field, text))
        self.problem = QLabel(self)
        self.problem.setObjectName("desktop-settings-problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)

    def _setting(self, name: str, field: str, text: str) -> QCheckBox:
        box = QCheckBox(text, self)
        box.setObjectName(name)
        box.setChecked(bool(getattr(self.settings.current, field)))
        box.toggled.connect(lambda on, field=field: self._save(field, on))
        return box

    def _save(self, field: str, value: bool) -> None:
        try:
            self.settings.update(**{field: value})
        except (StoreError, OSError) as exc:
            self._say(str(exc))
            return
        self.problem.hide()

    def _set_login(self, on: bool) -> None:
        try:
            autostart.set_enabled(on, self.data_root)
        except (StoreError, OSError) as exc:
            self._say(str(exc))
            return
        self.problem.hide()

    def _say(self, reason: str) -> None:
        log.error("could not save a desktop setting: %s", reason)
        self.problem.setText(self.tr("Not saved: {reason}").format(reason=reason))
        self.problem.show()
