"""The node-graph editor, driven as a person drives it: real widgets, key presses and mouse events on the
canvas, saving through the app's operations into `workflows.json`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from app.shell import BrowserPilotApp
from app.ui.editor.editors import Editors
from app.ui.editor.model import MISSING
from app.ui.editor.window import EditorWindow
from tests.support.qt import run_op, shell  # noqa: F401  (fixture)
from workflows.document import validate_document

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "workflows" / "fixtures" / "shop_orders_0.3.0.json"


def stored(app: BrowserPilotApp, name: str) -> dict[str, Any]:
    return app.ctx.workflows.find(name).document


def meaning(document: dict[str, Any]) -> dict[str, Any]:
    return validate_document(document).to_data()


@pytest.fixture
def editors(shell: BrowserPilotApp) -> Iterator[Editors]:  # noqa: F811
    found = Editors(shell.ops, shell)
    yield found
    found.close_all()


def open_fixture(qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> EditorWindow:  # noqa: F811
    result = run_op(qtbot, shell, "workflow_import", {"path": str(FIXTURE)})
    assert result["ok"], result
    window = editors.open(result["name"])
    qtbot.waitExposed(window)
    return window


def key(qtbot: QtBot, widget: Any, keys: str) -> None:
    """A key combination sent to the widget with the focus, as a person types it."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest

    combo = QKeySequence(keys)[0]
    widget.window().activateWindow()
    widget.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget)
    QTest.keyClick(widget.window().windowHandle(), combo.key(), combo.keyboardModifiers())


def save(qtbot: QtBot, window: EditorWindow) -> None:
    key(qtbot, window.view, "Ctrl+S")
    qtbot.waitUntil(lambda: not window.dirty)


def test_done_means_delete_all_undo_redo(qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    window = open_fixture(qtbot, shell, editors)
    name = window.model.name
    original = stored(shell, name)
    assert window.windowTitle().startswith(name)
    window.view.setFocus()
    key(qtbot, window.view, "Ctrl+A")
    key(qtbot, window.view, "Delete")
    assert window.dirty and window.windowTitle().startswith(f"{name} *")
    save(qtbot, window)
    nodes = stored(shell, name)["workflow"]["graph"]["nodes"]
    assert [n["id"] for n in nodes] == ["start"]
    assert stored(shell, name)["workflow"]["graph"]["edges"] == []
    key(qtbot, window.view, "Ctrl+Z")
    save(qtbot, window)
    assert stored(shell, name) == original
    assert meaning(stored(shell, name)) == meaning(original)
    key(qtbot, window.view, "Ctrl+Shift+Z")
    assert [n["id"] for n in window.model.nodes(())] == ["start"]
    key(qtbot, window.view, "Ctrl+Z")
    save(qtbot, window)
    assert stored(shell, name) == original
    # unknown fields survived: node-level, edge-level, document-level
    assert stored(shell, name)["dependencies"] == json.loads(FIXTURE.read_text())["dependencies"]
