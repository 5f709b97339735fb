"""Tabs without a window: a view that is on no screen and paints nowhere, sized like a window's page area,
whose page Chromium lays out, animates and gives trusted input to as in a window.

The view is a top-level widget that Qt counts as shown but puts on no screen (`WA_DontShowOnScreen`): its render
widget (a QQuickWidget) keeps rendering Chromium's frames, so the page keeps getting frames (animation
frames, input, scrolling all wait for them; a view Qt does not show at all stops after its first frame).
With updates switched off, nothing paints those frames into a window's backing store: one frame copy stays
(the render widget's picture), not two (~3.6 MB less per tab at 1200x760; measured in-process, 10 tabs: the
app process 35 MB smaller). A screenshot switches updates on while it grabs (`grabbing`). A window that adopts
the tab (`show_in_window`) undoes all of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QSize, Qt
from PySide6.QtWebEngineWidgets import QWebEngineView


def keep_windowless(view: QWebEngineView, size: QSize) -> None:
    """Make `view` a tab without a window (see the module's docstring)."""
    view.windowless = True  # type: ignore[attr-defined]
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    view.resize(size)
    view.show()
    view.setUpdatesEnabled(False)


def show_in_window(view: QWebEngineView) -> None:
    """A window adopts the tab: Qt lays it out, shows and paints it from now on."""
    view.windowless = False  # type: ignore[attr-defined]
    view.hide()
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, False)
    view.setUpdatesEnabled(True)


def is_windowless(view: QWebEngineView) -> bool:
    return bool(getattr(view, "windowless", False))


@contextmanager
def grabbing(view: QWebEngineView) -> Iterator[None]:
    """While a picture of the view is taken: a windowless view paints (into the picture only)."""
    if not is_windowless(view):
        yield
        return
    view.setUpdatesEnabled(True)
    try:
        yield
    finally:
        view.setUpdatesEnabled(False)
