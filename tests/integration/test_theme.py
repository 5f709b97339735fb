"""The theme: light and dark palettes and stylesheet, Lucide icons drawn in the palette's text colour."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from app.ui import theme
from tests.support.theme import restored  # noqa: F401  (fixture)


def _drawn_colour(image: QImage) -> QColor:
    """The colour of the icon's opaque strokes (the most common one: edge pixels round differently)."""
    opaque = Counter(image.pixelColor(x, y).name() for x in range(image.width()) for y in range(image.height())
                     if image.pixelColor(x, y).alpha() == 255)
    assert opaque, "the icon drew nothing"
    return QColor(opaque.most_common(1)[0][0])


def test_dark_and_light_follow_the_override_and_recolour_icons(restored: QApplication,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    back = theme.icon("arrow-left")
    monkeypatch.setenv("BROWSERPILOT_THEME", "dark")
    theme.apply_theme(restored)
    assert theme.is_dark()
    assert restored.palette().color(QPalette.ColorRole.Window).lightness() < 60
    dark_ink = _drawn_colour(back.pixmap(QSize(48, 48)).toImage())
    assert dark_ink.lightness() > 180
    assert dark_ink == restored.palette().color(QPalette.ColorRole.WindowText)
    assert "@" not in restored.styleSheet()

    monkeypatch.setenv("BROWSERPILOT_THEME", "light")
    theme.apply_theme(restored)
    assert not theme.is_dark()
    assert restored.palette().color(QPalette.ColorRole.Window).lightness() > 200
    light_ink = _drawn_colour(back.pixmap(QSize(48, 48)).toImage())   # the same QIcon, re-coloured
    assert light_ink.lightness() < 80
    assert theme.LIGHT.accent in restored.styleSheet() and theme.DARK.accent not in restored.styleSheet()


def test_icons_are_crisp_at_any_size_and_a_colour_can_be_fixed(restored: QApplication) -> None:
    search = theme.icon("search")
    for side, ratio in ((16, 1.0), (16, 2.0), (40, 1.0), (128, 1.0)):
        pixmap = search.pixmap(QSize(side, side), ratio)
        assert pixmap.size() == QSize(round(side * ratio), round(side * ratio))
        assert not pixmap.toImage().isNull()
    red = _drawn_colour(theme.icon("circle-dot", color="#c62828").pixmap(QSize(32, 32)).toImage())
    assert red.name() == "#c62828"


def test_an_unknown_icon_or_theme_is_a_clear_error(restored: QApplication) -> None:
    with pytest.raises(theme.UnknownIconError, match="unknown icon 'no-such-icon'"):
        theme.icon("no-such-icon")
    with pytest.raises(ValueError, match="unknown icon"):
        theme.icon("../styles/app")
    with pytest.raises(ValueError, match="unknown theme 'purple'"):
        theme.apply_theme(restored, scheme="purple")


def test_every_bundled_icon_renders_and_the_licence_is_there() -> None:
    names = theme.icon_names()
    for needed in ("arrow-left", "arrow-right", "rotate-cw", "x", "plus", "house", "circle-dot", "square",
                   "play", "download", "folder-open", "settings", "bot", "user", "hand", "lock", "workflow",
                   "history", "trash-2", "triangle-alert", "loader", "globe", "external-link"):
        assert needed in names
    assert (theme.ICON_DIR / "LICENSE").read_text("utf-8").startswith("ISC License")
    for name in names:
        assert "currentColor" in (theme.ICON_DIR / f"{name}.svg").read_text("utf-8"), name
