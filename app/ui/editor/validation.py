"""The validation list beside the graph: the loader's refusals (errors) and warnings for the document as it
is now, each with its exact place; clicking one selects its node (at its level).

The check runs a moment after the window opens and after each burst of edits, on a copy of the document in
a worker thread (a 500-node workflow takes about 30 ms to check; the canvas keeps drawing meanwhile). The
worker touches no Qt object: the list polls its result. A result that a newer edit has overtaken is
dropped; the newer check follows."""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.ui.editor.model import EditorModel, json_copy
from app.ui.theme import current_scheme
from workflows.document import DocumentError, validate_document

NODE_ID = re.compile(r'\(id "((?:[^"\\]|\\.)*)"')
DELAY_MS = 120


def node_of(message: str) -> str | None:
    """The innermost node a message names (`… (id "rows", type loop): nodes[0] (id "c1", …)` → c1)."""
    found = NODE_ID.findall(message)
    return found[-1].replace('\\"', '"') if found else None


def problems_of(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a document."""
    try:
        return [], validate_document(data).warnings
    except DocumentError as exc:
        return exc.problems, []


POLL_MS = 10


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
        self._timer.timeout.connect(self.check_soon)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="editor-validation")
        self._generation = 0   # of the last check begun
        self._shown = 0        # of the check the list shows
        self._running: tuple[int, Future[tuple[list[str], list[str]]]] | None = None
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._collect)
        model.changed.connect(self._timer.start)
        self.itemClicked.connect(self._clicked)
        self.destroyed.connect(lambda _obj=None, worker=self._worker: worker.shutdown(wait=False))
        self._timer.start()  # the first check, once the window is drawn

    @property
    def checking(self) -> bool:
        """Whether a check is due or running (the list may not show the document as it is)."""
        return self._timer.isActive() or self._shown != self._generation

    def check_soon(self) -> None:
        """Check a copy of the document in the worker thread; the list follows when it is done."""
        self._timer.stop()
        self._generation += 1
        self._running = (self._generation, self._worker.submit(problems_of, json_copy(self.model.data)))
        self._poll.start()

    def _collect(self) -> None:
        if self._running is None or not self._running[1].done():
            return
        (generation, future), self._running = self._running, None
        self._poll.stop()
        if generation == self._generation:
            self._show(generation, *future.result())

    def _show(self, generation: int, errors: list[str], warnings: list[str]) -> None:
        self._shown = generation
        self.errors, self.warnings = errors, warnings
        self.clear()
        scheme = current_scheme()
        for text, error in [*((t, True) for t in self.errors), *((t, False) for t in self.warnings)]:
            item = QListWidgetItem(("⛔ " if error else "⚠ ") + text)
            item.setForeground(QColor(scheme.danger if error else scheme.warning))
            item.setData(Qt.ItemDataRole.UserRole, node_of(text))
            self.addItem(item)
        if not self.count():
            self.addItem(QListWidgetItem(self.tr("No problems.")))

    def changeEvent(self, event: QEvent) -> None:
        """Another palette (the scheme changed): the problems in the new scheme's colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and (getattr(self, "errors", None) or getattr(self, "warnings", None)):
            self._show(self._shown, self.errors, self.warnings)

    def problem_nodes(self) -> set[str]:
        return {n for n in (node_of(t) for t in self.errors + self.warnings) if n}

    def _clicked(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id:
            self.node_chosen.emit(str(node_id))
