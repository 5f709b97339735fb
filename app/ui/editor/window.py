"""The editor window of one workflow: the canvas (with breadcrumb, minimap), the side panel (the selected
node's form, or a run's details), the validation list, the toolbar and the shortcuts. It owns the model,
the controller (one undo stack) and the run overlay; it saves through `workflow_write` like every other
part of the app, and notices when the stored workflow changes from outside."""

from __future__ import annotations

import copy
import html
import json
import logging
from typing import Any, Callable

from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence, QMouseEvent, QShowEvent
from PySide6.QtWidgets import (QDialogButtonBox, QLabel, QMainWindow, QMessageBox, QPlainTextEdit, QScrollArea,
                               QSplitter, QToolBar, QVBoxLayout, QWidget)

from app.ops import inspect_ops, page_ops, run_ops, workflow_ops
from app.ops.results import WorkflowSaveResult, WorkflowStartResult
from app.ui.editor.controller import CLIPBOARD_KIND, EditorController, EditRefused
from app.ui.editor.forms import NodeForm
from app.ui.editor.history import HistoryDialog
from app.ui.editor.model import EditorModel, Level
from app.ui.editor.node_menu import NodeMenu
from app.ui.editor.run_view import RunOverlay
from app.ui.editor.scene import EditorScene
from app.ui.editor.validation import ValidationList
from app.ui.editor.view import EditorView
from app.ui.follow import Changed
from app.ui.screen_fit import fit_on_screen
from app.ui.op_runner import OpRunner
from app.ui.theme import icon
from plumbing import loggers
from workflows.document import DocumentError, validate_document
from workflows.envelope import Envelope
from workflows.results import QueryResult
from workflows.io import dump_document

log = logging.getLogger(loggers.EDITOR)

MIME = "application/x-browserpilot-nodes"
HIGHLIGHT_MS = 1500


def _stored_form(data: dict[str, Any]) -> dict[str, Any]:
    """The document as the store keeps it (what `workflow_write` saves)."""
    return json.loads(dump_document(validate_document(data)))


class EditorWindow(QMainWindow):
    saved = Signal(str)        # workflow id
    closed = Signal(str)       # workflow id or "" for a never saved one

    def __init__(self, ops: OpRunner, document: dict[str, Any], workflow_id: str | None = None,
                 front_tab: Callable[[], Any] | None = None, parent: QWidget | None = None, *,
                 owned: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("editor-window")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.ops, self.front_tab, self.workflow_id = ops, front_tab, workflow_id
        self.model = EditorModel(document, self, owned=owned)
        self.controller = EditorController(self.model, self)
        self.stack = self.controller.stack
        self.level: Level = ()
        self._fit_pending = False
        # The stored document this window's content comes from: as opened, then as it last saved or reloaded it.
        # A change of the store that brings this document back (the echo of its own save, or a change made before
        # the window opened and told a moment later) is not a change made elsewhere.
        self._written: dict[str, Any] | None = _safe_stored(self.model.data) if workflow_id is not None else None
        self._saving = 0  # saves on their way to the store: what the store says meanwhile is older than them
        self._outside: QMessageBox | None = None
        self.history: HistoryDialog | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self.scene = EditorScene(self.model, self)
        self.view = EditorView(self)
        self.view.setScene(self.scene)
        self.overlay = RunOverlay(self.model, self.scene, self)
        self.problems = ValidationList(self.model, self)
        self.menu = NodeMenu(self)
        self._menu_target: tuple[QPointF, tuple[str, str] | None] = (QPointF(), None)
        self.breadcrumb = QLabel(self)
        self.breadcrumb.setObjectName("editor-breadcrumb")
        self.breadcrumb.linkActivated.connect(lambda depth: self.show_level(self.level[:int(depth)]))
        self.message = QLabel(self)
        self.message.setObjectName("editor-message")
        self.side = QScrollArea(self)
        self.side.setObjectName("editor-side")
        self.side.setWidgetResizable(True)
        self.side.setMinimumWidth(320)
        # the form fits the panel's width (it wraps and elides): it scrolls only up and down
        self.side.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.details = QPlainTextEdit(self)
        self.details.setObjectName("editor-run-details")
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(160)
        self.details.hide()
        self.form: NodeForm | None = None
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.side)
        right.addWidget(self.details)
        right.addWidget(self.problems)
        right.setSizes([420, 120, 160])
        canvas = QWidget(self)
        canvas_layout = QVBoxLayout(canvas)
        canvas_layout.setContentsMargins(0, 0, 0, 0)
        canvas_layout.addWidget(self.breadcrumb)
        canvas_layout.addWidget(self.view, 1)
        canvas_layout.addWidget(self.message)
        split = QSplitter(self)
        split.addWidget(canvas)
        split.addWidget(right)
        split.setSizes([880, 360])
        self.setCentralWidget(split)
        self._build_actions()
        self._wire()
        # the system's light/dark switch (apply_theme re-applies on it first; then the palette change arrives)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._follow_theme)
        fit_on_screen(self, 1260, 760)  # the whole window on the screen, even a small one
        self.show_level(())
        self._update_title()
        self._follow_store()

    # -- building -------------------------------------------------------------------------------------
    def _action(self, name: str, text: str, keys: list[QKeySequence | str], handler: Callable[[], object],
                canvas: bool = False, icon_name: str = "") -> QAction:
        """An action named `name` (its object name, the same in every language) showing `text`, with the
        Lucide icon `icon_name`."""
        action = QAction(text, self)
        if icon_name:
            action.setIcon(icon(icon_name))
        action.setObjectName(name)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(lambda _checked=False: handler())
        if canvas:  # only while the canvas has the focus: never while a text field does
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.view.addAction(action)
        else:
            self.addAction(action)
        return action

    def _build_actions(self) -> None:
        undo = self.stack.createUndoAction(self, self.tr("Undo"))
        undo.setObjectName("undo")
        undo.setIcon(icon("undo-2"))
        undo.setShortcuts([QKeySequence("Ctrl+Z")])
        redo = self.stack.createRedoAction(self, self.tr("Redo"))
        redo.setObjectName("redo")
        redo.setIcon(icon("redo-2"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.addAction(undo)
        self.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        self.save_action = self._action("save", self.tr("Save"), ["Ctrl+S"], self.save, icon_name="save")
        self.run_action = self._action("run", self.tr("Run"), ["F5"], self.run, icon_name="play")
        self.cancel_action = self._action("cancel-run", self.tr("Cancel run"), ["Shift+F5"], self.cancel_run,
                                          icon_name="circle-stop")
        self.cancel_action.setEnabled(False)
        self.schedule_action = self._action("schedule", self.tr("Schedule…"), [], self.schedule,
                                            icon_name="calendar")
        self._action("delete", self.tr("Delete"), ["Delete", "Backspace"], self.delete_selected, canvas=True,
                     icon_name="trash-2")
        self._action("select-all", self.tr("Select all"), ["Ctrl+A"], self.select_all, canvas=True)
        self._action("copy", self.tr("Copy"), ["Ctrl+C"], self.copy_selected, canvas=True, icon_name="copy")
        self._action("cut", self.tr("Cut"), ["Ctrl+X"], self.cut_selected, canvas=True)
        self._action("paste", self.tr("Paste"), ["Ctrl+V"], self.paste, canvas=True, icon_name="clipboard-paste")
        self._action("duplicate", self.tr("Duplicate"), ["Ctrl+D"], self.duplicate_selected, canvas=True)
        self._action("fit", self.tr("Fit"), ["Ctrl+0"], lambda: self.view.fit(), canvas=True, icon_name="maximize")
        self._action("up-a-level", self.tr("Up a level"), ["Alt+Up"], lambda: self.show_level(self.level[:-1]),
                     canvas=True, icon_name="arrow-up")
        arrange = self._action("arrange", self.tr("Arrange"), [], lambda: self.controller.arrange(self.level),
                               icon_name="layout-grid")
        note = self._action("add-note", self.tr("Add note"), [], self.add_note, icon_name="message-square")
        into = self._action("move-into-loop", self.tr("Move into loop…"), [], self.move_into_loop,
                            icon_name="log-in")
        out = self._action("move-out-of-loop", self.tr("Move out of loop"), [], self.move_out_of_loop,
                           icon_name="log-out")
        self.overlay_action = self._action("clear-run", self.tr("Clear run"), [], self.overlay.clear,
                                           icon_name="x")
        self.history_action = self._action("history", self.tr("History"), [], self.show_history,
                                           icon_name="history")
        bar = QToolBar(self.tr("Editor"), self)
        bar.setObjectName("editor-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in (self.save_action, undo, redo, None, arrange, note, into, out, None, self.run_action,
                       self.cancel_action, self.overlay_action, None, self.history_action, self.schedule_action):
            bar.addSeparator() if action is None else bar.addAction(action)
        self.addToolBar(bar)

    def _wire(self) -> None:
        self.stack.cleanChanged.connect(lambda _clean: self._update_title())
        self.model.app_changed.connect(self._update_title)
        self.model.changed.connect(self._model_changed)
        self.model.changed.connect(self.view.minimap.level_changed)
        self.scene.rebuilt.connect(self.view.minimap.level_shown)
        self.scene.sketched.connect(self.view.minimap.level_shown)
        self.scene.boxes_changed.connect(self.view.minimap.level_changed)
        self.scene.selectionChanged.connect(self._selection_changed)
        self.scene.connect_requested.connect(self._connect)
        self.scene.add_next_requested.connect(lambda s, h, at: self.open_menu(at, (s, h)))
        self.scene.empty_double_clicked.connect(lambda at: self.open_menu(at, None))
        self.scene.moved.connect(lambda positions: self._guard(lambda: self.controller.move(positions)))
        self.scene.dropped_on_edge.connect(lambda n, e: self._guard(lambda: self.controller.insert_on_edge(self.level, e, n)))
        self.scene.note_moved.connect(lambda note_id, pos: self.controller.set_note(
            self.level, note_id, "position", {"x": round(pos[0]), "y": round(pos[1])}))
        self.scene.note_edited.connect(lambda note_id, text: self.controller.set_note(self.level, note_id, "text", text))
        self.scene.open_loop_requested.connect(lambda loop_id: self.show_level((*self.level, loop_id)))
        self.view.add_menu_requested.connect(lambda at: self.open_menu(at, None))
        self.menu.chosen.connect(self._add_chosen)
        self.problems.node_chosen.connect(self.select_node)
        self.overlay.finished.connect(self._run_finished)

    # -- title, level, selection ------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return not self.stack.isClean()

    def _update_title(self) -> None:
        self.setWindowTitle(self.tr("{name}{dirty} — BrowserPilot workflow editor").format(
            name=self.model.name, dirty=" *" if self.dirty else ""))

    def show_level(self, level: Level) -> None:
        self.level = level
        self.scene.show_level(level)
        crumbs = ['<a href="0">{}</a>'.format(self.tr("Workflow"))] + [
            f'<a href="{i + 1}">{html.escape(loop_id)}</a>' for i, loop_id in enumerate(level)]
        self.breadcrumb.setText(" › ".join(crumbs) + ("   " + self.tr("(a loop body: Alt+Up goes back out)") if level else ""))
        self._show_form(None)
        self._fit_pending = True
        QTimer.singleShot(0, self._fit_if_pending)

    def _fit_if_pending(self) -> None:
        if self._fit_pending:
            self._fit_pending = False
            self.view.fit(legible=True)

    def changeEvent(self, event: QEvent) -> None:
        """apply_theme set another palette (the scheme changed): the canvas and its overview follow."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange,
                            QEvent.Type.StyleChange):
            self._follow_theme()

    def _follow_theme(self) -> None:
        if not hasattr(self, "view"):   # a change event while the window is being made
            return
        if self.scene.recolour():
            self.view.minimap.update()

    def showEvent(self, event: QShowEvent) -> None:
        """The first paint already shows the level fitted (not a frame at zoom 1 first)."""
        super().showEvent(event)
        self._fit_if_pending()

    def select_node(self, node_id: str) -> None:
        if not self.model.has_node(node_id):
            return
        level = self.model.level_of(node_id)
        if level != self.level:
            self.show_level(level)
        self.scene.select_nodes([node_id])
        self.view.centerOn(self.scene.nodes[node_id])

    def select_all(self) -> None:
        self.scene.select_all()

    def _selection_changed(self) -> None:
        chosen = self.scene.selected_node_ids()
        self._show_form(chosen[0] if len(chosen) == 1 else None)

    def _show_form(self, node_id: str | None) -> None:
        if self.form is not None and (node_id is None or self.form.node_id != node_id):
            self.form.deleteLater()
            self.form = None
        if node_id is not None and self.form is None:
            self.form = NodeForm(self.controller, node_id, self.side, pick=self._pick, test=self._test)
        self.side.setWidget(self.form) if self.form is not None else self.side.takeWidget()
        text = self.overlay.details(node_id) if node_id and self.overlay.run_id else ""
        self.details.setPlainText(text)
        self.details.setVisible(bool(text))

    def _model_changed(self) -> None:
        if self.level and not self.model.is_level(self.level):  # the loop shown went (an undo, say): step out
            level = self.level
            while level and not self.model.is_level(level):
                level = level[:-1]
            self.show_level(level)
        if self.form is not None:
            if self.model.has_node(self.form.node_id):
                self.form.refresh()
            else:
                self._show_form(None)

    def say(self, text: str) -> None:
        self.message.setText(text)
        log.info("editor: %s", text)

    def _guard(self, edit: Callable[[], object]) -> None:
        try:
            edit()
        except EditRefused as exc:
            self.say(self.tr("Not done: {reason}").format(reason=exc))

    # -- editing ---------------------------------------------------------------------------------------
    def open_menu(self, at: QPointF, after: tuple[str, str] | None) -> None:
        self._menu_target = (at, after)
        self.menu.popup(self.view.mapToGlobal(self.view.mapFromScene(at)))

    def _add_chosen(self, kind: str) -> None:
        """Add the node chosen in the menu and select it; a new loop opens into its body, its starter node
        selected, ready to edit."""
        at, after = self._menu_target
        try:
            node_id = self.controller.add_node(self.level, kind, (at.x(), at.y()), after)
        except EditRefused as exc:
            self.say(self.tr("Not done: {reason}").format(reason=exc))
            return
        body = self.model.nodes((*self.level, node_id)) if kind == "loop" else []
        if body:
            self.show_level((*self.level, node_id))
            node_id = str(body[0]["id"])
        self.scene.select_nodes([node_id])

    def _connect(self, source: str, handle: str, target: str) -> None:
        self._guard(lambda: self.controller.connect(self.level, source, handle, target))

    def delete_selected(self) -> None:
        nodes = self.scene.selected_node_ids()
        readers = self.controller.referenced_outputs(nodes)
        uses = "; ".join(self.tr("{reader} reads {node}'s output").format(reader=reader, node=node)
                         for node, reader in readers[:8]) + (" …" if len(readers) > 8 else "")
        if readers and not self.confirm(self.tr("Delete"), self.tr("Still used: {uses}. Delete anyway?").format(uses=uses)):
            return
        edges, notes = self.scene.selected_edge_ids(), self.scene.selected_note_ids()
        self.scene.clearSelection()  # one selection change, not one per deleted item
        kept = self.controller.delete(self.level, nodes, edges, notes)
        if kept:
            self.say(kept[0])

    def confirm(self, title: str, text: str) -> bool:
        return QMessageBox.question(self, title, text) == QMessageBox.StandardButton.Yes

    def copy_selected(self) -> None:
        payload = self.controller.copy(self.level, self.scene.selected_node_ids())
        if payload["nodes"]:
            QGuiApplication.clipboard().setText(json.dumps(payload, ensure_ascii=False))

    def cut_selected(self) -> None:
        self.copy_selected()
        chosen = self.scene.selected_node_ids()
        self.scene.clearSelection()  # one selection change, not one per cut node
        self.controller.cut(self.level, chosen)

    def paste(self) -> None:
        try:
            payload = json.loads(QGuiApplication.clipboard().text() or "null")
        except ValueError:
            payload = None
        if not isinstance(payload, dict) or payload.get("kind") != CLIPBOARD_KIND:
            self.say(self.tr("The clipboard holds no workflow nodes."))
            return
        self._guard(lambda: self.scene.select_nodes(self.controller.paste(self.level, payload)))

    def duplicate_selected(self) -> None:
        chosen = self.scene.selected_node_ids()
        if chosen:
            self._guard(lambda: self.scene.select_nodes(self.controller.duplicate(self.level, chosen)))

    def add_note(self) -> None:
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        self.controller.add_note(self.level, (centre.x(), centre.y()))

    def move_into_loop(self) -> None:
        chosen = self.scene.selected_node_ids()
        loops = [n for n in chosen if self.model.node(n)["data"].get("type") == "loop"]
        movers = [n for n in chosen if n not in loops[:1]]
        if not loops or not movers:
            self.say(self.tr("Select the nodes and the loop they go into (one loop)."))
            return
        self._guard(lambda: self.controller.move_to_level(self.level, movers, (*self.level, loops[0])))

    def move_out_of_loop(self) -> None:
        if not self.level:
            self.say(self.tr("These nodes are at the top level already."))
            return
        self._guard(lambda: self.controller.move_to_level(self.level, self.scene.selected_node_ids(), self.level[:-1]))

    # -- saving ----------------------------------------------------------------------------------------
    def save(self) -> bool:
        try:
            stored = _stored_form(self.model.data)
        except DocumentError as exc:
            QMessageBox.warning(self, self.tr("Cannot save"), self.tr("The workflow cannot be saved yet:\n{problems}").format(
                problems="\n".join(exc.problems)))
            return False
        self._written = stored
        self._saving += 1
        index = self.stack.index()

        def failed(_answer: Envelope[WorkflowSaveResult]) -> None:
            self._saving -= 1

        def done(answer: Envelope[WorkflowSaveResult]) -> None:
            self._saving -= 1
            self.workflow_id = answer.result.id
            try:  # the store's own copy (in memory): its echo, told later, is not a change made elsewhere
                self._written = self.ops.ctx.workflows.find(self.workflow_id).document
            except LookupError:
                pass
            self.stack.setClean() if self.stack.index() == index else None
            self._update_title()
            count = len(answer.result.warnings)
            self.say(self.tr("Saved (%n warning(s)).", "", count))
            self.saved.emit(self.workflow_id)

        self.ops.run(workflow_ops.workflow_write, {"workflow": stored}, self, done, title=self.tr("Save workflow"),
                     on_failed=failed)
        return True

    def show_history(self) -> None:
        """The History panel: versions (diff, restore) and the repairs the runs propose (accept)."""
        if self.workflow_id is None:
            self.say(self.tr("Save the workflow first: its versions start with its first save."))
            return
        dialog = HistoryDialog(self.ops, self.workflow_id, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.history = dialog
        dialog.open()

    def _follow_store(self) -> None:
        """The saved workflow changed elsewhere (another window, an agent, MCP, the CLI, a repair accepted in
        the Runs panel): follow it, or ask when there are unsaved edits (app/ui/follow.py)."""
        self.ops.changes.follow(self, ("workflows",), self._on_workflows_changed)

    def _on_workflows_changed(self, changed: Changed) -> None:
        keys = changed.of("workflows")
        store = self.ops.ctx.workflows
        if self.workflow_id is not None and self.workflow_id in keys:
            try:
                saved = store.find(self.workflow_id)
            except LookupError:
                self.say(self.tr("This workflow was deleted from the list; Save puts it back."))
                return
        elif self.workflow_id is None:  # a new workflow: one saved elsewhere under its name is this one
            try:
                saved = store.find(self.model.name)
            except LookupError:
                return
            if saved.id not in keys or saved.name != self.model.name:
                return
        else:
            return
        self._store_changed(saved)

    def _store_changed(self, saved: Any) -> None:
        if self._saving:
            return  # a change told late, from before this window's own save, which replaces it
        if self.workflow_id is None:
            self.workflow_id = saved.id
        if saved.document == self._written or saved.document == _safe_stored(self.model.data):
            return
        if not self.dirty:
            self.reload(saved.document)
            self.say(self.tr("Reloaded: the workflow was changed outside this editor."))
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Changed outside the editor"),
                          self.tr("“{name}” was changed outside this editor. Reload it (your unsaved changes are "
                                  "lost) or keep editing yours?").format(name=saved.name), parent=self)
        reload = box.addButton(self.tr("Reload"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(self.tr("Keep Mine"), QMessageBox.ButtonRole.RejectRole)
        box.setObjectName("editor-outside-change")
        box.finished.connect(lambda _r: self.reload(copy.deepcopy(saved.document)) if box.clickedButton() is reload else None)
        self._outside = box
        box.open()

    def reload(self, document: dict[str, Any]) -> None:
        self._written = copy.deepcopy(document)
        data = validate_document(document).to_data()
        self.model.replace_all(data)
        self.controller.clear_history()
        self._show_form(None)
        self._update_title()

    # -- running ---------------------------------------------------------------------------------------
    def run(self) -> None:
        if self.ops.ctx.runner is None:
            self.say(self.tr("Runs need the app's browser."))
            return
        if self.dirty or self.workflow_id is None:
            try:
                doc = validate_document(self.model.data)
            except DocumentError as exc:
                self.say(self.tr("Cannot run: {problem}").format(problem=exc.problems[0]))
                return
        else:
            doc = validate_document(self.model.data)
        variables = doc.start_variables()
        envs = [(e.id, e.name) for e in self.ops.ctx.envs.list()]
        if variables or len(envs) > 1:
            from app.ui.run_inputs_dialog import RunInputsDialog

            dialog = RunInputsDialog(doc.name, variables, envs, parent=self)
            dialog.setObjectName("editor-run-inputs")
            store = self.ops.ctx.envs
            self.ops.changes.follow(dialog, ("envs",), lambda _changed: dialog.set_environments(
                [(e.id, e.name) for e in store.list()]))
            dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).setIcon(icon("play"))
            dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).setIcon(icon("x"))
            dialog.accepted.connect(lambda: self._start(doc.to_data(), dialog.inputs(), dialog.env_id()))
            dialog.open()
            return
        self._start(doc.to_data(), {}, envs[0][0] if envs else None)

    def schedule(self) -> None:
        """Schedule…: the schedule dialog (the Schedules panel's) for this workflow, as it is saved."""
        if self.workflow_id is None or self.dirty:
            self.say(self.tr("Save the workflow first: a schedule runs the saved workflow."))
            return
        from app.ui.schedule_dialog import open_schedule_dialog

        open_schedule_dialog(self.ops, self, workflow_id=self.workflow_id, on_saved=lambda saved: self.say(
            self.tr("Scheduled: {name} (the Schedules panel lists it)").format(name=saved.name)))

    def _start(self, document: dict[str, Any], inputs: dict[str, Any], env_id: str | None) -> None:
        assert self.ops.ctx.runner is not None
        params: dict[str, Any] = {"inputs": inputs, **({"env": env_id} if env_id else {})}
        params.update({"name": self.workflow_id} if not self.dirty and self.workflow_id else {"workflow": document})
        events = self.ops.ctx.runner.events

        def started(answer: Envelope[WorkflowStartResult]) -> None:
            run_id = answer.result.run_id
            self.overlay.begin(run_id)
            for event in events.history(run_id):
                self.overlay.on_event(event)
            if not self.overlay.record:
                self._unsubscribe.append(events.subscribe(self.overlay.on_event, run_id))
            self.cancel_action.setEnabled(self.overlay.record is None)
            self.say(self.tr("Running {run}…").format(run=run_id))

        self.ops.run(run_ops.workflow_start, params, self, started, title=self.tr("Run workflow"))

    def _run_finished(self, record: dict[str, Any]) -> None:
        self.cancel_action.setEnabled(False)
        status = record.get("status")
        text = self.tr("Run {run} {status}").format(run=record.get("id"), status=status)
        if status != "ok":
            text += self.tr(" at {node}: {error}").format(node=record.get("stoppedAt") or record.get("node"),
                                                          error=record.get("error"))
            if record.get("screenshot"):
                text += "\n" + self.tr("Screenshot: {path}").format(path=record["screenshot"])
            if record.get("har"):
                text += "  " + self.tr("HAR: {path}").format(path=record["har"])
        self.say(text)

    def cancel_run(self) -> None:
        if self.overlay.run_id and self.overlay.record is None:
            self.ops.run(run_ops.run_cancel, {"run_id": self.overlay.run_id}, self,
                         lambda _answer: self.say(self.tr("Cancelling…")))

    def show_run(self, record: dict[str, Any]) -> None:
        """Overlay a past run (a `run_read` view) on the graph."""
        self.overlay.show_record(record)
        self.say(self.tr("Showing run {run}: {status}").format(run=record.get("id"), status=record.get("status")))

    # -- locators: pick and test --------------------------------------------------------------------------
    def _front_tab(self) -> Any:
        return self.front_tab() if self.front_tab is not None else None

    def _pick(self, fill: Callable[[dict[str, Any]], None]) -> None:
        tab = self._front_tab()
        if tab is None:
            self.say(self.tr("Open an environment window with the page first, then press Pick."))
            return
        picker = _ClickPicker(tab, lambda x, y: self.ops.run(
            inspect_ops.page_hit, {"tab_id": tab.tab_id, "x": x, "y": y}, self,
            lambda answer: fill(answer.result.locator.wire()), title=self.tr("Pick")))
        self._picker = picker
        tab.window().raise_()
        self.say(self.tr("Click the element in the environment window."))

    def _test(self, locator: dict[str, Any], show: Callable[[str], None]) -> None:
        tab = self._front_tab()
        if tab is None:
            show(self.tr("No environment window is open."))
            return
        spec = {k: v for k, v in locator.items() if k in ("selector", "xpath") and v}
        if not spec and locator.get("alternatives"):
            from workflows.nodes import NodeLocator

            first = NodeLocator.model_validate(locator).candidates()[0]
            spec = {k: v for k, v in (("selector", first.selector), ("xpath", first.xpath)) if v}

        def counted(answer: Envelope[QueryResult]) -> None:
            count = answer.result.count
            show(self.tr("1 match (exactly one: good)") if count == 1 else
                 self.tr("%n matches (page actions need exactly one)", "", count))
            self._highlight(tab, spec)

        self.ops.run(page_ops.page_query, {"tab_id": tab.tab_id, "locator": spec}, self, counted,
                     title=self.tr("Test locator"))

    def _highlight(self, tab: Any, spec: dict[str, Any]) -> None:
        """Outline the matches in the page for a moment (an overlay drawn by a script, removed after)."""
        script = ("(() => { const spec = %s; const found = spec.xpath ? (() => { const r = document.evaluate(spec.xpath,"
                  " document, null, 7, null); return Array.from({length: r.snapshotLength}, (_, i) => r.snapshotItem(i)); })()"
                  " : (() => { try { return Array.from(document.querySelectorAll(spec.selector)); } catch (e) { return []; } })();"
                  " const boxes = found.map((el) => { const r = el.getBoundingClientRect(); const d = document.createElement('div');"
                  " d.setAttribute('data-browserpilot-highlight', ''); Object.assign(d.style, {position: 'fixed', left: r.x + 'px',"
                  " top: r.y + 'px', width: r.width + 'px', height: r.height + 'px', outline: '3px solid #ffb300',"
                  " background: 'rgba(255,179,0,.15)', zIndex: 2147483647, pointerEvents: 'none'});"
                  " document.documentElement.appendChild(d); return d; });"
                  " setTimeout(() => boxes.forEach((d) => d.remove()), %d); return boxes.length; })()"
                  % (json.dumps(spec), HIGHLIGHT_MS))
        tab.page().runJavaScript(script, 0)

    # -- closing ---------------------------------------------------------------------------------------
    def ask_unsaved(self) -> QMessageBox.StandardButton:
        return QMessageBox.question(self, self.tr("Unsaved changes"),
                                    self.tr("Save the changes to “{name}”?").format(name=self.model.name),
                                    QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                                    | QMessageBox.StandardButton.Cancel)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.dirty:
            answer = self.ask_unsaved()
            if answer == QMessageBox.StandardButton.Cancel or (answer == QMessageBox.StandardButton.Save
                                                                and not self.save()):
                event.ignore()
                return
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        self.stack.cleanChanged.disconnect()  # the stack is deleted with the window and says so on its way
        self.closed.emit(self.workflow_id or "")
        super().closeEvent(event)


def _safe_stored(data: dict[str, Any]) -> Any:
    try:
        return _stored_form(data)
    except DocumentError:
        return None


class _ClickPicker(QObject):
    """The next click in a tab picks the element there (the click does not reach the page)."""

    def __init__(self, tab: Any, picked: Callable[[float, float], None]) -> None:
        super().__init__(tab)
        self.tab, self.picked = tab, picked
        self.target = tab.focusProxy() or tab
        self.target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            zoom = self.tab.zoomFactor() or 1.0
            point = event.position()
            QTimer.singleShot(0, lambda: self.picked(point.x() / zoom, point.y() / zoom))
            return True
        if event.type() == QEvent.Type.MouseButtonRelease:
            self.target.removeEventFilter(self)
            return True
        return False
