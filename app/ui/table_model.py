"""What the main window's panels share: a table model over a list of rows, the record table, a table of items, a
button row."""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Generic, Sequence, TypeVar

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QPushButton, QTableView, QTableWidget, QWidget

from app.ui.theme import icon

ModelIndex = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
RESIZE_PRECISION_ROWS = 0  # QHeaderView.resizeContentsPrecision: the rows in view


class RowsTableModel(QAbstractTableModel, Generic[Row]):
    """A flat table over `self._rows`; subclasses set `columns` and implement `data`.

    `columns` are the English headers, marked with `QT_TRANSLATE_NOOP(context, ...)`; they are translated
    in `context` when shown."""

    columns: ClassVar[tuple[str, ...]] = ()
    context: ClassVar[str] = "RowsTableModel"

    _rows: list[Row]

    def replace_rows(self, rows: list[Row], key: Callable[[Row], object]) -> None:
        """Show `rows` instead, telling the view only what changed: rows gone are removed, new rows inserted
        where they belong and changed rows redrawn, so the view keeps its selection and scroll position and
        does not lay out every row again; only a change of order resets the model."""
        old_keys = [key(row) for row in self._rows]
        new_keys = [key(row) for row in rows]
        wanted = set(new_keys)
        if len(wanted) != len(new_keys) or len(set(old_keys)) != len(old_keys):
            self._reset(rows)
            return
        kept = [k for k in old_keys if k in wanted]
        if kept != [k for k in new_keys if k in set(kept)]:
            self._reset(rows)  # the order changed
            return
        for index in range(len(old_keys) - 1, -1, -1):  # removals, bottom up
            if old_keys[index] not in wanted:
                self.beginRemoveRows(QModelIndex(), index, index)
                del self._rows[index]
                del old_keys[index]
                self.endRemoveRows()
        for index, new_key in enumerate(new_keys):  # insertions, top down: old_keys becomes new_keys
            if index >= len(old_keys) or old_keys[index] != new_key:
                self.beginInsertRows(QModelIndex(), index, index)
                self._rows.insert(index, rows[index])
                old_keys.insert(index, new_key)
                self.endInsertRows()
        last = len(self.columns) - 1
        for index, row in enumerate(rows):
            if self._rows[index] is not row:
                changed = self._rows[index] != row
                self._rows[index] = row
                if changed:
                    self.changed_row(index)
                    self.dataChanged.emit(self.index(index, 0), self.index(index, last))

    def changed_row(self, row: int) -> None:
        """Called before a row that changed is redrawn (a model caching its cells drops them here)."""

    def _reset(self, rows: list[Row]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt's name)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return QCoreApplication.translate(self.context, self.columns[section])
        return None


def item_table(parent: QWidget, name: str, headers: Sequence[str]) -> QTableWidget:
    """A read-only table of items: whole rows selected, no row numbers, the last column stretched."""
    table = QTableWidget(0, len(headers), parent)
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def record_table(parent: QWidget, model: QAbstractTableModel, name: str) -> QTableView:
    """A read-only table of whole rows, one selected at a time, as every panel shows its records."""
    table = QTableView(parent)
    table.setObjectName(name)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.verticalHeader().setDefaultSectionSize(30)
    table.horizontalHeader().setHighlightSections(False)
    # Columns sized to their contents measure the rows in view (0), not all of them: a panel's header measures
    # its columns again after every change of the model, also while the panel is not shown, and a list of
    # 200 runs asked each cell for each role (in Python) several times a second while a batch ran.
    table.horizontalHeader().setResizeContentsPrecision(RESIZE_PRECISION_ROWS)
    table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return table


def button_row(parent: QWidget, prefix: str,
               specs: Sequence[tuple[str, str, Callable[[], object], str]]) -> tuple[QHBoxLayout, dict[str, QPushButton]]:
    """A row of push buttons `(key, text, handler, icon name)`, named `<prefix>-<key>`, and the buttons by key."""
    row = QHBoxLayout()
    row.setSpacing(6)
    buttons: dict[str, QPushButton] = {}
    for key, text, handler, icon_name in specs:
        button = QPushButton(icon(icon_name), text, parent)
        button.setObjectName(f"{prefix}-{key}")
        button.clicked.connect(lambda _checked=False, h=handler: h())
        buttons[key] = button
        row.addWidget(button)
    row.addStretch(1)
    return row, buttons
