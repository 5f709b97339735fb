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

from app.wiring.shell import BrowserPilotApp
from app.ui.editor.editors import Editors
from app.ui.editor.model import MISSING
from app.ui.editor.window import EditorWindow
from tests.support.qt import open_view, run_op
from workflows.document import validate_document

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "workflows" / "fixtures" / "shop_orders_0.3.0.json"


@pytest.fixture
def shell(windowed_shell: BrowserPilotApp) -> BrowserPilotApp:
    """These tests look at environment windows: the app shows its tabs in them (offscreen)."""
    return windowed_shell


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str) for d in _diff(a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]


def stored(app: BrowserPilotApp, name: str) -> dict[str, Any]:
    return app.ctx.workflows.find(name).document


def meaning(document: dict[str, Any]) -> dict[str, Any]:
    return validate_document(document).to_data()


@pytest.fixture
def editors(shell: BrowserPilotApp) -> Iterator[Editors]:  # noqa: F811
    found = Editors(shell.ops, shell.front_tab)
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


def test_random_edits_undo_all_and_redo_all_are_exact(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                     editors: Editors) -> None:
    window = open_fixture(qtbot, shell, editors)
    controller, model = window.controller, window.model
    first = model.snapshot()
    rng = random.Random(12)
    kinds = ["click", "fill", "goto", "wait", "script", "if-else", "extract", "end"]
    for step in range(300):
        level = rng.choice([(), ("pager",), ("pager", "rows")]) if model.has_node("pager") and \
            model.has_node("rows") and model.level_of("rows") == ("pager",) else ()
        ids = [str(n["id"]) for n in model.nodes(level)]
        choice = rng.randrange(8)
        try:
            if choice == 0:
                controller.add_node(level, rng.choice(kinds), (rng.uniform(0, 2000), rng.uniform(-500, 500)),
                                    after=(rng.choice(ids), "source") if ids and rng.random() < 0.5 else None)
            elif choice == 1 and len(ids) > 3:
                controller.delete(level, rng.sample(ids, 2))
            elif choice == 2 and len(ids) > 1:
                a, b = rng.sample(ids, 2)
                if controller.connection_problem(level, a, "source", b) is None:
                    controller.connect(level, a, "source", b)
            elif choice == 3 and ids:
                controller.move({rng.choice(ids): (rng.uniform(0, 900), rng.uniform(0, 900))})
            elif choice == 4 and ids:
                node_id = rng.choice(ids)
                controller.set_field(node_id, "title", f"t{step}" if rng.random() < 0.8 else MISSING, mergeable=False)
            elif choice == 5 and ids:
                controller.duplicate(level, rng.sample(ids, min(2, len(ids))))
            elif choice == 6 and model.edges(level):
                controller.delete(level, [], [str(rng.choice(model.edges(level))["id"])])
            elif choice == 7 and level == () and model.has_node("pager"):
                movers = [i for i in rng.sample(ids, min(2, len(ids))) if i not in ("start", "pager")]
                if movers:
                    controller.move_to_level((), movers, ("pager",))
        except Exception as exc:  # pragma: no cover - the message says which edit broke
            raise AssertionError(f"step {step} (edit {choice}) failed: {exc!r}") from exc
    last = model.snapshot()
    assert last != first
    count = window.stack.index()
    assert count > 150
    while window.stack.canUndo():
        window.stack.undo()
    assert _diff(model.data, first) == []
    assert model.data == first
    while window.stack.canRedo():
        window.stack.redo()
    assert model.data == last
    # the canvas followed every change: one item per node and edge of the level shown
    qtbot.waitUntil(lambda: window.scene.settled)
    assert set(window.scene.nodes) == {str(n["id"]) for n in model.nodes(window.level)}
    assert set(window.scene.edges) == {str(e["id"]) for e in model.edges(window.level)}


def test_connections_the_runtime_refuses_are_refused_with_a_message(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                   editors: Editors) -> None:
    window = open_fixture(qtbot, shell, editors)
    c = window.controller
    assert "itself" in (c.connection_problem((), "user", "source", "user") or "")
    assert "already connected" in (c.connection_problem((), "user", "source", "pass") or "")
    assert "cycle" in (c.connection_problem((), "pass", "source", "user") or "")
    assert "already has an input" in (c.connection_problem((), "login_page", "source", "login") or "")
    assert c.connection_problem((), "vip_banner", "source", "api") is not None
    assert "same level" in (c.connection_problem((), "user", "source", "collect") or "")
    # branches of an if-else may rejoin
    assert c.connection_problem((), "check", "false", "vip_banner") is None
    window.scene.connect_requested.emit("pass", "source", "user")
    assert "cycle" in window.message.text()
    assert not window.dirty


def test_opened_from_the_panel_and_by_editor_open_with_the_name_in_the_title(
        qtbot: QtBot, shell: BrowserPilotApp) -> None:  # noqa: F811
    result = run_op(qtbot, shell, "workflow_import", {"path": str(FIXTURE)})
    panel = shell.main_window.workflows_panel
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1)
    panel.table.selectRow(0)
    rect = panel.table.visualRect(panel.model.index(0, 0))
    from PySide6.QtTest import QTest
    QTest.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseDClick(panel.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    qtbot.waitUntil(lambda: len(shell.editors.windows) == 1)
    window = shell.editors.windows[0]
    assert window.windowTitle().startswith(result["name"])
    opened = run_op(qtbot, shell, "editor_open", {"name": result["name"]})
    assert opened["ok"] and opened["title"].startswith(result["name"])
    assert len(shell.editors.windows) == 1
    shell.editors.close_all()


def test_an_outside_change_reloads_a_clean_editor(qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    window = open_fixture(qtbot, shell, editors)
    result = run_op(qtbot, shell, "workflow_update", {"name": window.model.name, "removeNodes": ["cache"]})
    assert result["ok"], result
    qtbot.waitUntil(lambda: not window.model.has_node("cache"))
    assert "Reloaded" in window.message.text() and not window.dirty


def test_an_outside_change_to_an_edited_workflow_asks_and_keeps_or_reloads(
        qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    """Issue 35: unsaved edits are never dropped by a change made elsewhere; the person chooses. The History
    panel follows the versions kept meanwhile, its selection staying."""
    from PySide6.QtWidgets import QMessageBox

    window = open_fixture(qtbot, shell, editors)
    name = window.model.name
    window.show_history()
    history = window.history
    qtbot.waitUntil(lambda: history.versions.count() == 1)
    window.select_node("cache")
    window.view.setFocus()
    key(qtbot, window.view, "Delete")  # an edit of the person's, not saved
    assert window.dirty and not window.model.has_node("cache")

    def answer(button: str) -> None:
        qtbot.waitUntil(lambda: window._outside is not None and window._outside.isVisible(), timeout=5_000)
        box = window._outside
        assert isinstance(box, QMessageBox) and name in box.text()
        next(b for b in box.buttons() if b.text() == button).click()
        qtbot.waitUntil(lambda: not box.isVisible())

    assert run_op(qtbot, shell, "workflow_update", {"name": name, "removeNodes": ["api"]})["ok"]
    answer("Keep Mine")
    assert window.dirty and not window.model.has_node("cache") and window.model.has_node("api")
    qtbot.waitUntil(lambda: history.versions.count() == 2)  # the version kept elsewhere shows, newest first
    history.versions.setCurrentRow(1)  # the person looks at the first version
    assert run_op(qtbot, shell, "workflow_update", {"name": name, "removeNodes": ["invoice"]})["ok"]
    answer("Reload")
    assert not window.dirty and window.model.has_node("cache") and not window.model.has_node("invoice")
    qtbot.waitUntil(lambda: history.versions.count() == 3)
    assert history.versions.currentItem().data(Qt.ItemDataRole.UserRole) == 1  # still the one chosen


def test_a_field_edit_typed_in_the_form_is_one_undo_step(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                        editors: Editors) -> None:
    window = open_fixture(qtbot, shell, editors)
    window.select_node("login_page")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "login_page")
    edit = window.form.editors["url"]
    assert isinstance(edit, QLineEdit)
    before = window.model.node("login_page")["data"]["url"]
    edit.setFocus()
    edit.end(False)
    from PySide6.QtTest import QTest
    QTest.keyClicks(edit, "?x=1")
    assert window.model.node("login_page")["data"]["url"] == before + "?x=1"
    assert window.windowTitle().split(" — ")[0].endswith("*")
    window.stack.undo()
    assert window.model.node("login_page")["data"]["url"] == before
    assert edit.text() == before
    # unknown fields of the node are listed as kept, and survive the edit
    assert "waitUntil" in window.form.kept.text()


def test_f5_runs_the_workflow_and_every_node_turns_green(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                        editors: Editors, server: Any) -> None:
    server.route("/hello", "<!doctype html><title>Hello</title><body><h1 id=h>Hello</h1></body>")
    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Greet", "mode": "workflow"},
                "workflow": {"graph": {"nodes": [
                    {"id": "start", "data": {"type": "start"}},
                    {"id": "open", "data": {"type": "goto", "url": server.url("/hello")}},
                    {"id": "read", "data": {"type": "wait", "locator": {"selector": "#h"}, "state": "appear"}},
                    {"id": "end", "data": {"type": "end", "outputs": []}}],
                    "edges": [{"source": "start", "target": "open"}, {"source": "open", "target": "read"},
                              {"source": "read", "target": "end"}]}}}
    assert run_op(qtbot, shell, "workflow_write", {"workflow": document})["ok"]
    window = editors.open("Greet")
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.scene.settled)
    key(qtbot, window.view, "F5")
    qtbot.waitUntil(lambda: window.overlay.record is not None, timeout=60_000)
    assert window.overlay.record.get("status") == "ok", window.overlay.record
    assert {node_id: item.state for node_id, item in window.scene.nodes.items()} == \
        {"start": "ok", "open": "ok", "read": "ok", "end": "ok"}
    window.select_node("open")
    assert "Output" in window.details.toPlainText()


def _form_widget(window: EditorWindow, cls: type, name: str) -> Any:
    assert window.form is not None
    found = window.form.findChild(cls, name)
    assert found is not None, name
    return found


def test_nested_fields_are_edited_in_structured_editors_and_unknown_keys_survive(
        qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton

    window = open_fixture(qtbot, shell, editors)
    name = window.model.name
    # if-else: a new condition in the first case, its variable picked from the reachable ones
    window.select_node("check")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "check")
    assert _form_widget(window, QLineEdit, "field-cases-1-case_id").text() == "vip"
    QTest.mouseClick(_form_widget(window, QPushButton, "field-cases-0-conditions-add"), Qt.MouseButton.LeftButton)
    picker = _form_widget(window, QComboBox, "field-cases-0-conditions-1-variable_selector")
    qtbot.waitUntil(picker.isVisible)
    choices = [picker.itemText(i) for i in range(picker.count())]
    assert "input.username" in choices and "sys.title" in choices
    picker.setCurrentIndex(choices.index("sys.title"))
    value = _form_widget(window, QLineEdit, "field-cases-0-conditions-1-value")
    value.setFocus()
    QTest.keyClicks(value, "Orders")
    cases = window.model.node("check")["data"]["cases"]
    assert cases[0]["conditions"][1] == {"comparison_operator": "contains", "variable_selector": ["sys", "title"],
                                         "value": "Orders"}
    assert cases[0]["conditions"][0]["id"] == "c1" and cases[0]["conditions"][0]["varType"] == "string"
    QTest.keyClicks(_form_widget(window, QLineEdit, "field-cases-1-case_id"), "2")
    assert window.model.node("check")["data"]["cases"][1]["case_id"] == "vip2"
    # the locator of a `locator` condition has the locator editor
    from app.ui.editor.locator_editor import LocatorEditor
    locator = _form_widget(window, LocatorEditor, "field-cases-1-conditions-0-locator")
    assert locator.selector.text() == ".vip-badge"
    key(qtbot, window.view, "Ctrl+Z")
    assert window.model.node("check")["data"]["cases"][1]["case_id"] == "vip"
    assert _form_widget(window, QLineEdit, "field-cases-1-case_id").text() == "vip"
    # start variables: a label edited, a flag unticked; an unknown key of the item kept
    window.select_node("start")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "start")
    label = _form_widget(window, QLineEdit, "field-variables-0-label")
    label.setFocus()
    label.end(False)
    QTest.keyClicks(label, "!")
    required = _form_widget(window, QCheckBox, "field-variables-0-required")
    assert required.isChecked()
    QTest.mouseClick(required, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(8, required.height() // 2))
    first = window.model.node("start")["data"]["variables"][0]
    assert first["label"] == "User name!" and first["required"] is False and first["max_length"] == 64
    # end outputs: the value selector picked
    window.select_node("end")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "end")
    picker = _form_widget(window, QComboBox, "field-outputs-0-value_selector")
    assert picker.currentText() == "to_csv.path"
    QTest.mouseClick(_form_widget(window, QPushButton, "field-outputs-1-remove"), Qt.MouseButton.LeftButton)
    assert [o["variable"] for o in window.model.node("end")["data"]["outputs"]] == ["csv"]
    # a loop's until condition
    window.select_node("pager")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "pager")
    until = _form_widget(window, QLineEdit, "field-until-0-value")
    assert until.text() == "a.next[aria-disabled=true]"
    until.setFocus()
    until.end(False)
    QTest.keyClicks(until, " span")
    assert window.model.node("pager")["data"]["until"] == {
        "comparison_operator": "locator", "value": "a.next[aria-disabled=true] span", "timeoutMs": 500}
    save(qtbot, window)
    saved = {n["id"]: n["data"] for n in stored(shell, name)["workflow"]["graph"]["nodes"]}
    assert saved["end"]["outputs"] == [{"variable": "csv", "value_selector": ["to_csv", "path"]}]
    assert saved["start"]["variables"][0]["max_length"] == 64
    assert saved["check"]["cases"][0]["conditions"][1]["value"] == "Orders"


def test_code_variables_and_outputs_have_structured_editors(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                            editors: Editors) -> None:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QComboBox, QPushButton

    window = open_fixture(qtbot, shell, editors)
    node_id = window.controller.add_node((), "code", (900, 400), after=("login_page", "source"))
    window.select_node(node_id)
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == node_id)
    QTest.mouseClick(_form_widget(window, QPushButton, "field-outputs-add"), Qt.MouseButton.LeftButton)
    name = _form_widget(window, QLineEdit, "field-outputs-0-output")
    name.setFocus()
    QTest.keyClicks(name, "total")
    _form_widget(window, QComboBox, "field-outputs-0-type").setCurrentText("number")
    QTest.mouseClick(_form_widget(window, QPushButton, "field-variables-add"), Qt.MouseButton.LeftButton)
    variable = _form_widget(window, QLineEdit, "field-variables-0-variable")
    variable.setFocus()
    QTest.keyClicks(variable, "user")
    picker = _form_widget(window, QComboBox, "field-variables-0-value_selector")
    picker.setCurrentIndex(picker.findText("input.username"))
    data = window.model.node(node_id)["data"]
    assert data["outputs"] == {"total": {"type": "number"}}
    assert data["variables"] == [{"variable": "user", "value_selector": ["input", "username"]}]
    while window.model.node(node_id)["data"].get("outputs"):
        window.stack.undo()
    assert window.model.has_node(node_id)


def test_space_type_enter_adds_a_node_and_a_new_loop_opens_into_its_starter_body(
        qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    from PySide6.QtTest import QTest

    window = open_fixture(qtbot, shell, editors)
    name = window.model.name
    before = {str(n["id"]) for n in window.model.nodes(())}
    key(qtbot, window.view, "Space")
    qtbot.waitUntil(lambda: window.menu.isVisible() and window.menu.search.hasFocus())
    QTest.keyClicks(window.menu.search, "goto")
    QTest.keyClick(window.menu.search, Qt.Key.Key_Return)
    assert not window.menu.isVisible()
    added = {str(n["id"]) for n in window.model.nodes(())} - before
    assert len(added) == 1 and window.model.node(added.pop())["data"]["type"] == "goto"
    key(qtbot, window.view, "Space")
    qtbot.waitUntil(lambda: window.menu.isVisible() and window.menu.search.hasFocus())
    QTest.keyClicks(window.menu.search, "loop")
    QTest.keyClick(window.menu.search, Qt.Key.Key_Return)
    loop_id = window.level[-1] if window.level else ""
    assert window.model.node(loop_id)["data"]["type"] == "loop"
    body = window.model.nodes((loop_id,))
    assert [n["data"]["type"] for n in body] == ["code"]
    assert loop_id in window.breadcrumb.text()
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == body[0]["id"])
    assert set(window.scene.nodes) == {body[0]["id"]}
    save(qtbot, window)
    saved = next(n for n in stored(shell, name)["workflow"]["graph"]["nodes"] if n["id"] == loop_id)
    assert [n["id"] for n in saved["data"]["nodes"]] == [body[0]["id"]]
    # one undo step takes the loop (with its body) away again
    key(qtbot, window.view, "Ctrl+Z")
    assert not window.model.has_node(loop_id) and not window.model.has_node(str(body[0]["id"]))
    assert window.level == () and "›" not in window.breadcrumb.text()
    qtbot.waitUntil(lambda: window.scene.settled)
    assert set(window.scene.nodes) == {str(n["id"]) for n in window.model.nodes(())}


def test_a_canvas_note_is_edited_in_place_and_the_edit_is_undoable(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                  editors: Editors) -> None:
    from PySide6.QtTest import QTest

    window = open_fixture(qtbot, shell, editors)
    name = window.model.name
    window.controller.add_note((), (-900.0, -900.0))  # clear of the nodes
    qtbot.waitUntil(lambda: window.scene.settled and len(window.scene.notes) == 1)
    note_id, item = next(iter(window.scene.notes.items()))
    window.view.centerOn(item)
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.view)
    at = window.view.mapFromScene(item.sceneBoundingRect().center())
    QTest.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    qtbot.waitUntil(lambda: item.editing and item.hasFocus())
    nodes_before = len(window.model.nodes(()))
    # editing keys go to the note, not to the canvas shortcuts (Backspace would delete the selection)
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_Backspace)
    QTest.keyClicks(window.view.viewport(), "es: check the pager")
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not item.editing)
    assert window.model.notes(())[0]["text"] == "Notes: check the pager"
    assert len(window.model.nodes(())) == nodes_before and note_id in window.scene.notes
    save(qtbot, window)
    assert stored(shell, name)["workflow"]["graph"]["notes"][0]["text"] == "Notes: check the pager"
    key(qtbot, window.view, "Ctrl+Z")
    assert window.model.notes(())[0]["text"] == "Note"
    qtbot.waitUntil(lambda: window.scene.notes[note_id].toPlainText() == "Note")


LINE_DOCUMENT = {"kind": "app", "version": "0.3.0", "app": {"name": "Line", "mode": "workflow"},
                 "workflow": {"graph": {"nodes": [
                     {"id": "start", "data": {"type": "start"}, "position": {"x": 0, "y": 0}},
                     {"id": "open", "data": {"type": "goto", "url": "about:blank"}, "position": {"x": 300, "y": 0}},
                     {"id": "end", "data": {"type": "end", "outputs": []}, "position": {"x": 900, "y": 0}},
                     {"id": "lone", "data": {"type": "wait", "locator": {"selector": "#x"}, "state": "appear"},
                      "position": {"x": 600, "y": 300}}],
                     "edges": [{"id": "e1", "source": "start", "target": "open"},
                               {"id": "e2", "source": "open", "target": "end"}]}}}


def open_line(qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> EditorWindow:  # noqa: F811
    assert run_op(qtbot, shell, "workflow_write", {"workflow": LINE_DOCUMENT})["ok"]
    window = editors.open("Line")
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.scene.settled)
    window.view.resetTransform()  # one scene unit a pixel: the mouse lands exactly where it is sent
    window.view.centerOn(QPointF(650, 150))
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.view)
    return window


def drag(view: Any, start: QPointF, end: QPointF) -> None:
    """A left-button drag on the canvas, from one scene point to another."""
    from PySide6.QtTest import QTest

    viewport = view.viewport()
    a, b = view.mapFromScene(start), view.mapFromScene(end)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(viewport, (a + b) / 2)
    QTest.mouseMove(viewport, b)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)


def test_dragging_from_a_port_to_empty_canvas_adds_the_next_step(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                 editors: Editors) -> None:
    from PySide6.QtTest import QTest

    window = open_line(qtbot, shell, editors)
    port = window.scene.nodes["lone"].output_ports["source"]
    drag(window.view, port.scenePos(), QPointF(900, 400))
    qtbot.waitUntil(lambda: window.menu.isVisible() and window.menu.search.hasFocus())
    QTest.keyClicks(window.menu.search, "click")
    QTest.keyClick(window.menu.search, Qt.Key.Key_Return)
    added = next(n for n in window.model.nodes(()) if n["data"]["type"] == "click")
    assert abs(added["position"]["x"] - 900) <= 1 and abs(added["position"]["y"] - 400) <= 1  # a pixel's rounding
    assert any(e["source"] == "lone" and e["target"] == added["id"] for e in window.model.edges(()))
    qtbot.waitUntil(lambda: window.scene.settled and added["id"] in window.scene.nodes)
    assert window.scene.selected_node_ids() == [added["id"]]


def test_a_node_dropped_onto_an_edge_is_inserted_there(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                      editors: Editors) -> None:
    window = open_line(qtbot, shell, editors)
    lone = window.scene.nodes["lone"]
    middle = window.scene.edges["e2"].path().pointAtPercent(0.5)
    centre = lone.sceneBoundingRect().center()
    grip = QPointF(centre.x(), lone.scenePos().y() + lone.height / 2)
    drag(window.view, grip, QPointF(middle.x(), middle.y()))
    edges = {(e["source"], e["target"]) for e in window.model.edges(())}
    assert ("open", "lone") in edges and ("lone", "end") in edges and ("open", "end") not in edges
    qtbot.waitUntil(lambda: window.scene.settled)
    assert {(i.source.node_id, i.target.node_id) for i in window.scene.edges.values()} == edges
    key(qtbot, window.view, "Ctrl+Z")
    assert {(e["source"], e["target"]) for e in window.model.edges(())} == {("start", "open"), ("open", "end")}


def test_a_click_on_the_minimap_moves_the_view_there(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                     editors: Editors) -> None:
    from PySide6.QtTest import QTest

    window = open_line(qtbot, shell, editors)
    minimap = window.view.minimap
    assert minimap.isVisible()
    before = window.view.visible_scene_rect().center()
    _bounds, scale, offset = minimap._frame()
    target = QPointF(0, 0) * scale + offset  # where the start node is drawn on the minimap
    QTest.mouseClick(minimap, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target.toPoint())
    after = window.view.visible_scene_rect().center()
    assert (after - before).manhattanLength() > 200
    assert (after - QPointF(0, 0)).manhattanLength() < 4 / scale + 4


@pytest.mark.parametrize("answer", ["Cancel", "Discard", "Save"])
def test_closing_with_unsaved_changes_asks_save_discard_or_cancel(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                 editors: Editors, answer: str) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMessageBox

    window = open_line(qtbot, shell, editors)
    key(qtbot, window.view, "Ctrl+A")
    key(qtbot, window.view, "Delete")
    assert window.dirty
    asked: list[str] = []

    def reply() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, reply)  # the prompt is not up yet: look again on a later turn of the loop
            return
        asked.append(box.text())
        QTest.mouseClick(box.button(getattr(QMessageBox.StandardButton, answer)), Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, reply)
    window.close()
    assert asked and "Line" in asked[0]
    if answer == "Cancel":
        assert window.isVisible() and window.dirty
        window.stack.setClean()
        return
    qtbot.waitUntil(lambda: not editors.windows)
    nodes = [n["id"] for n in stored(shell, "Line")["workflow"]["graph"]["nodes"]]
    if answer == "Discard":
        assert nodes == ["start", "open", "end", "lone"]
    else:
        qtbot.waitUntil(lambda: [n["id"] for n in stored(shell, "Line")["workflow"]["graph"]["nodes"]] == ["start"])


def test_pick_and_test_in_the_locator_editor_work_on_a_real_page(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                 editors: Editors, server: Any) -> None:
    from PySide6.QtTest import QTest

    from app.ui.editor.locator_editor import LocatorEditor
    from tests.support.qt import click_element, wait_loaded

    server.route("/shop", "<!doctype html><title>Shop</title><body><button class=item>One</button>"
                          "<button class=item>Two</button><button id=buy>Buy now</button></body>")
    tab = open_view(shell, "env-default", server.url("/shop"))
    wait_loaded(qtbot, tab)
    qtbot.waitUntil(lambda: tab.focusProxy() is not None and tab.focusProxy().isVisible())
    document = json.loads(json.dumps(LINE_DOCUMENT))
    document["app"]["name"] = "Shop"
    document["workflow"]["graph"]["nodes"][3] = {"id": "buy", "data": {"type": "click", "locator": {
        "selector": ".item", "note": "kept"}}, "position": {"x": 600, "y": 300}}
    assert run_op(qtbot, shell, "workflow_write", {"workflow": document})["ok"]
    window = editors.open("Shop")
    qtbot.waitExposed(window)
    window.select_node("buy")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "buy")
    locator = window.form.findChild(LocatorEditor, "field-locator")
    assert locator is not None and locator.selector.text() == ".item"
    QTest.mouseClick(locator.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "2 matches" in locator.result.text())
    QTest.mouseClick(locator.pick_button, Qt.MouseButton.LeftButton)
    assert "Click the element" in locator.result.text()
    click_element(qtbot, tab, "#buy")
    qtbot.waitUntil(lambda: locator.result.text() == "Picked.")
    picked = window.model.node("buy")["data"]["locator"]
    assert picked.get("selector") != ".item" and picked["note"] == "kept"
    assert (picked["fingerprint"]["kind"], picked["fingerprint"]["name"]) == ("button", "Buy now")
    assert locator.selector.text() == picked.get("selector", "")
    QTest.mouseClick(locator.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "1 match " in locator.result.text())
    key(qtbot, window.view, "Ctrl+Z")
    assert window.model.node("buy")["data"]["locator"] == {"selector": ".item", "note": "kept"}


def chain_document(name: str, count: int) -> dict[str, Any]:
    """start → count clicks → end, without positions (laid out on open, like a file made by an agent)."""
    nodes = [{"id": "start", "data": {"type": "start"}}]
    nodes += [{"id": f"c{i}", "data": {"type": "click", "locator": {"selector": f"#b{i}"}}} for i in range(count)]
    nodes.append({"id": "end", "data": {"type": "end", "outputs": []}})
    edges = [{"id": f"e{i}", "source": a["id"], "target": b["id"]} for i, (a, b) in enumerate(zip(nodes, nodes[1:]))]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name}, "workflow": {"graph": {"nodes": nodes, "edges": edges}}}


def colour_share(window: EditorWindow, colour: str) -> float:
    """The share of the canvas's pixels that are exactly this colour."""
    from PySide6.QtGui import QColor

    image = window.view.viewport().grab().toImage()
    wanted = QColor(colour).rgb()
    step = 2
    points = [(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(1 for x, y in points if image.pixel(x, y) == wanted) / len(points)


def test_a_big_workflow_is_drawn_at_once_and_its_items_follow(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                              editors: Editors) -> None:
    from app.ui.editor.items import CATEGORY_COLOURS
    from app.ui.editor.scene import EAGER_NODES

    count = EAGER_NODES + 50
    assert run_op(qtbot, shell, "workflow_write", {"workflow": chain_document("Long chain", count)})["ok"]
    window = editors.open("Long chain")
    # drawn before its items exist: every node as a box in its type's colour (clicks are page nodes)
    assert window.scene.building and not window.scene._nodes
    window.view.set_zoom(0.3)
    window.view.centerOn(QPointF(0, 0))
    sketched = colour_share(window, CATEGORY_COLOURS["page"])
    assert sketched > 0.002
    qtbot.waitUntil(lambda: not window.scene.building)
    assert len(window.scene.nodes) == count + 2 and len(window.scene.edges) == count + 1
    drawn = colour_share(window, CATEGORY_COLOURS["page"])
    assert abs(drawn - sketched) < 0.2 * sketched  # the items draw the same boxes
    # every edit works on it as on a small one: select all, delete, undo
    key(qtbot, window.view, "Ctrl+A")
    key(qtbot, window.view, "Delete")
    qtbot.waitUntil(lambda: window.scene.settled)
    assert list(window.scene.nodes) == ["start"] and not window.scene.edges
    key(qtbot, window.view, "Ctrl+Z")
    qtbot.waitUntil(lambda: window.scene.settled)
    assert len(window.scene.nodes) == count + 2 and len(window.scene.edges) == count + 1
    start, first = window.scene.nodes["start"], window.scene.nodes["c0"]
    assert first.x() > start.x()  # laid out again, left to right


def test_zoomed_out_nodes_are_boxes_and_zoomed_in_nodes_show_their_text(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                       editors: Editors) -> None:
    from PySide6.QtGui import QColor

    from app.ui.editor.items import CATEGORY_COLOURS, DETAIL_ZOOM, editor_colours

    window = open_line(qtbot, shell, editors)
    ink, card = editor_colours().title, editor_colours().body   # the scheme in use (light here)
    node = window.scene.nodes["open"]  # a goto: a page node
    inside = node.scenePos() + QPointF(120, 30)  # right of its short title and subtitle, away from its ports

    def colour_at(zoom: float) -> str:
        window.view.set_zoom(zoom)
        window.view.centerOn(inside)
        image = window.view.viewport().grab().toImage()
        ratio = image.devicePixelRatio()
        point = window.view.mapFromScene(inside)
        return QColor(image.pixel(int(point.x() * ratio), int(point.y() * ratio))).name()

    assert colour_at(DETAIL_ZOOM * 0.6) == CATEGORY_COLOURS["page"]  # a plain box in its type's colour
    assert colour_share(window, ink) == 0  # no title text
    assert colour_at(1.0) == card == "#ffffff"  # a white card with its text
    assert colour_share(window, ink) > 0


def test_the_problems_list_follows_the_edits(qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    window = open_line(qtbot, shell, editors)
    problems = window.problems
    qtbot.waitUntil(lambda: not problems.checking)
    assert [problems.item(i).text() for i in range(problems.count())] == ["No problems."]
    window.controller.set_field("open", "url", MISSING)
    qtbot.waitUntil(lambda: not problems.checking)
    assert problems.problem_nodes() == {"open"} and "url is required" in problems.item(0).text()
    key(qtbot, window.view, "Ctrl+Z")
    qtbot.waitUntil(lambda: not problems.checking)
    assert [problems.item(i).text() for i in range(problems.count())] == ["No problems."]


def test_schedule_in_the_editor_opens_the_schedule_dialog_for_the_saved_workflow(
        qtbot: QtBot, shell: BrowserPilotApp, editors: Editors) -> None:  # noqa: F811
    from PySide6.QtWidgets import QDialogButtonBox, QToolBar

    from app.ui.schedule_dialog import KINDS, ScheduleDialog

    window = open_fixture(qtbot, shell, editors)
    window.resize(1600, window.height())  # the editor fits the (800 px) offscreen screen: the end of its toolbar
    bar = window.findChild(QToolBar, "editor-toolbar")  # would be behind the toolbar's » menu
    button = bar.widgetForAction(window.schedule_action)
    qtbot.waitUntil(lambda: button is not None and button.isVisible())
    assert window.schedule_action.text() == "Schedule…"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(ScheduleDialog)))
    dialog = next(d for d in window.findChildren(ScheduleDialog) if d.isVisible())
    assert dialog.objectName() == "schedule-dialog" and dialog.windowTitle() == "New Schedule"
    assert dialog.workflow.currentData() == window.workflow_id  # this workflow, chosen already
    dialog.kind.setCurrentIndex(KINDS.index("every"))
    dialog.minutes.setValue(15)
    assert dialog.preview.text().startswith("every 15 minutes")
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok.isEnabled()
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(shell.ctx.schedules.list()) == 1)
    made = shell.ctx.schedules.list()[0]
    assert made.workflow_id == window.workflow_id and made.timing.every_seconds == 900 and made.enabled
    qtbot.waitUntil(lambda: window.message.text().startswith("Scheduled: "))

    # With unsaved changes the schedule would run something else than the editor shows: it says so instead.
    window.add_note()
    assert window.dirty
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.message.text() == "Save the workflow first: a schedule runs the saved workflow."
    assert not any(d.isVisible() for d in window.findChildren(ScheduleDialog))
    assert len(shell.ctx.schedules.list()) == 1


def test_a_widget_choice_shows_its_native_select_and_it_can_be_edited(qtbot: QtBot, shell: BrowserPilotApp,  # noqa: F811
                                                                     editors: Editors) -> None:
    """Issue 32: a recorded choice in a custom select widget is a `select` node with the widget as its element and
    the native <select> it keeps in step as `native`; the form shows both, and an edit of `native` is one step."""
    from PySide6.QtTest import QTest

    from app.ui.editor.locator_editor import LocatorEditor

    document = json.loads(json.dumps(LINE_DOCUMENT))
    document["app"]["name"] = "Add a workshop"
    document["workflow"]["graph"]["nodes"][3] = {"id": "kind", "data": {
        "type": "select", "option": "Workshop", "locator": {"selector": "span.select2-selection"},
        "native": {"selector": "select[name=\"category\"]"}}, "position": {"x": 600, "y": 300}}
    assert run_op(qtbot, shell, "workflow_write", {"workflow": document})["ok"]
    window = editors.open("Add a workshop")
    qtbot.waitExposed(window)
    window.select_node("kind")
    qtbot.waitUntil(lambda: window.form is not None and window.form.node_id == "kind")
    native = window.form.findChild(LocatorEditor, "field-native")
    assert native is not None and native.selector.text() == 'select[name="category"]'
    assert window.form.findChild(LocatorEditor, "field-locator").selector.text() == "span.select2-selection"
    native.selector.setFocus()
    native.selector.selectAll()
    QTest.keyClicks(native.selector, "#id_category")
    native.selector.editingFinished.emit()
    qtbot.waitUntil(lambda: window.model.node("kind")["data"]["native"].get("selector") == "#id_category")
    assert window.model.node("kind")["data"]["option"] == "Workshop"
    window.stack.undo()
    assert window.model.node("kind")["data"]["native"] == {"selector": 'select[name="category"]'}
