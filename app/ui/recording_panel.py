"""The Recording side panel of an environment window: the steps of the front tab's recording,
live, in words, each with its node type and chosen locator, and the person's edits.

Everything goes through the operations (`record_start`, `record_status`, `record_edit`, `record_stop`, and
`workflow_run` for Replay now), so the panel does exactly what an agent could. The panel follows the
recorder's `changed` signal (no polling). Stop asks for a name and offers Replay now; the workflow is saved
in workflows.json, so it shows in the Workflows panel, and opens in the node-graph editor (`editor_open`)
unless it is replayed.
"""

from __future__ import annotations

from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QDockWidget, QFormLayout, QHBoxLayout,
                               QInputDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QMenu, QPushButton,
                               QToolButton, QVBoxLayout, QWidget)

from app.browser.recorder import TabRecorder
from app.browser.tab import BrowserTab
from app.ops import editor_ops, recording_ops, run_ops
from app.ops.results import RecordStopResult
from app.ui.op_runner import OpRunner
from app.ui.run_inputs_dialog import RunInputsDialog, ask_replay_inputs
from workflows.results import RecordedStep, RecordStatusResult
from workflows.envelope import Envelope

RECORDING_RED = "#d93025"


class RecordingWatcher(QObject):
    """Calls `changed(tab)` soon after a recorder is attached to or removed from a tab it watches (whoever
    started it: the Record button or an agent's record_start)."""

    def __init__(self, changed: Callable[[BrowserTab], None], parent: QObject) -> None:
        super().__init__(parent)
        self._changed = changed

    def watch(self, tab: BrowserTab) -> None:
        tab.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.ChildAdded, QEvent.Type.ChildRemoved) and isinstance(watched, BrowserTab):
            QTimer.singleShot(0, lambda tab=watched: self._changed(tab) if shiboken6.isValid(tab) else None)
        return False


class StopDialog(QDialog):
    """Stop: the workflow's name, and whether to replay it right away."""

    def __init__(self, suggestion: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Save the recording"))
        self.setObjectName("record-stop-dialog")
        self.name = QLineEdit(suggestion, self)
        self.name.setObjectName("record-name")
        self.name.selectAll()
        self.replay = QCheckBox(self.tr("Replay now"), self)
        self.replay.setObjectName("record-replay")
        form = QFormLayout(self)
        form.addRow(self.tr("Workflow name:"), self.name)
        form.addRow("", self.replay)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _accept(self) -> None:
        if self.name.text().strip():
            self.accept()


class RecordPanel(QDockWidget):
    """The dock; `tab` is the tab being shown (the window's front tab)."""

    stopped = Signal(str)  # the saved workflow's name

    def __init__(self, ops: OpRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Recording"))
        self.setObjectName("recording-panel")
        self._ops = ops
        self._tab: BrowserTab | None = None
        self._recorder: TabRecorder | None = None
        self._steps: list[RecordedStep] = []
        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.state = QLabel(body)
        self.state.setObjectName("record-state")
        self.state.setWordWrap(True)
        self.state.setTextFormat(Qt.TextFormat.RichText)
        self.list = QListWidget(body)
        self.list.setObjectName("record-steps")
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setMinimumHeight(220)
        self.list.itemDoubleClicked.connect(lambda _item: self.edit_value())
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.notes = QLabel(body)
        self.notes.setObjectName("record-notes")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #b06000")
        layout.addWidget(self.state)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.notes)

        row = QHBoxLayout()
        self.delete_button = self._button(self.tr("Delete"), self.delete_step, row, self.tr("Delete the selected step"))
        self.value_button = self._button(self.tr("Edit value…"), self.edit_value, row,
                                         self.tr("Change the typed text, option, keys, address or message"))
        self.input_button = self._button(self.tr("Make input…"), self.make_input, row,
                                         self.tr("The typed value becomes a start input, asked for at each run"))
        layout.addLayout(row)
        row = QHBoxLayout()
        self.locator_button = QToolButton(body)
        self.locator_button.setText(self.tr("Locator"))
        self.locator_button.setToolTip(self.tr("Use another recorded way to find the element"))
        self.locator_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.locator_button.setMenu(QMenu(self.locator_button))
        self.locator_button.menu().aboutToShow.connect(self._fill_locator_menu)
        row.addWidget(self.locator_button)
        insert = QToolButton(body)
        insert.setText(self.tr("Insert"))
        insert.setObjectName("record-insert")
        insert.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(insert)
        menu.addAction(self.tr("Handoff here…"), self.insert_handoff)
        menu.addAction(self.tr("Captcha here"), lambda: self._insert({"kind": "captcha"}))
        menu.addSeparator()
        menu.addAction(self.tr("Wait for this (pick an element)"), lambda: self._insert({"kind": "wait"}))
        menu.addAction(self.tr("Capture text (pick an element)…"), self.insert_capture)
        menu.addAction(self.tr("Check (pick an element)"), lambda: self._insert({"kind": "check"}))
        insert.setMenu(menu)
        self.insert_menu = menu
        row.addWidget(insert)
        row.addStretch(1)
        self.stop_button = self._button(self.tr("Stop"), self.stop, row, self.tr("Stop recording and save the workflow"))
        self.stop_button.setObjectName("record-stop")
        self.stop_button.setStyleSheet(f"QPushButton {{ color: white; background: {RECORDING_RED}; "
                                       f"border-radius: 4px; padding: 4px 12px; font-weight: 600; }}")
        layout.addLayout(row)
        self.setWidget(body)
        self._update_buttons()

    def _button(self, text: str, handler: Callable[[], object], row: QHBoxLayout, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: handler())
        row.addWidget(button)
        return button

    # -- following the recording -----------------------------------------------------------------------
    def show_tab(self, tab: BrowserTab | None) -> None:
        """Show the recording of `tab` (the front tab), or nothing when it has none."""
        if self._recorder is not None:
            try:
                self._recorder.changed.disconnect(self.refresh)
            except (RuntimeError, TypeError):
                pass
        self._tab = tab
        self._recorder = TabRecorder.of(tab) if tab is not None else None
        if self._recorder is not None:
            self._recorder.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        if self._tab is None or self._recorder is None:
            self._steps = []
            self.list.clear()
            self.state.setText(self.tr("This tab is not being recorded."))
            self.notes.clear()
            self._update_buttons()
            return
        self._ops.run(recording_ops.record_status, {"tab_id": self._tab.tab_id}, self, on_ok=self._show)

    def _show(self, answer: Envelope[RecordStatusResult]) -> None:
        status = answer.result
        if not status.recording:
            return
        current = self.list.currentRow()
        self._steps = status.steps
        self.list.clear()
        for index, step in enumerate(self._steps, start=1):
            locator = f"\n    {step.type} · {step.locator}" if step.locator else f"\n    {step.type}"
            item = QListWidgetItem(f"{index}. {step.words}{locator}")
            item.setData(Qt.ItemDataRole.UserRole, step.id)
            tip = [step.words, self.tr("node: {type}").format(type=step.type)]
            if step.alternatives:
                tip.append(self.tr("alternatives: {list}").format(list="; ".join(step.alternatives)))
            if step.missing:  # the person's action is not in the workflow: saving waits for them
                item.setForeground(QColor(RECORDING_RED))
                tip.append(self.tr("Not recorded: {why}. Delete this step (after doing the action again in a way "
                                   "that records, or if the workflow does not need it) to be able to save.").format(
                    why=step.missing))
            elif step.note:
                item.setForeground(QColor("#b06000"))
                tip.append(step.note)
            item.setToolTip("\n".join(tip))
            self.list.addItem(item)
        self.list.setCurrentRow(current if 0 <= current < len(self._steps) else len(self._steps) - 1)
        self.list.scrollToBottom()
        dot = f'<span style="color:{RECORDING_RED}">●</span>'
        if status.paused:
            self.state.setText(self.tr("{dot} <b>Recording paused</b> — {reason}").format(dot=dot,
                                                                                          reason=status.paused))
        elif status.picking:
            self.state.setText(self.tr("{dot} <b>Recording</b> — click the element for “{what}” in the page").format(
                dot=dot, what=status.picking))
        else:
            self.state.setText(self.tr("{dot} <b>Recording</b> %n step(s) — act in the page as usual", "",
                                      len(self._steps)).format(dot=dot))
        missing = sum(1 for step in self._steps if step.missing)
        lines = list(answer.notes)
        if missing:
            lines.insert(0, self.tr("%n action(s) could not be recorded (in red): the workflow cannot be saved "
                                    "until each is deleted.", "", missing))
        self.notes.setText("\n".join(lines))
        self._update_buttons()

    def selected(self) -> RecordedStep | None:
        row = self.list.currentRow()
        return self._steps[row] if 0 <= row < len(self._steps) else None

    def _update_buttons(self) -> None:
        step = self.selected()
        kind = step.type if step else None
        self.delete_button.setEnabled(step is not None)
        usable = step is not None and not step.secret and not step.missing  # a missing step only goes
        self.value_button.setEnabled(kind in ("fill", "select", "press", "goto", "handoff") and usable)
        self.input_button.setEnabled(kind == "fill" and usable)
        self.locator_button.setEnabled(bool(step and step.alternatives))
        self.stop_button.setEnabled(self._recorder is not None)

    # -- edits -----------------------------------------------------------------------------------------
    def _edit(self, params: dict[str, Any]) -> None:
        if self._tab is not None:
            self._ops.run(recording_ops.record_edit, {"tab_id": self._tab.tab_id, **params}, self, on_ok=self._show)

    def delete_step(self) -> None:
        step = self.selected()
        if step is not None:
            self._edit({"action": "delete", "step": step.id})

    def edit_value(self) -> None:
        step = self.selected()
        if step is None or not self.value_button.isEnabled():
            return
        key = {"fill": "text", "select": "option", "press": "shortcut", "goto": "url", "handoff": "message"}[step.type]
        current = step.default if step.input else step.data.get(key, "")
        value, ok = QInputDialog.getText(self, self.tr("Edit the step"),
                                         self.tr("{step}\n\nNew value:").format(step=step.words), text=str(current))
        if ok:
            self._edit({"action": "set_value", "step": step.id, "value": value})

    def make_input(self) -> None:
        step = self.selected()
        if step is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Make input"), self.tr(
            "Name of the start input (asked for at each run; the recorded value is its default):"),
            text=str(step.suggested_input or "value"))
        if ok and name.strip():
            self._edit({"action": "make_input", "step": step.id, "name": name.strip()})

    def _fill_locator_menu(self) -> None:
        """The recorded locator and its alternatives, the one replay tries first checked."""
        menu = self.locator_button.menu()
        menu.clear()
        step = self.selected()
        if step is None:
            return
        preferred = step.prefer
        recorded_locator = step.data.get("locator", {})  # the node's data
        recorded = menu.addAction(self.tr("As recorded: {locator}").format(
            locator=recorded_locator.get("selector") or recorded_locator.get("xpath")
            or self.tr("(none: inside a web component, found by the alternatives below)")))
        recorded.setCheckable(True)
        recorded.setChecked(preferred is None)
        recorded.setEnabled(False)  # what replay tries first unless an alternative is chosen
        menu.addSeparator()
        for index, text in enumerate(step.alternatives or []):
            action = menu.addAction(text, lambda i=index, s=step.id: self._edit(
                {"action": "set_locator", "step": s, "index": i}))
            action.setCheckable(True)
            action.setChecked(index == preferred)

    def _insert(self, params: dict[str, Any]) -> None:
        step = self.selected()
        self._edit({"action": "insert", **params, **({"step": step.id} if step else {})})

    def insert_handoff(self) -> None:
        message, ok = QInputDialog.getText(self, self.tr("Handoff here"), self.tr(
            "Message for the person (e.g. type the one-time code, then press Done):"))
        if ok:
            self._insert({"kind": "handoff", "message": message})

    def insert_capture(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("Capture text"), self.tr("Name of the output:"), text="text")
        if ok and name.strip():
            self._insert({"kind": "capture", "name": name.strip()})

    # -- stopping --------------------------------------------------------------------------------------
    def stop(self, then: Callable[[], None] | None = None) -> None:
        """Stop: ask the workflow's name, save it, then replay it or open it in the editor. With `then` (the
        window closes), only save, and call `then` once it is saved."""
        if self._tab is None or self._recorder is None:
            return
        tab = self._tab
        dialog = StopDialog(tab.title() or self.tr("Recorded workflow"), self)
        dialog.replay.setVisible(then is None)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        name, replay = dialog.name.text().strip(), dialog.replay.isChecked() and then is None

        def saved(answer: Envelope[RecordStopResult]) -> None:
            stopped = answer.result
            self.show_tab(tab)
            self.stopped.emit(stopped.name)
            if then is not None:
                then()
            elif replay:
                self.replay(stopped, tab)
            elif self._ops.ctx.open_editor is not None:  # the node-graph editor, when the app has one
                self._ops.run(editor_ops.editor_open, {"name": stopped.name}, self)

        self._ops.run(recording_ops.record_stop, {"tab_id": tab.tab_id, "name": name}, self, on_ok=saved)

    def replay(self, stopped: RecordStopResult, tab: BrowserTab) -> RunInputsDialog | None:
        """Replay now, in the same tab: the start inputs are asked for first with the Workflows panel's run form
        (secrets masked, the recorded defaults filled in); returns that dialog while it is open."""
        name = stopped.name

        def run(inputs: dict[str, Any]) -> None:
            self._ops.run(run_ops.workflow_run, {"name": name, "tab_id": tab.tab_id, "inputs": inputs}, self)

        return ask_replay_inputs(name, stopped.workflow, tab.env_id, self._ops.ctx.envs, self, run,
                                 "record-replay-inputs")
