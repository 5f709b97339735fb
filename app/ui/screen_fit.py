"""Windows that fit the screen they open on: a window asks for its usual size and gets at most what the screen's
available area holds (with room for the window's frame), placed inside that area."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

SCREEN_SHARE = 0.92  # of the available area: the window manager's frame and title bar fit too


def fit_on_screen(window: QWidget, width: int, height: int) -> None:
    """Resize the top-level `window` to `width` x `height`, or less to fit its screen, and place it inside."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    fitted_width, fitted_height = min(width, int(area.width() * SCREEN_SHARE)), min(height, int(area.height() * SCREEN_SHARE))
    window.resize(fitted_width, fitted_height)
    window.move(area.left() + (area.width() - fitted_width) // 2, area.top() + (area.height() - fitted_height) // 2)
