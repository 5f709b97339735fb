"""The Schedules panel of the main window: each schedule with its timing and next time in words ("every weekday
at 09:00 — next Thursday 09:00"), its last result, an On switch, and New…, Edit…, Run Now, Delete….

The table reads `schedule_list` whenever the schedules change (a firing, a result, a change from the CLI or an
agent), a workflow is renamed or the schedules are paused (the panel follows the stores: app/ui/follow.py), and
redraws its "when" words once a minute (so "next" words stay true); every action is an operation (`schedule_create`,
`schedule_update`, `schedule_run`, `schedule_delete`). `add_schedules_panel` puts it into the main window,
and connects the Workflows panel's "Schedule…" to a new schedule of the chosen workflow.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QLabel, QMessageBox, QVBoxLayout, QWidget

from app.ops import schedule_ops
from app.ops.results import ScheduleFiring, ScheduleListResult, ScheduleView
from app.stores.settings import SettingsStore
from app.ui.empty_state import EmptyState, TableOrEmpty
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.runs_panel import local_time, status_icon, status_text
from app.ui.schedule_dialog import open_schedule_dialog, timing_words, translated_words
from app.ui.table_model import RowsTableModel, button_row, record_table
from app.ui.theme import icon
from plumbing import loggers
from workflows.envelope import Envelope
from workflows.schedule_timing import Timing, describe

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

log = logging.getLogger(loggers.UI)

ModelIndex = QModelIndex | QPersistentModelIndex
COLUMNS = (QT_TRANSLATE_NOOP("ScheduleTableModel", "On"), QT_TRANSLATE_NOOP("ScheduleTableModel", "Name"),
           QT_TRANSLATE_NOOP("ScheduleTableModel", "Workflow"), QT_TRANSLATE_NOOP("ScheduleTableModel", "When"),
           QT_TRANSLATE_NOOP("ScheduleTableModel", "Last result"))
REDRAW_MS = 60_000


class ScheduleTableModel(RowsTableModel[ScheduleView]):
    """`schedule_list` rows; column 0 is the On switch (checkable)."""

    columns = COLUMNS
    context = "ScheduleTableModel"

    def __init__(self, panel: "SchedulesPanel") -> None:
        super().__init__(panel)
        self.panel = panel
        self._rows: list[ScheduleView] = []

    def set_rows(self, rows: list[ScheduleView]) -> None:
        self.replace_rows(rows, key=lambda view: view.id)

    def schedule_at(self, row: int) -> ScheduleView | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsUserCheckable if index.column() == 0 else flags

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        view = self.schedule_at(index.row())
        if view is None or index.column() != 0 or role != Qt.ItemDataRole.CheckStateRole:
            return False
        self.panel.set_enabled(view.id, Qt.CheckState(value) == Qt.CheckState.Checked)
        return True

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        view = self.schedule_at(index.row())
        if view is None:
            return None
        column = index.column()
        last = view.last
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Checked if view.enabled else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 1:
                return view.name
            if column == 2:
                return view.workflow_name or view.workflow_id
            if column == 3:
                return self.panel.when_text(view)
            if column == 4:
                return self.panel.last_text(last)
        if role == Qt.ItemDataRole.DecorationRole and column == 4 and last is not None:
            return status_icon(last.status) if last.status not in ("skipped", "missed") else icon("skip-forward")
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 1:
                return f"{view.name} ({view.id})"
            if column == 4 and last is not None:
                return last.reason or last.run_id or last.batch_id
        if role == Qt.ItemDataRole.UserRole:
            return view.id
        return None


class SchedulesPanel(QWidget):
    def __init__(self, ops: OpRunner, settings: SettingsStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("schedules-panel")
        self.ops = ops
        self.settings = settings
        self._select_when_shown: str | None = None
        self.model = ScheduleTableModel(self)
        self.table = record_table(self, self.model, "schedules")
        header = self.table.horizontalHeader()
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch,
                                       QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        row, self.buttons = button_row(self, "sch", (
            ("new", self.tr("&New Schedule…"), self.new_schedule, "plus"),
            ("edit", self.tr("&Edit…"), self.edit_selected, "pencil"),
            ("run", self.tr("Run &Now"), self.run_selected, "play"),
            ("delete", self.tr("&Delete…"), self.delete_selected, "trash-2"),
        ))
        self.empty = EmptyState(
            "sch", "calendar", self.tr("No schedules yet"),
            self.tr("A schedule runs a saved workflow by itself: every few minutes, every day or on weekdays at a "
                    "time, once, or by a cron expression. BrowserPilot stays in the tray to run it and calls you "
                    "when a step needs a person."),
            [("new", "plus", self.tr("New Schedule…"), self.new_schedule)], self)
        self.stack = TableOrEmpty(self.table, self.empty, self)
        self.paused_note = QLabel(self.tr("All schedules are paused (the tray menu resumes them)."), self)
        self.paused_note.setObjectName("sch-paused")
        self.paused_note.setProperty("role", "hint")
        self.paused_note.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.paused_note)
        layout.addWidget(self.stack, 1)
        self._minute = QTimer(self)  # a clock: the "next" words are drawn again, nothing is read
        self._minute.setInterval(REDRAW_MS)
        self._minute.timeout.connect(self._redraw_when)
        self._minute.start()
        ops.changes.follow(self, ("schedules", "workflows", "settings"), self._on_stores_changed)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.model.modelReset.connect(self._update_buttons)
        self._update_buttons()
        self.refresh()

    # -- words ---------------------------------------------------------------------------------------------
    def when_text(self, view: ScheduleView) -> str:
        timing = Timing.model_validate(view.timing)
        if not view.enabled:
            return self.tr("{when} — off").format(when=describe(timing, translated_words(self)))
        upcoming = datetime.fromisoformat(view.next_run_at) if view.next_run_at else None
        return timing_words(self, timing, upcoming)

    def last_text(self, last: ScheduleFiring | None) -> str:
        if last is None:
            return self.tr("never run")
        status = {"skipped": self.tr("skipped"), "missed": self.tr("missed"),
                  "running": self.tr("running")}.get(last.status) or status_text(last.status)
        counts = last.counts
        if counts:
            status = self.tr("{status} ({ok} of {total} ok)").format(status=status, ok=counts.get("succeeded", 0),
                                                                      total=counts.get("total", 0))
        return f"{status} · {local_time(last.at, seconds=False)}"

    # -- the list ------------------------------------------------------------------------------------------
    def _on_stores_changed(self, _changed: Changed) -> None:
        self.refresh()

    def _redraw_when(self) -> None:
        if self.model.rowCount():
            self.model.dataChanged.emit(self.model.index(0, 3), self.model.index(self.model.rowCount() - 1, 3))

    def refresh(self) -> None:
        """Read the list now (the panel reads it by itself whenever it changes)."""
        if not shiboken6.isValid(self):
            return
        self.ops.run(schedule_ops.schedule_list, {}, self, on_ok=self._show)

    def _show(self, answer: Envelope[ScheduleListResult]) -> None:
        if not shiboken6.isValid(self) or not shiboken6.isValid(self.stack):
            return  # the window closed while the list was read
        listed = answer.result
        self.model.set_rows(listed.schedules)
        self.stack.show_empty(not listed.schedules)
        self.paused_note.setVisible(listed.paused)
        if self._select_when_shown is not None:
            self.select(self._select_when_shown)
        self._update_buttons()

    def selected(self) -> ScheduleView | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.schedule_at(rows[0].row()) if rows else None

    def select(self, schedule_id: str) -> None:
        """Select the schedule's row; a schedule just made is selected when the list next shows it."""
        self._select_when_shown = schedule_id
        for row in range(self.model.rowCount()):
            view = self.model.schedule_at(row)
            if view is not None and view.id == schedule_id:
                self.table.selectRow(row)
                self._select_when_shown = None

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        for key in ("edit", "run", "delete"):
            self.buttons[key].setEnabled(chosen)

    # -- actions -------------------------------------------------------------------------------------------
    def new_schedule(self, workflow_id: str | None = None) -> None:
        open_schedule_dialog(self.ops, self, workflow_id=workflow_id,
                             on_saved=lambda saved: self.select(saved.id))

    def edit_selected(self) -> None:
        view = self.selected()
        if view is not None:
            open_schedule_dialog(self.ops, self, schedule=view)

    def set_enabled(self, schedule_id: str, enabled: bool) -> None:
        self.ops.run(schedule_ops.schedule_update, {"schedule": schedule_id, "enabled": enabled}, self)

    def run_selected(self) -> None:
        view = self.selected()
        if view is not None:
            self.ops.run(schedule_ops.schedule_run, {"schedule": view.id}, self)

    def delete_selected(self) -> None:
        view = self.selected()
        if view is None:
            return
        answer = QMessageBox.question(self, self.tr("Delete Schedule"),
                                      self.tr("Delete the schedule {name}? Its past runs stay in the Runs panel.")
                                      .format(name=view.name))
        if answer == QMessageBox.StandardButton.Yes:
            self.ops.run(schedule_ops.schedule_delete, {"schedule": view.id}, self)


def add_schedules_panel(window: "MainWindow", ops: OpRunner) -> SchedulesPanel:
    """The Schedules tab after Workflows, and "Schedule…" on a workflow opening a new schedule for it."""
    panel = SchedulesPanel(ops, ops.ctx.settings, window)
    index = window.panels.indexOf(window.workflows_panel) + 1
    window.panels.insertTab(index, panel, icon("calendar"), QCoreApplication.translate("SchedulesPanel", "Schedules"))
    window.schedules_panel = panel  # type: ignore[attr-defined]

    def schedule_workflow(workflow_id: str) -> None:
        window.panels.setCurrentWidget(panel)
        panel.new_schedule(workflow_id)

    window.workflows_panel.schedule_requested.connect(schedule_workflow)
    return panel
