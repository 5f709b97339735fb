"""The Workflows and Runs panels of the main window, offscreen, against real local pages: import (file and
drop), run through the inputs form, results in the Runs panel, a failure's error and screenshot, batches,
cancel, delete with confirmation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QLineEdit, QMessageBox, QTableWidget
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui import runs_panel
from app.ui.main_window import MainWindow
from app.ui.run_inputs_dialog import BatchDialog, RunInputsDialog
from app.ui.runs_panel import RunsPanel
from app.ui.workflows_panel import WorkflowsPanel
from tests.integration.test_gui import answer_dialog
from tests.support.qt import run_op
from tests.support.server import LocalServer, Request, Response

FORM = """<!doctype html><title>Greeting</title><form method=post action=/greet>
<input id=name name=name><input id=size name=size><button id=send>Send</button></form>"""


@pytest.fixture(autouse=True)
def _no_dialog_left_open(qapp: QApplication) -> Iterator[None]:
    """A test that fails while a message box is open must not leave it to answer the next test's dialogs."""
    yield
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.reject()


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def document(name: str, nodes: list[dict[str, Any]], base: str, description: str = "") -> dict[str, Any]:
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow", "description": description},
            "workflow": {"environment_variables": [{"name": "base", "value": base}], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def greet_document(server: LocalServer) -> dict[str, Any]:
    start = node("start", "start", variables=[
        {"variable": "name", "label": "Your name", "type": "text-input"},
        {"variable": "note", "type": "paragraph", "required": False},
        {"variable": "count", "type": "number"},
        {"variable": "colour", "type": "select", "options": ["red", "green"]},
        {"variable": "size", "type": "radio", "options": ["S", "M", "L"]},
        {"variable": "agree", "type": "checkbox", "required": False},
        {"variable": "at", "type": "time", "required": False},
        {"variable": "password", "type": "secret"}])
    nodes = [start,
             node("open", "goto", url="{{#env.base#}}/form"),
             node("fill", "fill", locator={"selector": "#name"}, text="{{#input.name#}}"),
             node("fillsize", "fill", locator={"selector": "#size"}, text="{{#input.size#}}"),
             node("send", "click", locator={"selector": "#send"}, until={"selector": "#thanks"}),
             node("read", "script", source="return {text: document.querySelector('#thanks').textContent}",
                  outputs={"text": {"type": "string"}}),
             node("end", "end", outputs=[{"variable": "greeting", "value_selector": ["read", "text"]},
                                         {"variable": "count", "value_selector": ["input", "count"]},
                                         {"variable": "colour", "value_selector": ["input", "colour"]},
                                         {"variable": "agree", "value_selector": ["input", "agree"]}])]
    return document("Greet", nodes, server.url("").rstrip("/"), description="Says hello\nsecond line")


def greet_server(server: LocalServer) -> LocalServer:
    def greet(request: Request) -> Response:
        form = parse_qs(request.body.decode())
        return Response(f"<title>Thanks</title><p id=thanks>Hello {form['name'][0]} ({form['size'][0]})</p>")

    server.route("/form", FORM)
    server.route("/greet", greet)
    return server


def panels(shell: BrowserPilotApp) -> tuple[MainWindow, WorkflowsPanel, RunsPanel]:
    window = shell.main_window
    assert window is not None
    return window, window.workflows_panel, window.runs_panel


def import_workflow(qtbot: QtBot, panel: WorkflowsPanel, path: Path, name: str) -> None:
    panel.import_file(str(path))
    qtbot.waitUntil(lambda: panel.model.row_of(name) >= 0, timeout=10_000)
    qtbot.waitUntil(lambda: (wf := panel.selected_workflow()) is not None and wf.name == name)


def wait_box(qtbot: QtBot, panel: WorkflowsPanel, timeout: int = 60_000) -> QMessageBox:
    qtbot.waitUntil(lambda: panel.result_box is not None and panel.result_box.isVisible(), timeout=timeout)
    assert panel.result_box is not None
    return panel.result_box


def show_in_runs(qtbot: QtBot, box: QMessageBox) -> None:
    button = next(b for b in box.buttons() if b.text() == "Show in Runs")
    button.click()


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()


def table_rows(table: QTableWidget) -> dict[str, str]:
    return {cell(table, row, 0): cell(table, row, 1) for row in range(table.rowCount())}


def test_import_run_through_the_inputs_form_and_see_it_in_the_runs_panel(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, tmp_path: Path, data_dir: Path) -> None:
    greet_server(server)
    window, panel, runs = panels(shell)
    window.panels.setCurrentWidget(panel)
    file = tmp_path / "greet.json"
    file.write_text("\ufeff" + json.dumps(greet_document(server)), "utf-8")  # a BOM is fine
    import_workflow(qtbot, panel, file, "Greet")
    assert panel.model.data(panel.model.index(0, 1)) == "Says hello"
    assert panel.model.data(panel.model.index(0, 2)) == 7
    assert panel.model.data(panel.model.index(0, 3)) == "never run"
    assert "Imported “Greet”" in panel.note.text()

    seen: dict[str, Any] = {}

    def fill(dialog: RunInputsDialog) -> None:
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        fields = dialog.fields
        seen["editors"] = {name: type(field.editor).__name__ for name, field in fields.items()}
        seen["echo"] = fields["password"].editor.echoMode()  # type: ignore[attr-defined]
        seen["env"] = dialog.env.currentData()
        third = shell.envs.create("Third")  # made elsewhere while the form is open: offered too
        qtbot.waitUntil(lambda: dialog.env.findData(third.id) >= 0)
        assert dialog.env.currentData() == seen["env"]
        assert not ok.isEnabled() and "Your name" in dialog.problem.text()
        fields["name"].set_value("Ada")
        fields["count"].set_value(3)
        fields["colour"].set_value("green")
        fields["size"].set_value("M")
        fields["agree"].set_value(True)
        assert not ok.isEnabled() and dialog.problem.text() == "Required: password."
        fields["password"].set_value("hunter2")
        assert ok.isEnabled()
        seen["inputs"] = dialog.inputs()
        ok.click()

    answer_dialog(qtbot, fill)
    panel.buttons["run"].click()
    qtbot.waitUntil(lambda: "inputs" in seen, timeout=10_000)
    assert seen["editors"] == {"name": "QLineEdit", "note": "QPlainTextEdit", "count": "NumberSpin",
                               "colour": "QComboBox", "size": "QWidget", "agree": "QCheckBox", "at": "QTimeEdit",
                               "password": "QLineEdit"}
    assert seen["echo"] == QLineEdit.EchoMode.Password and seen["env"] == "env-default"
    # Optional fields left alone are not sent; the number is a number, the checkbox a boolean.
    assert seen["inputs"] == {"name": "Ada", "count": 3, "colour": "green", "size": "M", "agree": True,
                              "password": "hunter2"}

    # While it goes, the panel shows it is running, with Cancel.
    qtbot.waitUntil(lambda: bool(panel.jobs) and panel.jobs[0].row is not None and panel.jobs[0].row.isVisible(),
                    timeout=5_000)
    assert panel.jobs[0].row is not None and panel.jobs[0].row.cancel.isEnabled()
    box = wait_box(qtbot, panel)
    assert "“Greet” finished: ok" in box.text()
    assert not panel.jobs
    assert parse_qs(server.hits("/greet")[0].body.decode()) == {"name": ["Ada"], "size": ["M"]}

    show_in_runs(qtbot, box)
    assert window.panels.currentWidget() is runs
    qtbot.waitUntil(lambda: runs.detail.run is not None and runs.detail.run.status == "ok", timeout=10_000)
    run = runs.detail.run
    assert run is not None
    assert runs.model.rowCount() == 1 and runs.model.run_at(0).id == run.id  # type: ignore[union-attr]
    assert runs.model.data(runs.model.index(0, 0)) == "ok"
    assert runs.model.data(runs.model.index(0, 1)) == "Greet"
    assert runs.model.data(runs.model.index(0, 2)) == "Default"
    assert runs.model.data(runs.model.index(0, 0), Qt.ItemDataRole.DecorationRole) is not None
    assert table_rows(runs.detail.outputs) == {"greeting": "Hello Ada (M)", "count": "3", "colour": "green",
                                               "agree": "true"}
    assert table_rows(runs.detail.inputs)["password"] == "<secret:password>"
    assert runs.detail.trace.rowCount() == 7
    assert [cell(runs.detail.trace, r, 4) for r in range(7)] == ["✓"] * 7
    assert runs.detail.labels["error"].text() == "" and runs.detail.labels["status"].text() == "ok"
    assert not runs.buttons["cancel"].isEnabled()
    shell.saves.flush()  # the stores write off the Qt thread; the file catches up
    assert "hunter2" not in (data_dir / "runs.json").read_text("utf-8")

    # The Workflows panel shows the last run.
    qtbot.waitUntil(lambda: str(panel.model.data(panel.model.index(0, 3))).startswith("ok · "), timeout=5_000)


def test_a_failing_run_shows_its_error_and_screenshot(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server.route("/", "<title>Nothing here</title><h1>Nothing to click</h1>")
    window, panel, runs = panels(shell)
    broken = document("Broken", [node("start", "start"), node("open", "goto", url="{{#env.base#}}/"),
                                 node("missing", "click", title="Press the missing button",
                                      locator={"selector": "#does-not-exist"}, timeout=0.5),
                                 node("end", "end")], server.url("").rstrip("/"))
    assert run_op(qtbot, shell, "workflow_write", {"workflow": broken})["ok"]
    qtbot.waitUntil(lambda: panel.model.row_of("Broken") >= 0)
    panel.select_workflow("Broken")

    def fill(dialog: RunInputsDialog) -> None:
        assert not dialog.fields  # no inputs: only the environment
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

    answer_dialog(qtbot, fill)
    panel.buttons["run"].click()
    box = wait_box(qtbot, panel)
    assert "“Broken” failed at node “missing”" in box.text()
    assert 'no element matches "#does-not-exist"' in box.informativeText()
    show_in_runs(qtbot, box)
    qtbot.waitUntil(lambda: runs.detail.run is not None and runs.detail.run.status == "failed", timeout=10_000)
    run = runs.detail.run
    assert run is not None
    assert runs.detail.labels["stopped"].text() == "missing"
    assert 'no element matches "#does-not-exist"' in runs.detail.labels["error"].text()
    shot = Path(runs.detail.labels["screenshot"].text())
    assert run.screenshot and shot == Path(run.screenshot) and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixmap = runs.detail.thumbnail.pixmap()
    assert not pixmap.isNull() and pixmap.width() <= runs.detail.THUMBNAIL.width()
    assert [cell(runs.detail.trace, r, 4) for r in range(runs.detail.trace.rowCount())] == ["✓", "✓", "✗"]
    assert "no element matches" in cell(runs.detail.trace, 2, 5)
    assert runs.model.data(runs.model.index(0, 0)) == "failed"
    # A click on the thumbnail opens the screenshot with the desktop's viewer.
    opened: list[str] = []

    def fake_open(path: str) -> bool:
        opened.append(path)
        return True

    monkeypatch.setattr(runs_panel, "open_path", fake_open)
    qtbot.mouseClick(runs.detail.thumbnail, Qt.MouseButton.LeftButton)  # type: ignore[no-untyped-call]
    assert opened == [str(shot)]


def test_rejected_import_shows_every_problem_and_drop_imports(qtbot: QtBot, shell: BrowserPilotApp,
                                                               server: LocalServer, tmp_path: Path) -> None:
    _window, panel, _runs = panels(shell)
    # What the original app refuses is refused, every problem at once, and nothing is saved.
    bad = document("Bad", [node("start", "start"), node("f", "fill", text="x"), node("f", "teleport"),
                           node("s2", "start")], server.url(""))
    bad_file = tmp_path / "bad.json"
    bad_file.write_text(json.dumps(bad), "utf-8")
    panel.import_file(str(bad_file))
    box = wait_box(qtbot, panel, timeout=10_000)
    assert box.text() == "“bad.json” was not imported: it has 2 problems."
    details = box.detailedText()
    assert 'graph.nodes[2] (id "f", type teleport): id "f" is already used by graph.nodes[1]' in details
    assert 'graph needs exactly one start node (found 2: "start", "s2")' in box.informativeText()
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: panel.result_box is None)
    assert run_op(qtbot, shell, "workflow_list", {})["workflows"] == []

    # What it accepts is imported, and what looks wrong is reported as warnings with their places.
    odd = document("Odd", [node("start", "start"), node("f", "fill", text="x"), node("z", "teleport")],
                   server.url(""))
    odd_file = tmp_path / "odd.json"
    odd_file.write_text(json.dumps(odd), "utf-8")
    panel.import_file(str(odd_file))
    box = wait_box(qtbot, panel, timeout=10_000)
    assert box.text().startswith("Imported “Odd” from odd.json.") and "2 warnings" in box.text()
    assert 'graph.nodes[1] (id "f", type fill): locator is required' in box.informativeText()
    assert 'graph.nodes[2] (id "z", type teleport): unknown node type "teleport"' in box.informativeText()
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: panel.result_box is None)
    assert [wf["name"] for wf in run_op(qtbot, shell, "workflow_list", {})["workflows"]] == ["Odd"]

    # Dropping a .json file on the panel imports it; other files are not accepted.
    good = tmp_path / "dropped.json"
    good.write_text(json.dumps(document("Dropped", [node("start", "start"), node("end", "end")], server.url(""))),
                    "utf-8")
    for path, accepted in ((tmp_path / "notes.txt", False), (good, True)):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(path))])
        enter = QDragEnterEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(panel, enter)
        assert enter.isAccepted() is accepted
        if accepted:
            drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                              Qt.KeyboardModifier.NoModifier)
            QApplication.sendEvent(panel, drop)
    qtbot.waitUntil(lambda: panel.model.row_of("Dropped") >= 0, timeout=10_000)

    # Export writes the same document without the local id.
    target = tmp_path / "out" / "exported.json"
    panel.export_to("Dropped", str(target))
    qtbot.waitUntil(target.exists, timeout=5_000)
    exported = json.loads(target.read_text("utf-8"))
    assert exported["app"]["name"] == "Dropped" and "id" not in exported
    qtbot.waitUntil(lambda: str(target) in panel.note.text(), timeout=5_000)  # said once the file is written


def test_delete_asks_for_confirmation(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    _window, panel, _runs = panels(shell)
    keep = document("Keep me", [node("start", "start"), node("end", "end")], server.url(""))
    assert run_op(qtbot, shell, "workflow_write", {"workflow": keep})["ok"]
    qtbot.waitUntil(lambda: panel.selected_workflow() is not None)
    answer_dialog(qtbot, lambda box: box.button(QMessageBox.StandardButton.Cancel).click())
    panel.buttons["delete"].click()
    qtbot.wait(200)
    assert panel.model.row_of("Keep me") >= 0
    assert len(run_op(qtbot, shell, "workflow_list", {})["workflows"]) == 1
    answer_dialog(qtbot, lambda box: box.button(QMessageBox.StandardButton.Yes).click())
    panel.buttons["delete"].click()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 0, timeout=5_000)
    assert run_op(qtbot, shell, "workflow_list", {})["workflows"] == []
    assert not panel.buttons["run"].isEnabled()


def slow_document(server: LocalServer) -> dict[str, Any]:
    """Waits up to a minute for an element that never appears."""
    return document("Slow", [node("start", "start", variables=[{"variable": "n", "type": "number"}]),
                             node("open", "goto", url="{{#env.base#}}/"),
                             node("stay", "wait", locator={"selector": "#never"}, state="appear", timeout="60"),
                             node("end", "end")], server.url("").rstrip("/"))


def test_cancel_a_running_run_from_the_runs_panel(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/", "<title>Waiting</title><p>waiting</p>")
    window, panel, runs = panels(shell)
    assert run_op(qtbot, shell, "workflow_write", {"workflow": slow_document(server)})["ok"]
    qtbot.waitUntil(lambda: panel.selected_workflow() is not None)
    wf = panel.selected_workflow()
    assert wf is not None
    job = panel.start_run(wf, {"n": 1}, "env-default", "Default")
    qtbot.waitUntil(lambda: job.run_id is not None, timeout=15_000)
    window.panels.setCurrentWidget(runs)
    qtbot.waitUntil(lambda: runs.model.rowCount() == 1 and runs.model.run_at(0).status == "running",  # type: ignore[union-attr]
                    timeout=5_000)
    assert runs.model.data(runs.model.index(0, 0)) == "running…"
    runs.select_run(job.run_id)  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: runs.buttons["cancel"].isEnabled())
    qtbot.waitUntil(lambda: str(panel.model.data(panel.model.index(0, 3))).startswith("running"), timeout=5_000)
    runs.buttons["cancel"].click()
    box = wait_box(qtbot, panel, timeout=20_000)
    assert "“Slow” cancelled at node “stay”" in box.text() or "“Slow” cancelled after" in box.text()
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: runs.detail.run is not None and runs.detail.run.status == "cancelled", timeout=10_000)
    assert runs.model.data(runs.model.index(0, 0)) == "cancelled"
    assert not runs.buttons["cancel"].isEnabled()


def test_batch_from_a_csv_with_progress_and_cancel(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer,
                                                   tmp_path: Path) -> None:
    greet_server(server)
    server.route("/", "<title>Waiting</title><p>waiting</p>")
    _window, panel, runs = panels(shell)
    simple = document("Hello rows", [
        node("start", "start", variables=[{"variable": "name", "type": "string"},
                                          {"variable": "size", "type": "radio", "options": ["S", "M"]}]),
        node("open", "goto", url="{{#env.base#}}/form"),
        node("fill", "fill", locator={"selector": "#name"}, text="{{#input.name#}}"),
        node("fillsize", "fill", locator={"selector": "#size"}, text="{{#input.size#}}"),
        node("send", "click", locator={"selector": "#send"}, until={"selector": "#thanks"}),
        node("end", "end")], server.url("").rstrip("/"))
    assert run_op(qtbot, shell, "workflow_write", {"workflow": simple})["ok"]
    assert run_op(qtbot, shell, "workflow_write", {"workflow": slow_document(server)})["ok"]
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)
    rows = tmp_path / "rows.csv"
    rows.write_text("\ufeffname,size\r\nAda,S\r\nBob,M\r\nCy,S\r\n", "utf-8")
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("nom,size\nAda,S\n", "utf-8")
    panel.select_workflow("Hello rows")
    seen: dict[str, Any] = {}

    def fill(dialog: BatchDialog) -> None:
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert not ok.isEnabled()
        dialog.load_rows(str(wrong))
        seen["wrong"] = dialog.problem.text()
        assert not ok.isEnabled()
        dialog.load_rows(str(rows))
        seen["summary"] = dialog.summary.text()
        seen["max"] = dialog.concurrency.maximum()
        dialog.concurrency.setValue(2)
        assert ok.isEnabled() and dialog.env_ids() == ["env-default"]
        ok.click()

    answer_dialog(qtbot, fill)
    panel.buttons["batch"].click()
    qtbot.waitUntil(lambda: "summary" in seen, timeout=10_000)
    assert "nom are not inputs of this workflow" in seen["wrong"]
    assert seen["summary"] == "3 rows; columns: name, size" and seen["max"] == 3
    qtbot.waitUntil(lambda: bool(panel.jobs), timeout=5_000)
    job = panel.jobs[0]
    assert job.kind == "batch" and job.total == 3
    box = wait_box(qtbot, panel, timeout=90_000)
    assert box.text() == "Batch of “Hello rows” done: 3 of 3 rows ok."
    assert job.batch_id is not None and job.done == 3 and job.ok == 3
    assert sorted(parse_qs(r.body.decode())["name"][0] for r in server.hits("/greet")) == ["Ada", "Bob", "Cy"]
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: {runs.model.data(runs.model.index(r, 0)) for r in range(runs.model.rowCount())}
                    == {"ok  (row 1)", "ok  (row 2)", "ok  (row 3)"}, timeout=5_000)

    # A batch that is cancelled after its first row started: that row ends cancelled, no other row starts.
    panel.select_workflow("Slow")
    qtbot.waitUntil(lambda: panel.result_box is None)
    wf = panel.selected_workflow()
    assert wf is not None and wf.name == "Slow"
    job = panel.start_batch(wf, [{"n": 1}, {"n": 2}, {"n": 3}], ["env-default"], 1, "Default")
    assert job.row is not None and job.row.bar.maximum() == 3
    qtbot.waitUntil(lambda: job.batch_id is not None, timeout=15_000)
    assert "0 of 3 rows done" in job.row.label.text()
    job.row.cancel.click()
    box = wait_box(qtbot, panel, timeout=20_000)
    assert "was cancelled" in box.text()
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: runs.model.rowCount() == 4 and runs.model.run_at(0).status == "cancelled",  # type: ignore[union-attr]
                    timeout=10_000)
    qtbot.wait(500)
    listed = run_op(qtbot, shell, "run_list", {})["runs"]
    assert [r["status"] for r in listed if r["workflow"] == "Slow"] == ["cancelled"]


def test_agent_runs_panel_lists_runs_and_keeps_the_three_answers_apart(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    from app.stores.agent_runs import AgentRecord, AgentRunStore, Check, Judgement, SelfReport, Step, ToolCall

    window = shell.main_window
    assert window is not None
    panel = window.agent_runs_panel
    store = AgentRunStore(shell.data)
    store.save(AgentRecord(task="Order a blue widget", model="claude-test", env="env-default", status="succeeded",
                           self_report=SelfReport(success=True, answer="Ordered"),
                           judge=Judgement(verdict="fail", reason="the cart is empty"),
                           checks=[Check(locator="#done", ok=False)],
                           steps=[Step(index=1, text="I click Order",
                                       calls=[ToolCall(id="t1", name="page_click", input={"selector": "#order"},
                                                       ok=True)])]))
    window.panels.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=10_000)
    assert panel.model.data(panel.model.index(0, 1)) == "Order a blue widget"
    qtbot.waitUntil(lambda: panel.detail is not None, timeout=10_000)
    # The agent's word, the judge's and the person's check, side by side, none overriding another.
    assert panel.answers["self"].text() == "success: Ordered"
    assert panel.answers["judge"].text() == "fail: the cart is empty"
    assert panel.answers["checks"].text() == "✗ #done"
    assert 'page_click {"selector": "#order"} → ok' in panel.steps.toPlainText()
    listed = run_op(qtbot, shell, "agent_list", {})
    assert [run["judge"] for run in listed["runs"]] == ["fail"]
