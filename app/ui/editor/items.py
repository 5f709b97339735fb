"""What the canvas draws: nodes (title, type, an input port, one output port per handle — each if-else case
and `false` —, a run state), curved edges and notes. Items only draw what the scene hands them.

Built to stay light on big workflows: a node is one item (its ports are drawn by it and found by geometry,
not items of their own), everything it draws is worked out when its data changes (never per paint), and it
paints into a device-coordinate cache, so panning only copies pixmaps. Below `DETAIL_ZOOM` a node is drawn as
a plain coloured box (no text, no ports): text that small cannot be read and would only cost time.

Colours come from the theme's scheme (`editor_colours`: one small table per scheme, taken from the palette's
colours); the scene switches the `Look` and repaints its items when the scheme changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import (QBrush, QColor, QFocusEvent, QFont, QFontMetricsF, QKeyEvent, QPainter, QPainterPath,
                           QPen)
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem, QGraphicsSceneHoverEvent,
                               QGraphicsTextItem, QStyle, QStyleOptionGraphicsItem, QWidget)

from app.ui.node_kinds import kind_label
from app.ui.theme import Scheme, current_scheme
from workflows.nodes import NODE_TYPES

NODE_WIDTH = 190.0
NODE_HEIGHT = 54.0
PORT_SPACING = 20.0
PORT_RADIUS = 6.0
PORT_GRIP = PORT_RADIUS + 3.0   # how near a port a press must be to take it
DETAIL_ZOOM = 0.4               # below this zoom nodes are plain boxes
CATEGORY_COLOURS = {"flow": "#7e57c2", "page": "#1e88e5", "wait & extract": "#00897b", "data & debug": "#f4511e",
                    "people": "#d81b60"}


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


def geometry(data: dict[str, Any]) -> tuple[float, dict[str, float]]:
    """A node's height and how far down its ports sit: the input at half the height (on the left, none on
    the start node), the outputs by handle (on the right)."""
    handles = handles_of(data)
    height = max(NODE_HEIGHT, 24 + PORT_SPACING * len(handles))
    if len(handles) == 1:
        return height, {handles[0]: height / 2}
    return height, {handle: 22 + index * PORT_SPACING for index, handle in enumerate(handles)}


class Port:
    """An input (`target`) or output port of a node. The node draws it; the scene finds it by geometry."""

    __slots__ = ("node", "handle", "output", "offset")

    def __init__(self, node: "NodeItem", handle: str, output: bool, offset: QPointF) -> None:
        self.node, self.handle, self.output, self.offset = node, handle, output, offset

    def scenePos(self) -> QPointF:  # noqa: N802  (named like the Qt call it stands for)
        return self.node.scenePos() + self.offset

    def y(self) -> float:
        return self.offset.y()

    def tooltip(self) -> str:
        if not self.output:
            return QCoreApplication.translate("EditorCanvas", "Input")
        if self.handle == "source":
            return QCoreApplication.translate("EditorCanvas",
                                              "Drag to connect, or drop on empty canvas to add the next step")
        return QCoreApplication.translate(
            "EditorCanvas", "Drag to connect, or drop on empty canvas to add the next step ({handle})").format(
                handle=self.handle)


@dataclass(frozen=True)
class EditorColours:
    """The editor's colours in one scheme, taken from the theme's (`app.ui.theme.Scheme`): the canvas, node
    bodies, text, ports, edges, notes, the minimap and the run states. Category colours stay the same in both
    schemes (they are saturated enough for either background)."""

    scheme: str
    canvas: str
    body: str
    title: str
    subtitle: str
    problem: str
    port: str
    port_in: str
    port_out: str
    edge: str
    selected: str
    drag: str
    note: str
    note_border: str
    note_text: str
    minimap: str
    minimap_border: str
    states: dict[str, str]
    state_tint: float      # how much of the state colour tints a node body
    state_text_lighter: bool


def editor_colours(scheme: Scheme | None = None) -> EditorColours:
    """The editor's colours for `scheme` (the one in use when not given)."""
    scheme = scheme or current_scheme()
    dark = scheme.name == "dark"
    return EditorColours(
        scheme=scheme.name, canvas=scheme.window, body=scheme.base, title=scheme.text, subtitle=scheme.muted,
        problem=scheme.warning, port=scheme.muted, port_in=scheme.base, port_out=scheme.border_strong,
        edge="#7d8590" if dark else "#78909c", selected="#ffb300", drag=scheme.accent,
        note="#3b3524" if dark else "#fff9c4", note_border="#8a7726" if dark else "#fbc02d",
        note_text="#eadfb8" if dark else "#5d4037",
        minimap=scheme.base, minimap_border=scheme.border_strong,
        states={"pending": scheme.muted, "running": scheme.accent, "ok": scheme.success, "failed": scheme.danger,
                "skipped": scheme.border_strong},
        state_tint=0.32 if dark else 0.38, state_text_lighter=dark)


def _mix(under: QColor, over: QColor, share: float) -> QColor:
    return QColor.fromRgbF(under.redF() + (over.redF() - under.redF()) * share,
                           under.greenF() + (over.greenF() - under.greenF()) * share,
                           under.blueF() + (over.blueF() - under.blueF()) * share)


class Look:
    """The fonts, metrics, pens and brushes every item draws with, for one scheme: made once per scheme (they
    need the app) and never changed: a cache of drawing resources, not state. `use(scheme)` picks the one
    items draw with; the scene calls it when the scheme changes and then repaints its items."""

    made: dict[str, "Look"] = {}
    active: "Look | None" = None

    def __init__(self, colours: EditorColours) -> None:
        self.colours = colours
        self.bold = QFont()
        self.bold.setBold(True)
        self.plain = QFont()
        self.bold_metrics = QFontMetricsF(self.bold)
        self.title_pen = QPen(QColor(colours.title))
        self.subtitle_pen = QPen(QColor(colours.subtitle))
        self.handle_pen = QPen(QColor(colours.subtitle))
        self.problem_pen = QPen(QColor(colours.problem))
        self.port_pen = QPen(QColor(colours.port), 1.5)
        self.input_brush = QBrush(QColor(colours.port_in))
        self.output_brush = QBrush(QColor(colours.port_out))
        self.body = QBrush(QColor(colours.body))
        self.selected = QColor(colours.selected)
        self.state = {state: QColor(colour) for state, colour in colours.states.items()}
        body = QColor(colours.body)
        self.state_fill = {state: QBrush(_mix(body, colour, colours.state_tint)) for state, colour in self.state.items()}
        self.state_pen = {state: QPen(colour.lighter(125) if colours.state_text_lighter else colour.darker(120))
                          for state, colour in self.state.items()}
        self.edge_pen = QPen(QColor(colours.edge), 2)
        self.taken_pen = QPen(self.state["ok"], 3.5)
        self.selected_pen = QPen(self.selected, 3.5)
        self.note_brush = QBrush(QColor(colours.note))
        self.note_pen = QPen(QColor(colours.note_border), 1)
        self.note_selected_pen = QPen(self.selected, 1)
        self.note_text = QColor(colours.note_text)

    @classmethod
    def use(cls, scheme: Scheme | None = None) -> "Look":
        """The look of `scheme` (the one in use when not given), from now on the one items draw with."""
        colours = editor_colours(scheme)
        look = cls.made.get(colours.scheme)
        if look is None:
            look = cls.made[colours.scheme] = Look(colours)
        cls.active = look
        return look

    @classmethod
    def get(cls) -> "Look":
        return cls.active if cls.active is not None else cls.use()


class NodeItem(QGraphicsRectItem):
    """A node. A rect item underneath, so Qt asks for its bounds and shape without calling Python (its rect
    is what it draws, ports and state line included; no pen or brush of its own)."""

    def __init__(self, node_id: str, data: dict[str, Any]) -> None:
        super().__init__()
        self.setPen(Qt.PenStyle.NoPen)
        self.node_id = node_id
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        self.edges: list["EdgeItem"] = []
        self.state: str | None = None
        self.state_text = ""
        self.problem = False
        self.input_port: Port | None = None
        self.output_ports: dict[str, Port] = {}
        self.height = NODE_HEIGHT
        self.set_data(data)

    def set_data(self, data: dict[str, Any]) -> None:
        look = Look.get()
        self.kind = str(data.get("type") or "?")
        self.title = str(data.get("title") or self.node_id)
        inside = len(data.get("nodes") or [])
        self.subtitle = kind_label(self.kind) + (
            " · " + QCoreApplication.translate("EditorCanvas", "%n inside", "", inside) if self.kind == "loop" else "")
        self.shown_title = look.bold_metrics.elidedText(self.title, Qt.TextElideMode.ElideRight, NODE_WIDTH - 24)
        self.colour = QColor(CATEGORY_COLOURS.get(category_of(self.kind), "#757575"))
        self.height, outputs = geometry(data)
        self.setRect(QRectF(-PORT_GRIP, -4, NODE_WIDTH + 2 * PORT_GRIP, self.height + 22))
        self.input_port = Port(self, "target", False, QPointF(0, self.height / 2)) if self.kind != "start" else None
        self.output_ports = {handle: Port(self, handle, True, QPointF(NODE_WIDTH, y)) for handle, y in outputs.items()}
        self.node_tooltip = (f"{self.title} ({self.node_id}, {self.kind})"
                             + ("\n" + QCoreApplication.translate("EditorCanvas", "Double-click to open its body")
                                if self.kind == "loop" else ""))
        self.setToolTip(self.node_tooltip)
        self.update()

    def ports(self) -> list[Port]:
        return [*([self.input_port] if self.input_port else []), *self.output_ports.values()]

    def port_at(self, scene_pos: QPointF) -> Port | None:
        """The port drawn under this scene point, if any."""
        local = scene_pos - self.scenePos()
        for port in self.ports():
            if (local - port.offset).manhattanLength() <= PORT_GRIP * 1.4:
                return port
        return None

    def set_state(self, state: str | None, text: str = "") -> None:
        if (state, text) != (self.state, self.state_text):
            self.state, self.state_text = state, text
            self.update()

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        port = self.port_at(event.scenePos())
        if port is not None:
            self.setCursor(Qt.CursorShape.CrossCursor)
            self.setToolTip(port.tooltip())
        elif self.hasCursor():
            self.unsetCursor()
            self.setToolTip(self.node_tooltip)
        super().hoverMoveEvent(event)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = Look.get()
        rect = QRectF(0, 0, NODE_WIDTH, self.height)
        selected = self.isSelected()
        border = look.selected if selected else look.state.get(self.state) if self.state else None
        if option.levelOfDetailFromTransform(painter.worldTransform()) < DETAIL_ZOOM:
            # zoomed out: a box in the type's colour (the run state's when there is one), framed when selected
            fill = look.state[self.state] if self.state in ("ok", "failed", "running") else self.colour
            painter.fillRect(rect, fill)
            if selected:
                frame = QPen(border, 2)
                frame.setCosmetic(True)
                painter.setPen(frame)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(border or self.colour.darker(130), 3 if (selected or self.state) else 1.5))
        if self.state in ("ok", "failed", "running"):
            painter.setBrush(look.state_fill[self.state])
        else:
            painter.setBrush(look.body)
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colour)
        painter.drawRoundedRect(QRectF(0, 0, 6, self.height), 3, 3)
        if self.kind == "loop":
            painter.setPen(QPen(self.colour, 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(4, 4, -4, -4), 6, 6)
        painter.setFont(look.bold)
        painter.setPen(look.title_pen)
        painter.drawText(QRectF(14, 6, NODE_WIDTH - 24, 18), Qt.AlignmentFlag.AlignLeft, self.shown_title)
        painter.setFont(look.plain)
        painter.setPen(look.subtitle_pen)
        painter.drawText(QRectF(14, 26, NODE_WIDTH - 24, 18), Qt.AlignmentFlag.AlignLeft, self.subtitle)
        if len(self.output_ports) > 1:
            painter.setPen(look.handle_pen)
            for handle, port in self.output_ports.items():
                painter.drawText(QRectF(NODE_WIDTH - 90, port.y() - 9, 80, 18),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, handle)
        if self.state:
            painter.setPen(look.state_pen.get(self.state, look.subtitle_pen))
            painter.drawText(QRectF(0, self.height + 2, NODE_WIDTH, 16), Qt.AlignmentFlag.AlignLeft,
                             state_label(self.state) + (" · " + self.state_text if self.state_text else ""))
        elif self.problem:
            painter.setPen(look.problem_pen)
            painter.drawText(QRectF(0, self.height + 2, NODE_WIDTH, 16), Qt.AlignmentFlag.AlignLeft,
                             "⚠ " + QCoreApplication.translate("EditorCanvas", "see problems"))
        painter.setPen(look.port_pen)
        for port in self.ports():
            painter.setBrush(look.output_brush if port.output else look.input_brush)
            painter.drawEllipse(port.offset, PORT_RADIUS, PORT_RADIUS)


class EdgeItem(QGraphicsPathItem):
    """A curve from an output port to an input port; Qt draws it (no Python per paint). Its pen shows
    whether it is selected (the scene says so) or was taken by a run."""

    def __init__(self, edge_id: str, source: NodeItem, handle: str, target: NodeItem) -> None:
        super().__init__()
        self.edge_id, self.source, self.handle, self.target = edge_id, source, handle, target
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(0)
        self.taken = False
        self.shown_selected = False
        self.setPen(Look.get().edge_pen)
        source.edges.append(self)
        target.edges.append(self)
        if handle != "source":
            self.setToolTip(handle)
        self.update_path()

    def _pen(self) -> None:
        look = Look.get()
        self.setPen(look.selected_pen if self.shown_selected else look.taken_pen if self.taken else look.edge_pen)

    def recolour(self) -> None:
        """The scheme changed: the pen of the new look."""
        self._pen()

    def set_taken(self, taken: bool) -> None:
        if taken != self.taken:
            self.taken = taken
            self._pen()

    def show_selected(self, selected: bool) -> None:
        if selected != self.shown_selected:
            self.shown_selected = selected
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


def curve(start: QPointF, end: QPointF) -> QPainterPath:
    path = QPainterPath(start)
    dx = max(60.0, abs(end.x() - start.x()) / 2)
    path.cubicTo(start + QPointF(dx, 0), end - QPointF(dx, 0), end)
    return path


class NoteItem(QGraphicsTextItem):
    """A canvas note: yellow (a dim yellow in the dark scheme), movable, its text edited in place: a double-click starts editing, Escape or a
    click elsewhere ends it, and the scene's `note_edited` then carries the new text (one command)."""

    def __init__(self, note_id: str, text: str) -> None:
        super().__init__(text)
        self.note_id = note_id
        self._before = text
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setTextWidth(180)
        self.setZValue(-1)
        self.recolour()

    def recolour(self) -> None:
        """The text in the current look's note colour (the paper follows at the next paint)."""
        self.setDefaultTextColor(Look.get().note_text)
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        look = Look.get()
        painter.setPen(look.note_selected_pen if self.isSelected() else look.note_pen)
        painter.setBrush(look.note_brush)
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
