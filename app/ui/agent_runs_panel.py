"""The Agent runs panel of the main window: the built-in agent's latest runs and the detail of the selected one.

The table (started, task, status, the agent's self-report, the judge's verdict, the person's checks, tokens,
cost) is read with `agent_list` when the panel is shown and whenever the agent runs change (an agent run here,
in an environment window, over MCP or from the CLI: the panel follows the stores, app/ui/follow.py), keeping
the selection. The detail reads the whole record
with `agent_read`: the three answers side by side (they are kept apart: the self-report, the judge, the
checks), the uses of secrets that were refused, the steps (the model's words and each tool call with its
result), the files, the saved workflow and its replay when the person asked for one. Everything goes through
operations on the asyncio loop; nothing here blocks.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QSplitter, QVBoxLayout, QWidget)

from app.agent import ops as agent_ops
from app.ops.results import AgentListResult, AgentReadResult, AgentRecordView, AgentSummary
from app.ui.empty_state import EmptyState, TableOrEmpty
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.runs_panel import format_duration, local_time
from app.ui.table_model import RowsTableModel, record_table
from plumbing import loggers
from workflows.envelope import Envelope

log = logging.getLogger(loggers.UI)

ModelIndex = QModelIndex | QPersistentModelIndex
LIMIT = 50
COLUMNS = (QT_TRANSLATE_NOOP("AgentRunTableModel", "Started"), QT_TRANSLATE_NOOP("AgentRunTableModel", "Task"),
           QT_TRANSLATE_NOOP("AgentRunTableModel", "Status"), QT_TRANSLATE_NOOP("AgentRunTableModel", "Self-report"),
           QT_TRANSLATE_NOOP("AgentRunTableModel", "Judge"), QT_TRANSLATE_NOOP("AgentRunTableModel", "Checks"),
           QT_TRANSLATE_NOOP("AgentRunTableModel", "Tokens"), QT_TRANSLATE_NOOP("AgentRunTableModel", "Cost"))



def answer_texts(record: AgentRecordView) -> dict[str, str]:
    """The three answers as a person reads them: what the agent said, what the judge said, what the checks found."""
    report, judge = record.self_report, record.judge  # {success, answer, outputs}; {verdict, reason}
    if report:
        said = (QCoreApplication.translate("AgentRunsPanel", "success") if report["success"]
                else QCoreApplication.translate("AgentRunsPanel", "failure"))
        said += f": {report['answer']}" if report.get("answer") else ""
    else:
        said = QCoreApplication.translate("AgentRunsPanel", "no report (no done call)")
    return {
        "self": said,
        "judge": (f"{judge['verdict']}: {judge.get('reason', '')}" if judge
                  else QCoreApplication.translate("AgentRunsPanel", "not asked")),
        "checks": ("; ".join(f"{'✓' if c['ok'] else '✗'} {c['locator']}" for c in record.checks)
                   or QCoreApplication.translate("AgentRunsPanel", "none")),
    }


def steps_text(record: AgentRecordView) -> str:
    """Each step: the model's words, then each tool call with its outcome."""
    lines: list[str] = []
    for number, step in enumerate(record.steps, start=1):
        text = step.text.strip()
        lines.append(QCoreApplication.translate("AgentRunsPanel", "Step {n}").format(n=number)
                     + (f": {text}" if text else ""))
        for call in step.calls:
            if call.skipped:
                outcome = QCoreApplication.translate("AgentRunsPanel", "skipped")
            elif call.refusal:
                outcome = QCoreApplication.translate("AgentRunsPanel", "refused, nothing sent: {error}").format(
                    error=call.error)
            elif call.ok:
                outcome = QCoreApplication.translate("AgentRunsPanel", "ok")
            else:
                outcome = QCoreApplication.translate("AgentRunsPanel", "failed: {error}").format(error=call.error)
            lines.append(f"  {call.name} {json.dumps(call.input, ensure_ascii=False)[:200]} → {outcome}")
    return "\n".join(lines) or QCoreApplication.translate("AgentRunsPanel", "No steps.")


class AgentRunTableModel(RowsTableModel[AgentSummary]):
    columns = COLUMNS
    context = "AgentRunTableModel"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows = []

    def set_rows(self, rows: list[AgentSummary]) -> None:
        self.replace_rows(list(rows), key=lambda run: run.id)  # the selection and the scroll position stay

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        run = self.row_at(index.row())
        if run is None or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        column = index.column()
        if role == Qt.ItemDataRole.ToolTipRole:
            return run.error or run.task
        checks, report, cost = run.checks, run.self_report, run.cost_usd
        return [
            local_time(run.started_at), run.task, run.status,
            "—" if report is None else (self.tr("success") if report else self.tr("failure")), run.judge or "—",
            f"{sum(checks)}/{len(checks)}" if checks else "—",
            f"{run.input_tokens + run.output_tokens}",
            f"${cost:.4f}" if isinstance(cost, (int, float)) else "—",
        ][column]


class AgentRunsPanel(QWidget):
    """The latest agent runs and the selected run's detail."""

    agent_requested = Signal()  # the empty state's Ask an Agent

    def __init__(self, ops: OpRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ops = ops
        self.model = AgentRunTableModel(self)
        self.table = record_table(self, self.model, "agent-runs")
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _previous: self._select(current.row()))
        row = QHBoxLayout()
        self.note = QLabel(self)
        self.note.setObjectName("agent-runs-note")
        row.addStretch(1)
        row.addWidget(self.note)
        self.answers: dict[str, QLabel] = {}
        answers = QHBoxLayout()
        for key, title in (("self", self.tr("The agent says")), ("judge", self.tr("The judge says")),
                           ("checks", self.tr("Your checks"))):
            box = QVBoxLayout()
            heading = QLabel(title, self)
            heading.setObjectName("agent-answer-heading")
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            label = QLabel("—", self)
            label.setObjectName(f"agent-answer-{key}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            box.addWidget(heading)
            box.addWidget(label, 1)
            answers.addLayout(box, 1)
            self.answers[key] = label
        self.summary = QLabel(self)
        self.summary.setObjectName("agent-run-summary")
        self.summary.setWordWrap(True)
        self.steps = QPlainTextEdit(self)
        self.steps.setObjectName("agent-run-steps")
        self.steps.setReadOnly(True)
        detail = QWidget(self)
        detail_layout = QVBoxLayout(detail)
        detail_layout.addWidget(self.summary)
        detail_layout.addLayout(answers)
        detail_layout.addWidget(self.steps, 1)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.table)
        splitter.addWidget(detail)
        self.empty = EmptyState(
            "agent-runs", "bot", self.tr("No agent runs yet"),
            self.tr("Give the built-in agent a task in an environment window's Agent panel (View → Agent), or run "
                    "`browserpilot agent \"TASK\"`. Each run is kept here with what the agent said, the judge's "
                    "verdict and your checks."),
            [("agent", "bot", self.tr("Ask an Agent"), self.agent_requested.emit)], self)
        self.stack = TableOrEmpty(splitter, self.empty, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.stack, 1)
        self.detail: AgentRecordView | None = None
        ops.changes.follow(self, ("agent_runs",), self._on_stores_changed)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.refresh()  # also takes in what another process added to agent_runs.json meanwhile

    def _on_stores_changed(self, changed: Changed) -> None:
        shown = self.detail.id if self.detail else None
        keys = changed.of("agent_runs")
        self.refresh(reread=shown if shown is not None and (shown in keys or None in keys) else None)

    def refresh(self, reread: str | None = None) -> None:
        """Read the list now (the panel reads it by itself whenever it changes); `reread`: the shown run's id,
        whose detail is read again too."""

        def listed(answer: Envelope[AgentListResult]) -> None:
            if answer.data is None:
                self.note.setText(str(answer.error or ""))
                return
            runs = answer.data.runs
            self.model.set_rows(runs)
            self.note.setText(self.tr("%n agent run(s)", "", len(runs)) if runs else "")
            self.stack.show_empty(not runs)
            if runs and self.table.currentIndex().row() < 0:
                self.table.selectRow(0)
            elif reread is not None and self.model.row_at(self.table.currentIndex().row()) is not None:
                self._select(self.table.currentIndex().row())

        self.ops.start(agent_ops.agent_list, {"limit": LIMIT}, listed, owner=self)

    def _select(self, row: int) -> None:
        run = self.model.row_at(row)
        if run is None:
            return

        def read(answer: Envelope[AgentReadResult]) -> None:
            if answer.data is not None:
                self.show_record(answer.data.record)

        self.ops.start(agent_ops.agent_read, {"run_id": run.id}, read, owner=self)

    def show_record(self, record: AgentRecordView) -> None:
        self.detail = record
        for key, text in answer_texts(record).items():
            self.answers[key].setText(text)
        saved = record.workflow or {}  # {name, notes, checks, id, saved} or {name, notes, error}; replay
        parts = [self.tr("{status} · {model} · env {env} · {duration}").format(
            status=record.status, model=record.model, env=record.env, duration=format_duration(record.duration_ms))]
        if record.error:
            parts.append(self.tr("Error: {error}").format(error=record.error))
        refusals = record.refusals
        if refusals:
            parts.append(self.tr("Uses of secrets refused: {count} ({uses})").format(
                count=len(refusals), uses="; ".join(f"{r['secret']} by {r['tool']}" + (f" on {r['site']}"
                                                                                       if r.get("site") else "")
                                                     for r in refusals)))
        if saved.get("saved"):
            parts.append(self.tr("Saved as the workflow “{name}”").format(name=saved["name"]))
        elif saved.get("error"):
            parts.append(self.tr("Not saved as a workflow: {error}").format(error=saved["error"]))
        replay = saved.get("replay")
        if replay:
            parts.append(self.tr("Replayed once on request: passed") if replay.get("ok") else
                         self.tr("Replayed once on request: failed: {error}").format(error=replay.get("error")))
        if record.files:
            parts.append(self.tr("Files: {files}").format(files=", ".join(record.files)))
        self.summary.setText("\n".join(parts))
        self.steps.setPlainText(steps_text(record))
