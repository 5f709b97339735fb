"""The validation list beside the graph: the loader's refusals (errors) and warnings for the document as it
is now, each with its exact place; clicking one selects its node (at its level)."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.ui.editor.model import EditorModel
from workflows.document import DocumentError, validate_document

NODE_ID = re.compile(r'\(id "((?:[^"\\]|\\.)*)"')
DELAY_MS = 120


def node_of(message: str) -> str | None:
    """The innermost node a message names (`… (id "rows", type loop): nodes[0] (id "c1", …)` → c1)."""
    found = NODE_ID.findall(message)
    return found[-1].replace('\\"', '"') if found else None


class ValidationList(QListWidget):
    node_chosen = Signal(str)

    def __init__(self, model: EditorModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor-problems")
        self.setWordWrap(True)
        self.model = model
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self.check)
        model.changed.connect(self._timer.start)
        self.itemClicked.connect(self._clicked)
        self.check()

    def check(self) -> None:
        self._timer.stop()
        try:
            self.errors, self.warnings = [], validate_document(self.model.data).warnings
        except DocumentError as exc:
            self.errors, self.warnings = exc.problems, []
        self.clear()
        for text, colour in [*((t, "#c62828") for t in self.errors), *((t, "#e65100") for t in self.warnings)]:
            item = QListWidgetItem(("⛔ " if colour == "#c62828" else "⚠ ") + text)
            item.setForeground(QColor(colour))
            item.setData(Qt.ItemDataRole.UserRole, node_of(text))
            self.addItem(item)
        if not self.count():
            self.addItem(QListWidgetItem(self.tr("No problems.")))

    def problem_nodes(self) -> set[str]:
        return {n for n in (node_of(t) for t in self.errors + self.warnings) if n}

    def _clicked(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id:
            self.node_chosen.emit(str(node_id))
