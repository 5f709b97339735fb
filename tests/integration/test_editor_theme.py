"""The node-graph editor in the light and dark schemes: the canvas, a node's body, its notes and its overview
take the theme's colours and follow a switch while the editor is open; the side panel's form fits its width;
every toolbar action has a Lucide icon. One app for the module, the editor of the shop-orders fixture."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QPushButton, QToolBar
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui import theme
from app.ui.editor.editors import Editors
from app.ui.editor.items import NODE_WIDTH
from app.ui.editor.window import EditorWindow
from tests.support.qt import run_op, running_app
from tests.support.theme import restored  # noqa: F401  (fixture)

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "workflows" / "fixtures" / "shop_orders_0.3.0.json"


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("editor-theme-data")) as shell:
        yield shell


@pytest.fixture
def window(qtbot: QtBot, app: BrowserPilotApp, restored: QApplication) -> Iterator[EditorWindow]:  # noqa: F811
    """The fixture workflow open in an editor of the default size (1280x800), with the light theme."""
    theme.apply_theme(restored, scheme="light")
    result = run_op(qtbot, app, "workflow_import", {"path": str(FIXTURE)})
    assert result["ok"], result
    editors = Editors(app.ops, app.front_tab)
    opened = editors.open(result["name"])
    opened.resize(1280, 800)
    qtbot.waitExposed(opened)
    qtbot.waitUntil(lambda: opened.scene.nodes.get("start") is not None)
    yield opened
    editors.close_all()


def _canvas(window: EditorWindow) -> QImage:
    return window.view.viewport().grab().toImage()


def _node_body(window: EditorWindow, node_id: str) -> QColor:
    """The colour a person sees inside a node's body, right of its title (away from text and frame)."""
    item = window.scene.nodes[node_id]
    point = window.view.mapFromScene(item.scenePos() + QPointF(NODE_WIDTH * 0.8, item.height * 0.5 + 6))
    image = _canvas(window)
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))


def _background(window: EditorWindow) -> QColor:
    """The canvas's colour in its top left corner (nothing is drawn there once the level is fitted)."""
    image = _canvas(window)
    return image.pixelColor(3, 3)


def _minimap(window: EditorWindow) -> QColor:
    image = window.view.minimap.grab().toImage()
    return image.pixelColor(image.width() // 2, 2)


def test_the_canvas_and_the_nodes_are_dark_in_the_dark_scheme_and_follow_a_switch(
        qtbot: QtBot, window: EditorWindow, restored: QApplication) -> None:  # noqa: F811
    window.view.set_zoom(1.0)
    window.view.centerOn(window.scene.nodes["start"])
    qtbot.waitUntil(lambda: _background(window).lightness() > 200)
    assert _node_body(window, "start").lightness() > 200
    assert _minimap(window).lightness() > 200

    theme.apply_theme(restored, scheme="dark")   # what the system's switch to dark does, with the editor open
    qtbot.waitUntil(lambda: _background(window).lightness() < 60)
    assert _background(window) == QColor(theme.DARK.window)
    body = _node_body(window, "start")
    assert body.lightness() < 70, body.name()
    assert body == QColor(theme.DARK.base)
    assert _minimap(window).lightness() < 70

    theme.apply_theme(restored, scheme="light")
    qtbot.waitUntil(lambda: _background(window).lightness() > 200)
    assert _node_body(window, "start") == QColor(theme.LIGHT.base)


def test_a_note_and_a_run_state_take_the_dark_colours(qtbot: QtBot, window: EditorWindow,
                                                      restored: QApplication) -> None:  # noqa: F811
    theme.apply_theme(restored, scheme="dark")
    window.scene.nodes["start"].set_state("ok", "0 ms")
    window.view.set_zoom(1.0)
    window.view.centerOn(window.scene.nodes["start"])
    qtbot.waitUntil(lambda: _background(window).lightness() < 60)
    ok = _node_body(window, "start")
    assert ok.lightness() < 110 and ok.green() > ok.red(), ok.name()   # a dark green tint, not a light one
    window.add_note()
    qtbot.waitUntil(lambda: bool(window.scene.notes))
    note = next(iter(window.scene.notes.values()))
    window.view.centerOn(note)
    point = window.view.mapFromScene(note.sceneBoundingRect().bottomRight()) - QPoint(6, 6)
    qtbot.waitUntil(lambda: _canvas(window).pixelColor(point.x(), point.y()).lightness() < 90)
    assert note.defaultTextColor().lightness() > 150   # light ink on the dim paper


def test_an_if_else_form_fits_the_side_panel_without_a_horizontal_scrollbar(qtbot: QtBot,
                                                                           window: EditorWindow) -> None:
    window.select_node("check")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "check")
    form = window.form
    assert form is not None
    qtbot.waitUntil(lambda: form.isVisible())
    side = window.side
    assert not side.horizontalScrollBar().isVisible()
    assert form.width() <= side.viewport().width()
    # every button is wholly inside the panel's visible width (the "Remove" ones were cut off)
    right = side.viewport().mapToGlobal(QPoint(side.viewport().width(), 0)).x()
    buttons = [b for b in form.findChildren(QPushButton) if b.isVisible()]
    assert any("Remove" in b.text() for b in buttons)
    for button in buttons:
        assert button.mapToGlobal(QPoint(button.width(), 0)).x() <= right, button.text()


def test_every_toolbar_action_and_the_run_button_have_a_lucide_icon(qtbot: QtBot, window: EditorWindow) -> None:
    bar = window.findChild(QToolBar, "editor-toolbar")
    assert bar is not None
    actions = [a for a in bar.actions() if not a.isSeparator()]
    assert len(actions) >= 10
    for action in actions:
        assert not action.icon().isNull(), action.text()
        assert action.icon().name(), action.text()   # a Lucide icon (its engine names it), not a style pixmap
        assert not action.icon().pixmap(QSize(20, 20)).isNull()
    assert window.run_action.icon().name() == "play"
    assert bar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextBesideIcon

    window.run()   # the fixture asks for start variables: the Run dialog opens
    dialog = window.findChild(QDialog, "editor-run-inputs")
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    run_button = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert run_button.icon().name() == "play"   # the Lucide play icon, not the style's colourful one
    dialog.reject()
