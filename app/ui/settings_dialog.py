"""Settings of the app that agents start: how long an app started headless by `browserpilot mcp` stays up
after its last bridge client has gone (File → Settings and Data Folder…; `idleExitMinutes` in settings.json).

A change is saved and applies at once (the idle watch reads the setting every time it looks)."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from app.settings import SettingsStore
from envs.jsonstore import StoreError

log = logging.getLogger("browserpilot.ui")

MAX_MINUTES = 10080  # a week: the settings model's upper bound


class IdleExitSection(QGroupBox):
    """The idle-exit minutes (0: never) of an app started for an agent client."""

    def __init__(self, settings: SettingsStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("When an agent starts the app"))
        self.settings = settings
        self.minutes = QSpinBox(self)
        self.minutes.setObjectName("idle-exit-minutes")
        self.minutes.setRange(0, MAX_MINUTES)
        self.minutes.setSuffix(self.tr(" min"))
        self.minutes.setSpecialValueText(self.tr("Never"))
        self.minutes.setValue(settings.current.idle_exit_minutes)
        self.minutes.setKeyboardTracking(False)  # save the number typed, not each digit of it
        self.minutes.valueChanged.connect(self._save)
        self.note = QLabel(self.tr("An app that <code>browserpilot mcp</code> started without windows quits this "
                                   "long after its last agent client has gone, never while a run, a batch, a "
                                   "recording or a window someone uses is open. An app you started yourself never "
                                   "quits by itself."), self)
        self.note.setWordWrap(True)
        self.problem = QLabel(self)
        self.problem.setObjectName("idle-exit-problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        form = QFormLayout(self)
        form.addRow(self.tr("Quit after idle:"), self.minutes)
        form.addRow(self.note)
        form.addRow(self.problem)

    def _save(self, minutes: int) -> None:
        try:
            self.settings.update(idle_exit_minutes=minutes)
        except (StoreError, OSError) as exc:
            log.error("could not save the idle exit setting: %s", exc)
            self.problem.setText(self.tr("Not saved: {reason}").format(reason=str(exc)))
            self.problem.show()
            return
        self.problem.hide()
