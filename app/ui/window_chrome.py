"""The chrome of an environment's window (app/ui/env_window.py), widget by widget: the tab bar that underlines a
group's tabs and the chip before a group's first tab, the address bar with its load-progress line and its
lock or globe, the tool button with a count badge, and the loader that turns in a loading tab's icon."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRect, QRectF, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPaintEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QTabBar, QToolButton, QWidget

from app.ui.theme import icon
from envs.groups import TabGroup

ADDRESS_RADIUS = 14  # as QLineEdit#address's border-radius in app.qss
PROGRESS_LINE = 3  # px: the load progress line in the address bar
SPINNER_MS = 80
SPINNER_STEPS = 12


def window_title(env_name: str) -> str:
    return f"{env_name} — BrowserPilot"


class GroupedTabBar(QTabBar):
    """A tab bar that underlines each grouped tab in its group's colour (`colour_of(index)`)."""

    def __init__(self, colour_of: Callable[[int], QColor | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._colour_of = colour_of

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        for index in range(self.count()):
            colour = self._colour_of(index)
            if colour is not None:
                rect = self.tabRect(index)
                painter.fillRect(QRect(rect.left() + 1, rect.bottom() - 2, rect.width() - 2, 3), colour)
        painter.end()


def group_chip(group: TabGroup) -> QLabel:
    """The label before a group's first tab: its name on its colour (a dot when it has no name)."""
    chip = QLabel(group.name or " ")
    chip.setObjectName(f"group-chip-{group.id}")
    text = "#ffffff" if QColor(group.color).lightnessF() < 0.6 else "#202124"
    chip.setStyleSheet(f"QLabel {{ background: {group.color}; color: {text}; border-radius: 7px; "
                       f"padding: 0px 6px; font-weight: 600; }}")
    translate = QCoreApplication.translate
    chip.setToolTip(translate("EnvWindow", "Tab group {name}").format(name=group.name) if group.name
                    else translate("EnvWindow", "Tab group"))
    return chip


class AddressBar(QLineEdit):
    """The address field. While the front tab loads, a thin accent line along its bottom edge grows with the
    load progress (`load_progress`: 0..100, None when nothing loads); a lock or globe at its start says
    whether the page came over HTTPS."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("address")
        self._progress: int | None = None
        self.site_action = self.addAction(icon("globe"), QLineEdit.ActionPosition.LeadingPosition)
        self.site_action.setObjectName("address-site")

    @property
    def load_progress(self) -> int | None:
        return self._progress

    def set_load_progress(self, value: int | None) -> None:
        if value != self._progress:
            self._progress = value
            self.update()

    def show_site(self, url: QUrl) -> None:
        secure = url.scheme() == "https"
        self.site_action.setIcon(icon("lock" if secure else "globe"))
        self.site_action.setToolTip(self.tr("Secure connection (HTTPS)") if secure
                                    else self.tr("The connection to this site is not encrypted")
                                    if url.scheme() == "http" else "")

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        if self._progress is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        frame = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        radius = min(ADDRESS_RADIUS, frame.height() / 2)
        clip = QPainterPath()
        clip.addRoundedRect(frame, radius, radius)
        painter.setClipPath(clip)
        shown = max(self._progress, 4) / 100  # a sliver as soon as a load starts
        painter.fillRect(QRectF(frame.left(), frame.bottom() - PROGRESS_LINE, frame.width() * shown, PROGRESS_LINE),
                         self.palette().color(self.palette().ColorRole.Highlight))
        painter.end()


class BadgeButton(QToolButton):
    """A tool button with a small count in its top right corner (hidden at 0)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = QLabel(self)
        self.badge.setObjectName("downloadsBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.badge.hide()

    def set_count(self, count: int) -> None:
        self.badge.setText(str(count) if count < 100 else "99+")
        self.badge.setVisible(count > 0)
        self._place_badge()

    def _place_badge(self) -> None:
        self.badge.adjustSize()
        width = max(self.badge.sizeHint().width(), 14)
        self.badge.setGeometry(self.width() - width, 0, width, 14)
        self.badge.raise_()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_badge()


class TabSpinner(QObject):
    """The loader that turns in loading tabs' icons: `start` it when a tab starts loading; every step it emits
    `turned` (the window redraws its loading tabs' icons with `frame`, and `stop`s it when none loads). Frames are
    drawn once per step, size ratio and colour, in the widget's accent colour."""

    turned = Signal()

    def __init__(self, widget: QWidget, side: int) -> None:
        super().__init__(widget)
        self._widget = widget
        self._side = side
        self._step = 0
        self._frames: dict[tuple[int, float, int], QIcon] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(SPINNER_MS)
        self._timer.timeout.connect(self._turn)

    def isActive(self) -> bool:  # noqa: N802 (as QTimer's, which it stands for)
        return self._timer.isActive()

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _turn(self) -> None:
        self._step = (self._step + 1) % SPINNER_STEPS
        self.turned.emit()

    def frame(self) -> QIcon:
        """The loader icon turned to the current step, in the accent colour (one per step, kept)."""
        ratio = self._widget.devicePixelRatioF()
        palette = self._widget.palette()
        colour = palette.color(palette.ColorRole.Highlight)
        key = (self._step, ratio, colour.rgba())
        frame = self._frames.get(key)
        if frame is None:
            if len(self._frames) > 4 * SPINNER_STEPS:
                self._frames.clear()
            frame = self._frames[key] = self._draw(ratio, colour)
        return frame

    def _draw(self, ratio: float, colour: QColor) -> QIcon:
        side = round(self._side * ratio)
        source = icon("loader-circle", color=colour)
        pixmap = QPixmap(side, side)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.translate(side / 2, side / 2)
        painter.rotate(self._step * 360 / SPINNER_STEPS)
        painter.drawPixmap(QPointF(-side / 2, -side / 2), source.pixmap(QSize(side, side)))
        painter.end()
        pixmap.setDevicePixelRatio(ratio)
        return QIcon(pixmap)

