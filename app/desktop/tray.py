"""The system tray icon: what unattended work is doing, and a menu to reach it.

The icon is the app's, with a badge: none when idle, a blue disc with the number of runs going (`running(n)`),
an amber disc with "!" when a run waits for a person (`needs you`). The menu: Open BrowserPilot, the runs
waiting for a person (choosing one raises its window on the waiting tab), the latest events (a failed run, a
finished batch, a skipped time: the same events the desktop notifications tell, so nothing is lost where no
notification service runs), Pause all schedules, Quit.

Where the desktop has no tray (`QSystemTrayIcon.isSystemTrayAvailable()` is False), `available` is False and
the app keeps its main window instead (app/desktop/unattended.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QObject, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from app.startup.resources import APP_ICON
from app.ui.theme import icon
from plumbing import loggers

log = logging.getLogger(loggers.UI)

ICON_SIZE = 64
RECENT_EVENTS = 6
RUNNING_COLOR = "#1a73e8"
NEEDS_YOU_COLOR = "#f29900"


@dataclass(frozen=True)
class TrayEntry:
    """A line of the menu: its text and what choosing it does."""

    text: str
    action: Callable[[], None]


def badge_icon(text: str | None, color: str) -> QIcon:
    """The app's icon with a round badge in the lower right (none when `text` is None)."""
    pixmap = QPixmap(ICON_SIZE, ICON_SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QIcon(str(APP_ICON)).paint(painter, 0, 0, ICON_SIZE, ICON_SIZE)
    if text is not None:
        size = ICON_SIZE * 0.58
        disc = QRectF(ICON_SIZE - size, ICON_SIZE - size, size, size)
        painter.setPen(QColor("white"))
        painter.setBrush(QColor(color))
        painter.drawEllipse(disc.adjusted(1, 1, -1, -1))
        font = QFont()
        font.setBold(True)
        font.setPixelSize(int(size * (0.62 if len(text) < 2 else 0.5)))
        painter.setFont(font)
        painter.drawText(disc, Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return QIcon(pixmap)


class Tray(QObject):
    """The tray icon and its menu (see the module docstring)."""

    open_requested = Signal()
    quit_requested = Signal()
    pause_toggled = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.state = "idle"
        self.running = 0
        self.waiting: list[TrayEntry] = []
        self.events: list[TrayEntry] = []
        self.paused = False
        self.icon = QSystemTrayIcon(self)
        self.icon.setObjectName("tray")
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self._icons = {"idle": badge_icon(None, RUNNING_COLOR), "needs_you": badge_icon("!", NEEDS_YOU_COLOR)}
        self._rebuild()

    def show(self) -> bool:
        """Show the icon when the desktop has a tray; False where it has none."""
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        if self.available:
            self.icon.show()
        return self.available

    def hide(self) -> None:
        self.icon.hide()

    def close(self) -> None:
        self.icon.hide()
        self.menu.deleteLater()

    # -- state ---------------------------------------------------------------------------------------------
    def set_running(self, count: int) -> None:
        if count != self.running:
            self.running = count
            self._rebuild()

    def set_waiting(self, entries: list[TrayEntry]) -> None:
        self.waiting = list(entries)
        self._rebuild()

    def add_event(self, entry: TrayEntry) -> None:
        self.events = [entry, *self.events][:RECENT_EVENTS]
        self._rebuild()

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        self._rebuild()

    def show_message(self, title: str, text: str) -> None:
        if self.icon.isVisible() and self.icon.supportsMessages():
            self.icon.showMessage(title, text, badge_icon(None, RUNNING_COLOR), 10_000)

    def _rebuild(self) -> None:
        if self.waiting:
            self.state = "needs_you"
            self.icon.setIcon(self._icons["needs_you"])
            tip = self.tr("BrowserPilot: %n run(s) need you", "", len(self.waiting))
        elif self.running:
            self.state = "running"
            self.icon.setIcon(badge_icon(str(self.running) if self.running < 10 else "9+", RUNNING_COLOR))
            tip = self.tr("BrowserPilot: %n run(s) going", "", self.running)
        else:
            self.state = "idle"
            self.icon.setIcon(self._icons["idle"])
            tip = self.tr("BrowserPilot: idle")
        if self.paused:
            tip += "\n" + self.tr("Schedules are paused")
        self.icon.setToolTip(tip)
        menu = self.menu
        menu.clear()
        menu.addAction(icon("app-window"), self.tr("Open BrowserPilot"), self.open_requested.emit)
        if self.waiting:
            menu.addSection(self.tr("Waiting for you"))
            for entry in self.waiting:
                menu.addAction(icon("hand"), entry.text, entry.action)
        if self.events:
            menu.addSection(self.tr("Recent"))
            for entry in self.events:
                menu.addAction(entry.text, entry.action)
        menu.addSeparator()
        pause = QAction(icon("circle-pause"), self.tr("Pause All Schedules"), menu)
        pause.setObjectName("tray-pause")
        pause.setCheckable(True)
        pause.setChecked(self.paused)
        pause.toggled.connect(self.pause_toggled.emit)
        menu.addAction(pause)
        menu.addAction(icon("power"), self.tr("Quit"), self.quit_requested.emit)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_requested.emit()
