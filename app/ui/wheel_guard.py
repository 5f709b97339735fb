"""One rule for the whole app: the mouse wheel changes a value only in the widget that has the keyboard focus.

A combo box, spin box or slider that merely sits under the pointer while a person scrolls a form would otherwise
take the wheel and change its value (a run input, a setting written at once, a node's field in the editor).
`install_wheel_guard` puts the rule in place once at start-up, for every widget, present and future:

- the application's style becomes a `WheelGuardStyle` (a proxy of the style it had, Fusion in the app), whose
  `polish` sees every widget as it is shown the first time;
- a value widget gets the guard as its event filter, and `Qt.StrongFocus` instead of `Qt.WheelFocus`: the wheel
  never gives it the focus (a click or Tab does);
- a wheel event for a value widget without the focus is ignored by it and goes on to its parents, so the
  scroll area around it scrolls, as if the widget were not there.

Not an application-wide event filter: a Python filter called for every event of every object (QtWebEngine's
own included) crashed the process here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QProxyStyle, QScrollBar, QWidget

GUARD_NAME = "browserpilot-wheel-guard"


def is_value_widget(widget: QObject) -> bool:
    """A widget whose value the wheel changes (a scroll bar is not one: scrolling is its job)."""
    return isinstance(widget, (QAbstractSpinBox, QComboBox)) or (
        isinstance(widget, QAbstractSlider) and not isinstance(widget, QScrollBar))


class WheelGuard(QObject):
    """The event filter of every value widget."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()  # not taken here: on to the parents (the scroll area)
            return True
        return False

    def guard(self, widget: QWidget) -> None:
        if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        widget.removeEventFilter(self)  # once, however often the widget is polished
        widget.installEventFilter(self)


class WheelGuardStyle(QProxyStyle):
    """The application's style, which also guards each value widget it polishes."""

    def __init__(self, base: str, guard: WheelGuard) -> None:
        super().__init__(base)
        self.guard = guard

    def polish(self, target: Any) -> Any:  # QWidget, QApplication or QPalette (Qt's overloads)
        result = super().polish(target)
        if isinstance(target, QWidget) and is_value_widget(target):
            self.guard.guard(target)
        return result


def install_wheel_guard(app: QCoreApplication | None = None, base: str | None = None) -> WheelGuard | None:
    """Make the application's style a `WheelGuardStyle` over `base` (default: the style it has); once, and again
    only when the style was replaced or another base is asked for."""
    app = app or QApplication.instance()
    if not isinstance(app, QApplication):
        return None
    guard = app.findChild(WheelGuard, GUARD_NAME)
    if guard is None:
        guard = WheelGuard(app)
        guard.setObjectName(GUARD_NAME)
    style = app.style()
    current = style.baseStyle().name() if isinstance(style, WheelGuardStyle) else style.name()
    wanted = base or current
    if not isinstance(style, WheelGuardStyle) or wanted.lower() != current.lower():
        app.setStyle(WheelGuardStyle(wanted, guard))
    return guard
