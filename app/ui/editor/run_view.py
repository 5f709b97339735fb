"""A run drawn on the graph: each node pending / running / ok / failed with its time, the if-else handles
taken and loop passes, from the engine's run events (live) or a past run's record (overlay). It keeps the
states by node id, so they survive moving between levels; the scene's items are only painted from them."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.ui.editor.items import state_label
from app.ui.editor.model import EditorModel
from app.ui.editor.scene import EditorScene
from plumbing import loggers

log = logging.getLogger(loggers.EDITOR)


class RunOverlay(QObject):
    finished = Signal(dict)   # the run's record view
    changed = Signal()

    def __init__(self, model: EditorModel, scene: EditorScene, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model, self.scene = model, scene
        self.run_id: str | None = None
        self.states: dict[str, tuple[str, str]] = {}
        self.outputs: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.taken: set[tuple[str, str]] = set()   # (node id, handle)
        self.passes: dict[str, int] = {}
        self.record: dict[str, Any] | None = None
        scene.rebuilt.connect(self.paint)

    def clear(self) -> None:
        self.run_id, self.record = None, None
        self.states, self.outputs, self.errors, self.taken, self.passes = {}, {}, {}, set(), {}
        self.paint()

    def begin(self, run_id: str) -> None:
        self.clear()
        self.run_id = run_id
        self.states = {str(node["id"]): ("pending", "") for _level, node in self.model.iter_nodes()}
        self.paint()

    def on_event(self, event: Any) -> None:
        """A `workflows.events.RunEvent` of this run."""
        if event.run_id != self.run_id:
            return
        node = event.node
        if event.kind == "node_started" and node:
            self.states[node] = ("running", self._pass_text(node))
        elif event.kind == "node_finished" and node:
            status = "ok" if event.status == "ok" else "failed"
            self.states[node] = (status, f"{event.ms:.0f} ms" if event.ms is not None else "")
            if status == "ok":
                self.outputs[node] = event.output
            else:
                self.errors[node] = event.error or ""
            if event.handle:
                self.taken.add((node, event.handle))
            elif status == "ok":
                self.taken.add((node, "source"))
        elif event.kind == "loop_pass" and event.loop:
            self.passes[event.loop] = int(event.index or 0)
            self.states[event.loop] = ("running", self._pass_text(event.loop))
        elif event.kind == "run_finished":
            self.record = event.record or {}
            self.finished.emit(self.record)
        self.paint()
        self.changed.emit()

    def _pass_text(self, node: str) -> str:
        return f"pass {self.passes[node]}" if node in self.passes else ""

    def show_record(self, record: dict[str, Any]) -> None:
        """A past run (`run_read`'s view): its trace marks what ran, ok or failed, with times."""
        self.clear()
        self.run_id, self.record = str(record.get("id")), record
        for entry in record.get("trace") or []:
            node = str(entry.get("node"))
            self.states[node] = ("ok" if entry.get("ok") else "failed", f"{float(entry.get('ms') or 0):.0f} ms")
            if not entry.get("ok"):
                self.errors[node] = str(entry.get("error") or "")
        stopped = record.get("stoppedAt") or record.get("node")
        if stopped and record.get("status") != "ok":
            self.states[str(stopped)] = ("failed", self.states.get(str(stopped), ("", ""))[1])
            self.errors.setdefault(str(stopped), str(record.get("error") or ""))
        ran = {n for n, (s, _t) in self.states.items() if s == "ok"}
        for level, node in self.model.iter_nodes():
            if str(node["id"]) in ran:
                for edge in self.model.edges(level):
                    if edge.get("source") == node["id"] and edge.get("target") in self.states:
                        self.taken.add((str(node["id"]), str(edge.get("sourceHandle") or "source")))
        self.paint()
        self.changed.emit()

    def paint(self) -> None:
        for node_id, item in self.scene.nodes.items():
            state, text = self.states.get(node_id, (None, ""))
            item.set_state(state, text)
        for edge in self.scene.edges.values():
            edge.set_taken((edge.source.node_id, edge.handle) in self.taken
                           and self.states.get(edge.target.node_id, ("",))[0] in ("ok", "failed", "running"))

    def details(self, node_id: str) -> str:
        """What the side panel shows for a node of this run: its state, output or error."""
        import json

        state, text = self.states.get(node_id, ("", ""))
        shown = state_label(state) if state else self.tr("not run")
        lines = [self.tr("Run {run}: {state}").format(run=self.run_id, state=shown) + (f" ({text})" if text else "")]
        if node_id in self.errors:
            lines.append(self.tr("Error: {error}").format(error=self.errors[node_id]))
        if node_id in self.outputs:
            lines.append(self.tr("Output:") + "\n" + json.dumps(self.outputs[node_id], ensure_ascii=False, indent=1, default=str)[:4000])
        return "\n".join(lines)
