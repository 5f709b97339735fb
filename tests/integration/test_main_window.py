"""The main window as a new user meets it, offscreen, one app for the module: an icon on every action and
panel tab, empty states whose buttons do what they say (Import opens the import dialog, Record starts a
recording in a new environment window, Ask an Agent opens its Agent panel), and a batch's progress bar going
from 0 to N with its done / failed / left counts against a local page (one row fails on purpose)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QDockWidget, QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from app.browser.recorder import TabRecorder
from app.ops.results import WorkflowSummary
from app.wiring.shell import BrowserPilotApp
from app.ui.env_panel import NewEnvironmentDialog
from app.ui.main_window import MainWindow
from tests.integration.test_gui import answer_dialog
from tests.support.qt import run_op, running_app, window_of
from tests.support.server import LocalServer, Response


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as local:
        # A greeting page; for "bad" it has no heading, so reading the heading fails that row.
        local.route("/hello", lambda r: Response("<title>Hello</title>" + (
            "<p>nobody</p>" if r.arg("who") == "bad" else f"<h1>Hello {r.arg('who')}</h1>")))
        yield local


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("data"), windows=True) as shell:
        yield shell


@pytest.fixture
def window(app: BrowserPilotApp, qtbot: QtBot) -> Iterator[MainWindow]:
    assert app.main_window is not None
    yield app.main_window
    for widget in QApplication.topLevelWidgets():  # a failing test leaves no dialog for the next one
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.reject()


def greeter(server: LocalServer) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": server.url("/hello") + "?who={{#input.who#}}"}},
             {"id": "read", "data": {"type": "script",
                                     "source": "return {h: document.querySelector('h1').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]}]}}]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Greeter", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def test_every_action_and_panel_tab_has_an_icon(window: MainWindow) -> None:
    menus = [action.menu() for action in window.menuBar().actions() if action.menu() is not None]
    actions = [action for menu in menus for action in menu.actions() if not action.isSeparator()]
    assert len(actions) >= 20
    assert [action.text() for action in actions if action.icon().isNull()] == []
    toolbar = window.toolbar.actions()
    assert [a for a in toolbar if not a.isSeparator() and a.icon().isNull() and a.text()] == []
    assert {a.objectName() for a in toolbar} >= {"new-environment", "import-workflows", "record", "run-workflow"}
    tabs = window.panels
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Environments", "Workflows", "Schedules", "Runs", "Agent runs"]
    assert all(not tabs.tabIcon(i).isNull() for i in range(tabs.count()))
    # The icons are drawn (not empty pixmaps).
    image = window.actions_by_name["record"].icon().pixmap(24, 24).toImage()
    assert any(image.pixelColor(x, y).alpha() > 0 for x in range(24) for y in range(24))
    # The panels' buttons have icons too.
    for panel in (window.environments, window.workflows_panel):
        assert all(not button.icon().isNull() for button in panel.buttons.values())


def test_empty_states_say_what_to_do_and_their_buttons_do_it(window: MainWindow, app: BrowserPilotApp,
                                                             qtbot: QtBot) -> None:
    window.panels.setCurrentWidget(window.workflows_panel)
    panel = window.workflows_panel
    qtbot.waitUntil(panel.stack.is_empty_shown, timeout=10_000)
    assert panel.empty.isVisible() and panel.empty.title.text() == "No workflows yet"
    assert set(panel.empty.buttons) == {"import", "record", "agent"}

    # Import opens the import dialog.
    panel.empty.buttons["import"].click()
    dialog = panel.import_file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible() and dialog.windowTitle() == "Import Workflows"
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    dialog.reject()
    qtbot.waitUntil(lambda: panel.import_file_dialog is None)

    # Record opens the environment's window and starts recording its tab.
    assert "env-default" not in app.windows.windows
    panel.empty.buttons["record"].click()
    env_window = window_of(app, "env-default")
    assert env_window.isVisible()
    tab = env_window.current_tab()
    assert tab is not None
    qtbot.waitUntil(lambda: TabRecorder.of(tab) is not None, timeout=10_000)
    record = env_window.findChild(QAction, "record")
    assert record is not None and record.isChecked()

    # Ask an Agent shows that window's Agent panel.
    dock = env_window.findChild(QDockWidget, "agent-dock")
    assert dock is not None
    dock.hide()  # as a person may have closed it
    panel.empty.buttons["agent"].click()
    assert dock.isVisible()

    # No runs yet: the Runs and Agent runs panels say so; Go to Workflows goes there.
    window.panels.setCurrentWidget(window.runs_panel)
    qtbot.waitUntil(window.runs_panel.stack.is_empty_shown, timeout=10_000)
    assert window.runs_panel.empty.title.text() == "No runs yet"
    window.runs_panel.empty.buttons["workflows"].click()
    assert window.panels.currentWidget() is window.workflows_panel
    window.panels.setCurrentWidget(window.agent_runs_panel)
    qtbot.waitUntil(window.agent_runs_panel.stack.is_empty_shown, timeout=10_000)
    assert "agent" in window.agent_runs_panel.empty.buttons


def test_the_environments_panel_asks_for_a_first_environment(window: MainWindow, qtbot: QtBot) -> None:
    window.panels.setCurrentWidget(window.environments)
    panel = window.environments
    assert panel.empty.isVisible() and "default environment" in panel.empty.title.text()
    seen: list[QDialog] = []

    def fill(dialog: QDialog) -> None:
        seen.append(dialog)
        assert isinstance(dialog, NewEnvironmentDialog)
        dialog.name.setText("Work")
        dialog.accept()

    answer_dialog(qtbot, fill)
    panel.empty.buttons["new"].click()
    assert seen  # the button opened the New Environment dialog
    qtbot.waitUntil(lambda: not panel.empty.isVisible(), timeout=10_000)
    assert panel.selected_env() is not None and panel.selected_env().name == "Work"  # type: ignore[union-attr]
    panel.select_env("env-default")


def test_a_batch_shows_its_progress_bar_from_zero_to_all_rows(window: MainWindow, app: BrowserPilotApp,
                                                              server: LocalServer, qtbot: QtBot,
                                                              tmp_path: Path) -> None:
    file = tmp_path / "greeter.json"
    file.write_text(json.dumps(greeter(server)), "utf-8")
    imported = run_op(qtbot, app, "workflow_import", {"path": str(file)})
    assert imported["ok"], imported
    panel = window.workflows_panel
    window.panels.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.model.row_of("Greeter") >= 0 and not panel.stack.is_empty_shown(),
                    timeout=10_000)
    rows = [{"who": who} for who in ("Ann", "bad", "Cid", "Dee")]
    job = panel.start_batch(WorkflowSummary.model_validate(imported["workflow"]), rows, ["env-default"], concurrency=2)
    assert job.row is not None
    bar = job.row.bar
    assert (bar.minimum(), bar.maximum(), bar.value()) == (0, 4, 0)
    seen: list[tuple[int, str]] = [(bar.value(), job.row.counts.text())]
    row = job.row
    bar.valueChanged.connect(lambda value: seen.append((value, row.counts.text())))
    qtbot.waitUntil(bar.isVisible)  # under the table, while the batch runs
    qtbot.waitUntil(lambda: job not in panel.jobs, timeout=60_000)
    assert [value for value, _text in seen] == [0, 1, 2, 3, 4]
    assert seen[0][1].startswith("0 done · 0 failed · 4 left")
    assert seen[-1][1] == "4 done · 1 failed · 0 left"
    assert any("about" in text and text.endswith(" left") for _value, text in seen[1:-1])  # the time left
    box = panel.result_box
    assert isinstance(box, QMessageBox) and box.windowTitle() == "Batch Finished"
    assert "3 of 4 rows ok, 1 not ok" in box.text() and "Row 2: failed" in box.informativeText()
    box.reject()

