"""Settings of unattended work (File → Settings and Data Folder…), each saved at once when changed:

- how long a run, a tab closed by an operation or a quitting app lets what a page still has in flight (a form
  post, a fetch) land (`settleSeconds` in settings.json; read each time it is needed);
- how long an app started headless by `browserpilot mcp` stays up after its last bridge client has gone
  (`idleExitMinutes`; the idle watch reads the setting every time it looks);
- what a run keeps of itself (workflows/tracing.py): its trace (`trace`: off, on failure, always), its video
  (`video`), and how much disk all traces and videos may take together (`traceDiskMb`).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from app.stores.settings import SettingsStore
from plumbing import loggers
from plumbing.jsonstore import StoreError

log = logging.getLogger(loggers.UI)

MAX_MINUTES = 10080  # a week: the settings model's upper bound
MAX_SETTLE_SECONDS = 300
MAX_TRACE_DISK_MB = 1_000_000
MODE_TEXT = {"off": QT_TRANSLATE_NOOP("TraceMode", "Off"),
             "on-failure": QT_TRANSLATE_NOOP("TraceMode", "When the run fails"),
             "always": QT_TRANSLATE_NOOP("TraceMode", "Always")}


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
        self.trace = self._mode("trace-mode", "trace", settings.current.trace)
        self._row(self.tr("Keep a trace of each run:"), self.trace,
                  self.tr("A screenshot of every node (the element it acted on outlined), its console messages, "
                          "page errors and requests: the Runs panel's Trace tab. A run, a batch or a schedule may "
                          "ask otherwise."))
        self.video = self._mode("video-mode", "video", settings.current.video)
        self._row(self.tr("Keep a video of each run:"), self.video,
                  self.tr("A film of the run's tab, its nodes as chapters. Fields a secret was typed into are "
                          "covered in every screenshot and frame."))
        self.disk = self._number("trace-disk-mb", "trace_disk_mb", 10, MAX_TRACE_DISK_MB, self.tr(" MB"), "",
                                 settings.current.trace_disk_mb)
        self._row(self.tr("Traces and videos take at most:"), self.disk,
                  self.tr("All runs' traces and videos together; the oldest are deleted first (their runs stay)."))
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

    def _mode(self, name: str, field: str, value: str) -> QComboBox:
        box = QComboBox(self)
        box.setObjectName(name)
        for mode, text in MODE_TEXT.items():
            box.addItem(QCoreApplication.translate("TraceMode", text), mode)
        box.setCurrentIndex(max(0, box.findData(value)))
        box.currentIndexChanged.connect(lambda _index: self._save(field, box.currentData()))
        return box

    def _row(self, label: str, box: QWidget, note: str) -> None:
        self._form.addRow(label, box)
        text = QLabel(note, self)
        text.setWordWrap(True)
        self._form.addRow(text)

    def _save(self, field: str, value: int | str) -> None:
        try:
            self.settings.update(**{field: value})
        except (StoreError, OSError) as exc:
            log.error("could not save the setting %s: %s", field, exc)
            self.problem.setText(self.tr("Not saved: {reason}").format(reason=str(exc)))
            self.problem.show()
            return
        self.problem.hide()
