"""Settings of unattended work (File → Settings and Data Folder…), each saved at once when changed:

- how long a run, a tab closed by an operation or a quitting app lets what a page still has in flight (a form
  post, a fetch) land (`settleSeconds` in settings.json; read each time it is needed);
- how long an app started headless by `browserpilot mcp` stays up after its last bridge client has gone
  (`idleExitMinutes`; the idle watch reads the setting every time it looks).
"""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from app.settings import SettingsStore
from envs import loggers
from envs.jsonstore import StoreError

log = logging.getLogger(loggers.UI)

MAX_MINUTES = 10080  # a week: the settings model's upper bound
MAX_SETTLE_SECONDS = 300


class UnattendedSection(QGroupBox):
    """The numbers that govern work nobody watches."""

    def __init__(self, settings: SettingsStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Runs and agents"))
        self.settings = settings
        self.problem = QLabel(self)
        self.problem.setObjectName("settings-problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self._form = QFormLayout(self)

        self.settle = self._number("settle-seconds", "settle_seconds", 0, MAX_SETTLE_SECONDS, self.tr(" s"),
                                   self.tr("Don't wait"), int(settings.current.settle_seconds))
        self._row(self.tr("Wait for unfinished requests:"), self.settle,
                  self.tr("When a run ends, an agent closes a tab or the app quits, what the page still has in "
                          "flight (the order the last click posted, a fetch, a beacon) may finish for this long. "
                          "A run lists what was cut off."))
        self.minutes = self._number("idle-exit-minutes", "idle_exit_minutes", 0, MAX_MINUTES, self.tr(" min"),
                                    self.tr("Never"), settings.current.idle_exit_minutes)
        self._row(self.tr("Quit after idle:"), self.minutes,
                  self.tr("An app that <code>browserpilot mcp</code> started without windows quits this long after "
                          "its last agent client has gone, never while a run, a batch, a recording or a window "
                          "someone uses is open. An app you started yourself never quits by itself."))
        self._form.addRow(self.problem)

    def _number(self, name: str, field: str, low: int, high: int, suffix: str, special: str,
                value: int) -> QSpinBox:
        box = QSpinBox(self)
        box.setObjectName(name)
        box.setRange(low, high)
        box.setSuffix(suffix)
        box.setSpecialValueText(special)
        box.setValue(value)
        box.setKeyboardTracking(False)  # save the number typed, not each digit of it
        box.valueChanged.connect(lambda number: self._save(field, number))
        return box

    def _row(self, label: str, box: QSpinBox, note: str) -> None:
        self._form.addRow(label, box)
        text = QLabel(note, self)
        text.setWordWrap(True)
        self._form.addRow(text)

    def _save(self, field: str, value: int) -> None:
        try:
            self.settings.update(**{field: value})
        except (StoreError, OSError) as exc:
            log.error("could not save the setting %s: %s", field, exc)
            self.problem.setText(self.tr("Not saved: {reason}").format(reason=str(exc)))
            self.problem.show()
            return
        self.problem.hide()
