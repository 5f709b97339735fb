"""The open editor windows, one per workflow (keyed by id; a new, never saved one by its window). Opening a
workflow that is open already raises its window. Owned by the app shell: no global state. The editors reach
the app only through the operations (`ops`) and `front_tab`, the tab a person looks at."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from app.ui.op_runner import OpRunner
from plumbing import loggers
from workflows.document import validate_document
from workflows.store import SavedWorkflow

if TYPE_CHECKING:
    from app.ui.editor.window import EditorWindow

log = logging.getLogger(loggers.EDITOR)


def new_document(name: str) -> dict[str, Any]:
    """A new workflow: a start and an end node, connected."""
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                "nodes": [{"id": "start", "data": {"type": "start", "title": "Start", "variables": []},
                           "position": {"x": 0, "y": 0}},
                          {"id": "end", "data": {"type": "end", "title": "End", "outputs": []},
                           "position": {"x": 300, "y": 0}}],
                "edges": [{"id": "e-start-end", "source": "start", "target": "end", "sourceHandle": "source",
                           "targetHandle": "target"}]}}}


class Editors:
    def __init__(self, ops: OpRunner, front_tab: Callable[[], Any] | None = None) -> None:
        self.ops = ops
        self.front_tab = front_tab  # the tab a person looks at, for the locator editor's Pick and Test
        self.windows: list[EditorWindow] = []

    def find(self, key: str) -> EditorWindow | None:
        return next((w for w in self.windows if key in (w.workflow_id, w.model.name)), None)

    def open(self, workflow: SavedWorkflow | str) -> EditorWindow:
        """The editor of a saved workflow, given as its name or id (LookupError when there is none) or as a
        `SavedWorkflow` the caller has just found (a copy of its own, handed over to the editor)."""
        saved = workflow if isinstance(workflow, SavedWorkflow) else self.ops.ctx.workflows.find(workflow)
        window = self.find(saved.id)
        if window is None:
            # A stored workflow was validated when it was written: it is drawn as stored, and checked once,
            # by the validation list, a moment after the window is drawn. Only a document the editor could
            # not walk (a hand-edited store) is validated first, so its problems are said exactly.
            from app.ui.editor.model import shape_problem
            from app.ui.editor.window import EditorWindow

            data = saved.document if shape_problem(saved.document) is None else \
                validate_document(saved.document).to_data()
            window = self._track(EditorWindow(self.ops, data, saved.id, self.front_tab, owned=True))  # a copy: ours
            log.info("editor opened for %s (%s)", saved.id, saved.name)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def new(self, name: str) -> EditorWindow:
        """An editor of a new workflow (saved on the first Ctrl+S)."""
        taken = [wf.name for wf in self.ops.ctx.workflows.list()]
        if name in taken:
            raise ValueError(f"a workflow named {name!r} exists already")
        from app.ui.editor.window import EditorWindow  # the editor's widgets load with its first window

        window = self._track(EditorWindow(self.ops, new_document(name), None, self.front_tab))
        window.stack.resetClean()  # never saved: unsaved from the start
        window.show()
        return window

    def new_or_say(self, name: str) -> EditorWindow | None:
        """File → New Workflow: a taken name is said, not opened."""
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtWidgets import QMessageBox

        try:
            return self.new(name)
        except ValueError:
            QMessageBox.warning(None, QCoreApplication.translate("Editors", "New Workflow"),
                                QCoreApplication.translate("Editors", "A workflow named {name} exists already").format(
                                    name=repr(name)))
            return None

    def show_run(self, run_id: str) -> EditorWindow | None:
        """A past run drawn over its workflow's graph (the Runs panel's Show on Graph)."""
        record = self.ops.ctx.runs.get(run_id)
        key = record.workflow_id or record.workflow_name
        try:
            window = self.open(key)
        except LookupError:
            return None
        window.show_run(record.view())
        return window

    def _track(self, window: EditorWindow) -> EditorWindow:
        self.windows.append(window)
        window.destroyed.connect(lambda _obj=None, w=window: self.windows.remove(w) if w in self.windows else None)
        return window

    def close_all(self) -> None:
        for window in list(self.windows):
            window.stack.setClean()
            window.close()
