"""The app's look: Lucide icons drawn in the palette's text colour, and a light or dark Fusion theme.

`apply_theme(app)` sets the Fusion style, a light or dark palette and the stylesheet built from
`resources/styles/app.qss` (its `@token` placeholders are filled from the scheme's colours and the one font
scale). The scheme follows the system (`QStyleHints.colorScheme()`, re-applied on `colorSchemeChanged`);
`BROWSERPILOT_THEME=light|dark` overrides it (screenshots, tests).

`icon(name)` is a Lucide icon (https://lucide.dev, ISC licence, `resources/icons/lucide/`). Its engine draws
the SVG at the size asked for (crisp at any size and device pixel ratio) in the colour of the application's
palette at paint time, so icons already on screen re-colour by themselves when the theme changes. Rendered
pixmaps are cached in QPixmapCache, the SVG sources in memory.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QCoreApplication, QRect, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QIconEngine, QPainter, QPalette, QPixmap, QPixmapCache
from PySide6.QtWidgets import QApplication

from app.startup.resources import RESOURCES_DIR
from app.ui.wheel_guard import install_wheel_guard
from plumbing import loggers

log = logging.getLogger(loggers.UI)

ICON_DIR = RESOURCES_DIR / "icons" / "lucide"
STYLE_FILE = RESOURCES_DIR / "styles" / "app.qss"
THEME_ENV = "BROWSERPILOT_THEME"
SCHEMES = ("light", "dark")

# Dynamic properties on the QApplication (no module state): the scheme applied, and whether the system's
# colorSchemeChanged signal is already connected.
_SCHEME_PROPERTY = "browserpilotTheme"
_CONNECTED_PROPERTY = "browserpilotThemeFollowsSystem"


class UnknownIconError(ValueError):
    """An icon name with no SVG in resources/icons/lucide."""


@dataclass(frozen=True)
class Scheme:
    """The colours of one scheme; the stylesheet's `@token`s are these field names."""

    name: str
    window: str
    base: str
    alternate: str
    raised: str          # toolbars, tab strip, headers
    text: str
    muted: str           # secondary text, placeholders
    border: str
    border_strong: str
    hover: str           # background of a hovered flat button
    pressed: str
    accent: str          # the one accent colour: focus, selection, progress, checked
    accent_text: str
    accent_soft: str     # a tinted background (selected rows, checked buttons)
    danger: str
    success: str
    warning: str


LIGHT = Scheme(
    name="light", window="#f5f6f8", base="#ffffff", alternate="#f7f8fa", raised="#eceef2",
    text="#1f2328", muted="#656d76", border="#d6dae0", border_strong="#b8bfc8",
    hover="#e3e6eb", pressed="#d5d9e0", accent="#2f6fde", accent_text="#ffffff", accent_soft="#dbe7fb",
    danger="#c62828", success="#1a7f37", warning="#b35900",
)
DARK = Scheme(
    name="dark", window="#1f2023", base="#2a2b2f", alternate="#26272b", raised="#18191b",
    text="#e4e6ea", muted="#9aa0a8", border="#3a3c42", border_strong="#50535a",
    hover="#34363b", pressed="#3f4147", accent="#5b93f0", accent_text="#0f1420", accent_soft="#263a5c",
    danger="#f26d6d", success="#4cc26b", warning="#e59a3c",
)

# One font scale (points, so code that scales a widget's font keeps working): every size in the stylesheet is
# one of these; the application font is `font_base`.
FONT_SIZES = {"font_small": 8.5, "font_base": 10.0, "font_large": 11.5, "font_title": 14.0}


# --- icons ---------------------------------------------------------------------------------------------

def icon_names() -> list[str]:
    """Every icon name there is (the SVG files' names)."""
    return sorted(path.stem for path in ICON_DIR.glob("*.svg"))


@functools.cache
def _svg_source(name: str) -> str:
    path = ICON_DIR / f"{name}.svg"
    if not name or "/" in name or "\\" in name or not path.is_file():
        raise UnknownIconError(f"unknown icon {name!r}: there is no {path.name} in {ICON_DIR} "
                               f"(Lucide names such as 'arrow-left', 'rotate-cw'; {len(icon_names())} available)")
    return path.read_text("utf-8")


def _mode_colour(mode: QIcon.Mode) -> QColor:
    palette = QGuiApplication.palette()
    if mode == QIcon.Mode.Disabled:
        return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    if mode == QIcon.Mode.Selected:
        return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.HighlightedText)
    return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)


def _render(name: str, size: QSize, colour: QColor, ratio: float = 1.0) -> QPixmap:
    """The icon as a pixmap of `size` logical pixels at device pixel ratio `ratio`, cached."""
    width, height = max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio))
    key = f"browserpilot-icon:{name}:{width}x{height}:{colour.name(QColor.NameFormat.HexArgb)}"
    cached = QPixmapCache.find(key)
    if cached is not None and not cached.isNull():
        cached.setDevicePixelRatio(ratio)
        return cached
    svg = _svg_source(name).replace("currentColor", colour.name(QColor.NameFormat.HexRgb))
    if colour.alpha() < 255:
        svg = svg.replace("<svg", f'<svg opacity="{colour.alphaF():.3f}"', 1)
    from PySide6.QtSvg import QSvgRenderer  # here: QtSvg is not needed by a headless start

    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    pixmap = QPixmap(width, height)
    pixmap.fill(Qt.GlobalColor.transparent)
    side = min(width, height)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRect((width - side) // 2, (height - side) // 2, side, side))
    painter.end()
    QPixmapCache.insert(key, pixmap)
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


class _LucideEngine(QIconEngine):
    """Draws one Lucide SVG at any size, in the palette colour of the icon's mode at the time it is drawn
    (or in a fixed colour)."""

    def __init__(self, name: str, colour: QColor | None = None) -> None:
        super().__init__()
        self._name = name
        self._colour = colour

    def _colour_for(self, mode: QIcon.Mode) -> QColor:
        if self._colour is None:
            return _mode_colour(mode)
        if mode == QIcon.Mode.Disabled:
            faded = QColor(self._colour)
            faded.setAlphaF(0.4)
            return faded
        return self._colour

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return _render(self._name, size, self._colour_for(mode))

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        return _render(self._name, size, self._colour_for(mode), scale)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        painter.drawPixmap(rect, _render(self._name, rect.size(), self._colour_for(mode), ratio))

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = min(size.width(), size.height())
        return QSize(side, side)

    def availableSizes(self, mode: QIcon.Mode = QIcon.Mode.Normal, state: QIcon.State = QIcon.State.Off) -> list[QSize]:
        return [QSize(side, side) for side in (16, 20, 24, 32, 48, 64)]

    def iconName(self) -> str:
        return self._name

    def key(self) -> str:
        return "browserpilot-lucide"

    def isNull(self) -> bool:
        return False

    def clone(self) -> QIconEngine:
        return _LucideEngine(self._name, self._colour)


def icon(name: str, *, color: QColor | str | None = None) -> QIcon:
    """The Lucide icon `name` (e.g. "arrow-left"), drawn in the palette's text colour (or `color`), crisp at
    any size. Raises UnknownIconError (a ValueError) for a name with no SVG."""
    _svg_source(name)
    return QIcon(_LucideEngine(name, QColor(color) if color is not None else None))


# --- theme ---------------------------------------------------------------------------------------------

def _requested_scheme() -> str:
    """The override from BROWSERPILOT_THEME, else the system's preference (light when it has none)."""
    override = os.environ.get(THEME_ENV, "").strip().lower()
    if override in SCHEMES:
        return override
    if override:
        log.warning("%s=%r is not one of %s: following the system's colour scheme",
                    THEME_ENV, override, "|".join(SCHEMES))
    return "dark" if QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark else "light"


def is_dark() -> bool:
    """Whether the dark scheme is in use: the one apply_theme applied, else the one it would apply."""
    app = QCoreApplication.instance()
    applied = app.property(_SCHEME_PROPERTY) if app is not None else None
    if applied in SCHEMES:
        return applied == "dark"
    return QGuiApplication.instance() is not None and _requested_scheme() == "dark"


def current_scheme() -> Scheme:
    """The colours in use (for widgets that paint something of their own, such as chips and badges)."""
    return DARK if is_dark() else LIGHT


def _palette(scheme: Scheme) -> QPalette:
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    palette = QPalette()
    colours = {
        role.Window: scheme.window, role.WindowText: scheme.text, role.Base: scheme.base,
        role.AlternateBase: scheme.alternate, role.ToolTipBase: scheme.base, role.ToolTipText: scheme.text,
        role.PlaceholderText: scheme.muted, role.Text: scheme.text, role.Button: scheme.base,
        role.ButtonText: scheme.text, role.BrightText: scheme.danger, role.Highlight: scheme.accent,
        role.HighlightedText: scheme.accent_text, role.Link: scheme.accent, role.LinkVisited: scheme.accent,
        role.Light: scheme.base, role.Midlight: scheme.hover, role.Mid: scheme.border_strong,
        role.Dark: scheme.border_strong, role.Shadow: scheme.raised, role.Accent: scheme.accent,
    }
    for colour_role, value in colours.items():
        palette.setColor(colour_role, QColor(value))
    for colour_role in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, colour_role, QColor(scheme.muted))
    palette.setColor(group.Disabled, role.Base, QColor(scheme.window))
    palette.setColor(group.Disabled, role.Highlight, QColor(scheme.border_strong))
    return palette


def stylesheet(scheme: Scheme) -> str:
    """The application stylesheet for `scheme`: app.qss with its `@token`s filled in."""
    text = STYLE_FILE.read_text("utf-8") if STYLE_FILE.exists() else ""
    tokens = {**{field: getattr(scheme, field) for field in Scheme.__dataclass_fields__ if field != "name"},
              **{field: f"{size:g}pt" for field, size in FONT_SIZES.items()},
              "scheme_name": scheme.name, "styles_dir": STYLE_FILE.parent.as_posix()}
    for token in sorted(tokens, key=len, reverse=True):   # longest first: @border_strong before @border
        text = text.replace(f"@{token}", tokens[token])
    return text


def apply_theme(app: QApplication, *, scheme: str | None = None) -> None:
    """Fusion, the light or dark palette and the stylesheet on `app`. `scheme` ("light"/"dark") forces one;
    otherwise BROWSERPILOT_THEME, else the system's preference, which is then followed when it changes."""
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(f"unknown theme {scheme!r}: expected one of {', '.join(SCHEMES)}")
    chosen = DARK if (scheme or _requested_scheme()) == "dark" else LIGHT
    install_wheel_guard(app, "Fusion")  # Fusion, whose polish also guards every value widget from the wheel
    app.setProperty(_SCHEME_PROPERTY, chosen.name)
    app.setPalette(_palette(chosen))
    font = app.font()
    font.setPointSizeF(FONT_SIZES["font_base"])
    app.setFont(font)
    app.setStyleSheet(stylesheet(chosen))
    if not app.property(_CONNECTED_PROPERTY):
        app.setProperty(_CONNECTED_PROPERTY, True)
        app.styleHints().colorSchemeChanged.connect(lambda _scheme: _follow_system(app))
    log.debug("theme: %s", chosen.name)


def _follow_system(app: QApplication) -> None:
    """The system switched light/dark: re-apply, unless the environment fixes the scheme."""
    if os.environ.get(THEME_ENV, "").strip().lower() in SCHEMES:
        return
    apply_theme(app)
