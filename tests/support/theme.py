"""The `restored` fixture: the shared QApplication, its palette, stylesheet and font put back after a test that
applies a theme (other tests expect the plain look)."""

from __future__ import annotations

from typing import Iterator

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication


@pytest.fixture
def restored(qapp: QApplication) -> Iterator[QApplication]:
    palette, sheet, font = QPalette(qapp.palette()), qapp.styleSheet(), qapp.font()
    yield qapp
    qapp.setProperty("browserpilotTheme", None)
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    qapp.setFont(font)
