"""The Runs panel of the main window: the latest 50 workflow runs and the detail of the selected one.

The table (status with a coloured marker, workflow, environment, start, duration) is read with `run_list` and
read again whenever the runs change, whoever changed them (a run started or ended, here, over MCP, from the CLI,
by a schedule: the panel follows the stores, app/ui/follow.py), keeping the selection. The detail view reads
the whole record with `run_read`: where the run stopped and why, its outputs as a table, its files (Open, Show
in Folder), its tables (`run_tables`: exported tables and list outputs, sortable and filterable,
app/ui/run_tables.py), the failure screenshot (a thumbnail; click to open it), the HAR path, its inputs (secrets
redacted) and the per-node trace: its Trace view (a filmstrip, each step's screenshots, console and requests,
the video, Export; app/ui/trace_view.py) above the table of its nodes. A running run can be cancelled
(`run_cancel`). Everything goes through operations on the asyncio loop; nothing here blocks.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, QSize, Qt, QTimer,
                            QUrl, Signal)
from PySide6.QtGui import QBrush, QColor, QDesktopServices, QIcon, QMouseEvent, QPainter, QPixmap
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.distributed.models import group_batches
from app.ops import run_ops, workflow_ops
from app.ops.results import RunListResult, RunReadResult, RunRow, RunTablesResult, RunTableView, WorkflowRepairResult
from app.ui.empty_state import EmptyState, TableOrEmpty
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.run_tables import RunTablesView
from app.ui.table_model import RowsTableModel, item_table as _table, record_table
from app.ui.theme import current_scheme, icon
from app.ui.trace_view import TraceView
from plumbing import loggers
from workflows.envelope import Envelope
from workflows.runs import RunView, TraceStepView

log = logging.getLogger(loggers.UI)
LIST_ROWS_SHOWN = 6  # the runs list's least height, in rows

ModelIndex = QModelIndex | QPersistentModelIndex
RUN_LIMIT = 50
STATUS_COLOURS = {"ok": "#2e7d32", "failed": "#c62828", "cancelled": "#757575", "taken_over": "#ef6c00",
                  "running": "#1565c0", "not run": "#9e9e9e"}
STATUS_TEXT = {"ok": QT_TRANSLATE_NOOP("RunStatus", "ok"), "failed": QT_TRANSLATE_NOOP("RunStatus", "failed"),
               "cancelled": QT_TRANSLATE_NOOP("RunStatus", "cancelled"),
               "taken_over": QT_TRANSLATE_NOOP("RunStatus", "taken over"),
               "running": QT_TRANSLATE_NOOP("RunStatus", "running…"),
               "not run": QT_TRANSLATE_NOOP("RunStatus", "not run")}
_icons: dict[str, QIcon] = {}


# -- shared helpers (the Workflows panel uses them too) -------------------------------------------------------
def status_icon(status: str) -> QIcon:
    """A coloured dot for a run status."""
    icon = _icons.get(status)
    if icon is None:
        pixmap = QPixmap(12, 12)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(STATUS_COLOURS.get(status, "#9e9e9e")))
        painter.drawEllipse(1, 1, 10, 10)
        painter.end()
        icon = _icons[status] = QIcon(pixmap)
    return icon


def status_text(status: str) -> str:
    """A run status as a person reads it, translated."""
    text = STATUS_TEXT.get(status)
    return QCoreApplication.translate("RunStatus", text) if text else status


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def local_time(value: str | None, seconds: bool = True) -> str:
    parsed = parse_time(value)
    if parsed is None:
        return ""
    return parsed.astimezone().strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def format_duration(ms: float | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return QCoreApplication.translate("Duration", "{ms} ms").format(ms=f"{ms:.0f}")
    seconds = ms / 1000
    if seconds < 60:
        return QCoreApplication.translate("Duration", "{s} s").format(s=f"{seconds:.1f}")
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return QCoreApplication.translate("Duration", "{m} min {s} s").format(m=minutes, s=rest)
    hours, minutes = divmod(minutes, 60)
    return QCoreApplication.translate("Duration", "{h} h {m} min").format(h=hours, m=minutes)


def elapsed_ms(started: str | None) -> float | None:
    parsed = parse_time(started)
    return None if parsed is None else max(0.0, (datetime.now(timezone.utc) - parsed).total_seconds() * 1000)


def show_value(value: Any, limit: int = 400) -> tuple[str, str]:
    """A value as a table cell: (text shown, full text for the tooltip)."""
    if isinstance(value, dict) and "$file" in value:
        full = QCoreApplication.translate("RunsPanel", "(large value in {file}, {bytes} bytes)").format(
            file=value["$file"], bytes=value.get("bytes", "?"))
        return full, full
    full = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = full if len(full) <= limit else full[:limit] + "…"
    return text.replace("\n", " ⏎ "), full


def open_path(path: str) -> bool:
    """Open a file (or folder) with the desktop's application for it."""
    log.info("opening %s", path)
    return QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def show_in_folder(path: str) -> bool:
    return open_path(str(Path(path).parent))


# -- the table ---------------------------------------------------------------------------------------------
RUN_COLUMNS = (QT_TRANSLATE_NOOP("RunTableModel", "Status"), QT_TRANSLATE_NOOP("RunTableModel", "Workflow"),
               QT_TRANSLATE_NOOP("RunTableModel", "Environment"), QT_TRANSLATE_NOOP("RunTableModel", "Started"),
               QT_TRANSLATE_NOOP("RunTableModel", "Duration"))


class RunTableModel(RowsTableModel[RunRow]):
    """`run_list` rows, newest first, with environment names."""

    columns = RUN_COLUMNS
    context = "RunTableModel"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[RunRow] = []
        self._env_names: dict[str, str] = {}

    def set_rows(self, rows: list[RunRow], env_names: dict[str, str]) -> None:
        """Show `run_list`'s rows, a batch's rows together in row order."""
        by_id = {run.id: run for run in rows}
        grouped = [by_id[run["id"]] for run in group_batches([{"id": run.id, "batchId": run.batch_id,
                                                                  "rowIndex": run.row_index} for run in rows])]
        if env_names != self._env_names:
            self._env_names = dict(env_names)
            self._reset(grouped)
        else:
            self.replace_rows(grouped, key=lambda run: run.id)  # only new, gone and changed rows

    def run_at(self, row: int) -> RunRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, run_id: str) -> int:
        return next((i for i, run in enumerate(self._rows) if run.id == run_id), -1)

    def has_running(self) -> bool:
        return any(run.status == "running" for run in self._rows)

    def tick(self) -> None:
        """Running rows' durations grow."""
        for row, run in enumerate(self._rows):
            if run.status == "running":
                index = self.index(row, 4)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole])

    def env_name(self, env_id: str) -> str:
        return self._env_names.get(env_id, env_id)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        run = self.run_at(index.row())
        if run is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                batch = self.tr("  (row {n})").format(n=run.row_index + 1) if run.row_index is not None else ""
                healed = self.tr(" · {n} healed").format(n=run.healed) if run.healed else ""
                return status_text(run.status) + batch + healed
            if column == 1:
                return run.workflow
            if column == 2:
                return self.env_name(run.env)
            if column == 3:
                return local_time(run.started_at)
            if run.status == "running":
                return format_duration(elapsed_ms(run.started_at))
            return format_duration(run.duration_ms)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return status_icon(run.status)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                lines = [f"{run.id}: {status_text(run.status)}"]
                if run.batch_id:
                    lines.append(self.tr("batch {batch}, row {n}").format(batch=run.batch_id,
                                                                          n=(run.row_index or 0) + 1))
                if run.worker:
                    lines.append(self.tr("ran on worker {worker}").format(worker=run.worker))
                if run.healed:
                    lines.append(self.tr("{n} node(s) found by their fingerprint: their locators no longer matched")
                                 .format(n=run.healed))
                if run.error:
                    lines.append(run.error)
                return "\n".join(lines)
            if column == 2:
                return run.env
        if role == Qt.ItemDataRole.UserRole:
            return run.id
        return None


# -- the detail view ----------------------------------------------------------------------------------------
class ClickableLabel(QLabel):
    clicked = Signal()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.isEnabled():
            self.clicked.emit()
        super().mouseReleaseEvent(event)


def _item(text: str, tooltip: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tooltip and tooltip != text:
        item.setToolTip(tooltip)
    return item


def _selectable(label: QLabel) -> QLabel:
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


class RunDetail(QWidget):
    """Everything about one run record (a `run_read` view)."""

    THUMBNAIL = QSize(280, 180)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: RunView | None = None
        self.title = QLabel(self.tr("Select a run to see its detail."), self)
        self.title.setObjectName("run-title")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.labels: dict[str, QLabel] = {}
        form = self.form = QFormLayout()
        for key, text in (("status", self.tr("Status:")), ("workflow", self.tr("Workflow:")),
                          ("env", self.tr("Environment:")), ("started", self.tr("Started:")),
                          ("ended", self.tr("Ended:")), ("duration", self.tr("Duration:")),
                          ("batch", self.tr("Batch:")), ("stopped", self.tr("Stopped at:")),
                          ("error", self.tr("Error:")), ("har", self.tr("HAR:")),
                          ("screenshot", self.tr("Screenshot:"))):
            label = _selectable(QLabel(self))
            label.setObjectName(f"run-{key}")
            self.labels[key] = label
            form.addRow(text, label)
        self.labels["error"].setProperty("role", "error")
        self.thumbnail = ClickableLabel(self)
        self.thumbnail.setObjectName("run-screenshot-thumbnail")
        self.thumbnail.setCursor(Qt.CursorShape.PointingHandCursor)
        self.thumbnail.setToolTip(self.tr("Click to open the screenshot"))
        self.thumbnail.setFrameShape(QFrame.Shape.Box)
        self.thumbnail.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.thumbnail.clicked.connect(self.open_screenshot)
        form.addRow("", self.thumbnail)
        self.har_folder = QPushButton(icon("folder-open"), self.tr("Show HAR in Folder"), self)
        self.har_folder.setObjectName("run-har-folder")
        self.har_folder.clicked.connect(lambda: self.run and self.run.har and show_in_folder(self.run.har))
        form.addRow("", self.har_folder)
        summary_page = QWidget(self)
        summary_page.setLayout(form)
        summary = QScrollArea(self)
        summary.setWidgetResizable(True)
        summary.setFrameShape(QFrame.Shape.NoFrame)
        summary.setWidget(summary_page)

        self.outputs = _table(self, "run-outputs", (self.tr("Key"), self.tr("Value")))
        self.inputs = _table(self, "run-inputs-table", (self.tr("Input"), self.tr("Value")))
        self.files = _table(self, "run-files", (self.tr("File"), self.tr("Folder")))
        self.files.doubleClicked.connect(lambda _index: self.open_file())
        self.open_file_button = QPushButton(icon("external-link"), self.tr("&Open"), self)
        self.open_file_button.setObjectName("run-file-open")
        self.open_file_button.clicked.connect(lambda: self.open_file())
        self.file_folder_button = QPushButton(icon("folder-open"), self.tr("Show in &Folder"), self)
        self.file_folder_button.setObjectName("run-file-folder")
        self.file_folder_button.clicked.connect(lambda: self.show_file_in_folder())
        files_page = QWidget(self)
        files_layout = QVBoxLayout(files_page)
        files_buttons = QHBoxLayout()
        files_buttons.addWidget(self.open_file_button)
        files_buttons.addWidget(self.file_folder_button)
        files_buttons.addStretch(1)
        files_layout.addLayout(files_buttons)
        files_layout.addWidget(self.files)
        self.files.itemSelectionChanged.connect(self._update_file_buttons)
        self.trace = _table(self, "run-trace", (self.tr("Node"), self.tr("Type"), self.tr("Start"), self.tr("ms"),
                                                self.tr("OK"), self.tr("Error"), self.tr("Locator")))
        self.pages = QTabWidget(self)
        self.pages.setObjectName("run-pages")
        self.pages.addTab(self.outputs, icon("braces"), self.tr("Outputs"))
        self.pages.addTab(files_page, icon("file"), self.tr("Files"))
        self.tables = RunTablesView(self)
        self.pages.addTab(self.tables, icon("table"), self.tr("Tables"))
        self.trace_view = TraceView(self)
        self.trace.itemSelectionChanged.connect(lambda: self.trace.currentRow() >= 0 and
                                                self.trace_view.select_step(self.trace.currentRow()))
        self.trace_page = QSplitter(Qt.Orientation.Vertical, self)
        self.trace_page.setObjectName("run-trace-page")
        self.trace_page.addWidget(self.trace_view)
        self.trace_page.addWidget(self.trace)
        self.trace_page.setStretchFactor(0, 3)
        self.trace_page.setStretchFactor(1, 1)
        self.pages.addTab(self.trace_page, icon("list-ordered"), self.tr("Trace"))
        self.pages.addTab(self.inputs, icon("file-input"), self.tr("Inputs"))

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(summary)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(splitter, 1)
        self.show_run(None)

    # -- filling -------------------------------------------------------------------------------------
    def show_run(self, run: RunView | None, env_name: str | None = None) -> None:
        """Show a run record (a `run_read` view); None: no run chosen."""
        self.run = run
        self._show_summary(run, env_name)
        self._show_thumbnail(run.screenshot if run else None)
        self._fill(self.outputs, [(key, *show_value(value)) for key, value in (run.outputs if run else {}).items()])
        self._fill(self.inputs, [(key, *show_value(value)) for key, value in (run.inputs if run else {}).items()])
        files = run.files if run else []
        self.files.setRowCount(0)
        for path in files:
            row = self.files.rowCount()
            self.files.insertRow(row)
            name = _item(Path(path).name, path)
            name.setData(Qt.ItemDataRole.UserRole, path)
            self.files.setItem(row, 0, name)
            self.files.setItem(row, 1, _item(str(Path(path).parent)))
        if self.files.rowCount():
            self.files.selectRow(0)
        self._update_file_buttons()
        self._show_trace(run.trace if run else [])
        self.trace_view.show_run(run)
        self.pages.setTabText(1, self.tr("Files ({n})").format(n=len(files)) if files else self.tr("Files"))
        if run is None or run.id != self.tables_run:
            self.show_tables(None, [])
        healed = len(run.healed_steps) if run else 0
        self.pages.setTabText(self.pages.indexOf(self.trace_page),
                              self.tr("Trace ({n} healed)").format(n=healed) if healed else self.tr("Trace"))

    def _show_summary(self, run: RunView | None, env_name: str | None) -> None:
        if run is None:
            self.title.setText(self.tr("Select a run to see its detail."))
            for label in self.labels.values():
                label.setText("")
                label.setToolTip("")
                self.form.setRowVisible(label, True)
            self.form.setRowVisible(self.har_folder, False)
            return
        self.title.setText(self.tr("{workflow} — {status}  ({id})").format(
            workflow=run.workflow_name, status=status_text(run.status), id=run.id))
        batch = (self.tr("{batch}, row {n}").format(batch=run.batch_id, n=(run.row_index or 0) + 1)
                 if run.batch_id else "")
        batch += self.tr(", ran on worker {worker}").format(worker=run.worker) if run.worker else ""
        duration = (self.tr("{duration} so far").format(duration=format_duration(elapsed_ms(run.started_at)))
                    if run.running else format_duration(run.duration_ms))
        env = f"{env_name} ({run.env})" if env_name and env_name != run.env else run.env
        texts = {"status": status_text(run.status) + (self.tr("  (a person took over during the run)")
                                                      if run.taken_over and run.status != "taken_over" else ""),
                 "workflow": run.workflow_name,
                 "env": env + (self.tr(", tab {tab}").format(tab=run.tab_id) if run.tab_id else ""),
                 "started": local_time(run.started_at), "ended": local_time(run.ended_at),
                 "duration": duration, "batch": batch, "stopped": run.stopped_at or "",
                 "error": run.error or "", "har": run.har or "", "screenshot": run.screenshot or ""}
        for key, text in texts.items():
            self.labels[key].setText(text)
            self.labels[key].setToolTip(text if len(text) > 60 else "")
            if key in ("batch", "stopped", "error", "har", "screenshot", "ended"):
                self.form.setRowVisible(self.labels[key], bool(text))
        self.form.setRowVisible(self.har_folder, bool(run.har))

    def _show_trace(self, steps: list[TraceStepView]) -> None:
        """The table of the run's nodes, under its Trace view."""
        self.trace.setRowCount(0)
        scheme = current_scheme()
        for step in steps:
            row = self.trace.rowCount()
            self.trace.insertRow(row)
            node = step.node + (f" — {step.title}" if step.title else "")
            started = parse_time(step.start)
            healed = step.healed
            locator = step.locator or ""
            if healed:
                locator = self.tr("healed ({score}): {element}").format(score=healed.score,
                                                                       element=healed.element or "")
            cells = (node, step.type, started.astimezone().strftime("%H:%M:%S.%f")[:-3] if started else "",
                     f"{step.ms:.0f}", "✓" if step.ok else "✗", step.error or "", locator)
            for column, text in enumerate(cells):
                item = _item(text.replace("\n", " ⏎ "), text)
                if column == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not step.ok:
                    item.setForeground(QBrush(QColor(scheme.danger)))
                elif healed:
                    item.setForeground(QBrush(QColor(scheme.warning)))
                    item.setToolTip(self.tr("No locator found the element any more; its fingerprint did.\n"
                                            "was: {before}\nnow: {element}\nscore {score}: {why}").format(
                        before=healed.from_, element=healed.element, score=healed.score, why=healed.why))
                self.trace.setItem(row, column, item)
        self.trace.resizeColumnsToContents()

    tables_run: str | None = None

    def show_tables(self, run_id: str | None, tables: list[RunTableView]) -> None:
        """The run's tables (a `run_tables` result)."""
        self.tables_run = run_id
        self.tables.show_tables(tables)
        index = self.pages.indexOf(self.tables)
        self.pages.setTabText(index, self.tr("Tables ({n})").format(n=len(tables)) if tables else self.tr("Tables"))

    @staticmethod
    def _fill(table: QTableWidget, rows: list[tuple[str, str, str]]) -> None:
        table.setRowCount(0)
        for key, text, full in rows:
            row = table.rowCount()
            table.insertRow(row)
            table.setItem(row, 0, _item(key))
            table.setItem(row, 1, _item(text, full))
        table.resizeColumnToContents(0)

    def _show_thumbnail(self, path: str | None) -> None:
        self.thumbnail.clear()
        self.form.setRowVisible(self.thumbnail, bool(path))
        if not path:
            return
        pixmap = QPixmap(path)
        if pixmap.isNull():
            self.thumbnail.setText(self.tr("(the screenshot file is missing)"))
            self.thumbnail.setEnabled(False)
            self.thumbnail.setMinimumSize(0, 0)
            self.thumbnail.setMaximumSize(16777215, 16777215)
            return
        self.thumbnail.setEnabled(True)
        scaled = pixmap.scaled(self.THUMBNAIL, Qt.AspectRatioMode.KeepAspectRatio,
                               Qt.TransformationMode.SmoothTransformation)
        self.thumbnail.setPixmap(scaled)
        frame = 2 * self.thumbnail.frameWidth()
        self.thumbnail.setFixedSize(scaled.width() + frame, scaled.height() + frame)

    # -- actions -------------------------------------------------------------------------------------
    def selected_file(self) -> str | None:
        rows = self.files.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.files.item(rows[0].row(), 0)
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def _update_file_buttons(self) -> None:
        chosen = self.selected_file() is not None
        self.open_file_button.setEnabled(chosen)
        self.file_folder_button.setEnabled(chosen)

    def open_file(self, path: str | None = None) -> None:
        path = path or self.selected_file()
        if path:
            open_path(path)

    def show_file_in_folder(self, path: str | None = None) -> None:
        path = path or self.selected_file()
        if path:
            show_in_folder(path)

    def open_screenshot(self) -> None:
        if self.run and self.run.screenshot:
            open_path(self.run.screenshot)


# -- the panel ----------------------------------------------------------------------------------------------
class RunsPanel(QWidget):
    """The latest runs and the selected run's detail."""

    overlay_requested = Signal(str)  # run id: draw it on its workflow's graph in the editor
    workflows_requested = Signal()   # the empty state's Go to Workflows

    def __init__(self, ops: OpRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ops = ops
        self.model = RunTableModel(self)
        self.table = record_table(self, self.model, "runs")
        header = self.table.horizontalHeader()
        for column in range(len(RUN_COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == 1
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.detail = RunDetail(self)
        self.detail.trace_view.calls = partial(self.ops.start, owner=self)  # its Export calls run_export
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for key, text, handler, icon_name in (("cancel", self.tr("&Cancel Run"), self.cancel_selected, "circle-stop"),):
            button = QPushButton(icon(icon_name), text, self)
            button.setObjectName(f"runs-{key}")
            button.clicked.connect(lambda _checked=False, h=handler: h())
            self.buttons[key] = button
            row.addWidget(button)
        self._add_overlay_button(row)
        repair = QPushButton(icon("wrench"), self.tr("Accept &Repair"), self)
        repair.setObjectName("runs-repair")
        repair.clicked.connect(lambda _checked=False: self.accept_repair())
        self.buttons["repair"] = repair
        row.addWidget(repair)
        row.addStretch(1)
        self.note = QLabel(self)
        self.note.setObjectName("runs-note")
        row.addWidget(self.note)
        # The list keeps room for several runs however much the detail (its trace, its tabs) asks for.
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + LIST_ROWS_SHOWN * self.table.verticalHeader().defaultSectionSize())
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setCollapsible(0, False)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        self.empty = EmptyState(
            "runs", "history", self.tr("No runs yet"),
            self.tr("Every run of a workflow is recorded here: its outputs, files, a screenshot where it stopped and "
                    "each node's timing. Run a workflow from the Workflows panel, or with the command browserpilot run."),
            [("workflows", "workflow", self.tr("Go to Workflows"), self.workflows_requested.emit)], self)
        self.stack = TableOrEmpty(splitter, self.empty, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.stack, 1)

        self._selected_id: str | None = None
        self._list_generation = 0
        self._listed = False  # the list was read once (when first shown)
        self._env_names: dict[str, str] | None = None  # None: list them at the next refresh
        self._detail_generation = 0
        self._tick = QTimer(self)  # the running runs' durations go on (a clock: nothing is read)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selection())
        self._update_buttons()
        ops.changes.follow(self, ("runs", "envs"), self._on_stores_changed)

    # -- reading ---------------------------------------------------------------------------------------
    def _on_stores_changed(self, changed: Changed) -> None:
        """Runs were written (a run started or ended, a batch's row, an evicted run) or environments changed:
        read the list again, and the detail when it is the selected run's."""
        runs = changed.of("runs")
        if runs or self._env_names_changed(changed.of("envs")):
            self.refresh()
        if self._selected_id is not None and self._selected_id in runs:
            self._read_detail()

    def env_names(self) -> dict[str, str]:
        """Environment names are kept here, not listed (every environment's sites) at each refresh."""
        if self._env_names is None:
            self._env_names = {env.id: env.name for env in self.ops.ctx.envs.list()}
        return self._env_names

    def _env_names_changed(self, changed: set[str | None]) -> bool:
        """Whether an environment the list names was renamed, made or deleted (a visit changes no name)."""
        if not changed or self._env_names is None:
            return False
        envs = self.ops.ctx.envs
        for env_id in changed:
            if env_id is None or env_id not in self._env_names or not envs.exists(env_id) \
                    or envs.get(env_id).name != self._env_names[env_id]:
                self._env_names = None
                return True
        return False

    def refresh(self) -> None:
        """Read the list now (the panel reads it by itself whenever it changes)."""
        self._listed = True
        self._list_generation += 1
        generation = self._list_generation

        def listed(answer: Envelope[RunListResult]) -> None:
            if answer.data is None:
                self.note.setText(self.tr("Cannot list runs: {error}").format(error=answer.error))
                return
            shown(answer.data.runs)

        def shown(runs: list[RunRow]) -> None:
            if generation != self._list_generation:
                return  # a newer refresh is on its way
            names = self.env_names()
            selected = self._selected_id
            self.model.set_rows(runs, names)
            self.stack.show_empty(not runs)
            self.note.setText(self.tr("%n latest run(s)", "", len(runs)) if runs else "")
            row = self.model.row_of(selected) if selected is not None else -1
            if row >= 0:
                rows = self.table.selectionModel().selectedRows()
                if not rows or rows[0].row() != row:  # (kept by the model: the scroll position stays too)
                    self._select_row(row)
            elif selected is not None:
                self._selected_id = None
                self.detail.show_run(None)
            if self.model.has_running():
                self._tick.start()
            else:
                self._tick.stop()
            self._update_buttons()

        self.ops.start(run_ops.run_list, {"limit": RUN_LIMIT}, listed, owner=self)

    def _select_row(self, row: int) -> None:
        self.table.selectionModel().blockSignals(True)
        self.table.selectRow(row)
        self.table.selectionModel().blockSignals(False)
        self.table.viewport().update()

    def _add_overlay_button(self, row: QHBoxLayout) -> None:
        """*Show on Graph*: the selected run's node states drawn over its workflow in the editor."""
        button = QPushButton(icon("git-branch"), self.tr("Show on &Graph"), self)
        button.setObjectName("runs-overlay")
        button.clicked.connect(lambda _checked=False: self._selected_id and self.overlay_requested.emit(self._selected_id))
        self.buttons["overlay"] = button
        row.addWidget(button)

    def select_run(self, run_id: str) -> None:
        """Select a run (shown as soon as the list has it) and show its detail."""
        self._selected_id = run_id
        row = self.model.row_of(run_id)
        if row >= 0:
            self._select_row(row)
        else:
            self.refresh()
        self._read_detail()
        self._update_buttons()

    def selected_run(self) -> RunRow | None:
        row = self.model.row_of(self._selected_id) if self._selected_id else -1
        return self.model.run_at(row)

    def _on_selection(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        run = self.model.run_at(rows[0].row()) if rows else None
        run_id = run.id if run else None
        if run_id != self._selected_id:
            self._selected_id = run_id
            self._read_detail()
        self._update_buttons()

    def _read_detail(self) -> None:
        self._detail_generation += 1
        generation = self._detail_generation
        run_id = self._selected_id
        if run_id is None:
            self.detail.show_run(None)
            return

        def read(answer: Envelope[RunReadResult]) -> None:
            if generation != self._detail_generation:
                return
            if answer.data is not None:
                run = answer.data.run
                self.detail.show_run(run, self.model.env_name(run.env))
                self.model_update(run)
                if not run.running:
                    self.ops.start(run_ops.run_tables, {"run_id": run_id}, tables, owner=self)
            else:
                self.detail.show_run(None)
                self.detail.title.setText(str(answer.error))

        def tables(answer: Envelope[RunTablesResult]) -> None:
            if generation == self._detail_generation:
                self.detail.show_tables(run_id, answer.data.tables if answer.data is not None else [])

        self.ops.start(run_ops.run_read, {"run_id": run_id}, read, owner=self)

    def model_update(self, run: RunView) -> None:
        """Keep the table's status for the selected run in step with its detail."""
        row = self.model.row_of(run.id)
        listed = self.model.run_at(row)
        if listed is not None and listed.status != run.status:
            listed.status, listed.duration_ms, listed.error = run.status, run.duration_ms, run.error
            self.model.dataChanged.emit(self.model.index(row, 0), self.model.index(row, len(RUN_COLUMNS) - 1))
        self._update_buttons()

    def _on_tick(self) -> None:
        self.model.tick()
        if self.detail.run and self.detail.run.running:
            self.detail.labels["duration"].setText(QCoreApplication.translate("RunDetail", "{duration} so far").format(
                duration=format_duration(elapsed_ms(self.detail.run.started_at))))

    def _update_buttons(self) -> None:
        run = self.selected_run()
        running = run is not None and run.status == "running"
        self.buttons["cancel"].setEnabled(running)
        self.buttons["cancel"].setToolTip(self.tr("Cancel the selected run; its record is written as cancelled")
                                          if running else self.tr("Only a running run can be cancelled"))
        shown = self.detail.run if self.detail.run and run and self.detail.run.id == run.id else None
        healed = shown.healed_steps if shown is not None else []
        can_repair = bool(healed) and shown is not None and shown.status == "ok" and bool(shown.workflow_id)
        self.buttons["repair"].setEnabled(can_repair)
        self.buttons["repair"].setToolTip(
            self.tr("Keep the healed elements' locators in the workflow ({n} nodes), as a new version").format(
                n=len(healed)) if can_repair else
            self.tr("A successful run of a saved workflow whose nodes were healed proposes a repair"))

    # -- actions ---------------------------------------------------------------------------------------
    def cancel_selected(self) -> None:
        run = self.selected_run()
        if run is None or run.status != "running":
            return
        self.buttons["cancel"].setEnabled(False)
        self.note.setText(self.tr("Cancelling {id}…").format(id=run.id))
        self.ops.run(run_ops.run_cancel, {"run_id": run.id}, self, title=self.tr("Cancel Run"))

    def accept_repair(self) -> None:
        """Accept the selected run's repairs (workflow_repair): its workflow keeps the healed locators."""
        run = self.detail.run
        if not run or not self.buttons["repair"].isEnabled():
            return
        self.buttons["repair"].setEnabled(False)

        def done(answer: Envelope[WorkflowRepairResult]) -> None:
            if answer.data is not None:
                repair = answer.data
                self.note.setText(self.tr("Repaired {workflow}: {nodes} (version {version})").format(
                    workflow=repair.name, nodes=", ".join(r["node"] for r in repair.repaired), version=repair.version))
            else:
                self.note.setText(str(answer.error))
            self._update_buttons()

        self.ops.start(workflow_ops.workflow_repair, {"run_id": run.id}, done, owner=self)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._listed:
            self.refresh()
