"""What the canvas draws: nodes (title, type, an input port, one output port per handle — each if-else case
and `false` —, a run state), curved edges, ports and notes. Items only draw what the scene hands them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFocusEvent, QFont, QKeyEvent, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsPathItem, QGraphicsTextItem, QStyle, QStyleOptionGraphicsItem,
                               QWidget)

from app.ui.node_kinds import kind_label
from workflows.nodes import NODE_TYPES

NODE_WIDTH = 190.0
NODE_HEIGHT = 54.0
PORT_SPACING = 20.0
PORT_RADIUS = 6.0
CATEGORY_COLOURS = {"flow": "#7e57c2", "page": "#1e88e5", "wait & extract": "#00897b", "data & debug": "#f4511e",
                    "people": "#d81b60"}
STATE_COLOURS = {"pending": "#9e9e9e", "running": "#1e88e5", "ok": "#43a047", "failed": "#e53935",
                 "skipped": "#bdbdbd"}


def category_of(kind: str) -> str:
    model = NODE_TYPES.get(kind)
    return getattr(model, "category", "") if model is not None else ""


def state_label(state: str) -> str:
    """A run state as the canvas shows it, in the person's language."""
    labels = {"pending": QCoreApplication.translate("EditorCanvas", "pending"),
              "running": QCoreApplication.translate("EditorCanvas", "running"),
              "ok": QCoreApplication.translate("EditorCanvas", "ok"),
              "failed": QCoreApplication.translate("EditorCanvas", "failed"),
              "skipped": QCoreApplication.translate("EditorCanvas", "skipped")}
    return labels.get(state, state)


def handles_of(data: dict[str, Any]) -> list[str]:
    """The output ports of a node: one per if-else case (case_id) and `false`, else `source`."""
    if data.get("type") == "if-else":
        cases = data.get("cases") if isinstance(data.get("cases"), list) else []
        ids = [str(c.get("case_id")) for c in cases if isinstance(c, dict) and c.get("case_id") not in (None, "")]
        return [*dict.fromkeys(i for i in ids if i != "false"), "false"]
    if data.get("type") == "end":
        return []
    return ["source"]


class PortItem(QGraphicsItem):
    def __init__(self, node: "NodeItem", handle: str, output: bool) -> None:
        super().__init__(node)
        self.node, self.handle, self.output = node, handle, output
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.CrossCursor)
        if not output:
            self.setToolTip(QCoreApplication.translate("EditorCanvas", "Input"))
        elif handle == "source":
            self.setToolTip(QCoreApplication.translate(
                "EditorCanvas", "Drag to connect, or drop on empty canvas to add the next step"))
        else:
            self.setToolTip(QCoreApplication.translate(
                "EditorCanvas", "Drag to connect, or drop on empty canvas to add the next step ({handle})").format(
                    handle=handle))

    def boundingRect(self) -> QRectF:
        r = PORT_RADIUS + 2
        return QRectF(-r, -r, 2 * r, 2 * r)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#455a64"), 1.5))
        painter.setBrush(QColor("#ffffff") if not self.output else QColor("#cfd8dc"))
        painter.drawEllipse(QPointF(0, 0), PORT_RADIUS, PORT_RADIUS)

    def anchor(self) -> QPointF:
        return self.scenePos()


class NodeItem(QGraphicsItem):
    def __init__(self, node_id: str, data: dict[str, Any]) -> None:
        super().__init__()
        self.node_id = node_id
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsScenePositionChanges)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(1)
        self.edges: list["EdgeItem"] = []
        self.state: str | None = None
        self.state_text = ""
        self.problem = False
        self.input_port: PortItem | None = None
        self.output_ports: dict[str, PortItem] = {}
        self.set_data(data)

    def set_data(self, data: dict[str, Any]) -> None:
        self.prepareGeometryChange()
        self.kind = str(data.get("type") or "?")
        self.title = str(data.get("title") or self.node_id)
        inside = len(data.get("nodes") or [])
        self.subtitle = kind_label(self.kind) + (
            " · " + QCoreApplication.translate("EditorCanvas", "%n inside", "", inside) if self.kind == "loop" else "")
        handles = handles_of(data)
        for port in [*self.output_ports.values(), *([self.input_port] if self.input_port else [])]:
            port.setParentItem(None)
            if port.scene() is not None:
                port.scene().removeItem(port)
        self.height = max(NODE_HEIGHT, 24 + PORT_SPACING * len(handles))
        self.input_port = PortItem(self, "target", False) if self.kind != "start" else None
        if self.input_port is not None:
            self.input_port.setPos(0, self.height / 2)
        self.output_ports = {}
        for index, handle in enumerate(handles):
            port = PortItem(self, handle, True)
            y = self.height / 2 if len(handles) == 1 else 22 + index * PORT_SPACING
            port.setPos(NODE_WIDTH, y)
            self.output_ports[handle] = port
        self.setToolTip(f"{self.title} ({self.node_id}, {self.kind})"
                        + ("\n" + QCoreApplication.translate("EditorCanvas", "Double-click to open its body")
                           if self.kind == "loop" else ""))
        self.update()

    def set_state(self, state: str | None, text: str = "") -> None:
        self.state, self.state_text = state, text
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(-4, -4, NODE_WIDTH + 8, self.height + 22)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(0, 0, NODE_WIDTH, self.height)
        colour = QColor(CATEGORY_COLOURS.get(category_of(self.kind), "#757575"))
        border = QColor(STATE_COLOURS[self.state]) if self.state else colour.darker(130)
        if self.isSelected():
            border = QColor("#ffb300")
        painter.setPen(QPen(border, 3 if (self.isSelected() or self.state) else 1.5))
        fill = QColor("#ffffff")
        if self.state in ("ok", "failed", "running"):
            fill = QColor(STATE_COLOURS[self.state]).lighter(185)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(QRectF(0, 0, 6, self.height), 3, 3)
        if self.kind == "loop":
            painter.setPen(QPen(colour, 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(4, 4, -4, -4), 6, 6)
        font = QFont(painter.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#212121"))
        metrics = painter.fontMetrics()
        painter.drawText(QRectF(14, 6, NODE_WIDTH - 24, 18), Qt.AlignmentFlag.AlignLeft,
                         metrics.elidedText(self.title, Qt.TextElideMode.ElideRight, int(NODE_WIDTH - 24)))
        font.setBold(False)
        painter.setFont(font)
        painter.setPen(QColor("#616161"))
        painter.drawText(QRectF(14, 26, NODE_WIDTH - 24, 18), Qt.AlignmentFlag.AlignLeft, self.subtitle)
        if len(self.output_ports) > 1:
            painter.setPen(QColor("#455a64"))
            for handle, port in self.output_ports.items():
                painter.drawText(QRectF(NODE_WIDTH - 90, port.y() - 9, 80, 18),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, handle)
        if self.state:
            painter.setPen(QColor(STATE_COLOURS[self.state]).darker(120))
            painter.drawText(QRectF(0, self.height + 2, NODE_WIDTH, 16), Qt.AlignmentFlag.AlignLeft,
                             state_label(self.state) + (" · " + self.state_text if self.state_text else ""))
        elif self.problem:
            painter.setPen(QColor("#e65100"))
            painter.drawText(QRectF(0, self.height + 2, NODE_WIDTH, 16), Qt.AlignmentFlag.AlignLeft,
                             "⚠ " + QCoreApplication.translate("EditorCanvas", "see problems"))

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        if change == QGraphicsItem.GraphicsItemChange.ItemScenePositionHasChanged:
            for edge in self.edges:
                edge.update_path()
        return super().itemChange(change, value)


class EdgeItem(QGraphicsPathItem):
    def __init__(self, edge_id: str, source: NodeItem, handle: str, target: NodeItem) -> None:
        super().__init__()
        self.edge_id, self.source, self.handle, self.target = edge_id, source, handle, target
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0)
        self.taken = False
        self._pen()
        source.edges.append(self)
        target.edges.append(self)
        if handle != "source":
            self.setToolTip(handle)
        self.update_path()

    def _pen(self) -> None:
        colour = QColor("#43a047") if self.taken else QColor("#78909c")
        self.setPen(QPen(colour, 3.5 if self.taken else 2))

    def set_taken(self, taken: bool) -> None:
        self.taken = taken
        self._pen()

    def detach(self) -> None:
        for end in (self.source, self.target):
            if self in end.edges:
                end.edges.remove(self)

    def update_path(self) -> None:
        port = self.source.output_ports.get(self.handle) or next(iter(self.source.output_ports.values()), None)
        start = port.scenePos() if port is not None else self.source.scenePos() + QPointF(NODE_WIDTH, 20)
        end = self.target.input_port.scenePos() if self.target.input_port else self.target.scenePos()
        self.setPath(curve(start, end))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self.isSelected():
            painter.setPen(QPen(QColor("#ffb300"), 3.5))
            painter.drawPath(self.path())
            return
        super().paint(painter, option, widget)


def curve(start: QPointF, end: QPointF) -> QPainterPath:
    path = QPainterPath(start)
    dx = max(60.0, abs(end.x() - start.x()) / 2)
    path.cubicTo(start + QPointF(dx, 0), end - QPointF(dx, 0), end)
    return path


class NoteItem(QGraphicsTextItem):
    """A canvas note: yellow, movable, its text edited in place: a double-click starts editing, Escape or a
    click elsewhere ends it, and the scene's `note_edited` then carries the new text (one command)."""

    def __init__(self, note_id: str, text: str) -> None:
        super().__init__(text)
        self.note_id = note_id
        self._before = text
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setTextWidth(180)
        self.setZValue(-1)
        self.setDefaultTextColor(QColor("#5d4037"))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setPen(QPen(QColor("#ffb300") if self.isSelected() else QColor("#fbc02d"), 1))
        painter.setBrush(QColor("#fff9c4"))
        painter.drawRect(self.boundingRect())
        option.state &= ~QStyle.StateFlag.State_Selected
        super().paint(painter, option, widget)

    @property
    def editing(self) -> bool:
        return self.textInteractionFlags() != Qt.TextInteractionFlag.NoTextInteraction

    def mouseDoubleClickEvent(self, event: Any) -> None:
        if not self.editing:
            self._before = self.toPlainText()
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextEditorInteraction)
            self.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.clearFocus()
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        if not self.editing:
            return
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        cursor = self.textCursor()
        cursor.clearSelection()
        self.setTextCursor(cursor)
        text = self.toPlainText()
        if text != self._before and self.scene() is not None:
            self._before = text
            self.scene().note_edited.emit(self.note_id, text)
