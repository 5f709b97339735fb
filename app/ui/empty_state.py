"""Empty states and the panels' own styling: what a panel shows when it has nothing yet, and what to do.

`EmptyState` is a centred icon, a title, one line of help and buttons that do what they say (each button a
`(key, icon, text, handler)`; the first is the primary one). `TableOrEmpty` stacks a panel's table over its
empty state and shows one of them. `PANEL_STYLE` is the main window's stylesheet on top of the app's theme: it
only uses palette colours (`palette(...)`) and the theme's font scale, so it is right in light and dark alike.
"""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.ui.theme import FONT_SIZES, icon

ButtonSpec = tuple[str, str, str, Callable[[], object]]  # key, icon name, text, handler

PANEL_STYLE = f"""
QLabel[role="hint"] {{ color: palette(placeholder-text); font-size: {FONT_SIZES["font_small"]}pt; }}
QLabel[role="error"] {{ color: palette(bright-text); }}
QLabel[role="note"] {{ color: palette(placeholder-text); }}
QWidget#empty-state QLabel#empty-title {{ font-size: {FONT_SIZES["font_title"]}pt; font-weight: 600; }}
QWidget#empty-state QLabel#empty-text {{ color: palette(placeholder-text); }}
QWidget#empty-banner {{ background: palette(alternate-base); border: 1px solid palette(midlight);
                        border-radius: 8px; }}
QWidget#empty-banner QLabel#empty-title {{ font-weight: 600; }}
QWidget#empty-banner QLabel#empty-text {{ color: palette(placeholder-text); }}
QFrame#job-batch, QFrame#job-run {{ background: palette(alternate-base); border: 1px solid palette(midlight);
                                    border-radius: 8px; }}
QLabel#job-label {{ font-weight: 600; }}
QLabel#job-counts {{ color: palette(placeholder-text); font-size: {FONT_SIZES["font_small"]}pt; }}
QLabel#welcome-title {{ font-size: {FONT_SIZES["font_title"]}pt; font-weight: 600; }}
QLabel#welcome-section {{ font-weight: 600; margin-top: 6px; }}
QPlainTextEdit#welcome-config {{ font-family: monospace; font-size: {FONT_SIZES["font_small"]}pt; }}
"""


class EmptyState(QWidget):
    """Nothing here yet: an icon, a title, a line on what to do, and buttons that do it.

    `compact` lays it out as a banner (icon, text and buttons in one row) to sit under a table."""

    def __init__(self, name: str, icon_name: str, title: str, text: str, buttons: Sequence[ButtonSpec],
                 parent: QWidget | None = None, *, compact: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("empty-banner" if compact else "empty-state")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setProperty("emptyName", name)
        self.picture = QLabel(self)
        self.picture.setObjectName("empty-icon")
        self.picture.setPixmap(icon(icon_name).pixmap(24 if compact else 48, 24 if compact else 48))
        self.title = QLabel(title, self)
        self.title.setObjectName("empty-title")
        self.text = QLabel(text, self)
        self.text.setObjectName("empty-text")
        self.text.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        row.setSpacing(8)
        for position, (key, button_icon, label, handler) in enumerate(buttons):
            button = QPushButton(icon(button_icon), label, self)
            button.setObjectName(f"{name}-empty-{key}")
            button.setDefault(position == 0 and not compact)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _checked=False, h=handler: h())
            self.buttons[key] = button
            row.addWidget(button)
        if compact:
            words = QVBoxLayout()
            words.setSpacing(2)
            words.addWidget(self.title)
            words.addWidget(self.text)
            layout = QHBoxLayout(self)
            layout.setContentsMargins(12, 10, 12, 10)
            layout.setSpacing(12)
            layout.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignTop)
            layout.addLayout(words, 1)
            layout.addLayout(row)
            return
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setFixedWidth(480)  # a fixed width: the wrapped text gets the height it needs
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addLayout(row)
        centred.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.addStretch(1)
        layout.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.title, 0, Qt.AlignmentFlag.AlignHCenter)
        words = QHBoxLayout()  # no alignment flag: the label then gets the height its wrapped lines need
        words.addStretch(1)
        words.addWidget(self.text)
        words.addStretch(1)
        layout.addLayout(words)
        layout.addSpacing(6)
        layout.addLayout(centred)
        layout.addStretch(2)


class TableOrEmpty(QStackedWidget):
    """A panel's table, or its empty state when there are no rows."""

    def __init__(self, table: QWidget, empty: EmptyState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.empty = empty
        self.addWidget(table)
        self.addWidget(empty)

    def show_empty(self, empty: bool) -> None:
        self.setCurrentWidget(self.empty if empty else self.table)

    def is_empty_shown(self) -> bool:
        return self.currentWidget() is self.empty
