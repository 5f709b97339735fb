"""A small overview of the whole level in the canvas's corner: every node as a box, the visible part as a
frame; a click or drag there moves the view. It draws boxes itself (not the scene), and only when the level
changes (a moment after a burst of edits, not in the edit's own frame): the boxes are kept in a pixmap, so a
pan or a zoom only copies it and draws the frame."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsScene, QWidget

from app.ui.editor.items import PORT_GRIP, Look


class MinimapHost(Protocol):
    """The view the minimap sits on (app/ui/editor/view.py `EditorView`)."""

    def viewport(self) -> QWidget: ...
    def scene(self) -> QGraphicsScene | None: ...
    def visible_scene_rect(self) -> QRectF: ...
    def centerOn(self, point: QPointF) -> None: ...  # noqa: N802 (Qt's name)


SIZE = (200, 130)
REDRAW_MS = 150   # after the level changes, the boxes are drawn again this much later


class Minimap(QWidget):
    def __init__(self, view: MinimapHost) -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("editor-minimap")
        self.resize(*SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("Overview: click or drag to move the view"))
        self._boxes: list[tuple[QRectF, QColor]] | None = None   # scene rect and colour of each node
        self._by_colour: dict[str, list[QRectF]] = {}
        self._nodes_bounds = QRectF()
        self._pixmap: QPixmap | None = None
        self._pixmap_key: tuple[float, ...] = ()
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(REDRAW_MS)
        self._redraw.timeout.connect(self._forget_boxes)

    def place(self) -> None:
        viewport = self.view.viewport().geometry()
        self.move(viewport.right() - self.width() - 8, viewport.bottom() - self.height() - 8)
        self.raise_()

    def level_changed(self) -> None:
        """The nodes of the level moved, came or went: draw the boxes again in a moment."""
        if self._boxes is not None:
            self._redraw.start()

    def level_shown(self) -> None:
        """Another level (or a reload): draw its boxes at the next paint."""
        self._redraw.stop()
        self._forget_boxes()

    def _forget_boxes(self) -> None:
        self._boxes = None
        self.update()

    def _nodes(self) -> list[tuple[QRectF, QColor]]:
        if self._boxes is None:
            scene = self.view.scene()
            self._boxes = scene.boxes() if scene is not None else []
            self._by_colour = {}
            bounds = QRectF()
            for rect, colour in self._boxes:
                bounds = bounds.united(rect)
                self._by_colour.setdefault(colour.name(), []).append(rect)
            self._nodes_bounds = bounds.adjusted(-PORT_GRIP, -4, PORT_GRIP, 22)  # as far as a node draws
        return self._boxes

    def _frame(self) -> tuple[QRectF, float, QPointF]:
        self._nodes()
        visible = self.view.visible_scene_rect()
        bounds = self._nodes_bounds.united(visible) if not self._nodes_bounds.isEmpty() else visible
        scale = min((self.width() - 8) / max(bounds.width(), 1), (self.height() - 8) / max(bounds.height(), 1))
        offset = QPointF(4 - bounds.left() * scale, 4 - bounds.top() * scale)
        return bounds, scale, offset

    def _boxes_pixmap(self, scale: float, offset: QPointF) -> QPixmap:
        key = (scale, offset.x(), offset.y(), float(self.width()), float(self.height()))
        if self._pixmap is None or key != self._pixmap_key:
            ratio = self.devicePixelRatioF()
            pixmap = QPixmap(int(self.width() * ratio), int(self.height() * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.translate(offset)
            painter.scale(scale, scale)
            self._nodes()
            for name, rects in self._by_colour.items():
                outline = QPen(QColor(name), 2)  # in pixels: a node stays visible however small the scale
                outline.setCosmetic(True)
                painter.setPen(outline)
                painter.setBrush(QColor(name))
                painter.drawRects(rects)
            painter.end()
            self._pixmap, self._pixmap_key = pixmap, key
        return self._pixmap

    def paintEvent(self, event: QPaintEvent) -> None:
        colours = Look.get().colours
        painter = QPainter(self)
        background = QColor(colours.minimap)
        background.setAlpha(220)
        painter.fillRect(self.rect(), background)
        painter.setPen(QPen(QColor(colours.minimap_border)))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        if self.view.scene() is None:
            return
        _bounds, scale, offset = self._frame()
        painter.drawPixmap(0, 0, self._boxes_pixmap(scale, offset))
        visible = self.view.visible_scene_rect()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(colours.selected), 1.5))
        painter.drawRect(QRectF(visible.topLeft() * scale + offset, visible.bottomRight() * scale + offset))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._centre(event.position())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._centre(event.position())

    def _centre(self, point: QPointF) -> None:
        _bounds, scale, offset = self._frame()
        self.view.centerOn((point - offset) / scale)
        self.update()
