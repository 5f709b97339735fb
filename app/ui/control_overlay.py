"""What a tab shows of its control state (app/browser/control.py).

- `ControlOverlay`, in `agent`: covers the whole view with a light tint and a frame in the highlight colour, so
  the person still watches the page; a card at the bottom says "BrowserPilot is operating this page" and offers
  **Take over**. Clicks, wheel, context menus and drags on it stop there (the keyboard is stopped by the
  control's filter on the render widget). A click on the page nudges the card.
- `HandoffBanner`, in `handoff`: a slim bar *above* the page (the view's top contents margin, so the page is
  pushed down, not covered) with the message and **Done**.
- `shared`: neither.

Both are children of the view (so they follow it between tabs and windows) and are registered with the
control as decorations: never filtered, and hidden by `TabControl.hidden_for_capture()` for screenshots.
Colours come from the palette, so light and dark themes both work. `state_icon`, `state_text` and
`state_chip` give the window what it shows on the tab, in tooltips and in the toolbar's coloured chip.
"""

from __future__ import annotations

import logging

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPainter, QPaintEvent, QPalette, QPen, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from app.browser.control import ControlState, TabControl
from app.ui.theme import current_scheme, icon
from plumbing import loggers

log = logging.getLogger(loggers.UI)

CARD_MARGIN = 20  # px between the overlay's card and the bottom of the view
FRAME_WIDTH = 3  # px of the overlay's frame in the highlight colour
NUDGE_MS = 700
HANDOFF_COLOR = QColor("#e0a100")  # amber: the person is asked to act (no palette role says "attention")

_SWALLOWED = frozenset({
    QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick,
    QEvent.Type.MouseMove, QEvent.Type.Wheel, QEvent.Type.ContextMenu, QEvent.Type.TouchBegin,
    QEvent.Type.TouchUpdate, QEvent.Type.TouchEnd, QEvent.Type.TabletPress, QEvent.Type.TabletMove,
    QEvent.Type.TabletRelease, QEvent.Type.NativeGesture,
})
# The tab icons with their state's dot, by (icon, colours, size): a loading tab's spinner asks for one per
# step (80 ms) and per tab; a handful of icons, so a small cache that is cleared when full.
STATE_ICONS_KEPT = 256
_STATE_ICONS: dict[tuple[int, int, int, int], QIcon] = {}

_RECOLOUR = frozenset({QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange, QEvent.Type.StyleChange})


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """`a` moved `amount` (0..1) of the way towards `b`."""
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * amount,
                           a.greenF() + (b.greenF() - a.greenF()) * amount,
                           a.blueF() + (b.blueF() - a.blueF()) * amount)


def state_color(state: ControlState | str, palette: QPalette) -> QColor | None:
    """The colour that marks a state on the tab and in the status bar (None for `shared`)."""
    state = ControlState(state)
    if state is ControlState.AGENT:
        return palette.color(QPalette.ColorRole.Highlight)
    if state is ControlState.HANDOFF:
        return HANDOFF_COLOR
    return None


def state_text(state: ControlState | str) -> str:
    """A few words for the tab's tooltip and the status bar."""
    translate = QCoreApplication.translate
    return {ControlState.AGENT: translate("ControlState", "BrowserPilot is operating this tab"),
            ControlState.HANDOFF: translate("ControlState", "Handed over to you: click Done when finished"),
            ControlState.SHARED: translate("ControlState", "You and BrowserPilot share this tab")}[ControlState(state)]


@dataclass(frozen=True)
class StateChip:
    """How the toolbar's chip shows a control state: a word or two, an icon name, and its colours."""

    text: str
    icon: str
    background: QColor
    foreground: QColor


def state_chip(state: ControlState | str, palette: QPalette) -> StateChip:
    """The chip for `state`: the agent in the accent colour, a handoff in amber, shared in a calm grey."""
    state = ControlState(state)
    translate = QCoreApplication.translate
    if state is ControlState.AGENT:
        background = palette.color(QPalette.ColorRole.Highlight)
        return StateChip(translate("ControlState", "Agent"), "bot", background,
                         palette.color(QPalette.ColorRole.HighlightedText))
    if state is ControlState.HANDOFF:
        return StateChip(translate("ControlState", "Your turn"), "hand", HANDOFF_COLOR, QColor("#1f1600"))
    scheme = current_scheme()
    return StateChip(translate("ControlState", "Shared"), "users", QColor(scheme.hover), QColor(scheme.text))


def state_icon(favicon: QIcon, state: ControlState | str, palette: QPalette, size: int = 16) -> QIcon:
    """The tab's favicon with a small dot in the state's colour in its lower right corner (none if shared)."""
    color = state_color(state, palette)
    if color is None:
        return favicon
    base = palette.color(QPalette.ColorRole.Base)
    key = (favicon.cacheKey(), color.rgba(), base.rgba(), size)
    made = _STATE_ICONS.get(key)
    if made is None:
        if len(_STATE_ICONS) >= STATE_ICONS_KEPT:
            _STATE_ICONS.clear()
        made = _STATE_ICONS[key] = _draw_state_icon(favicon, color, base, size)
    return made


def _draw_state_icon(favicon: QIcon, color: QColor, base: QColor, size: int) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if not favicon.isNull():
        painter.drawPixmap(0, 0, favicon.pixmap(size, size))
    radius = size * 0.28
    centre = QPoint(int(size - radius - 1), int(size - radius - 1))
    painter.setPen(QPen(base, 1.5))
    painter.setBrush(color)
    painter.drawEllipse(centre, int(radius), int(radius))
    painter.end()
    return QIcon(pixmap)


class _Card(QFrame):
    """The overlay's rounded card: message and Take over."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("control-card")
        self.nudged = False
        self.message = QLabel(self)
        self.message.setObjectName("control-message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        font = self.message.font()
        font.setBold(True)
        self.message.setFont(font)
        self.button = QPushButton(icon("hand"), self.tr("Take over"), self)
        self.button.setObjectName("control-take-over")
        self.button.setToolTip(self.tr("Stop BrowserPilot here and use this page yourself"))
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setDefault(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 10, 10, 10)
        layout.setSpacing(14)
        dot = QLabel(self)
        dot.setFixedSize(10, 10)
        dot.setObjectName("control-dot")
        self._dot = dot
        layout.addWidget(dot)
        layout.addWidget(self.message)
        layout.addWidget(self.button)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self._cache: QPixmap | None = None
        self._cache_key: tuple[object, ...] = ()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        # The card lies over the page, so every frame the page paints repaints it: draw it once into a
        # pixmap per size, nudge and palette, and copy that pixmap on each repaint.
        palette = self.palette()
        highlight = palette.color(QPalette.ColorRole.Highlight)
        border = highlight if self.nudged else palette.color(QPalette.ColorRole.Mid)
        window = palette.color(QPalette.ColorRole.Window)
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self.nudged, highlight.rgba(), border.rgba(), window.rgba(),
               self._dot.geometry().getRect())
        if key != self._cache_key or self._cache is None:
            pixmap = QPixmap(QSize(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(border, 2.0 if self.nudged else 1.0))
            painter.setBrush(window)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 10, 10)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(highlight)
            painter.drawEllipse(QRectF(self._dot.geometry()))
            painter.end()
            self._cache, self._cache_key = pixmap, key
        QPainter(self).drawPixmap(0, 0, self._cache)


class ControlOverlay(QWidget):
    """Covers the view while the agent operates the page."""

    def __init__(self, control: TabControl) -> None:
        super().__init__(None)
        self.setObjectName("control-overlay")
        self.setAccessibleName(self.tr("BrowserPilot is operating this page"))
        self.setAcceptDrops(False)  # drags go on to the view, where the control's filter refuses them
        self.setAttribute(Qt.WidgetAttribute.WA_AcceptTouchEvents, True)
        # The tint and the frame are plain widgets that fill their background (drawn by Qt, no Python), so the
        # page's frames below, which repaint whatever covers them, cost no paint code of ours.
        self._tint = QWidget(self)
        self._edges = [QWidget(self) for _ in range(4)]
        for part in (self._tint, *self._edges):
            part.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
            part.setAutoFillBackground(True)
        self._recolour()
        self.card = _Card(self)
        self.card.button.clicked.connect(lambda: self._take_over(control))
        self._unnudge = QTimer(self)
        self._unnudge.setSingleShot(True)
        self._unnudge.setInterval(NUDGE_MS)
        self._unnudge.timeout.connect(lambda: self._set_nudged(False))

    @staticmethod
    def _take_over(control: TabControl) -> None:
        control.take_over()
        control.view.setFocus(Qt.FocusReason.OtherFocusReason)  # the person wants the page: keys go there now

    @property
    def take_over_button(self) -> QPushButton:
        return self.card.button

    def set_message(self, text: str) -> None:
        self.card.message.setText(text)
        self._place_card()

    def _place_card(self) -> None:
        hint = self.card.sizeHint()
        width = min(hint.width(), max(0, self.width() - 2 * CARD_MARGIN))
        self.card.setGeometry(QRect((self.width() - width) // 2, self.height() - hint.height() - CARD_MARGIN,
                                    width, hint.height()))

    def _set_nudged(self, nudged: bool) -> None:
        self.card.nudged = nudged
        self.card.update()

    def _recolour(self) -> None:
        """The tint and frame in the palette's highlight colour (again when the palette or theme changes)."""
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        tint = QColor(highlight)
        tint.setAlpha(18)
        for part, colour in ((self._tint, tint), *((edge, highlight) for edge in self._edges)):
            palette = part.palette()
            if palette.color(QPalette.ColorRole.Window) != colour:
                palette.setColor(QPalette.ColorRole.Window, colour)
                part.setPalette(palette)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        width, height = self.width(), self.height()
        self._tint.setGeometry(0, 0, width, height)
        top, bottom, left, right = self._edges
        top.setGeometry(0, 0, width, FRAME_WIDTH)
        bottom.setGeometry(0, height - FRAME_WIDTH, width, FRAME_WIDTH)
        left.setGeometry(0, FRAME_WIDTH, FRAME_WIDTH, max(0, height - 2 * FRAME_WIDTH))
        right.setGeometry(width - FRAME_WIDTH, FRAME_WIDTH, FRAME_WIDTH, max(0, height - 2 * FRAME_WIDTH))
        self._place_card()

    def event(self, event: QEvent) -> bool:
        kind = event.type()
        if kind in _SWALLOWED:
            if kind == QEvent.Type.MouseButtonPress:
                self._set_nudged(True)
                self._unnudge.start()
            event.accept()  # stop here: do not propagate to the view
            return True
        if kind in _RECOLOUR and hasattr(self, "_edges"):
            self._recolour()
        return super().event(event)


class HandoffBanner(QFrame):
    """A slim bar above the page while the person acts: the message and Done."""

    def __init__(self, control: TabControl) -> None:
        super().__init__(None)
        self.setObjectName("control-banner")
        self.setAccessibleName(self.tr("Handed over to you"))
        self.setAutoFillBackground(False)
        symbol = QLabel(self)
        symbol.setPixmap(icon("hand", color=HANDOFF_COLOR.darker(130)).pixmap(QSize(18, 18)))
        self.message = QLabel(self)
        self.message.setObjectName("control-banner-message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setForegroundRole(QPalette.ColorRole.Text)
        self.message.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.done_button = QPushButton(icon("circle-check"), self.tr("Done"), self)
        self.done_button.setObjectName("control-done")
        self.done_button.setToolTip(self.tr("Give the page back to BrowserPilot"))
        self.done_button.setDefault(True)
        self.done_button.clicked.connect(control.done)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 8, 7)
        layout.setSpacing(10)
        layout.addWidget(symbol)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.done_button)

    def set_message(self, text: str) -> None:
        self.message.setText(text)

    def height_for(self, width: int) -> int:
        layout = self.layout()
        if layout is not None and layout.hasHeightForWidth():
            return max(layout.heightForWidth(width), self.sizeHint().height())
        return self.sizeHint().height()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), mix(palette.color(QPalette.ColorRole.Base), HANDOFF_COLOR, 0.16))
        painter.fillRect(QRect(0, self.height() - 2, self.width(), 2), HANDOFF_COLOR)


class ControlDecorations(QObject):
    """Keeps a tab's overlay and banner in step with its control state and its view's geometry."""

    def __init__(self, control: TabControl) -> None:
        super().__init__(control)
        self.control = control
        self.view = control.view
        self.overlay = ControlOverlay(control)
        self.banner = HandoffBanner(control)
        for widget in (self.overlay, self.banner):
            control.add_decoration(widget)  # before parenting: the control's filter must never take them
            widget.hide()
            widget.setParent(self.view)
        self.view.installEventFilter(self)
        control.state_changed.connect(self._apply)
        self._apply(control.state)

    def _apply(self, _state: str = "") -> None:
        state = self.control.state
        if state is ControlState.HANDOFF:
            self.banner.set_message(self.control.message)
            self.overlay.hide()
            self.banner.show()
        elif state is ControlState.AGENT:
            self.overlay.set_message(self.control.message)
            self.banner.hide()
            self.overlay.show()
        else:
            self.overlay.hide()
            self.banner.hide()
        self._layout()

    def _layout(self) -> None:
        rect = self.view.rect()
        top = self.banner.height_for(rect.width()) if self.banner.isVisibleTo(self.view) else 0
        if self.view.contentsMargins().top() != top:
            self.view.setContentsMargins(0, top, 0, 0)  # the page's render widget moves down, below the banner
        if top:
            self.banner.setGeometry(0, 0, rect.width(), top)
            self.banner.raise_()
        if self.overlay.isVisibleTo(self.view):
            self.overlay.setGeometry(rect)
            self.overlay.raise_()

    def _raise(self) -> None:
        for widget in (self.overlay, self.banner):
            if widget.isVisibleTo(self.view):
                widget.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind == QEvent.Type.Resize:
            self._layout()
        elif kind in (QEvent.Type.ChildAdded, QEvent.Type.ChildPolished):
            # QtWebEngine adds a new render widget on top when it swaps renderers: stay above it.
            QTimer.singleShot(0, self, self._raise)
        return False


def attach_control_ui(control: TabControl) -> ControlDecorations:
    """Give a tab its overlay and banner; they live as long as the control (a child of the view)."""
    return ControlDecorations(control)
