"""The editor's History panel: the kept versions of the workflow (workflow_history) with what changed from the
one before (workflow_diff) and Restore (workflow_restore, itself a new version); and the repairs its runs
propose (workflow_repairs): the locator that no longer found the element, the element it healed to, its
screenshot, and Accept (workflow_repair). Every action is an operation; the editor reloads what the store
then holds (it follows the store). Both lists follow the stores too (app/ui/follow.py): a version kept elsewhere
(a save in another window, an agent's update, a repair accepted in the Runs panel) or a run of the workflow that
ended shows here at once, the selected version and repair staying selected."""

from __future__ import annotations


from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPlainTextEdit,
                               QPushButton, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from app.ops import workflow_ops
from app.ops.results import (
    RepairProposal,
    WorkflowDiffResult,
    WorkflowHistoryResult,
    WorkflowRepairResult,
    WorkflowRepairsResult,
    WorkflowRestoreResult,
)
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.theme import icon
from workflows.envelope import Envelope


class HistoryDialog(QDialog):
    """Versions and proposed repairs of one saved workflow."""

    def __init__(self, ops: OpRunner, workflow_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor-history")
        self.setWindowTitle(self.tr("History"))
        self.ops, self.workflow_id = ops, workflow_id
        self.versions = QListWidget(self)
        self.versions.setObjectName("history-versions")
        self.changes = QPlainTextEdit(self)
        self.changes.setObjectName("history-changes")
        self.changes.setReadOnly(True)
        self.restore_button = QPushButton(icon("history"), self.tr("&Restore This Version"), self)
        self.restore_button.setObjectName("history-restore")
        self.restore_button.clicked.connect(self.restore)
        versions_page = QWidget(self)
        left = QVBoxLayout(versions_page)
        split = QSplitter(Qt.Orientation.Horizontal, versions_page)
        split.addWidget(self.versions)
        split.addWidget(self.changes)
        split.setSizes([260, 520])
        left.addWidget(split, 1)
        left.addWidget(self.restore_button, 0, Qt.AlignmentFlag.AlignRight)

        self.repairs = QListWidget(self)
        self.repairs.setObjectName("history-repairs")
        self.repair_detail = QLabel(self)
        self.repair_detail.setObjectName("history-repair-detail")
        self.repair_detail.setWordWrap(True)
        self.repair_detail.setTextFormat(Qt.TextFormat.PlainText)
        self.repair_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.repair_shot = QLabel(self)
        self.repair_shot.setObjectName("history-repair-shot")
        self.accept_button = QPushButton(icon("wrench"), self.tr("&Accept Repair"), self)
        self.accept_button.setObjectName("history-accept")
        self.accept_button.clicked.connect(self.accept_repair)
        repairs_page = QWidget(self)
        right = QVBoxLayout(repairs_page)
        right.addWidget(self.repairs, 1)
        row = QHBoxLayout()
        row.addWidget(self.repair_shot)
        row.addWidget(self.repair_detail, 1)
        right.addLayout(row)
        right.addWidget(self.accept_button, 0, Qt.AlignmentFlag.AlignRight)

        self.tabs = QTabWidget(self)
        self.tabs.addTab(versions_page, icon("history"), self.tr("Versions"))
        self.tabs.addTab(repairs_page, icon("wrench"), self.tr("Proposed Repairs"))
        self.note = QLabel(self)
        self.note.setObjectName("history-note")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.note)
        self.versions.currentItemChanged.connect(lambda *_: self._show_changes())
        self.repairs.currentItemChanged.connect(lambda *_: self._show_repair())
        self.resize(860, 520)
        self.refresh()
        ops.changes.follow(self, ("versions", "runs"), self._on_stores_changed)

    # -- reading -----------------------------------------------------------------------------------------
    def _on_stores_changed(self, changed: Changed) -> None:
        runs = self.ops.ctx.runs
        ended = any(record is not None and record.workflow_id == self.workflow_id and record.status != "running"
                    for record in (runs.entry(key) for key in changed.of("runs") if key))
        if self.workflow_id in changed.of("versions") or ended:
            self.refresh()

    def refresh(self) -> None:
        """Read both lists now (the dialog reads them by itself whenever they change)."""

        def listed(answer: Envelope[WorkflowHistoryResult]) -> None:
            kept = self._selected_version()
            self.versions.clear()
            for v in answer.result.versions:
                text = self.tr("{version}  {at}  {reason}  ({nodes} nodes)").format(
                    version=v.version, at=v.at[:19].replace("T", " "), reason=v.reason, nodes=v.nodes)
                item = QListWidgetItem(text + (f"  — {v.note}" if v.note else ""))
                item.setData(Qt.ItemDataRole.UserRole, v.version)
                self.versions.addItem(item)
            numbers = [v.version for v in answer.result.versions]
            if self.versions.count():
                self.versions.setCurrentRow(numbers.index(kept) if kept in numbers else 0)
            self._update_buttons()

        def proposed(answer: Envelope[WorkflowRepairsResult]) -> None:
            chosen = self._selected_repair()
            kept = (chosen.run_id, chosen.node) if chosen else None
            self.repairs.clear()
            repairs = answer.result.repairs
            for repair in repairs:
                item = QListWidgetItem(self.tr("{node} {title}: healed to {element} (score {score})").format(
                    node=repair.node, title=repair.title or "", element=repair.element, score=repair.score))
                item.setData(Qt.ItemDataRole.UserRole, repair)
                self.repairs.addItem(item)
            self.tabs.setTabText(1, self.tr("Proposed Repairs ({n})").format(n=len(repairs))
                                 if repairs else self.tr("Proposed Repairs"))
            keys = [(repair.run_id, repair.node) for repair in repairs]
            if self.repairs.count():
                self.repairs.setCurrentRow(keys.index(kept) if kept in keys else 0)
            else:
                self.repair_detail.setText(self.tr("No run of this workflow proposes a repair."))
                self.repair_shot.clear()
            self._update_buttons()

        title = self.tr("History")
        self.ops.run(workflow_ops.workflow_history, {"name": self.workflow_id}, self, listed, title=title)
        self.ops.run(workflow_ops.workflow_repairs, {"name": self.workflow_id}, self, proposed, title=title)

    def _selected_repair(self) -> RepairProposal | None:
        item = self.repairs.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _selected_version(self) -> int | None:
        item = self.versions.currentItem()
        return int(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def _show_changes(self) -> None:
        version = self._selected_version()
        self._update_buttons()
        if version is None or version <= 1 or self.versions.currentRow() == self.versions.count() - 1:
            self.changes.setPlainText(self.tr("The oldest version kept."))
            return

        def shown(answer: Envelope[WorkflowDiffResult]) -> None:
            if self._selected_version() == version:
                diff = answer.result
                self.changes.setPlainText("\n".join(diff.changes or [self.tr("No change.")]) + "\n\n" + diff.diff)

        older = int(self.versions.item(self.versions.currentRow() + 1).data(Qt.ItemDataRole.UserRole))
        self.ops.run(workflow_ops.workflow_diff, {"name": self.workflow_id, "a": older, "b": version}, self, shown,
                     title=self.tr("History"))

    def _show_repair(self) -> None:
        repair = self._selected_repair()
        self._update_buttons()
        if repair is None:
            return
        to = repair.to if isinstance(repair.to, dict) else {}  # the new locator: {selector} or {xpath}
        self.repair_detail.setText(self.tr("Run {run}, node {node}\nwas: {before}\nnow: {after}\nfound: {element}\n"
                                           "score {score}: {why}").format(
            run=repair.run_id, node=repair.node, before=repair.from_,
            after=to.get("selector") or to.get("xpath") or "", element=repair.element,
            score=repair.score, why=repair.why))
        shot = QPixmap(repair.shot) if repair.shot else QPixmap()
        if shot.isNull():
            self.repair_shot.clear()
        else:
            self.repair_shot.setPixmap(shot.scaled(240, 120, Qt.AspectRatioMode.KeepAspectRatio,
                                                   Qt.TransformationMode.SmoothTransformation))

    def _update_buttons(self) -> None:
        self.restore_button.setEnabled(self.versions.currentRow() > 0)
        self.accept_button.setEnabled(self.repairs.currentItem() is not None)

    # -- acting ------------------------------------------------------------------------------------------
    def restore(self) -> None:
        version = self._selected_version()
        if version is None or self.versions.currentRow() <= 0:
            return

        def done(answer: Envelope[WorkflowRestoreResult]) -> None:
            self.note.setText(self.tr("Restored version {old} as version {new}.").format(
                old=answer.result.restored, new=answer.result.version))  # (the list follows the new version)

        self.ops.run(workflow_ops.workflow_restore, {"name": self.workflow_id, "version": version}, self, done,
                     title=self.tr("Restore"))

    def accept_repair(self) -> None:
        repair = self._selected_repair()
        if repair is None:
            return

        def done(answer: Envelope[WorkflowRepairResult]) -> None:
            self.note.setText(self.tr("Repaired node {node} (version {version}).").format(
                node=repair.node, version=answer.result.version))  # (both lists follow)

        self.ops.run(workflow_ops.workflow_repair, {"run_id": repair.run_id, "node": repair.node}, self, done,
                     title=self.tr("Accept Repair"))
