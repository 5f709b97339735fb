"""The canvas of one level of the open workflow. It only follows the model's signals (items are made,
changed and removed as the model changes, by an edit, an undo or a redo alike) and turns a person's
gestures into requests (`connect_requested`, `moved`, `add_next_requested`, `dropped_on_edge`, …) that the
window hands to the controller."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPen, QTransform
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QGraphicsSceneMouseEvent

from app.ui.editor.items import NODE_WIDTH, EdgeItem, NodeItem, NoteItem, PortItem, curve
from app.ui.editor.model import EditorModel, Level

log = logging.getLogger("browserpilot.editor")


class EditorScene(QGraphicsScene):
    connect_requested = Signal(str, str, str)           # source, handle, target
    add_next_requested = Signal(str, str, QPointF)      # source, handle, where (scene)
    moved = Signal(dict)                                # node id -> (x, y) after a drag
    dropped_on_edge = Signal(str, str)                  # node id, edge id
    note_moved = Signal(str, tuple)
    note_edited = Signal(str, str)
    open_loop_requested = Signal(str)
    empty_double_clicked = Signal(QPointF)
    rebuilt = Signal()

    def __init__(self, model: EditorModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.model = model
        self.level: Level = ()
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[str, EdgeItem] = {}
        self.notes: dict[str, NoteItem] = {}
        self._drag_line: QGraphicsPathItem | None = None
        self._drag_port: PortItem | None = None
        self._press_positions: dict[str, QPointF] = {}
        self._rebuild_pending = False
        self.setBackgroundBrush(QColor("#f5f6f8"))
        model.node_added.connect(self._node_added)
        model.node_removed.connect(self._node_removed)
        model.node_changed.connect(self._node_changed)
        model.node_moved.connect(self._node_moved)
        model.edge_added.connect(self._edge_added)
        model.edge_removed.connect(self._edge_removed)
        model.note_added.connect(lambda level, note_id: self._rebuild_if(level))
        model.note_removed.connect(lambda level, note_id: self._rebuild_if(level))
        model.note_changed.connect(self._note_changed)
        model.reset.connect(self._reset)

    # -- building ---------------------------------------------------------------------------------------
    def show_level(self, level: Level) -> None:
        self.level = level
        self.rebuild()

    def schedule_rebuild(self) -> None:
        """Redraw the level once the current burst of changes is over (an undo of a big macro sends
        hundreds of signals; the scene is rebuilt once, not once each)."""
        if not self._rebuild_pending:
            self._rebuild_pending = True
            QTimer.singleShot(0, self._rebuild_now)

    def _rebuild_now(self) -> None:
        if self._rebuild_pending:
            self.rebuild()

    @property
    def settled(self) -> bool:
        return not self._rebuild_pending

    def rebuild(self) -> None:
        self._rebuild_pending = False
        self.clearSelection()
        self.clear()
        self.nodes, self.edges, self.notes = {}, {}, {}
        positions = self.model.display_positions(self.level)
        for node in self.model.nodes(self.level):
            self._make_node(str(node["id"]), positions)
        for edge in self.model.edges(self.level):
            self._make_edge(edge)
        for note in self.model.notes(self.level):
            self._make_note(note)
        bounds = self.itemsBoundingRect().adjusted(-2000, -2000, 2000, 2000)
        self.setSceneRect(bounds)
        self.rebuilt.emit()

    def _make_node(self, node_id: str, positions: dict[str, tuple[float, float]]) -> NodeItem:
        item = NodeItem(node_id, self.model.node(node_id)["data"])
        x, y = positions.get(node_id, (0.0, 0.0))
        item.setPos(x, y)
        self.addItem(item)
        self.nodes[node_id] = item
        return item

    def _make_edge(self, edge: dict[str, Any]) -> None:
        source, target = self.nodes.get(str(edge.get("source"))), self.nodes.get(str(edge.get("target")))
        if source is None or target is None:
            return
        item = EdgeItem(str(edge["id"]), source, str(edge.get("sourceHandle") or "source"), target)
        self.addItem(item)
        self.edges[item.edge_id] = item

    def _make_note(self, note: dict[str, Any]) -> None:
        item = NoteItem(str(note["id"]), str(note.get("text") or ""))
        position = note.get("position") or {}
        item.setPos(float(position.get("x", 0)), float(position.get("y", 0)))
        item.document().contentsChanged.connect(lambda: None)
        self.addItem(item)
        self.notes[item.note_id] = item

    def _rebuild_if(self, level: Level) -> None:
        if level == self.level:
            self.schedule_rebuild()

    def _reset(self) -> None:
        while self.level and not self.model.is_level(self.level):
            self.level = self.level[:-1]
        self.rebuild()

    # -- following the model --------------------------------------------------------------------------
    def _node_added(self, level: Level, node_id: str) -> None:
        if level == self.level:
            positions = self.model.display_positions(level)
            if self._rebuild_pending or any("position" not in n for n in self.model.nodes(level)):
                self.schedule_rebuild()
                return
            self._make_node(node_id, positions)
        self._refresh_owner(level)

    def _node_removed(self, level: Level, node_id: str) -> None:
        if level == self.level:
            item = self.nodes.pop(node_id, None)
            if item is not None:
                for edge in list(item.edges):
                    self.edges.pop(edge.edge_id, None)
                    edge.detach()
                    self.removeItem(edge)
                self.removeItem(item)
            if any("position" not in n for n in self.model.nodes(level)):
                self.schedule_rebuild()
        elif self.level[:len(level) + 1] == (*level, node_id):
            self.show_level(level)  # the loop being shown went away
        self._refresh_owner(level)

    def _refresh_owner(self, level: Level) -> None:
        """A body changed: the loop node drawn at this level shows its size."""
        if level and level[:-1] == self.level and level[-1] in self.nodes:
            self.nodes[level[-1]].set_data(self.model.node(level[-1])["data"])

    def _node_changed(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is None:
            return
        handles = set(item.output_ports)
        item.set_data(self.model.node(node_id)["data"])
        if set(item.output_ports) != handles:
            for edge in item.edges:
                edge.update_path()
        for edge in item.edges:
            edge.update_path()

    def _node_moved(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is None or self._rebuild_pending:
            return
        position = self.model.node(node_id).get("position")
        if position is None:
            self.schedule_rebuild()
            return
        item.setPos(float(position["x"]), float(position["y"]))

    def _edge_added(self, level: Level, edge_id: str) -> None:
        if level == self.level and not self._rebuild_pending:
            self._make_edge(self.model.edge(level, edge_id))

    def _edge_removed(self, level: Level, edge_id: str) -> None:
        if level == self.level:
            item = self.edges.pop(edge_id, None)
            if item is not None:
                item.detach()
                self.removeItem(item)

    def _note_changed(self, level: Level, note_id: str) -> None:
        if level != self.level or note_id not in self.notes:
            return
        note = next(n for n in self.model.notes(level) if n.get("id") == note_id)
        item = self.notes[note_id]
        if item.toPlainText() != note.get("text"):
            item.setPlainText(str(note.get("text") or ""))
        position = note.get("position") or {}
        item.setPos(float(position.get("x", 0)), float(position.get("y", 0)))

    # -- selection -------------------------------------------------------------------------------------
    def selected_node_ids(self) -> list[str]:
        chosen = {item.node_id for item in self.selectedItems() if isinstance(item, NodeItem)}
        return [str(n["id"]) for n in self.model.nodes(self.level) if str(n["id"]) in chosen]

    def selected_edge_ids(self) -> list[str]:
        return [item.edge_id for item in self.selectedItems() if isinstance(item, EdgeItem)]

    def selected_note_ids(self) -> list[str]:
        return [item.note_id for item in self.selectedItems() if isinstance(item, NoteItem)]

    def select_nodes(self, node_ids: list[str]) -> None:
        self.clearSelection()
        for node_id in node_ids:
            if node_id in self.nodes:
                self.nodes[node_id].setSelected(True)

    # -- gestures --------------------------------------------------------------------------------------
    def _port_at(self, pos: QPointF) -> PortItem | None:
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape, Qt.SortOrder.DescendingOrder,
                               QTransform()):
            if isinstance(item, PortItem):
                return item
        return None

    def _node_at(self, pos: QPointF) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item
            if isinstance(item, PortItem):
                return item.node
        return None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            port = self._port_at(event.scenePos())
            if port is not None and port.output:
                self._drag_port = port
                self._drag_line = QGraphicsPathItem()
                self._drag_line.setPen(QPen(QColor("#1e88e5"), 2, Qt.PenStyle.DashLine))
                self.addItem(self._drag_line)
                event.accept()
                return
        super().mousePressEvent(event)
        self._press_positions = {item.node_id: item.pos() for item in self.selectedItems()
                                 if isinstance(item, NodeItem)}
        self._press_positions.update({f"note:{item.note_id}": item.pos() for item in self.selectedItems()
                                      if isinstance(item, NoteItem)})

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._drag_port is not None and self._drag_line is not None:
            self._drag_line.setPath(curve(self._drag_port.scenePos(), event.scenePos()))
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._drag_port is not None:
            port, self._drag_port = self._drag_port, None
            if self._drag_line is not None:
                self.removeItem(self._drag_line)
                self._drag_line = None
            target = self._node_at(event.scenePos())
            if target is not None and target is not port.node:
                self.connect_requested.emit(port.node.node_id, port.handle, target.node_id)
            elif target is None:
                self.add_next_requested.emit(port.node.node_id, port.handle, event.scenePos())
            return
        super().mouseReleaseEvent(event)
        moved = {key: (item.pos().x(), item.pos().y()) for key, before in self._press_positions.items()
                 if (item := self._item_for(key)) is not None and item.pos() != before}
        self._press_positions = {}
        notes = {k: v for k, v in moved.items() if k.startswith("note:")}
        nodes = {k: v for k, v in moved.items() if not k.startswith("note:")}
        for key, pos in notes.items():
            self.note_moved.emit(key[5:], pos)
        if len(nodes) == 1:
            node_id = next(iter(nodes))
            edge = self._edge_under(self.nodes[node_id])
            if edge is not None and not self.nodes[node_id].edges:
                self.moved.emit(nodes)
                self.dropped_on_edge.emit(node_id, edge.edge_id)
                return
        if nodes:
            self.moved.emit(nodes)

    def _item_for(self, key: str) -> Any:
        return self.notes.get(key[5:]) if key.startswith("note:") else self.nodes.get(key)

    def _edge_under(self, node: NodeItem) -> EdgeItem | None:
        centre = node.scenePos() + QPointF(NODE_WIDTH / 2, node.height / 2)
        for item in self.items(centre):
            if isinstance(item, EdgeItem) and item.source is not node and item.target is not node:
                return item
        return None

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        node = self._node_at(event.scenePos())
        if node is not None and node.kind == "loop":
            self.open_loop_requested.emit(node.node_id)
            return
        if node is None and not any(isinstance(i, NoteItem) for i in self.items(event.scenePos())):
            self.empty_double_clicked.emit(event.scenePos())
            return
        super().mouseDoubleClickEvent(event)
