"""The Workflows panel of the main window: saved workflows and what a person does with them.

The table (name, description, node count, last run) is read with `workflow_list` when it is first shown and
whenever the workflows or the runs change, whoever changed them (the panel follows the stores: app/ui/follow.py),
keeping the selection and the scroll position. Every action goes through an operation on the asyncio loop:

- Import… (a file dialog, or .json files dropped on the panel) → `workflow_import`; a rejected file's problems
  are all shown at once, in a message box with details.
- Export… (a save dialog) → `workflow_export{name, path}`.
- Delete… (after a confirmation) → `workflow_delete`.
- Run… → `workflow_read` and `env_list`, then the inputs form (`RunInputsDialog`) → `workflow_start` (the run id
  at once), then `run_wait`.
- Batch… → the batch form (`BatchDialog`: rows file, environments, tabs at once) → `workflow_batch`.

Each run or batch started here gets a row at the bottom of the panel while it goes (a busy bar, or the batch's
progress counted from the records of its rows) with Cancel: `run_cancel` for a run (or the call itself while the
run has not started yet), `RunManager.cancel_batch` and the call itself for a batch, so no further row starts.
When it ends, its result is shown with a button that opens it in the Runs panel (`show_run_requested`).
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Literal

from PySide6.QtCore import QT_TRANSLATE_NOOP, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.distributed import operation as distributed_ops
from app.ops import env_ops, run_ops, workflow_ops
from app.ops.results import (
    DistributedBatchResult,
    EnvListResult,
    RunCancelResult,
    RunListResult,
    RunReadResult,
    RunResult,
    WorkflowBatchResult,
    WorkflowDeleteResult,
    WorkflowListResult,
    WorkflowReadResult,
    WorkflowSaveResult,
    WorkflowStartResult,
    WorkflowSummary,
)
from app.ui.empty_state import EmptyState, TableOrEmpty
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.theme import icon as theme_icon
from app.ui.table_model import RowsTableModel, button_row, record_table
from app.ui.run_inputs_dialog import BatchDialog, EnvChoice, RunInputsDialog
from app.ui.runs_panel import format_duration, local_time, status_icon, status_text
from plumbing import loggers
from workflows.document import DocumentError, WorkflowDocument, validate_document
from workflows.envelope import Envelope
from workflows.runs import RunView

log = logging.getLogger(loggers.UI)

ModelIndex = QModelIndex | QPersistentModelIndex
COLUMNS = (QT_TRANSLATE_NOOP("WorkflowTableModel", "Name"), QT_TRANSLATE_NOOP("WorkflowTableModel", "Description"),
           QT_TRANSLATE_NOOP("WorkflowTableModel", "Nodes"), QT_TRANSLATE_NOOP("WorkflowTableModel", "Last run"))
DOCUMENT_SUFFIXES = (".json",)
RUN_WAIT_MS = 3_600_000
"""How long one `run_wait` call waits before the panel asks again."""


class WorkflowTableModel(RowsTableModel[WorkflowSummary]):
    """`workflow_list` rows: id, name, description, node count, updated at, last run {id, status, startedAt}."""

    columns = COLUMNS
    context = "WorkflowTableModel"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[WorkflowSummary] = []

    def set_rows(self, rows: list[WorkflowSummary]) -> None:
        self.replace_rows(sorted(rows, key=lambda wf: wf.name.casefold()), key=lambda wf: wf.id)

    def workflow_at(self, row: int) -> WorkflowSummary | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, key: str) -> int:
        """The row of a workflow by id or name."""
        return next((i for i, wf in enumerate(self._rows) if key in (wf.id, wf.name)), -1)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        wf = self.workflow_at(index.row())
        if wf is None:
            return None
        column = index.column()
        last = wf.last_run  # {id, status, startedAt}
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return wf.name
            if column == 1:
                return wf.description.splitlines()[0] if wf.description else ""
            if column == 2:
                return wf.node_count
            if last is None:
                return self.tr("never run")
            return f"{status_text(last['status'])} · {local_time(last['startedAt'], seconds=False)}"
        if role == Qt.ItemDataRole.DecorationRole and column == 3 and last is not None:
            return status_icon(last["status"])
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return f"{wf.name} ({wf.id})"
            if column == 1:
                return wf.description or None
            if column == 3 and last is not None:
                return self.tr("{id}: {status}, started {time}").format(
                    id=last["id"], status=status_text(last["status"]), time=local_time(last["startedAt"]))
        if role == Qt.ItemDataRole.UserRole:
            return wf.id
        return None


@dataclass(eq=False)
class RunJob:
    """A run or a batch started from this panel, while it goes."""

    kind: Literal["run", "batch"]
    workflow_id: str
    workflow_name: str
    env_names: str
    started: datetime
    known_ids: frozenset[str]  # run and batch ids already seen when the job started: never this job's
    total: int = 1
    task: asyncio.Task[None] | None = None
    run_id: str | None = None
    batch_id: str | None = None
    progress: dict[str, Any] = field(default_factory=dict)  # a batch's {total, done, succeeded, failed}
    last_run_id: str | None = None  # a batch's latest run that ended
    cancelling: bool = False
    row: "JobRow | None" = None

    @property
    def done(self) -> int:
        return int(self.progress.get("done", 0))

    @property
    def ok(self) -> int:
        return int(self.progress.get("succeeded", 0))


class JobRow(QFrame):
    """One running job: what it is, a progress bar (a batch: rows done of all), the counts, Cancel.

    A batch's line reads "3 done · 1 failed · 6 left · about 20 s left": the time left is the time per row
    so far times the rows left, and appears once a row has ended."""

    def __init__(self, job: RunJob, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.setObjectName(f"job-{job.kind}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setObjectName("job-label")
        self.counts = QLabel(self)
        self.counts.setObjectName("job-counts")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("job-progress")
        self.bar.setFixedWidth(260)
        self.cancel = QPushButton(self.tr("Cancel"), self)
        self.cancel.setObjectName("job-cancel")
        self.cancel.setIcon(theme_icon("square"))
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(self.label)
        text.addWidget(self.counts)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(10)
        icon = QLabel(self)
        icon.setPixmap(theme_icon("loader").pixmap(16, 16))
        layout.addWidget(icon)
        layout.addLayout(text, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.update_progress()

    @property
    def failed(self) -> int:
        return int(self.job.progress.get("failed", 0))

    def time_left(self) -> float | None:
        """Seconds left, from the time per row so far; None until a row has ended."""
        job = self.job
        if job.done <= 0 or job.done >= job.total:
            return None
        elapsed = (datetime.now(timezone.utc) - job.started).total_seconds()
        return elapsed / job.done * (job.total - job.done)

    def update_progress(self) -> None:
        job = self.job
        if job.kind == "run":
            self.bar.setRange(0, 0)  # busy
            text = (self.tr("Running “{name}” in {envs}…") if job.env_names else self.tr("Running “{name}”…")).format(
                name=job.workflow_name, envs=job.env_names)
            self.counts.setText(job.run_id or "")
        else:
            failed = self.failed
            text = (self.tr("Batch of “{name}” in {envs}: {done} of {total} rows done, {ok} ok")
                    if job.env_names else self.tr("Batch of “{name}”: {done} of {total} rows done, {ok} ok")).format(
                name=job.workflow_name, envs=job.env_names, done=job.done, total=job.total, ok=job.ok)
            text += (self.tr(", %n not ok", "", failed) if failed else "") + "…"
            parts = [self.tr("%n done", "", job.done), self.tr("%n failed", "", failed),
                     self.tr("%n left", "", job.total - job.done)]
            left = self.time_left()
            if left is not None and left < 60:
                parts.append(self.tr("about %n s left", "", max(1, math.ceil(left))))
            elif left is not None:
                parts.append(self.tr("about {time} left").format(time=format_duration(left * 1000)))
            elif job.done < job.total:
                parts.append(self.tr("estimating the time left…"))
            self.counts.setText(" · ".join(parts))
            # The bar last: what it shows and the counts above agree whenever it changes.
            self.bar.setRange(0, job.total)
            self.bar.setFormat(self.tr("{done}/{total}").format(done=job.done, total=job.total))
            self.bar.setValue(job.done)
        if job.cancelling:
            text = self.tr("Cancelling: {job}").format(job=text)
            self.cancel.setEnabled(False)
        self.label.setText(text)


def env_choices(answer: Envelope[EnvListResult]) -> list[EnvChoice]:
    return [(env.id, env.name) for env in answer.data.environments] if answer.data is not None else []


class WorkflowsPanel(QWidget):
    show_run_requested = Signal(str)  # run id: open it in the Runs panel
    edit_requested = Signal(str)      # workflow id: open it in the node-graph editor
    record_requested = Signal()       # the empty state's Record: record in an environment window
    agent_requested = Signal()        # the empty state's Ask an Agent: an environment window's Agent panel
    schedule_requested = Signal(str)  # a workflow id: Schedule… (a new schedule in the Schedules panel)
    chosen_changed = Signal(bool)     # whether a workflow is selected (what the Workflow menu acts on)

    def __init__(self, ops: OpRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workflows-panel")
        self.setAcceptDrops(True)
        self.ops = ops
        self.model = WorkflowTableModel(self)
        self.table = record_table(self, self.model, "workflows")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self._add_edit_actions()

        row, self.buttons = button_row(self, "wf", (
            ("import", self.tr("&Import…"), self.import_dialog, "upload"),
            ("export", self.tr("E&xport…"), self.export_selected, "download"),
            ("run", self.tr("&Run…"), self.run_selected, "play"),
            ("batch", self.tr("&Batch…"), self.batch_selected, "layers"),
            ("schedule", self.tr("&Schedule…"), self.schedule_selected, "calendar"),
            ("delete", self.tr("&Delete…"), self.delete_selected, "trash-2"),
        ))
        self.empty = EmptyState(
            "wf", "workflow", self.tr("No workflows yet"),
            self.tr("Import a workflow file, record one by doing the task once in an environment window, or ask "
                    "an agent to do it and save what it did as a workflow."),
            [("import", "upload", self.tr("Import…"), self.import_dialog),
             ("record", "circle-dot", self.tr("Record"), self.record_requested.emit),
             ("agent", "bot", self.tr("Ask an Agent"), self.agent_requested.emit)], self)
        self.stack = TableOrEmpty(self.table, self.empty, self)
        self.import_file_dialog: QFileDialog | None = None
        self.note = QLabel(self)
        self.note.setObjectName("wf-note")
        self.note.setWordWrap(True)
        self.jobs_box = QVBoxLayout()
        self.jobs_box.setSpacing(6)
        hint = QLabel(self.tr("Drop workflow files (.json, or Chrome DevTools Recorder recordings) here to import "
                              "them."), self)
        hint.setObjectName("wf-drop-hint")
        hint.setProperty("role", "hint")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.stack, 1)
        layout.addLayout(self.jobs_box)
        layout.addWidget(self.note)
        layout.addWidget(hint)

        self.jobs: list[RunJob] = []
        self.result_box: QMessageBox | None = None  # the latest result or problem shown
        self._seen_ids: set[str] = set()  # every run and batch id a record was written for
        self._generation = 0
        self._select_after: str | None = None
        self._listed = False  # the list was read once (when first shown)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.model.modelReset.connect(self._update_buttons)
        self._update_buttons()
        ops.changes.follow(self, ("workflows", "runs"), self._on_stores_changed)

    def _add_edit_actions(self) -> None:
        """Double-click, or Edit in the context menu, opens the workflow in the editor."""
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)

    def edit_selected(self) -> None:
        wf = self.selected_workflow()
        if wf is not None:
            self.edit_requested.emit(wf.id)

    def schedule_selected(self) -> None:
        wf = self.selected_workflow()
        if wf is not None:
            self.schedule_requested.emit(wf.id)

    def _context_menu(self, at: Any) -> None:
        from PySide6.QtWidgets import QMenu

        if self.selected_workflow() is None:
            return
        menu = QMenu(self)
        menu.setObjectName("wf-context-menu")
        for text, handler in ((self.tr("&Edit"), self.edit_selected), (self.tr("&Run…"), self.run_selected),
                              (self.tr("&Schedule…"), self.schedule_selected),
                              (self.tr("E&xport…"), self.export_selected), (self.tr("&Delete…"), self.delete_selected)):
            menu.addAction(text, handler)
        self.context_menu = menu
        menu.popup(self.table.viewport().mapToGlobal(at))

    # -- the list --------------------------------------------------------------------------------------
    def _on_stores_changed(self, changed: Changed) -> None:
        """Workflows or runs changed (here, over MCP, from the CLI, by an agent or a schedule): follow this
        panel's jobs through their runs' records, and read the list again."""
        runs = self.ops.ctx.runs
        for run_id in changed.of("runs"):
            record = runs.entry(run_id) if run_id else None
            if record is not None:
                self._follow_jobs(record)
        self.refresh()

    def refresh(self) -> None:
        """Read the list now (the panel reads it by itself whenever it changes)."""
        self._listed = True
        self._generation += 1
        generation = self._generation

        def listed(answer: Envelope[WorkflowListResult]) -> None:
            if generation != self._generation:
                return
            if answer.data is None:
                self.note.setText(self.tr("Cannot list workflows: {error}").format(error=answer.error))
                return
            selected = self._select_after or (wf.id if (wf := self.selected_workflow()) else None)
            self._select_after = None
            self.model.set_rows(answer.data.workflows)
            self.stack.show_empty(not answer.data.workflows)
            kept = self.selected_workflow()
            if kept is not None and kept.id == selected:
                return  # the model kept the selection (and the view its scroll position)
            row = self.model.row_of(selected) if selected else -1
            if self.model.rowCount():
                self.table.selectRow(row if row >= 0 else 0)

        self.ops.start(workflow_ops.workflow_list, {}, listed, owner=self)

    def selected_workflow(self) -> WorkflowSummary | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.workflow_at(rows[0].row()) if rows else None

    def select_workflow(self, key: str) -> None:
        row = self.model.row_of(key)
        if row >= 0:
            self.table.selectRow(row)

    def _update_buttons(self) -> None:
        chosen = self.selected_workflow() is not None
        for key in ("export", "run", "batch", "schedule", "delete"):
            self.buttons[key].setEnabled(chosen)
        self.chosen_changed.emit(chosen)

    def why_nothing_chosen(self) -> str:
        """Why the Workflow actions cannot act now (said on them while they are disabled)."""
        if self.model.rowCount() == 0:
            return self.tr("No workflows yet: record one, import one or make a new one first")
        return self.tr("Select a workflow in the Workflows panel first")

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._listed:
            self.refresh()

    # -- import and export -------------------------------------------------------------------------------
    def import_dialog(self) -> QFileDialog:
        """Choose workflow files to import, in a dialog that does not block the loop."""
        if self.import_file_dialog is not None:
            self.import_file_dialog.raise_()
            return self.import_file_dialog
        dialog = QFileDialog(self, self.tr("Import Workflows"), str(Path.home()),
                             self.tr("Workflows and Chrome Recorder recordings (*.json);;All files (*)"))
        dialog.setObjectName("wf-import-dialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.filesSelected.connect(self.import_files)
        dialog.finished.connect(lambda _result: self._forget_import_dialog(dialog))
        self.import_file_dialog = dialog
        dialog.open()
        return dialog

    def _forget_import_dialog(self, dialog: QFileDialog) -> None:
        if self.import_file_dialog is dialog:
            self.import_file_dialog = None
        dialog.deleteLater()

    def import_files(self, paths: list[str]) -> None:
        for path in paths:
            self.import_file(path)

    def import_file(self, path: str) -> None:
        """Import one workflow file (or Chrome DevTools Recorder recording); every problem of a rejected file
        is shown at once."""
        name = Path(path).name

        def imported(answer: Envelope[WorkflowSaveResult]) -> None:
            if answer.data is None:
                self._show_import_problems(name, list(answer.details.get("problems") or [str(answer.error or "")]))
                return
            saved = answer.data.workflow
            message = (self.tr("Imported “{workflow}” from {file} (it replaced the saved workflow of that name).")
                       if answer.data.replaced else self.tr("Imported “{workflow}” from {file}.")).format(
                workflow=saved.name, file=name)
            self.note.setText(message)
            if self.model.row_of(saved.id) >= 0:
                self.select_workflow(saved.id)
            else:
                self._select_after = saved.id  # selected when the list follows the import
            notes = answer.notes
            warnings = answer.data.warnings
            if warnings:
                shown = "\n".join(f"• {warning}" for warning in warnings[:8])
                more = ("\n" + self.tr("… and %n more (see the details).", "", len(warnings) - 8)
                        if len(warnings) > 8 else "")
                self._show_box(QMessageBox.Icon.Warning, self.tr("Import Workflow"),
                               message + "\n\n" + self.tr("It loaded with %n warning(s): parts that look wrong "
                                                           "and may fail when a run reaches them.", "", len(warnings)),
                               informative=shown + more,
                               details="\n".join(f"- {item}" for item in notes + warnings))
            elif notes:
                self._show_box(QMessageBox.Icon.Information, self.tr("Import Workflow"),
                               message + "\n\n" + self.tr("The recording was converted with %n note(s).", "",
                                                           len(notes)),
                               details="\n".join(f"- {note}" for note in notes))

        self.ops.start(workflow_ops.workflow_import, {"path": path}, imported, owner=self)

    def _show_import_problems(self, name: str, problems: list[str]) -> None:
        head = (self.tr("“{file}” was not imported: it has %n problems.", "", len(problems)) if len(problems) > 1
                else self.tr("“{file}” was not imported: {problem}")).format(file=name, problem=problems[0])
        shown = "\n".join(f"• {problem}" for problem in problems[:8])
        more = ("\n" + self.tr("… and %n more (see the details).", "", len(problems) - 8)
                if len(problems) > 8 else "")
        details = "\n".join(f"- {problem}" for problem in problems)
        log.info("import of %s rejected: %s", name, details)
        self._show_box(QMessageBox.Icon.Warning, self.tr("Import Workflow"), head,
                       informative=(shown + more) if len(problems) > 1 else self.tr("Nothing was saved."),
                       details=details)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_files(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._dropped_files(event)
        if paths:
            event.acceptProposedAction()
            self.import_files(paths)
        else:
            event.ignore()

    @staticmethod
    def _dropped_files(event: QDragEnterEvent | QDropEvent) -> list[str]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return [url.toLocalFile() for url in mime.urls()
                if url.isLocalFile() and url.toLocalFile().lower().endswith(DOCUMENT_SUFFIXES)]

    def export_selected(self) -> None:
        wf = self.selected_workflow()
        if wf is None:
            return
        suggested = str(Path.home() / f"{wf.name}.json")
        path, _filter = QFileDialog.getSaveFileName(self, self.tr("Export “{name}”").format(name=wf.name),
                                                    suggested, self.tr("Workflow (*.json);;All files (*)"))
        if path:
            self.export_to(wf.id, path)

    def export_to(self, workflow: str, path: str) -> None:
        self.ops.run(workflow_ops.workflow_export, {"name": workflow, "path": path}, self,
                     on_ok=lambda answer: self.note.setText(self.tr("Exported to {path}").format(
                         path=answer.result.path)),
                     title=self.tr("Export Workflow"))

    def delete_selected(self) -> None:
        wf = self.selected_workflow()
        if wf is None:
            return
        answer = QMessageBox.question(
            self, self.tr("Delete Workflow"),
            self.tr("Delete the workflow “{name}”?\n\nIts past runs stay in the Runs panel. Export it first if you "
                    "may want it back.").format(name=wf.name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            return

        def deleted(answer: Envelope[WorkflowDeleteResult]) -> None:
            self.note.setText(self.tr("Deleted “{name}”.").format(name=answer.result.name))

        self.ops.run(workflow_ops.workflow_delete, {"name": wf.id}, self, on_ok=deleted,
                     title=self.tr("Delete Workflow"))

    # -- running -----------------------------------------------------------------------------------------
    def _prepare(self, then: Callable[[WorkflowSummary, WorkflowDocument, list[EnvChoice]], None]) -> None:
        """Read the selected workflow's document and the environments, then call `then(wf, doc, envs)`."""
        wf = self.selected_workflow()
        if wf is None:
            return

        def read(answer: Envelope[WorkflowReadResult]) -> None:
            if answer.data is None:
                self._show_box(QMessageBox.Icon.Warning, self.tr("Run Workflow"), str(answer.error))
                return
            try:
                doc = validate_document(answer.data.workflow)
            except DocumentError as exc:
                self._show_box(QMessageBox.Icon.Warning, self.tr("Run Workflow"),
                               self.tr("“{name}” cannot run: it is not valid.").format(name=wf.name),
                               details=str(exc))
                return
            self.ops.start(env_ops.env_list, {}, lambda envs: then(wf, doc, env_choices(envs)), owner=self)

        self.ops.start(workflow_ops.workflow_read, {"name": wf.id}, read, owner=self)

    def run_selected(self) -> None:
        """Ask for the inputs of the selected workflow, then run it."""

        def ask(wf: WorkflowSummary, doc: WorkflowDocument, envs: list[EnvChoice]) -> None:
            def show(last_inputs: dict[str, Any], last_env: str | None) -> None:
                dialog = RunInputsDialog(wf.name, doc.start_variables(), envs, env_id=last_env, parent=self)
                dialog.remember(last_inputs)
                dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
                self._follow_environments(dialog)
                dialog.accepted.connect(lambda: self.start_run(wf, dialog.inputs(), dialog.env_id(),
                                                               dialog.env.currentText()))
                dialog.open()

            self._last_inputs(wf, show)

        self._prepare(ask)

    def _last_inputs(self, wf: WorkflowSummary, then: Callable[[dict[str, Any], str | None], None]) -> None:
        """The inputs and environment of the workflow's last run of its own (a batch's rows are not one), for
        the run form to start from; the run record holds no secret (`<secret:name>` instead)."""

        def read(answer: Envelope[RunReadResult], env: str | None) -> None:
            then(dict(answer.data.run.inputs) if answer.data is not None else {}, env)

        def listed(answer: Envelope[RunListResult]) -> None:
            runs = [r for r in answer.data.runs if r.batch_id is None] if answer.data is not None else []
            if not runs:
                then({}, None)
                return
            self.ops.start(run_ops.run_read, {"run_id": runs[0].id}, lambda run: read(run, runs[0].env), owner=self)

        self.ops.start(run_ops.run_list, {"workflow": wf.id, "limit": 20}, listed, owner=self)

    def _follow_environments(self, dialog: RunInputsDialog | BatchDialog) -> None:
        """An open run or batch form offers the environments as they are now."""
        envs = self.ops.ctx.envs
        self.ops.changes.follow(dialog, ("envs",), lambda _changed: dialog.set_environments(
            [(env.id, env.name) for env in envs.list()]))

    def batch_selected(self) -> None:
        """Ask for the rows file, environments and tabs at once, then run the batch."""

        def ask(wf: WorkflowSummary, doc: WorkflowDocument, envs: list[EnvChoice]) -> None:
            runner = self.ops.ctx.runner
            limit = runner.max_concurrency if runner is not None else 1
            dialog = BatchDialog(wf.name, doc.start_variables(), envs, limit, parent=self,
                                 broker=self.ops.ctx.settings.current.workers_broker)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self._follow_environments(dialog)
            names = dict(envs)

            def start() -> None:
                broker = dialog.workers_broker()
                if broker is not None:
                    self.start_on_workers(wf, dialog.rows, broker)
                    return
                env_ids = dialog.env_ids()
                self.start_batch(wf, dialog.rows, env_ids, dialog.concurrency.value(),
                                 ", ".join(names.get(env, env) for env in env_ids))

            dialog.accepted.connect(start)
            dialog.open()

        self._prepare(ask)

    def _new_job(self, kind: Literal["run", "batch"], wf: WorkflowSummary, env_names: str, total: int) -> RunJob:
        job = RunJob(kind=kind, workflow_id=wf.id, workflow_name=wf.name, env_names=env_names,
                     started=datetime.now(timezone.utc) - timedelta(seconds=1), known_ids=frozenset(self._seen_ids),
                     total=total)
        job.row = JobRow(job, self)
        job.row.cancel.clicked.connect(lambda: self.cancel_job(job))
        self.jobs_box.addWidget(job.row)
        self.jobs.append(job)
        return job

    def start_run(self, wf: WorkflowSummary, inputs: dict[str, Any], env_id: str, env_name: str = "") -> RunJob:
        """Run a saved workflow with these inputs in an environment; its result is shown when it ends."""
        job = self._new_job("run", wf, env_name or env_id, 1)

        def wait() -> None:
            job.task = self.ops.start(run_ops.run_wait, {"run_id": job.run_id, "timeout_ms": RUN_WAIT_MS}, ended,
                                      owner=self)

        def ended(answer: Envelope[RunResult]) -> None:
            if not answer.ok and answer.details.get("running"):
                wait()  # a long run (a person's step, a big loop): keep waiting
                return
            self._run_ended(job, answer)

        def started(answer: Envelope[WorkflowStartResult]) -> None:
            if answer.data is None:
                self._run_ended(job, answer)
                return
            job.run_id = answer.data.run_id
            log.info("run %s of %s started from the Workflows panel", job.run_id, job.workflow_name)
            if job.row is not None:
                job.row.update_progress()
            if job.cancelling:
                self._cancel_run(job)
            wait()

        job.task = self.ops.start(run_ops.workflow_start, {"name": wf.id, "inputs": inputs, "env": env_id}, started,
                                  owner=self)
        return job

    def start_batch(self, wf: WorkflowSummary, rows: list[dict[str, Any]], env_ids: list[str], concurrency: int,
                    env_names: str = "") -> RunJob:
        """One run per row, `concurrency` tabs at once, over the environments in turn."""
        job = self._new_job("batch", wf, env_names or ", ".join(env_ids), len(rows))
        params: dict[str, Any] = {"name": wf.id, "rows": rows, "concurrency": concurrency}
        if len(env_ids) == 1:
            params["env"] = env_ids[0]
        else:
            params["envs"] = env_ids

        def progress(counts: dict[str, Any]) -> None:
            job.progress = dict(counts)
            if job.row is not None:
                job.row.update_progress()

        # The batch reports each row that ends to its context's `progress` listener: a copy of the app's
        # context (same stores and runner) with this job's listener.
        ctx = replace(self.ops.ctx, progress=progress)
        job.task = self.ops.start(run_ops.workflow_batch, params, lambda answer: self._batch_ended(job, answer),
                                  ctx=ctx, owner=self)
        return job

    def start_on_workers(self, wf: WorkflowSummary, rows: list[dict[str, Any]], broker: str) -> RunJob:
        """The batch on `browserpilot worker` machines (workflow_distribute); the broker URL is remembered."""
        self.ops.ctx.settings.update(workers_broker=broker)
        job = self._new_job("batch", wf, self.tr("workers at {broker}").format(broker=broker.split("@")[-1]), len(rows))

        def progress(counts: dict[str, Any]) -> None:
            job.progress = dict(counts)
            if job.row is not None:
                job.row.update_progress()

        ctx = replace(self.ops.ctx, progress=progress)
        job.task = self.ops.start(distributed_ops.workflow_distribute, {"name": wf.id, "rows": rows, "broker": broker},
                                  lambda answer: self._batch_ended(job, answer), ctx=ctx, owner=self)
        return job

    def _follow_jobs(self, record: Any) -> None:
        """A run record was written (a run started or ended): this panel's jobs learn their batch and last run."""
        run_id: str = record.id
        batch_id: str | None = record.batch_id
        for job in self.jobs:
            if job.workflow_id != record.workflow_id:
                continue
            if job.kind == "batch" and batch_id is not None:
                if job.batch_id is None and batch_id not in job.known_ids \
                        and not any(other.batch_id == batch_id for other in self.jobs):
                    job.batch_id = batch_id
                    if job.cancelling:
                        self._cancel_batch(job)
                if job.batch_id == batch_id and record.status != "running":
                    job.last_run_id = run_id
            if job.row is not None:
                job.row.update_progress()
        self._seen_ids.add(run_id)
        if batch_id is not None:
            self._seen_ids.add(batch_id)

    def cancel_job(self, job: RunJob) -> None:
        if job.cancelling or job not in self.jobs:
            return
        job.cancelling = True
        if job.row is not None:
            job.row.update_progress()
        if job.kind == "run":
            self._cancel_run(job)
        else:
            self._cancel_batch(job)

    def _cancel_run(self, job: RunJob) -> None:
        if job.run_id is None:
            # Not started yet (its tab is being opened): stop the call itself; nothing is recorded.
            if job.task is not None:
                job.task.cancel()
            return

        def answered(answer: Envelope[RunCancelResult]) -> None:
            if not answer.ok:  # it ended meanwhile: its result is on its way
                log.info("cancel %s: %s", job.run_id, answer.error)

        self.ops.start(run_ops.run_cancel, {"run_id": job.run_id}, answered, owner=self)

    def _cancel_batch(self, job: RunJob) -> None:
        runner = self.ops.ctx.runner
        if job.batch_id is not None and runner is not None:
            cancelled = runner.cancel_batch(job.batch_id)
            log.info("batch %s: %s running run(s) cancelled", job.batch_id, cancelled)
        if job.task is not None:
            job.task.cancel()  # no further row starts; the rows running now end as cancelled

    def _finish(self, job: RunJob) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        if job.row is not None:
            self.jobs_box.removeWidget(job.row)
            job.row.deleteLater()
            job.row = None

    def _run_ended(self, job: RunJob, answer: Envelope[RunResult] | Envelope[WorkflowStartResult]) -> None:
        self._finish(job)
        if isinstance(answer.data, RunResult):
            run = answer.data.run
        elif answer.details.get("run") is not None:  # a failed run's record comes with its error
            run = RunView.model_validate(answer.details["run"])
        else:
            if answer.code == "cancelled":
                self.note.setText(self.tr("The run of “{name}” was cancelled before it started.").format(
                    name=job.workflow_name))
                return
            self._show_box(QMessageBox.Icon.Warning, self.tr("Run Workflow"),
                           self.tr("“{name}” could not run: {error}").format(name=job.workflow_name,
                                                                             error=answer.error))
            return
        status = run.status
        duration = format_duration(run.duration_ms)
        if status == "ok":
            head = self.tr("“{name}” finished: ok, in {duration}.").format(name=job.workflow_name, duration=duration)
            informative = (self.tr("Outputs: {keys}.").format(keys=", ".join(run.outputs)) if run.outputs else "")
        else:
            head = (self.tr("“{name}” {status} at node “{node}” after {duration}.") if run.stopped_at
                    else self.tr("“{name}” {status} after {duration}.")).format(
                name=job.workflow_name, status=status_text(status), node=run.stopped_at, duration=duration)
            informative = run.error or ""
        self.note.setText(self.tr("Last run: {result}").format(result=head))
        icon = {"ok": QMessageBox.Icon.Information, "cancelled": QMessageBox.Icon.Information}.get(
            status, QMessageBox.Icon.Warning)
        self._show_box(icon, self.tr("Run Finished") if status == "ok" else self.tr("Run Not Finished"), head,
                       informative=informative[:600], details=informative if len(informative) > 600 else None,
                       run_id=run.id)

    def _batch_ended(self, job: RunJob, answer: Envelope[WorkflowBatchResult] | Envelope[DistributedBatchResult]
                     ) -> None:
        batch = answer.data
        if job.batch_id is None and batch is not None:  # the runs' records may be told after the batch's end
            job.batch_id = batch.batch_id
        self._finish(job)
        if answer.code == "cancelled":
            head = self.tr("The batch of “{name}” was cancelled: {done} of {total} rows ran, {ok} ok.").format(
                name=job.workflow_name, done=job.done, total=job.total, ok=job.ok)
            self.note.setText(head)
            self._show_box(QMessageBox.Icon.Information, self.tr("Batch Cancelled"), head,
                           run_id=job.last_run_id)
            return
        if batch is None:
            self._show_box(QMessageBox.Icon.Warning, self.tr("Batch Run"),
                           self.tr("The batch of “{name}” could not run: {error}").format(
                               name=job.workflow_name, error=answer.error))
            return
        failed = [row for row in batch.results if row.status != "ok"]
        head = (self.tr("Batch of “{name}” done: {ok} of {total} rows ok, {failed} not ok.") if batch.failed
                else self.tr("Batch of “{name}” done: {ok} of {total} rows ok.")).format(
            name=job.workflow_name, ok=batch.succeeded, total=batch.total, failed=batch.failed)
        details = "\n".join(self.tr("Row {n}: {status}").format(n=row.row + 1, status=status_text(row.status))
                            + (f": {row.error}" if row.error else "") for row in failed)
        self.note.setText(head)
        first = next((row.run_id for row in (failed or batch.results) if row.run_id), None)
        self._show_box(QMessageBox.Icon.Information if not failed else QMessageBox.Icon.Warning,
                       self.tr("Batch Finished"),
                       head, informative=details[:600], details=details if len(details) > 600 else None,
                       run_id=first)

    # -- messages ------------------------------------------------------------------------------------------
    def _show_box(self, icon: QMessageBox.Icon, title: str, text: str, informative: str = "",
                  details: str | None = None, run_id: str | None = None) -> QMessageBox:
        """A message that does not block the loop (`open`, not `exec`); with a run, a Show in Runs button."""
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Close, self)
        box.setObjectName("wf-message")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if informative:
            box.setInformativeText(informative)
        if details:
            box.setDetailedText(details)
        if run_id is not None:
            show = box.addButton(self.tr("Show in Runs"), QMessageBox.ButtonRole.AcceptRole)
            show.setObjectName("wf-show-run")
            show.clicked.connect(lambda: self.show_run_requested.emit(run_id))
            box.setDefaultButton(show)
        box.destroyed.connect(lambda *_: self._forget_box(box))
        self.result_box = box
        box.open()
        return box

    def _forget_box(self, box: QMessageBox) -> None:
        if self.result_box is box:
            self.result_box = None
