"""The canvas's view: wheel zoom around the pointer, `Ctrl+0` fit, pan with the middle button or with Space
held while dragging (Space pressed and released without a drag asks for the add-node menu), rubber-band
selection, and a minimap in the corner."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from app.ui.editor.items import DETAIL_ZOOM
from app.ui.editor.minimap import Minimap

MIN_ZOOM, MAX_ZOOM = 0.1, 3.0


class EditorView(QGraphicsView):
    add_menu_requested = Signal(QPointF)   # scene position
    zoomed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor-view")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        # items keep their antialiased strokes inside their bounds and restore what they change
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState
                                  | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._pan_from: QPoint | None = None
        self._space_held = False
        self._space_dragged = False
        self.minimap = Minimap(self)

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, factor: float) -> None:
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        self.setTransform(self.transform().fromScale(factor, factor))
        self.zoomed.emit(factor)
        self.minimap.update()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.set_zoom(self.zoom * (1.15 ** steps))
        event.accept()

    def fit(self, legible: bool = False) -> None:
        """Show the whole graph (Ctrl+0); `legible` (a first view): never below the zoom where titles are drawn."""
        scene = self.scene()
        if scene is None:
            return
        bounds = scene.content_rect() if hasattr(scene, "content_rect") else scene.itemsBoundingRect()
        if bounds.isEmpty():
            return
        self.fitInView(bounds.adjusted(-40, -40, 40, 40), Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom > 1.0:
            self.set_zoom(1.0)
            self.centerOn(bounds.center())
        elif legible and self.zoom < DETAIL_ZOOM:
            # Never so far out that nodes lose their titles: at the smallest legible zoom, the graph's beginning
            # (its top left) is shown, and the rest is a scroll away.
            self.set_zoom(DETAIL_ZOOM)
            seen = self.visible_scene_rect()
            middle = bounds.center().y() if bounds.height() + 80 <= seen.height() \
                else bounds.top() - 40 + seen.height() / 2
            self.centerOn(bounds.left() - 40 + seen.width() / 2, middle)
        self.zoomed.emit(self.zoom)
        self.minimap.update()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    # -- panning --------------------------------------------------------------------------------------
    def _pan(self, pos: QPoint) -> None:
        if self._pan_from is None:
            return
        delta = pos - self._pan_from
        self._pan_from = pos
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
        self.minimap.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton or (self._space_held and event.button() == Qt.MouseButton.LeftButton):
            self._pan_from = event.position().toPoint()
            self._space_dragged = True
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan(event.position().toPoint())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _typing_in_scene(self) -> bool:
        """Whether an item of the scene (a note being edited) takes the keys as text."""
        item = self.scene().focusItem() if self.scene() is not None else None
        return item is not None and bool(item.flags() & item.GraphicsItemFlag.ItemAcceptsInputMethod)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._typing_in_scene():
            super().keyPressEvent(event)
            return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_held, self._space_dragged = True, False
            event.accept()
            return
        if event.key() == Qt.Key.Key_Space:
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat() and self._space_held:
            self._space_held = False
            if not self._space_dragged:
                inside = self.viewport().mapFromGlobal(self.cursor().pos())
                if not self.viewport().rect().contains(inside):
                    inside = self.viewport().rect().center()
                self.add_menu_requested.emit(self.mapToScene(inside))
            event.accept()
            return
        super().keyReleaseEvent(event)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.minimap.update()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        self.minimap.place()
