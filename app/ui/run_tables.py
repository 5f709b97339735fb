"""The Tables page of a run's detail: the run's exported tables and list outputs (`run_tables`), one at a
time, in a table you can sort (click a header; numbers sort as numbers) and filter (text in any column), with
"Save as CSV…", "Save as XLSX…" (the rows as shown: filtered and sorted) and "Open" (the desktop's default
application: the exported file itself, or the rows written to a CSV for it). Files are written off the Qt
thread (workflows/export.py's writers).
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import tempfile
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt,
                            QUrl)
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QTableView, QVBoxLayout, QWidget)

from app.ops.results import RunTableView
from app.ui.theme import icon
from plumbing import loggers
from plumbing.savemanager import in_thread
from workflows.export import write_table
from workflows.tables import cell_text

log = logging.getLogger(loggers.UI)

ModelIndex = QModelIndex | QPersistentModelIndex
_NUMBER = re.compile(r"^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$")


def sort_key(value: Any) -> tuple[int, float, str]:
    """Numbers (and text that is a number, as a CSV holds them) before text, each in its own order."""
    if isinstance(value, bool):
        return (1, 0.0, str(value))
    if isinstance(value, (int, float)) and not math.isnan(value):
        return (0, float(value), "")
    text = cell_text(value)
    if _NUMBER.match(text):
        return (0, float(text), "")
    return (1, 0.0, text.casefold())


class TableModel(QAbstractTableModel):
    """Rows of cells (any JSON values) with their headers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headers: list[str] = []
        self.rows: list[list[Any]] = []

    def set_table(self, headers: list[str], rows: list[list[Any]]) -> None:
        self.beginResetModel()
        self.headers = list(headers)
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        value = row[index.column()] if index.column() < len(row) else None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            text = cell_text(value)
            return text if role == Qt.ItemDataRole.ToolTipRole or len(text) <= 300 else text[:300] + "…"
        if role == Qt.ItemDataRole.UserRole:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and sort_key(value)[0] == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.headers[section] if section < len(self.headers) else None
        return section + 1


class TableFilter(QSortFilterProxyModel):
    """Sorts numbers as numbers; keeps the rows that contain the filter text in any column (any case)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.setSortRole(Qt.ItemDataRole.UserRole)

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self.text = text.strip().casefold()
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: ModelIndex) -> bool:
        if not self.text:
            return True
        model = self.sourceModel()
        assert isinstance(model, TableModel)
        return any(self.text in cell_text(value).casefold() for value in model.rows[source_row])

    def lessThan(self, left: ModelIndex, right: ModelIndex) -> bool:
        return sort_key(left.data(Qt.ItemDataRole.UserRole)) < sort_key(right.data(Qt.ItemDataRole.UserRole))


class RunTablesView(QWidget):
    """One run's tables (a `run_tables` result), one shown at a time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tables: list[RunTableView] = []
        self.choice = QComboBox(self)
        self.choice.setObjectName("run-table-choice")
        self.choice.currentIndexChanged.connect(self._show_current)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("run-table-filter")
        self.filter.setPlaceholderText(self.tr("Filter rows…"))
        self.filter.setClearButtonEnabled(True)
        self.model = TableModel(self)
        self.proxy = TableFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter.textChanged.connect(self._on_filter)
        self.view = QTableView(self)
        self.view.setObjectName("run-table")
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.count = QLabel(self)
        self.count.setObjectName("run-table-count")
        self.save_csv = QPushButton(icon("save"), self.tr("Save as &CSV…"), self)
        self.save_csv.setObjectName("run-table-save-csv")
        self.save_csv.clicked.connect(lambda: self.save_as("csv"))
        self.save_xlsx = QPushButton(icon("save"), self.tr("Save as &XLSX…"), self)
        self.save_xlsx.setObjectName("run-table-save-xlsx")
        self.save_xlsx.clicked.connect(lambda: self.save_as("xlsx"))
        self.open_button = QPushButton(icon("external-link"), self.tr("O&pen"), self)
        self.open_button.setObjectName("run-table-open")
        self.open_button.setToolTip(self.tr("Open with the desktop's application for it (a spreadsheet)"))
        self.open_button.clicked.connect(self.open_table)
        self.note = QLabel(self)
        self.note.setObjectName("run-table-note")
        top = QHBoxLayout()
        top.addWidget(self.choice, 1)
        top.addWidget(self.filter, 1)
        buttons = QHBoxLayout()
        for widget in (self.save_csv, self.save_xlsx, self.open_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        buttons.addWidget(self.note)
        buttons.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        self.save_dialog: Callable[[str, str], str] = self._ask_path  # tests answer without a dialog
        self.opener: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self._tasks: set[asyncio.Future[Any]] = set()
        self._show_current()

    # -- showing ---------------------------------------------------------------------------------------
    def show_tables(self, tables: list[RunTableView]) -> None:
        """Show these tables. The same tables read again (the run's record was written again: a late note, the
        store's feed) keep the view as the person left it: the table chosen, its order, its filter, the note."""
        if tables == self.tables:
            return
        current = self.choice.currentText()
        self.tables = tables
        self.choice.blockSignals(True)
        self.choice.clear()
        for table in tables:
            kind = self.tr("file") if table.source == "file" else self.tr("output")
            self.choice.addItem(self.tr("{name} ({kind}, %n row(s))", "", table.row_count).format(
                name=table.name, kind=kind))
        found = self.choice.findText(current)
        self.choice.setCurrentIndex(found if found >= 0 else 0 if tables else -1)
        self.choice.blockSignals(False)
        self._show_current()

    def current(self) -> RunTableView | None:
        index = self.choice.currentIndex()
        return self.tables[index] if 0 <= index < len(self.tables) else None

    def _show_current(self) -> None:
        table = self.current()
        self.model.set_table(table.headers if table else [], table.rows if table else [])
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # another table: its own order again
        self.view.resizeColumnsToContents()
        for column in range(self.model.columnCount()):
            self.view.setColumnWidth(column, min(self.view.columnWidth(column), 320))
        for widget in (self.save_csv, self.save_xlsx, self.open_button, self.filter):
            widget.setEnabled(table is not None)
        self.note.setText(self.tr("(cut to the first {n} rows)").format(n=len(table.rows))
                          if table and table.truncated else "")
        self._update_count()

    def _on_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        self._update_count()

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count.setText(self.tr("{shown} of %n row(s)", "", total).format(shown=shown) if shown != total
                           else self.tr("%n row(s)", "", total))

    def shown_rows(self) -> list[list[Any]]:
        """The rows as shown: filtered, in the shown order."""
        return [self.model.rows[self.proxy.mapToSource(self.proxy.index(row, 0)).row()]
                for row in range(self.proxy.rowCount())]

    # -- saving and opening ----------------------------------------------------------------------------
    def _ask_path(self, fmt: str, suggested: str) -> str:
        pattern = self.tr("CSV (*.csv)") if fmt == "csv" else self.tr("Excel workbook (*.xlsx)")
        path, _filter = QFileDialog.getSaveFileName(self, self.tr("Save Table"), suggested, pattern)
        return path

    def save_as(self, fmt: str) -> asyncio.Future[Any] | None:
        """Ask where, then write the shown rows there (off the Qt thread). Returns the write's future."""
        table = self.current()
        if table is None:
            return None
        suggested = str(Path.home() / f"{Path(table.name).stem}.{fmt}")
        chosen = self.save_dialog(fmt, suggested)
        if not chosen:
            return None
        target = Path(chosen)
        if target.suffix.lower() != f".{fmt}":
            target = target.with_name(target.name + f".{fmt}")
        return self._write(target, fmt, table, lambda path: self.note.setText(self.tr("Saved {path}").format(
            path=path)))

    def _write(self, where: Path | Callable[[], Path], fmt: str, table: RunTableView,
               done: Callable[[Path], None]) -> asyncio.Future[Any]:
        """Write the shown rows to `where` (or to the path it makes, on the writing thread)."""
        headers, rows = list(table.headers), self.shown_rows()

        def write() -> Path:
            target = where() if callable(where) else where
            written = write_table(target.parent, target.name, headers, rows, fmt)
            if written != target:  # the writers pick a free name; a person chose this one (and was asked)
                written.replace(target)
            return target

        future = asyncio.ensure_future(in_thread(write, name="browserpilot-table"))
        self._tasks.add(future)

        def finished(task: asyncio.Future[Any]) -> None:
            self._tasks.discard(task)
            if task.cancelled():
                return
            problem = task.exception()
            if problem is not None:
                self.note.setText(self.tr("Could not save: {problem}").format(problem=problem))
                log.warning("could not save a table: %s", problem)
                return
            done(task.result())

        future.add_done_callback(finished)
        return future

    def open_table(self) -> asyncio.Future[Any] | None:
        """The exported file itself, or (a list output) its rows as a CSV in a temporary folder."""
        table = self.current()
        if table is None:
            return None
        if table.path and not self.proxy.text:
            self.opener(QUrl.fromLocalFile(table.path))
            return None
        name = f"{Path(table.name).stem or 'table'}.csv"

        def temporary() -> Path:  # on the writing thread: no disk on the Qt thread
            return Path(tempfile.mkdtemp(prefix="browserpilot-table-")) / name

        return self._write(temporary, "csv", table, lambda path: self.opener(QUrl.fromLocalFile(str(path))))
