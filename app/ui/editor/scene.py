"""The canvas of one level of the open workflow. It only follows the model's signals (items are made,
changed and removed as the model changes, by an edit, an undo or a redo alike) and turns a person's
gestures into requests (`connect_requested`, `moved`, `add_next_requested`, `dropped_on_edge`, …) that the
window hands to the controller.

Edits stay cheap on big levels: a change touches only its own items; a level drawn by auto-layout (its
nodes have no positions) is re-placed once after a burst of changes (items moved, not rebuilt); edges follow
their nodes when a node moves; only a new level or a reload builds every item."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen, QTransform
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QGraphicsSceneMouseEvent

from app.ui.editor.items import (CATEGORY_COLOURS, NODE_WIDTH, PORT_GRIP, EdgeItem, Look, NodeItem, NoteItem, Port,
                                 category_of, curve, geometry)
from app.ui.editor.model import EditorModel, Level
from plumbing import loggers

log = logging.getLogger(loggers.EDITOR)

EAGER_NODES = 150   # a level up to this size gets its items at once; a bigger one in slices after the first paint
SLICE_ITEMS = 80    # items made per slice (a few milliseconds, so frames keep coming)


class _Sketch:
    """A big level drawn from the model while its items are being made: a box per node in its type's
    colour and the edges' curves, the way the zoomed-out canvas draws them. A few path items (one per
    colour, one for the curves) that Qt draws by itself, under the items as they come."""

    def __init__(self, model: EditorModel, level: Level, positions: dict[str, tuple[float, float]]) -> None:
        self.boxes: list[tuple[QRectF, QColor]] = []
        self.items: list[QGraphicsPathItem] = []
        colours: dict[str, QColor] = {}
        areas: dict[str, QPainterPath] = {}
        anchors: dict[str, tuple[float, float, float, dict[str, float]]] = {}   # x, top, input's y, outputs' dy
        for node in model.nodes(level):
            node_id, data = str(node["id"]), node.get("data") or {}
            x, y = positions.get(node_id, (0.0, 0.0))
            kind = str(data.get("type") or "?")
            colour = colours.get(kind)
            if colour is None:
                colour = colours[kind] = QColor(CATEGORY_COLOURS.get(category_of(kind), "#757575"))
            height, outputs = geometry(data)
            box = QRectF(x, y, NODE_WIDTH, height)
            self.boxes.append((box, colour))
            areas.setdefault(kind, QPainterPath()).addRect(box)
            anchors[node_id] = (x, y, y + height / 2, outputs)
        curves = QPainterPath()
        for edge in model.edges(level):
            source, target = anchors.get(str(edge.get("source"))), anchors.get(str(edge.get("target")))
            if source is None or target is None or not source[3]:
                continue
            dy = source[3].get(str(edge.get("sourceHandle") or "source"), next(iter(source[3].values())))
            x0, y0, x1, y1 = source[0] + NODE_WIDTH, source[1] + dy, target[0], target[2]
            dx = max(60.0, abs(x1 - x0) / 2)
            curves.moveTo(x0, y0)
            curves.cubicTo(x0 + dx, y0, x1 - dx, y1, x1, y1)
        self.lines = QGraphicsPathItem(curves)
        self.recolour()
        self.items.append(self.lines)
        for kind, area in areas.items():
            item = QGraphicsPathItem(area)
            item.setPen(Qt.PenStyle.NoPen)
            item.setBrush(colours[kind])
            self.items.append(item)
        for item in self.items:
            item.setZValue(-2)

    def recolour(self) -> None:
        """The curves in the current look's edge colour (the boxes keep their type's colour)."""
        self.lines.setPen(QPen(Look.get().edge_pen.color(), 0))  # a hairline: Qt bounds it by its points,
        # without stroking each curve


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
    boxes_changed = Signal()                            # where the level's nodes are drawn changed (minimap)
    sketched = Signal()                                 # a big level is drawn from the model, its items to come

    def __init__(self, model: EditorModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.model = model
        self.level: Level = ()
        self._nodes: dict[str, NodeItem] = {}
        self._edges: dict[str, EdgeItem] = {}
        self.notes: dict[str, NoteItem] = {}
        self._positions: dict[str, tuple[float, float]] = {}
        self._unbuilt_nodes: list[str] = []           # a big level's items still to make, after the first paint
        self._unbuilt_edges: list[dict[str, Any]] = []
        self._sketch: _Sketch | None = None
        self._slicer = QTimer(self)
        self._slicer.setSingleShot(True)
        self._slicer.setInterval(0)
        self._slicer.timeout.connect(self._build_slice)
        self._burst = 0                 # nodes that came or went since the event loop last ran
        self._rebuild_due = False       # a big burst: the level is built again once it is over
        self._burst_end = QTimer(self)
        self._burst_end.setSingleShot(True)
        self._burst_end.setInterval(0)
        self._burst_end.timeout.connect(self._end_burst)
        self._drag_line: QGraphicsPathItem | None = None
        self._drag_port: Port | None = None
        self._press_positions: dict[str, QPointF] = {}
        self._place_pending = False
        self._styled_edges: set[EdgeItem] = set()
        self.scheme = ""
        self.recolour()
        model.node_added.connect(self._node_added)
        model.node_removed.connect(self._node_removed)
        model.node_changed.connect(self._node_changed)
        model.nodes_moved.connect(self._nodes_moved)
        model.edge_added.connect(self._edge_added)
        model.edge_removed.connect(self._edge_removed)
        model.note_added.connect(self._note_added)
        model.note_removed.connect(self._note_removed)
        model.note_changed.connect(self._note_changed)
        model.reset.connect(self._reset)
        self.selectionChanged.connect(self._style_edges)

    # -- colours ----------------------------------------------------------------------------------------
    def recolour(self) -> bool:
        """Follow the theme's scheme (light or dark): the canvas, and every item redrawn in the new look (their
        device-coordinate caches are dropped by `update`). Nothing happens (False) when the scheme is the same."""
        look = Look.use()
        if look.colours.scheme == self.scheme:
            return False
        first = not self.scheme
        self.scheme = look.colours.scheme
        self.setBackgroundBrush(QColor(look.colours.canvas))
        if first:
            return True
        for node in self._nodes.values():
            node.update()
        for edge in self._edges.values():
            edge.recolour()
        for note in self.notes.values():
            note.recolour()
        if self._sketch is not None:
            self._sketch.recolour()
        log.debug("editor canvas: %s colours", self.scheme)
        return True

    # -- building ---------------------------------------------------------------------------------------
    def show_level(self, level: Level) -> None:
        self.level = level
        self.rebuild()

    def schedule_place(self) -> None:
        """Move the level's items to where the model draws them, once the current burst is over (nodes of
        an auto-laid-out level move when one is added or removed; an undo may take positions away)."""
        if not self._place_pending:
            self._place_pending = True
            QTimer.singleShot(0, self._place_now)

    def _place_now(self) -> None:
        if not self._place_pending or self._rebuild_due:
            return
        self._place_pending = False
        if not self.model.laid_out(self.level):  # every node where it was put: nothing moves
            self._grow_rect()
            self.boxes_changed.emit()
            return
        positions = self.model.display_positions(self.level)
        moved: list[NodeItem] = []
        for node_id, item in self.nodes.items():
            x, y = positions.get(node_id, (0.0, 0.0))
            if item.x() != x or item.y() != y:
                item.setPos(x, y)
                moved.append(item)
        self._follow(moved)
        self._grow_rect()
        self.boxes_changed.emit()

    @property
    def drawn(self) -> bool:
        """Whether the canvas shows the model as it is now (its items, or a big level's sketch while they
        are being made): no re-placing or rebuilding due."""
        return not self._place_pending and not self._rebuild_due

    @property
    def settled(self) -> bool:
        """Drawn, and every item made."""
        return self.drawn and not self.building

    def _follows(self) -> bool:
        """Whether a model change is applied to the items as it comes (not during a big burst, after which
        the level is built again); an unfinished build is finished first."""
        if self._rebuild_due:
            return False
        self._complete()
        return True

    def _big_burst(self) -> bool:
        """Count a node that comes or goes; past `EAGER_NODES` in one burst (deleting or undoing a whole
        big level), the rest of the burst is not followed item by item: the level is built again at its end
        (drawn at once, its items made in slices)."""
        self._burst += 1
        self._burst_end.start()
        if self._burst > EAGER_NODES:
            self._rebuild_due = True
        return self._rebuild_due

    def _end_burst(self) -> None:
        self._burst = 0
        if self._rebuild_due:
            self.rebuild()

    def _follow(self, moved: list[NodeItem]) -> None:
        """Redraw the edges of nodes that moved."""
        for edge in {edge for item in moved for edge in item.edges}:
            edge.update_path()

    def _grow_rect(self) -> None:
        """Keep room to scroll around every item (the rect only grows while a level is shown)."""
        bounds = self.itemsBoundingRect().adjusted(-2000, -2000, 2000, 2000)
        if not self.sceneRect().contains(bounds):
            self.setSceneRect(self.sceneRect().united(bounds))

    def rebuild(self) -> None:
        """Build the items of the level. A big level (more than `EAGER_NODES` nodes) is drawn at once as
        boxes and curves from the model (what a zoomed-out canvas shows anyway), and its items are made in
        slices between frames; reading `nodes` or `edges`, a gesture or a model change finishes them first."""
        self._place_pending = False
        self._burst, self._rebuild_due = 0, False
        self._burst_end.stop()
        self.clearSelection()
        self.clear()
        self._nodes, self._edges, self.notes = {}, {}, {}
        self._styled_edges = set()
        self._positions = self.model.display_positions(self.level)
        self._unbuilt_nodes = [str(node["id"]) for node in self.model.nodes(self.level)]
        self._unbuilt_edges = list(self.model.edges(self.level))
        self._sketch = None
        for note in self.model.notes(self.level):
            self._make_note(note)
        big = len(self._unbuilt_nodes) > EAGER_NODES
        if big:
            self._sketch = _Sketch(self.model, self.level, self._positions)
            for item in self._sketch.items:
                self.addItem(item)
        else:
            self._make_unbuilt()
        self.setSceneRect(self.content_rect().adjusted(-2000, -2000, 2000, 2000))
        if big:
            self.sketched.emit()
            self._slicer.start()
        else:
            self._built()

    @property
    def building(self) -> bool:
        return bool(self._unbuilt_nodes or self._unbuilt_edges)

    @property
    def nodes(self) -> dict[str, NodeItem]:
        """The node items of the level, by id (all of them: a due or unfinished build is finished first)."""
        self._catch_up()
        return self._nodes

    @property
    def edges(self) -> dict[str, EdgeItem]:
        self._catch_up()
        return self._edges

    def _catch_up(self) -> None:
        if self._rebuild_due:
            self.rebuild()
        self._complete()

    def _build_slice(self) -> None:
        if not self.building:
            return
        if self._unbuilt_nodes:
            chunk, self._unbuilt_nodes = self._unbuilt_nodes[:SLICE_ITEMS], self._unbuilt_nodes[SLICE_ITEMS:]
            for node_id in chunk:
                if self.model.has_node(node_id) and node_id not in self._nodes:
                    self._make_node(node_id, self._positions)
        else:
            chunk, self._unbuilt_edges = self._unbuilt_edges[:SLICE_ITEMS], self._unbuilt_edges[SLICE_ITEMS:]
            for edge in chunk:
                self._make_edge(edge)
        if self.building:
            self._slicer.start()
        else:
            self._built()

    def _complete(self) -> None:
        """Make every item the build has not made yet, now."""
        if self.building:
            self._make_unbuilt()
            self._built()

    def _make_unbuilt(self) -> None:
        nodes, edges = self._unbuilt_nodes, self._unbuilt_edges
        self._unbuilt_nodes, self._unbuilt_edges = [], []
        for node_id in nodes:
            if self.model.has_node(node_id) and node_id not in self._nodes:
                self._make_node(node_id, self._positions)
        for edge in edges:
            self._make_edge(edge)

    def _built(self) -> None:
        self._slicer.stop()
        if self._sketch is not None:
            for item in self._sketch.items:
                self.removeItem(item)
            self._sketch = None
            self._grow_rect()
        self.boxes_changed.emit()
        self.rebuilt.emit()

    def boxes(self) -> list[tuple[QRectF, QColor]]:
        """Each node's box in scene coordinates with its colour (from the model while the build runs)."""
        if self._sketch is not None:
            return self._sketch.boxes
        return [(QRectF(item.x(), item.y(), NODE_WIDTH, item.height), item.colour) for item in self._nodes.values()]

    def content_rect(self) -> QRectF:
        """What the level covers: its nodes and notes (what Fit shows)."""
        if self._sketch is None:
            return self.itemsBoundingRect()
        bounds = QRectF()
        for rect, _colour in self._sketch.boxes:
            bounds = bounds.united(rect)
        for note in self.notes.values():
            bounds = bounds.united(note.sceneBoundingRect())
        return bounds.adjusted(-PORT_GRIP, -4, PORT_GRIP, 22)

    def _make_node(self, node_id: str, positions: dict[str, tuple[float, float]]) -> NodeItem:
        item = NodeItem(node_id, self.model.node(node_id)["data"])
        x, y = positions.get(node_id, (0.0, 0.0))
        item.setPos(x, y)
        self.addItem(item)
        self._nodes[node_id] = item
        return item

    def _make_edge(self, edge: dict[str, Any]) -> None:
        source, target = self._nodes.get(str(edge.get("source"))), self._nodes.get(str(edge.get("target")))
        if source is None or target is None or str(edge.get("id")) in self._edges:
            return
        item = EdgeItem(str(edge["id"]), source, str(edge.get("sourceHandle") or "source"), target)
        self.addItem(item)
        self._edges[item.edge_id] = item

    def _make_note(self, note: dict[str, Any]) -> None:
        item = NoteItem(str(note["id"]), str(note.get("text") or ""))
        position = note.get("position") or {}
        item.setPos(float(position.get("x", 0)), float(position.get("y", 0)))
        item.document().contentsChanged.connect(lambda: None)
        self.addItem(item)
        self.notes[item.note_id] = item

    def _reset(self) -> None:
        while self.level and not self.model.is_level(self.level):
            self.level = self.level[:-1]
        self.rebuild()

    # -- following the model --------------------------------------------------------------------------
    def _node_added(self, level: Level, node_id: str) -> None:
        if level == self.level and self._follows() and not self._big_burst():
            node = self.model.node(node_id)
            position = node.get("position") if isinstance(node.get("position"), dict) else {}
            self._make_node(node_id, {node_id: (float(position.get("x", 0)), float(position.get("y", 0)))})
            self.schedule_place()  # an auto-laid-out level moves around it
        self._refresh_owner(level)

    def _node_removed(self, level: Level, node_id: str) -> None:
        if level == self.level:
            if not self._follows() or self._big_burst():
                return
            item = self.nodes.pop(node_id, None)
            if item is not None:
                for edge in list(item.edges):
                    self.edges.pop(edge.edge_id, None)
                    edge.detach()
                    self._styled_edges.discard(edge)
                    self.removeItem(edge)
                self.removeItem(item)
            self.schedule_place()
        elif self.level[:len(level) + 1] == (*level, node_id):
            self.show_level(level)  # the loop being shown went away
        self._refresh_owner(level)

    def _refresh_owner(self, level: Level) -> None:
        """A body changed: the loop node drawn at this level shows its size."""
        if level and level[:-1] == self.level and level[-1] in self._nodes and not self._rebuild_due:
            self._nodes[level[-1]].set_data(self.model.node(level[-1])["data"])

    def _node_changed(self, node_id: str) -> None:
        if not self._follows():
            return
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

    def _nodes_moved(self, node_ids: list[str]) -> None:
        if not self._follows():
            return
        moved: list[NodeItem] = []
        for node_id in node_ids:
            item = self._nodes.get(node_id)
            if item is None:
                continue
            position = self.model.node(node_id).get("position")
            if not isinstance(position, dict):
                self.schedule_place()  # back to the auto-layout
                continue
            x, y = float(position.get("x", 0)), float(position.get("y", 0))
            if item.x() != x or item.y() != y:
                item.setPos(x, y)
                moved.append(item)
        if moved:
            self._follow(moved)
            if not self._place_pending:
                self._grow_rect()

    def _edge_added(self, level: Level, edge_id: str) -> None:
        if not self._follows():
            return
        if level == self.level:
            self._make_edge(self.model.edge(level, edge_id))

    def _edge_removed(self, level: Level, edge_id: str) -> None:
        if not self._follows():
            return
        if level == self.level:
            item = self.edges.pop(edge_id, None)
            if item is not None:
                item.detach()
                self._styled_edges.discard(item)
                self.removeItem(item)

    def _note_added(self, level: Level, note_id: str) -> None:
        if not self._follows():
            return
        if level == self.level:
            self._make_note(next(n for n in self.model.notes(level) if n.get("id") == note_id))

    def _note_removed(self, level: Level, note_id: str) -> None:
        if not self._follows():
            return
        if level == self.level:
            item = self.notes.pop(note_id, None)
            if item is not None:
                self.removeItem(item)

    def _note_changed(self, level: Level, note_id: str) -> None:
        if not self._follows():
            return
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

    def _style_edges(self) -> None:
        """Selected edges are drawn in the selection colour (only the edges whose state changed are touched)."""
        selected = {item for item in self.selectedItems() if isinstance(item, EdgeItem)}
        for edge in selected ^ self._styled_edges:
            edge.show_selected(edge in selected)
        self._styled_edges = selected

    def select_all(self) -> None:
        """Select every node, edge and note of the level (one selection change, not one per item)."""
        self._catch_up()
        area = QPainterPath()
        area.addRect(self.sceneRect().united(self.itemsBoundingRect()))
        self.setSelectionArea(area, Qt.ItemSelectionOperation.ReplaceSelection,
                              Qt.ItemSelectionMode.IntersectsItemBoundingRect, QTransform())

    def select_nodes(self, node_ids: list[str]) -> None:
        self.clearSelection()
        for node_id in node_ids:
            if node_id in self.nodes:
                self.nodes[node_id].setSelected(True)

    # -- gestures --------------------------------------------------------------------------------------
    def _port_at(self, pos: QPointF) -> Port | None:
        node = self._node_at(pos)
        return node.port_at(pos) if node is not None else None

    def _node_at(self, pos: QPointF) -> NodeItem | None:
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape, Qt.SortOrder.DescendingOrder,
                               QTransform()):
            if isinstance(item, NodeItem):
                return item
        return None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self._catch_up()
        if event.button() == Qt.MouseButton.LeftButton:
            port = self._port_at(event.scenePos())
            if port is not None and port.output:
                self._drag_port = port
                self._drag_line = QGraphicsPathItem()
                self._drag_line.setPen(QPen(QColor(Look.get().colours.drag), 2, Qt.PenStyle.DashLine))
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
        if event.buttons() & Qt.MouseButton.LeftButton and self.mouseGrabberItem() is not None:
            self._follow([item for item in self.selectedItems() if isinstance(item, NodeItem)])

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
        self._follow([self.nodes[node_id] for node_id in nodes])  # whatever item the drag held
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
        self._catch_up()
        node = self._node_at(event.scenePos())
        if node is not None and node.kind == "loop":
            self.open_loop_requested.emit(node.node_id)
            return
        if node is None and not any(isinstance(i, NoteItem) for i in self.items(event.scenePos())):
            self.empty_double_clicked.emit(event.scenePos())
            return
        super().mouseDoubleClickEvent(event)
