"""What the main window's panels share: a table model over a list of rows, the record table, a button row."""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Generic, Sequence, TypeVar

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QPushButton, QTableView, QWidget

from app.ui.theme import icon

ModelIndex = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")


class RowsTableModel(QAbstractTableModel, Generic[Row]):
    """A flat table over `self._rows`; subclasses set `columns` and implement `data`.

    `columns` are the English headers, marked with `QT_TRANSLATE_NOOP(context, ...)`; they are translated
    in `context` when shown."""

    columns: ClassVar[tuple[str, ...]] = ()
    context: ClassVar[str] = "RowsTableModel"

    _rows: list[Row]

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
