"""A small overview of the whole level in the canvas's corner: every node as a box, the visible part as a
frame; a click or drag there moves the view. It draws boxes itself (not the scene), so it stays cheap for
big workflows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from app.ui.editor.items import CATEGORY_COLOURS, NODE_WIDTH, NodeItem, category_of

if TYPE_CHECKING:
    from app.ui.editor.view import EditorView

SIZE = (200, 130)


class Minimap(QWidget):
    def __init__(self, view: "EditorView") -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("editor-minimap")
        self.resize(*SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("Overview: click or drag to move the view"))

    def place(self) -> None:
        viewport = self.view.viewport().geometry()
        self.move(viewport.right() - self.width() - 8, viewport.bottom() - self.height() - 8)
        self.raise_()

    def _frame(self) -> tuple[QRectF, float, QPointF]:
        scene = self.view.scene()
        nodes = [i for i in scene.items() if isinstance(i, NodeItem)] if scene else []
        bounds = QRectF()
        for item in nodes:
            bounds = bounds.united(item.sceneBoundingRect())
        bounds = bounds.united(self.view.visible_scene_rect()) if not bounds.isEmpty() else self.view.visible_scene_rect()
        scale = min((self.width() - 8) / max(bounds.width(), 1), (self.height() - 8) / max(bounds.height(), 1))
        offset = QPointF(4 - bounds.left() * scale, 4 - bounds.top() * scale)
        return bounds, scale, offset

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(255, 255, 255, 220))
        painter.setPen(QPen(QColor("#b0bec5")))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        scene = self.view.scene()
        if scene is None:
            return
        _bounds, scale, offset = self._frame()
        painter.setPen(Qt.PenStyle.NoPen)
        for item in scene.items():
            if isinstance(item, NodeItem):
                pos = item.scenePos() * scale + offset
                painter.setBrush(QColor(CATEGORY_COLOURS.get(category_of(item.kind), "#757575")))
                painter.drawRect(QRectF(pos, QPointF(pos.x() + max(NODE_WIDTH * scale, 2),
                                                     pos.y() + max(item.height * scale, 2))))
        visible = self.view.visible_scene_rect()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor("#ffb300"), 1.5))
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
