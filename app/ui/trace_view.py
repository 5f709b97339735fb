"""The Runs panel's Trace view: a run's steps as a filmstrip along its timeline, and the chosen step's story.

- The filmstrip: one picture per node, in the order they ran, each with its time from the run's start and its
  duration; a failed node in red, a healed one in amber. Choosing one (a click, or the arrow keys) shows it.
- The step: its before screenshot (at the moment it acted, the element outlined in red) and after; what it
  acted on, the locator that matched or the heal (from what, to what, why), its error; its console messages and
  page errors; the requests it caused (method, status, type, time, address; the bodies network capture kept).
- Play: the run's video in a player of its own (app/ui/video_player.py), the nodes as chapters. Export…: one
  zip of the run to attach to a bug report (`run_export`).
Pictures are read and scaled off the Qt thread; the view only reads the run record it is given (`show_run`).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QBrush, QColor, QDesktopServices, QImage, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QFileDialog, QHBoxLayout, QLabel, QListView, QListWidget,
                               QListWidgetItem, QPushButton, QSizePolicy, QSplitter, QTableWidget, QTableWidgetItem,
                               QTabWidget, QVBoxLayout, QWidget)

from app.ops import trace_ops
from app.ops.results import RunExportResult
from app.ui.op_runner import OpStarter
from app.ui.table_model import item_table
from app.ui.theme import current_scheme, icon
from plumbing import loggers
from plumbing.savemanager import in_thread
from workflows.envelope import Envelope
from workflows.runs import RunView, TraceStepView

log = logging.getLogger(loggers.UI)

THUMBNAIL = QSize(160, 100)
PICTURE = QSize(640, 400)


def _load(paths: list[str], size: QSize) -> dict[str, QImage]:
    """(On a worker thread.) The pictures, scaled to fit `size`; a missing one is left out."""
    loaded: dict[str, QImage] = {}
    for path in dict.fromkeys(paths):
        image = QImage(path)
        if not image.isNull():
            loaded[path] = image.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                        Qt.TransformationMode.SmoothTransformation)
    return loaded


def _seconds(ms: float | None) -> str:
    return "" if ms is None else f"{ms / 1000:.2f} s"


class PictureBox(QLabel):
    """A screenshot, scaled to the room it has; a double click opens the file in the desktop's image viewer."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(200, 130)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFrameShape(QLabel.Shape.StyledPanel)
        self.image: QImage | None = None
        self.path: str | None = None
        self.setToolTip(self.tr("Double-click to open the screenshot"))

    def mouseDoubleClickEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        if self.path and self.image is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.path))
        super().mouseDoubleClickEvent(event)

    def show_image(self, image: QImage | None, path: str | None, empty: str) -> None:
        self.image, self.path = image, path
        if image is None:
            self.clear()
            self.setText(empty)
            return
        self._fit()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.image is not None:
            self._fit()

    def _fit(self) -> None:
        assert self.image is not None
        room = self.size() - QSize(8, 8)
        self.setPixmap(QPixmap.fromImage(self.image).scaled(room, Qt.AspectRatioMode.KeepAspectRatio,
                                                            Qt.TransformationMode.SmoothTransformation))


class TraceView(QWidget):
    """One run's trace (a `run_read` view)."""

    step_chosen = Signal(int)  # the index of the step (node) now shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trace-view")
        self.run: RunView | None = None
        self.calls: OpStarter | None = None  # set by the panel: how operations are called (Export)
        self._generation = 0
        self._thumbnails: dict[str, QImage] = {}
        self._pictures: dict[str, QImage] = {}
        self._player: Any = None

        self.summary = QLabel(self)
        self.summary.setObjectName("trace-summary")
        self.summary.setWordWrap(True)
        self.play_button = QPushButton(icon("play"), self.tr("&Play Video"), self)
        self.play_button.setObjectName("trace-play")
        self.play_button.clicked.connect(lambda _checked=False: self.play())
        self.export_button = QPushButton(icon("package"), self.tr("E&xport…"), self)
        self.export_button.setObjectName("trace-export")
        self.export_button.setToolTip(self.tr("One zip with the run's record, trace, screenshots, video and HAR, to "
                                              "attach to a bug report"))
        self.export_button.clicked.connect(lambda _checked=False: self.export())
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.play_button)
        top.addWidget(self.export_button)

        self.filmstrip = QListWidget(self)
        self.filmstrip.setObjectName("trace-filmstrip")
        self.filmstrip.setViewMode(QListView.ViewMode.IconMode)
        self.filmstrip.setFlow(QListView.Flow.LeftToRight)
        self.filmstrip.setWrapping(False)
        self.filmstrip.setMovement(QListView.Movement.Static)
        self.filmstrip.setIconSize(THUMBNAIL)
        self.filmstrip.setUniformItemSizes(True)
        self.filmstrip.setSpacing(6)
        self.filmstrip.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.filmstrip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.filmstrip.setFixedHeight(THUMBNAIL.height() + 70)
        self.filmstrip.currentRowChanged.connect(self._on_row)

        self.before = PictureBox("trace-before", self)
        self.after = PictureBox("trace-after", self)
        pictures = QWidget(self)
        grid = QHBoxLayout(pictures)
        grid.setContentsMargins(0, 0, 0, 0)
        for caption, box in ((self.tr("Before (the element it acted on outlined)"), self.before),
                             (self.tr("After"), self.after)):
            column = QVBoxLayout()
            label = QLabel(caption, pictures)
            label.setProperty("role", "hint")
            column.addWidget(label)
            column.addWidget(box, 1)
            grid.addLayout(column, 1)

        self.step = QLabel(self)
        self.step.setObjectName("trace-step")
        self.step.setWordWrap(True)
        self.step.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.step.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.console = item_table(self, "trace-console", (self.tr("Level"), self.tr("Message"), self.tr("Where")))
        self.requests = item_table(self, "trace-requests", (self.tr("Method"), self.tr("Status"), self.tr("Type"),
                                                             self.tr("ms"), self.tr("Address")))
        for table in (self.console, self.requests):
            table.setWordWrap(False)
        self.info = QTabWidget(self)
        self.info.setObjectName("trace-info")
        self.info.addTab(self.step, icon("info"), self.tr("Step"))
        self.info.addTab(self.console, icon("terminal"), self.tr("Console"))
        self.info.addTab(self.requests, icon("globe"), self.tr("Requests"))

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(pictures)
        split.addWidget(self.info)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.filmstrip)
        layout.addWidget(split, 1)
        self.show_run(None)

    # -- filling ---------------------------------------------------------------------------------------------
    def steps(self) -> list[TraceStepView]:
        return self.run.trace if self.run is not None else []

    def show_run(self, run: RunView | None) -> None:
        """Show a run (a `run_read` view), its first failed step chosen (else its first)."""
        same = run is not None and self.run is not None and run.id == self.run.id and run.status == self.run.status
        if same:
            return
        self.run = run
        self._generation += 1
        self._thumbnails.clear()
        self._pictures.clear()
        steps = self.steps()
        kept = run is not None and run.has_pictures
        self.play_button.setEnabled(run is not None and bool(run.video) and not run.trace_removed)
        self.export_button.setEnabled(run is not None and not run.running and self.calls is not None)
        self.summary.setText(self._summary(run, kept))
        self.filmstrip.blockSignals(True)
        self.filmstrip.clear()
        scheme = current_scheme()
        for index, step in enumerate(steps):
            text = f"{index + 1}. {step.label}\n{step.type} · {step.ms:.0f} ms"
            if step.at_ms is not None:
                text += f" · +{_seconds(step.at_ms)}"
            item = QListWidgetItem(icon("image"), text)
            item.setData(Qt.ItemDataRole.UserRole, index)
            item.setToolTip(step.error or step.element or step.node)
            item.setSizeHint(QSize(THUMBNAIL.width() + 16, THUMBNAIL.height() + 56))
            if not step.ok:
                item.setForeground(QBrush(QColor(scheme.danger)))
            elif step.healed:
                item.setForeground(QBrush(QColor(scheme.warning)))
            self.filmstrip.addItem(item)
        self.filmstrip.blockSignals(False)
        self.filmstrip.setVisible(bool(steps))
        if steps:
            failed = next((i for i, step in enumerate(steps) if not step.ok), 0)
            self.filmstrip.setCurrentRow(failed)
            self._on_row(failed)
        else:
            self._show_step(None)
        if kept:
            self._load_thumbnails()

    def _summary(self, run: RunView | None, kept: bool) -> str:
        if run is None:
            return self.tr("Select a run to see its trace.")
        parts = [self.tr("%n step(s)", "", len(run.trace))]
        if run.duration_ms is not None:
            parts.append(_seconds(run.duration_ms))
        if run.trace_removed:
            parts.append(self.tr("its screenshots and video were deleted to keep traces within the disk limit "
                                 "(Settings)"))
        elif not kept:
            mode = (run.tracing or {}).get("trace", "off")
            parts.append(self.tr("no screenshots: the trace was off") if mode == "off" else
                         self.tr("no screenshots: they are kept when a run fails, and this one did not")
                         if mode == "on-failure" and run.status == "ok" else
                         self.tr("no screenshots were kept"))
        if run.video:
            parts.append(self.tr("with a video"))
        return " · ".join(parts)

    def select_step(self, index: int) -> None:
        if 0 <= index < self.filmstrip.count() and index != self.filmstrip.currentRow():
            self.filmstrip.setCurrentRow(index)

    def _on_row(self, row: int) -> None:
        steps = self.steps()
        if 0 <= row < len(steps):
            self._show_step(steps[row])
            self.step_chosen.emit(row)

    # -- one step --------------------------------------------------------------------------------------------
    def _show_step(self, step: TraceStepView | None) -> None:
        self.console.setRowCount(0)
        self.requests.setRowCount(0)
        if step is None:
            self.step.setText("")
            self.before.show_image(None, None, "")
            self.after.show_image(None, None, "")
            self.info.setTabText(1, self.tr("Console"))
            self.info.setTabText(2, self.tr("Requests"))
            return
        self.step.setText(self._describe(step))
        page_error = self.tr("page error")
        messages = [(m.level or "", m.text, f"{m.source or ''}:{'' if m.line is None else m.line}")
                    for m in step.console or []]
        messages += [(page_error, e.text, f"{e.source or ''}:{'' if e.line is None else e.line}")
                     for e in step.page_errors or []]
        for level, text, where in messages:
            self._add_row(self.console, [level, text, where], danger=level in ("error", page_error))
        requests = step.requests or []
        for request in requests:
            status = request.status or request.error or ""
            tooltip = "\n\n".join(part for part in (request.request_body, request.response_body) if part)
            self._add_row(self.requests, [request.method or "", str(status), request.type or "",
                                          f"{request.ms:.0f}" if request.ms is not None else "", request.url],
                          tooltip=tooltip, danger=request.status is not None and request.status >= 400)
        self.console.resizeColumnsToContents()
        self.requests.resizeColumnsToContents()
        errors = len(step.page_errors or [])
        self.info.setTabText(1, self.tr("Console ({n})").format(n=len(messages)) + (" ⚠" if errors else ""))
        self.info.setTabText(2, self.tr("Requests ({n})").format(n=len(requests)))
        self._show_pictures(step)

    def _describe(self, step: TraceStepView) -> str:
        def escape(text: Any) -> str:
            return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

        rows = [(self.tr("Node"), step.node + (f" — {step.title}" if step.title else "")),
                (self.tr("Type"), step.type),
                (self.tr("Started"), "+" + _seconds(step.at_ms) if step.at_ms is not None else ""),
                (self.tr("Took"), f"{step.ms:.0f} ms"),
                (self.tr("Result"), self.tr("ok") if step.ok else self.tr("failed")),
                (self.tr("Error"), step.error or ""),
                (self.tr("Element"), step.element or ""),
                (self.tr("Locator"), step.locator or "")]
        healed = step.healed
        if healed:
            rows.append((self.tr("Healed"), self.tr("{before} → {element} (score {score}: {why})").format(
                before=healed.from_, element=healed.element, score=healed.score, why=healed.why)))
        return "<table>" + "".join(f"<tr><td><b>{escape(key)}</b>&nbsp;&nbsp;</td><td>{escape(value)}</td></tr>"
                                   for key, value in rows if value) + "</table>"

    def _add_row(self, table: QTableWidget, cells: list[str], *, tooltip: str = "", danger: bool = False) -> None:
        row = table.rowCount()
        table.insertRow(row)
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text.replace("\n", " ⏎ "))
            item.setToolTip(tooltip or text)
            if danger:
                item.setForeground(QBrush(QColor(current_scheme().danger)))
            table.setItem(row, column, item)

    # -- pictures, off the Qt thread --------------------------------------------------------------------------
    def _load_thumbnails(self) -> None:
        generation = self._generation
        paths = [step.after or step.before for step in self.steps()]

        async def load() -> None:
            images = await in_thread(_load, [p for p in paths if p], THUMBNAIL, name="browserpilot-trace-view")
            if generation != self._generation or not shiboken6.isValid(self):
                return
            self._thumbnails.update(images)
            for row, path in enumerate(paths):
                item = self.filmstrip.item(row)
                if item is not None and path in images:
                    item.setIcon(QPixmap.fromImage(images[path]))

        asyncio.ensure_future(load())

    def _show_pictures(self, step: TraceStepView) -> None:
        before, after = step.before, step.after
        missing = self.tr("(no screenshot)")
        wanted = [path for path in (before, after) if path and path not in self._pictures]
        if not wanted:
            self.before.show_image(self._pictures.get(before or ""), before, missing)
            self.after.show_image(self._pictures.get(after or ""), after, missing)
            return
        self.before.show_image(None, None, self.tr("loading…") if before else missing)
        self.after.show_image(None, None, self.tr("loading…") if after else missing)
        generation = self._generation

        async def load() -> None:
            images = await in_thread(_load, wanted, PICTURE, name="browserpilot-trace-view")
            if generation != self._generation or not shiboken6.isValid(self):
                return
            self._pictures.update(images)
            current = self.steps()[self.filmstrip.currentRow()] if self.filmstrip.currentRow() >= 0 else None
            if current is step:
                gone = self.tr("(the screenshot file is missing)")
                self.before.show_image(self._pictures.get(before or ""), before, gone if before else missing)
                self.after.show_image(self._pictures.get(after or ""), after, gone if after else missing)

        asyncio.ensure_future(load())

    # -- actions ---------------------------------------------------------------------------------------------
    def play(self) -> None:
        """The run's video in a player, its nodes as chapters."""
        run = self.run
        if run is None or not run.video:
            return
        from app.ui.video_player import VideoPlayer  # QtMultimedia: loaded when a video is played

        if self._player is not None and shiboken6.isValid(self._player):
            self._player.close()
        chapters = [(float(step.at_ms) / 1000, f"{index + 1}. {step.label} ({step.type})")
                    for index, step in enumerate(self.steps()) if step.at_ms is not None]
        self._player = VideoPlayer(run.video, chapters, self.tr("Video of {run}").format(run=run.id), self)
        self._player.show()
        self._player.play()

    def export(self, path: str | None = None) -> None:
        """Write the run's zip (asks where, unless `path`)."""
        run = self.run
        if run is None or self.calls is None:
            return
        if path is None:
            path, _filter = QFileDialog.getSaveFileName(self, self.tr("Export Run"),
                                                        str(Path.home() / f"{run.id}.zip"),
                                                        self.tr("Zip archives (*.zip)"))
            if not path:
                return
        self.summary.setText(self.tr("Exporting…"))

        def done(answer: Envelope[RunExportResult]) -> None:
            if answer.data is not None:
                self.summary.setText(self.tr("Exported to {path} ({files} files)").format(path=answer.data.path,
                                                                                          files=answer.data.files))
            else:
                self.summary.setText(self.tr("Not exported: {error}").format(error=answer.error))

        self.calls(trace_ops.run_export, {"run_id": run.id, "path": path}, done)
