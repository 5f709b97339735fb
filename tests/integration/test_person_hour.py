"""Issue 24: what an hour with the app as a person found, each fixed thing tried again the way a person does it —
real mouse, keyboard and wheel events (QTest) on the real widgets, offscreen, one app and one site for the module.

Nothing changes or is lost unless the person meant it: closing a recording window asks; an environment can always
be opened again; an environment that cannot start says so at once; the wheel moves no value it was not given.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.browser.recorder import TabRecorder
from app.ops.results import WorkflowSummary
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from app.ui.env_window import EnvWindow
from app.ui.recording_panel import StopDialog
from tests.support.qt import run_js, run_op, running_app, wait_loaded
from tests.support.server import LocalServer

FORM = """<!doctype html><title>Sign up</title><body style="margin:0;font:16px sans-serif"><form style="padding:20px">
<p><label for=fn>Full name</label> <input id=fn name=full></p>
<p><label for=co>Country</label> <select id=co name=country><option value="">Choose…</option>
<option value=de>Germany</option><option value=jp>Japan</option></select></p>
<p><a id=pop href="/form" target="_blank">Open another</a></p>
</form></body>"""


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("person-hour"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        local.route("/form", FORM)
        yield local


# -- a person ------------------------------------------------------------------------------------------------
def click(widget: QWidget, at: QPoint | None = None) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     at if at is not None else widget.rect().center())


def when_modal(match: Callable[[QWidget], bool], act: Callable[[QWidget], None], seen: list[QWidget]) -> None:
    """Once a modal dialog that `match`es is shown, `act` on it as a person would (it is appended to `seen`)."""

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is not None and dialog.isVisible() and match(dialog):
            seen.append(dialog)
            act(dialog)
            return
        QTimer.singleShot(20, look)

    QTimer.singleShot(0, look)


def press_button(name: str) -> Callable[[QWidget], None]:
    return lambda dialog: click(dialog.findChild(QPushButton, name))


def go(qtbot: QtBot, window: EnvWindow, url: str) -> BrowserTab:
    """Type an address into the window's address bar and press Enter."""
    click(window.address)
    QTest.keyClick(window.address, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(window.address, url)
    QTest.keyClick(window.address, Qt.Key.Key_Return)
    tab = window.current_tab()
    assert tab is not None
    qtbot.waitUntil(lambda: tab.url().toString() == url, timeout=10_000)
    wait_loaded(qtbot, tab)
    return tab


def page_point(qtbot: QtBot, tab: BrowserTab, selector: str) -> QPoint:
    x, y = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); "
                              "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    return QPoint(round(x * tab.zoomFactor()), round(y * tab.zoomFactor()))


def type_into_page(qtbot: QtBot, tab: BrowserTab, selector: str, text: str) -> None:
    click(tab.focusProxy(), page_point(qtbot, tab, selector))
    QTest.keyClicks(tab.focusProxy(), text)


def open_with_ctrl_o(qtbot: QtBot, app: BrowserPilotApp, env_id: str) -> None:
    """Select the environment in the main window and press Ctrl+O (Environment → Open)."""
    window = app.main_window
    assert window is not None
    window.panels.setCurrentWidget(window.environments)
    window.environments.select_env(env_id)
    window.activateWindow()
    window.actions_by_name["open-environment"].trigger() if not QTest.qWaitForWindowActive(window, 1) \
        else QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)


def start_recording(qtbot: QtBot, window: EnvWindow) -> None:
    QTest.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.record_label.isVisible(), timeout=5_000)


# -- item 4: an action that cannot act is disabled, and says why (first: the module's app has no workflows yet)
def test_with_no_workflow_run_and_batch_are_disabled_and_say_why(qtbot: QtBot, app: BrowserPilotApp) -> None:
    from PySide6.QtWidgets import QToolBar

    main = app.main_window
    assert main is not None
    main.show()
    assert not app.ctx.workflows.list()
    toolbar = main.findChild(QToolBar, "main-toolbar")
    run, batch = main.actions_by_name["run-workflow"], main.actions_by_name["batch-workflow"]
    qtbot.waitUntil(lambda: main.workflows_panel.model.rowCount() == 0 and not run.isEnabled())
    for action in (run, batch):
        button = toolbar.widgetForAction(action)
        assert not button.isEnabled()
        assert "No workflows yet" in button.toolTip(), button.toolTip()
        click(button)  # nothing opens
        assert QApplication.activeModalWidget() is None
        assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]
    document = {"kind": "app", "version": "0.3.0", "app": {"name": "First one", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [],
                             "graph": {"nodes": [{"id": "start", "data": {"type": "start"}},
                                                 {"id": "end", "data": {"type": "end"}}],
                                       "edges": [{"source": "start", "target": "end"}]}}}
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    main.panels.setCurrentWidget(main.workflows_panel)
    qtbot.waitUntil(lambda: run.isEnabled() and batch.isEnabled(), timeout=5_000)
    assert "No workflows yet" not in toolbar.widgetForAction(run).toolTip()
    main.workflows_panel.table.clearSelection()
    assert not run.isEnabled() and "Select a workflow" in toolbar.widgetForAction(run).toolTip()
    assert run_op(qtbot, app, "workflow_delete", {"name": "First one"})["ok"]


# -- item 1: closing a recording window; opening an environment again; an environment that cannot start ------
def test_closing_a_recording_window_asks_keep_save_or_discard_and_the_environment_opens_again(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    window = app.show_environment("env-default")
    assert window is not None
    tab = go(qtbot, window, site.url("/form"))
    start_recording(qtbot, window)
    type_into_page(qtbot, tab, "#fn", "Ada")
    panel = window.recording_panel
    assert panel is not None
    qtbot.waitUntil(lambda: any("Ada" in panel.list.item(i).text() for i in range(panel.list.count())), timeout=10_000)
    seen: list[QWidget] = []

    # Keep recording: the window stays, and so does its recording. Asked while the app quits (as `quit` leaves it
    # when Qt asks each window to close), keeping the window cancels the quit: the app is not left half quitting.
    app._quitting = True
    when_modal(lambda d: d.objectName() == "close-recording", press_button("close-recording-keep"), seen)
    assert window.close() is False
    assert seen and window.isVisible() and TabRecorder.of(tab) is not None
    assert not app.quitting
    assert "“Sign up”" in seen[0].text()  # type: ignore[attr-defined]

    # Save: the name is asked, the workflow is saved with what was typed, then the window closes.
    def name_it(dialog: QWidget) -> None:
        assert isinstance(dialog, StopDialog) and not dialog.replay.isVisible()
        QTest.keyClick(dialog.name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(dialog.name, "Ada signs up")
        QTest.keyClick(dialog.name, Qt.Key.Key_Return)

    when_modal(lambda d: d.objectName() == "close-recording", press_button("close-recording-save"), seen)
    when_modal(lambda d: isinstance(d, StopDialog), name_it, seen)
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]
    saved = app.ctx.workflows.find("Ada signs up")
    fills = [n["data"] for n in saved.document["workflow"]["graph"]["nodes"] if n["data"]["type"] == "fill"]
    assert [f["text"] for f in fills] == ["Ada"]

    # The environment opens again (Ctrl+O in the main window), and its tab loads pages.
    open_with_ctrl_o(qtbot, app, "env-default")
    qtbot.waitUntil(lambda: "env-default" in app.windows.windows, timeout=5_000)  # type: ignore[union-attr]
    window = app.windows.windows["env-default"]  # type: ignore[union-attr]
    tab = go(qtbot, window, site.url("/form"))
    start_recording(qtbot, window)
    type_into_page(qtbot, tab, "#fn", "Bob")
    qtbot.waitUntil(lambda: any("Bob" in window.recording_panel.list.item(i).text()  # type: ignore[union-attr]
                                for i in range(window.recording_panel.list.count())), timeout=10_000)  # type: ignore[union-attr]

    # Discard: the window closes, nothing is saved, and the environment still opens.
    when_modal(lambda d: d.objectName() == "close-recording", press_button("close-recording-discard"), seen)
    workflows_before = [wf.name for wf in app.ctx.workflows.list()]
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]
    assert [wf.name for wf in app.ctx.workflows.list()] == workflows_before
    window = app.show_environment("env-default")
    assert window is not None
    go(qtbot, window, site.url("/form"))
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]


def test_closing_the_tab_that_opened_a_popup_leaves_the_environment_usable(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    window = app.show_environment("env-default")
    assert window is not None
    opener = go(qtbot, window, site.url("/form"))
    click(opener.focusProxy(), page_point(qtbot, opener, "#pop"))
    qtbot.waitUntil(lambda: len(window.tab_list()) == 2, timeout=10_000)
    window.close_tab(opener)
    qtbot.waitUntil(lambda: len(window.tab_list()) == 1, timeout=5_000)
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]
    window = app.show_environment("env-default")
    assert window is not None
    go(qtbot, window, site.url("/form"))
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]


def test_an_environment_that_cannot_start_says_so_at_once_when_opened_or_run(
        qtbot: QtBot, app: BrowserPilotApp) -> None:
    created = run_op(qtbot, app, "env_create", {"name": "Broken"})
    env_id = created["env"]
    app.data.partition(env_id).parent.mkdir(parents=True, exist_ok=True)
    app.data.partition(env_id).write_text("a file where the environment's folder should be")
    seen: list[QWidget] = []
    said: list[str] = []

    def read_and_close(box: QWidget) -> None:
        said.append(box.text())  # type: ignore[attr-defined]
        QTest.keyClick(box, Qt.Key.Key_Escape)

    when_modal(lambda d: isinstance(d, QMessageBox), read_and_close, seen)
    open_with_ctrl_o(qtbot, app, env_id)
    qtbot.waitUntil(lambda: bool(said), timeout=5_000)
    assert "“Broken” cannot start" in said[0]
    assert env_id not in app.windows.windows  # type: ignore[union-attr]

    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Nothing much", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [],
                             "graph": {"nodes": [{"id": "start", "data": {"type": "start"}},
                                                 {"id": "end", "data": {"type": "end"}}],
                                       "edges": [{"source": "start", "target": "end"}]}}}
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    began = time.monotonic()
    result = run_op(qtbot, app, "workflow_run", {"name": "Nothing much", "env": env_id})
    assert not result["ok"] and "“Broken” cannot start" in result["error"] and time.monotonic() - began < 2

    # From the Workflows panel: the job ends at once with the reason, it is not left "Running…".
    panel = app.main_window.workflows_panel  # type: ignore[union-attr]
    wf = next(WorkflowSummary.model_validate(w) for w in run_op(qtbot, app, "workflow_list", {})["workflows"]
              if w["name"] == "Nothing much")
    job = panel.start_run(wf, {}, env_id, "Broken")
    qtbot.waitUntil(lambda: job not in panel.jobs and panel.result_box is not None, timeout=2_000)
    assert "cannot start" in panel.result_box.text()
    panel.result_box.close()


# -- item 2: the wheel changes only the value of the widget that has the focus ------------------------------
def guba_like() -> dict[str, Any]:
    """Nine nodes, like the original's guba-collect: a code node reads two earlier outputs through variables."""
    nodes = [
        {"id": "start", "data": {"type": "start", "title": "Start", "variables": [
            {"variable": "keyword", "label": "Keyword", "type": "text-input"},
            {"variable": "country", "label": "Country", "type": "select", "options": ["Germany", "Japan", "France"]},
            {"variable": "pages", "label": "Pages", "type": "number", "required": False}]}},
        {"id": "open", "data": {"type": "goto", "title": "Open the board", "url": "http://127.0.0.1:9/{{#start.keyword#}}"}},
        {"id": "bounds", "data": {"type": "extract", "title": "Bounds", "variable_selector": ["sys", "title"],
                                  "pattern": "(.*)"}},
        {"id": "replies", "data": {"type": "script", "title": "Replies", "source": "return {output: 'x'}",
                                   "variables": [], "outputs": {"output": {"type": "string"}}}},
        {"id": "pick", "data": {"type": "code", "title": "Pick", "code": "return {text: inputs.startText}",
                                "variables": [{"variable": "startText", "value_selector": ["bounds", "value"]},
                                              {"variable": "reply", "value_selector": ["replies", "output"]}],
                                "outputs": {"text": {"type": "string"}}}},
        {"id": "check", "data": {"type": "if-else", "title": "Any text?", "cases": [
            {"case_id": "some", "logical_operator": "and", "conditions": [
                {"comparison_operator": "not empty", "variable_selector": ["pick", "text"]},
                {"comparison_operator": "contains", "variable_selector": ["bounds", "value"], "value": "a"}]}]}},
        {"id": "wait", "data": {"type": "wait", "title": "Wait", "locator": {"selector": "#list"}, "state": "appear",
                                "timeout": 5}},
        {"id": "export", "data": {"type": "export", "title": "Export", "data_selector": ["pick", "text"]}},
        {"id": "end", "data": {"type": "end", "title": "End", "outputs": [
            {"variable": "text", "value_selector": ["pick", "text"]}]}},
    ]
    order = ["start", "open", "bounds", "replies", "pick", "check"]
    edges = [{"source": a, "target": b} for a, b in zip(order, order[1:])] + [
        {"source": "check", "sourceHandle": "some", "target": "wait"}, {"source": "wait", "target": "export"},
        {"source": "export", "target": "end"}, {"source": "check", "sourceHandle": "false", "target": "end"}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Guba-like collect", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": [{**n, "position": {"x": 320 * i, "y": 80 * (i % 2)}}
                                             for i, n in enumerate(nodes)], "edges": edges}}}


def value_widgets(top: QWidget) -> list[QWidget]:
    from app.ui.wheel_guard import is_value_widget

    return [w for w in top.findChildren(QWidget) if is_value_widget(w) and w.isVisible() and w.isEnabled()]


def value_of(widget: QWidget) -> tuple[Any, ...]:
    from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QComboBox

    if isinstance(widget, QComboBox):
        return widget.currentIndex(), widget.currentText()
    if isinstance(widget, QAbstractSpinBox):
        return (widget.text(),)
    assert isinstance(widget, QAbstractSlider)
    return (widget.value(),)


def wheel_over(widget: QWidget, notches: int) -> None:
    """Real wheel events (QTest's go through the window system interface, as a mouse's do): to the widget under
    the pointer, propagated to its parents when it does not take them."""
    from PySide6.QtCore import QPointF

    window = widget.window()
    handle = window.windowHandle()
    assert handle is not None, "the window is shown"
    at = QPointF(widget.mapTo(window, widget.rect().center()))
    for _ in range(abs(notches)):
        QTest.wheelEvent(handle, at, QPoint(0, 120 if notches > 0 else -120))
    QApplication.processEvents()


def bring_into_view(widget: QWidget) -> None:
    """Scroll every scroll area around the widget so that it is under the pointer's reach."""
    from PySide6.QtWidgets import QScrollArea

    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            parent.ensureWidgetVisible(widget)
        parent = parent.parentWidget()


def wheel_walk(qtbot: QtBot, top: QWidget) -> int:
    """Scroll the wheel down and up over every value widget of `top` (none focused): no value changes."""
    focused = QApplication.focusWidget()
    if focused is not None:
        focused.clearFocus()
    widgets = value_widgets(top)
    before = {id(w): value_of(w) for w in widgets}
    for widget in widgets:
        for notches in (-3, 5, -2):
            bring_into_view(widget)
            wheel_over(widget, notches)
    qtbot.wait(10)
    changed = [(w.objectName() or type(w).__name__, before[id(w)], value_of(w)) for w in widgets
               if value_of(w) != before[id(w)]]
    assert not changed, changed
    return len(widgets)


def test_the_wheel_changes_no_value_it_was_not_given_in_any_dialog_panel_or_editor_form(
        qtbot: QtBot, app: BrowserPilotApp) -> None:
    from PySide6.QtWidgets import QComboBox, QSpinBox

    from app.ui.agent_panel import AgentSettingsDialog
    from app.ui.env_panel import EnvSettingsDialog, NewEnvironmentDialog
    from app.ui.main_window import SettingsDialog
    from app.ui.run_inputs_dialog import BatchDialog, RunInputsDialog
    from app.ui.schedule_dialog import ScheduleDialog
    from workflows.document import validate_document

    main = app.main_window
    assert main is not None
    document = guba_like()
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    doc = validate_document(document)
    envs = [("env-default", "Default")]
    idle_before = app.settings.current.idle_exit_minutes
    walked: dict[str, int] = {}

    settings = SettingsDialog(app.data, main, mcp=app.mcp, sections=main.settings_sections)
    settings.show()
    qtbot.waitExposed(settings)
    walked["settings"] = wheel_walk(qtbot, settings)
    assert app.settings.current.idle_exit_minutes == idle_before
    # The wheel over a value widget scrolled the dialog instead (it is a scroll area now).
    bar = settings.scroll.verticalScrollBar()
    settings.resize(settings.width(), 300)
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(0)
    minutes = settings.findChild(QSpinBox, "idle-exit-minutes")
    settings.scroll.ensureWidgetVisible(minutes)
    bar_at = bar.value()
    assert bar_at > 0
    wheel_over(minutes, 2)
    assert bar.value() < bar_at and app.settings.current.idle_exit_minutes == idle_before
    # With the focus (a click), the wheel is the person's way to change it.
    settings.scroll.ensureWidgetVisible(minutes)
    click(minutes)
    assert minutes.hasFocus()
    wheel_over(minutes, 1)
    assert minutes.value() == idle_before + 1
    minutes.setValue(idle_before)
    settings.done(0)

    for name, dialog in (
            ("run inputs", RunInputsDialog("Guba-like collect", doc.start_variables(), envs + [("env-x", "Other")],
                                           parent=main)),
            ("batch", BatchDialog("Guba-like collect", doc.start_variables(), envs + [("env-x", "Other")], 4,
                                  parent=main)),
            ("schedule", ScheduleDialog([("A", "wf-1"), ("B", "wf-2")], [("Default", "env-default"), ("X", "env-x")],
                                        main)),
            ("agent settings", AgentSettingsDialog(app.ctx.agent_settings, main)),
            ("env settings", EnvSettingsDialog(app.envs.get("env-default"), main)),
            ("new environment", NewEnvironmentDialog(main))):
        dialog.show()
        qtbot.waitExposed(dialog)
        if name == "schedule":  # each kind of timing shows its own value widget
            kinds = dialog.findChild(QComboBox, "schedule-kind")
            walked[name] = 0
            for index in range(kinds.count()):
                kinds.setCurrentIndex(index)
                walked[name] += wheel_walk(qtbot, dialog)
        else:
            walked[name] = wheel_walk(qtbot, dialog)
        dialog.done(0)
        dialog.deleteLater()

    main.show()
    for index in range(main.panels.count()):
        main.panels.setCurrentIndex(index)
        walked[f"panel {index}"] = wheel_walk(qtbot, main)

    # An environment window with its Agent and Recording panels open.
    window = app.show_environment("env-default")
    assert window is not None
    from PySide6.QtWidgets import QDockWidget

    for dock in window.findChildren(QDockWidget):
        dock.show()
    qtbot.waitExposed(window)
    walked["env window"] = wheel_walk(qtbot, window)
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]

    editor = app.editors.open("Guba-like collect")
    qtbot.waitExposed(editor)
    walked["editor"] = 0
    for node in document["workflow"]["graph"]["nodes"]:
        editor.select_node(node["id"])
        qtbot.waitUntil(lambda: editor.form is not None and editor.form.node_id == node["id"])
        walked["editor"] += wheel_walk(qtbot, editor)
    assert not editor.dirty and not editor.undo_action.isEnabled()
    editor.close()
    assert walked["settings"] >= 2 and walked["run inputs"] >= 2 and walked["batch"] >= 1 \
        and walked["schedule"] >= 5 and walked["editor"] >= 6, walked


# -- item 8: File → Settings and Data Folder… is the settings, Help → About is the about ---------------------
def test_settings_opens_the_settings_and_about_the_about(qtbot: QtBot, app: BrowserPilotApp) -> None:
    from PySide6.QtWidgets import QToolBar

    main = app.main_window
    assert main is not None
    main.show()
    titles: list[str] = []

    def read_and_close(dialog: QWidget) -> None:
        titles.append(dialog.windowTitle())
        QTest.keyClick(dialog, Qt.Key.Key_Escape)

    when_modal(lambda d: True, read_and_close, [])
    toolbar = main.findChild(QToolBar, "main-toolbar")
    click(toolbar.widgetForAction(main.actions_by_name["settings"]))  # the toolbar's gear
    qtbot.waitUntil(lambda: len(titles) == 1, timeout=5_000)
    when_modal(lambda d: True, read_and_close, [])
    help_menu = main._menus["help"]
    main.menuBar().setActiveAction(help_menu.menuAction())  # Help, then About, with the mouse
    qtbot.waitUntil(help_menu.isVisible)
    click(help_menu, help_menu.actionGeometry(main.actions_by_name["about"]).center())
    qtbot.waitUntil(lambda: len(titles) == 2, timeout=5_000)
    assert titles == ["Settings", "About BrowserPilot"]


# -- items 5 and 6: after a run the person's tab is theirs again; the run form starts from the last inputs ---
def test_after_a_run_the_persons_tab_is_theirs_again_and_the_form_remembers_all_but_the_secret(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QLineEdit, QToolBar

    from app.browser.control import ControlState, TabControl
    from app.ui.run_inputs_dialog import RunInputsDialog

    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Sign up someone", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {"nodes": [
                    {"id": "start", "data": {"type": "start", "variables": [
                        {"variable": "name", "label": "Full name", "type": "text-input"},
                        {"variable": "country", "label": "Country", "type": "select", "options": ["Germany", "Japan"]},
                        {"variable": "password", "label": "Password", "type": "secret"}]}},
                    {"id": "open", "data": {"type": "goto", "url": site.url("/form")}},
                    {"id": "name", "data": {"type": "fill", "locator": {"selector": "#fn"}, "entry": "type",
                                            "text": "{{#start.name#}}"}},
                    {"id": "end", "data": {"type": "end"}}],
                    "edges": [{"source": "start", "target": "open"}, {"source": "open", "target": "name"},
                              {"source": "name", "target": "end"}]}}}
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    window = app.show_environment("env-default")
    assert window is not None
    tab = go(qtbot, window, site.url("/form"))  # the person's own tab, shared
    assert TabControl.of(tab).state is ControlState.SHARED  # type: ignore[union-attr]

    main = app.main_window
    assert main is not None
    main.show()
    panel = main.workflows_panel
    main.panels.setCurrentWidget(panel)
    toolbar = main.findChild(QToolBar, "main-toolbar")

    def open_run_form() -> RunInputsDialog:
        qtbot.waitUntil(lambda: panel.model.row_of("Sign up someone") >= 0, timeout=5_000)
        row = panel.model.row_of("Sign up someone")
        click(panel.table.viewport(), panel.table.visualRect(panel.model.index(row, 0)).center())
        qtbot.waitUntil(lambda: main.actions_by_name["run-workflow"].isEnabled())
        click(toolbar.widgetForAction(main.actions_by_name["run-workflow"]))
        qtbot.waitUntil(lambda: panel.findChild(RunInputsDialog) is not None
                        and panel.findChild(RunInputsDialog).isVisible(), timeout=5_000)
        return panel.findChild(RunInputsDialog)

    form = open_run_form()
    assert form.fields["name"].editor.text() == ""  # the first time: nothing to remember
    click(form.fields["name"].editor)
    QTest.keyClicks(form.fields["name"].editor, "Ada Lovelace")
    country = form.fields["country"].editor
    assert isinstance(country, QComboBox)
    click(country)  # the list pops up; Down twice and Enter pick the second country
    qtbot.waitUntil(lambda: country.view().isVisible())
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Down, Qt.Key.Key_Return):
        QTest.keyClick(country.view(), key)
    qtbot.waitUntil(lambda: country.currentText() == "Japan")
    click(form.fields["password"].editor)
    QTest.keyClicks(form.fields["password"].editor, "s3cret-pw")
    click(form.buttons.button(QDialogButtonBox.StandardButton.Ok))
    qtbot.waitUntil(lambda: panel.result_box is not None, timeout=20_000)
    assert "finished: ok" in panel.result_box.text(), panel.result_box.informativeText()
    click(panel.result_box.button(QMessageBox.StandardButton.Close))

    # The run acted in the person's tab, which is theirs again: no overlay, and their typing reaches the page.
    qtbot.waitUntil(lambda: TabControl.of(tab).state is ControlState.SHARED, timeout=5_000)  # type: ignore[union-attr]
    assert window.control_label.property("controlState") == "shared"
    assert run_js(qtbot, tab, "document.querySelector('#fn').value") == "Ada Lovelace"
    type_into_page(qtbot, tab, "#fn", "")
    QTest.keyClick(tab.focusProxy(), Qt.Key.Key_End)  # the click put the caret where it landed in the text
    QTest.keyClicks(tab.focusProxy(), "!")
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('#fn').value") == "Ada Lovelace!")

    # The form starts from the last inputs, never the secret.
    form = open_run_form()
    assert form.fields["name"].editor.text() == "Ada Lovelace"
    assert form.fields["country"].editor.currentText() == "Japan"
    password = form.fields["password"].editor
    assert isinstance(password, QLineEdit) and password.text() == ""
    assert form.env.currentData() == "env-default"
    form.reject()
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]


# -- item 7: the recorder ------------------------------------------------------------------------------------
def test_recording_a_select_the_suggested_input_name_and_the_current_locator(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    from PySide6.QtWidgets import QInputDialog

    window = app.show_environment("env-default")
    assert window is not None
    tab = go(qtbot, window, site.url("/form"))
    start_recording(qtbot, window)
    panel = window.recording_panel
    assert panel is not None
    # The person picks a country with the mouse: a click opens the list, a click on Germany chooses it.
    click(tab.focusProxy(), page_point(qtbot, tab, "#co"))
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5_000)
    popup = QApplication.activePopupWidget()
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Return):
        QTest.keyClick(popup.focusProxy() or popup, key)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('#co').value") == "de", timeout=5_000)
    type_into_page(qtbot, tab, "#fn", "Ada")

    def words() -> list[str]:
        return [panel.list.item(i).text().split("\n")[0] for i in range(panel.list.count())]

    qtbot.waitUntil(lambda: any("Ada" in w for w in words()), timeout=10_000)
    assert [w.split(". ", 1)[1] for w in words()][1:] == [
        "Select 'Germany' in combobox 'Country'", "Type 'Ada' into textbox 'Full name'"]  # no click after the select

    # Make input… suggests a name from the field's label.
    fill_row = len(words()) - 1
    click(panel.list.viewport(), panel.list.visualItemRect(panel.list.item(fill_row)).center())
    suggested: list[str] = []

    def accept_name(dialog: QWidget) -> None:
        assert isinstance(dialog, QInputDialog)
        suggested.append(dialog.textValue())
        QTest.keyClick(dialog, Qt.Key.Key_Return)

    when_modal(lambda d: isinstance(d, QInputDialog), accept_name, [])
    click(panel.input_button)
    qtbot.waitUntil(lambda: bool(suggested), timeout=5_000)
    assert suggested == ["full_name"]
    qtbot.waitUntil(lambda: "{{#input.full_name#}}" in str([step.data for step in
                                                             app.service.get(tab.tab_id).recording.status().steps]),
                    timeout=5_000)

    # The Locator menu shows which way of finding the element replay tries first.
    def menu_entries() -> list[tuple[str, bool]]:
        menu = panel.locator_button.menu()
        click(panel.locator_button)
        qtbot.waitUntil(menu.isVisible)
        entries = [(a.text(), a.isChecked()) for a in menu.actions() if not a.isSeparator()]
        return entries

    click(panel.list.viewport(), panel.list.visualItemRect(panel.list.item(fill_row)).center())
    entries = menu_entries()
    assert entries[0][0].startswith("As recorded") and [checked for _t, checked in entries].count(True) == 1 \
        and entries[0][1], entries
    menu = panel.locator_button.menu()
    second = [a for a in menu.actions() if not a.isSeparator()][2]
    click(menu, menu.actionGeometry(second).center())  # choose the second alternative
    qtbot.waitUntil(lambda: not menu.isVisible())
    qtbot.waitUntil(lambda: app.service.get(tab.tab_id).recording.status().steps[fill_row].prefer == 1,
                    timeout=5_000)
    click(panel.list.viewport(), panel.list.visualItemRect(panel.list.item(fill_row)).center())
    entries = menu_entries()
    assert [checked for _t, checked in entries] == [False, False, True] + [False] * (len(entries) - 3), entries
    QTest.keyClick(panel.locator_button.menu(), Qt.Key.Key_Escape)
    when_modal(lambda d: d.objectName() == "close-recording", press_button("close-recording-discard"), [])
    window.close()
    qtbot.waitUntil(lambda: "env-default" not in app.windows.windows, timeout=10_000)  # type: ignore[union-attr]


# -- item 9: the editor's first view is legible and its window fits the screen -------------------------------
def test_the_editor_opens_a_wide_workflow_legible_and_inside_the_screen(qtbot: QtBot, app: BrowserPilotApp) -> None:
    from app.ui.editor.items import DETAIL_ZOOM
    from app.ui.editor.window import EditorWindow

    document = guba_like()
    document["app"]["name"] = "Wide collect"
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    main = app.main_window
    assert main is not None
    main.show()
    panel = main.workflows_panel
    main.panels.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.model.row_of("Wide collect") >= 0, timeout=5_000)
    rect = panel.table.visualRect(panel.model.index(panel.model.row_of("Wide collect"), 0))
    click(panel.table.viewport(), rect.center())
    QTest.mouseDClick(panel.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      rect.center())  # a double click opens the editor
    qtbot.waitUntil(lambda: any(isinstance(w, EditorWindow) and w.isVisible() and w.model.name == "Wide collect"
                                for w in QApplication.topLevelWidgets()), timeout=5_000)
    editor = next(w for w in QApplication.topLevelWidgets() if isinstance(w, EditorWindow)
                  and w.model.name == "Wide collect")
    qtbot.waitExposed(editor)
    qtbot.waitUntil(lambda: not editor._fit_pending)
    assert editor.view.zoom >= DETAIL_ZOOM - 1e-6, editor.view.zoom  # titles are drawn
    start = editor.scene.nodes["start"]
    assert editor.view.visible_scene_rect().intersects(start.sceneBoundingRect())  # the beginning is in view
    area = editor.screen().availableGeometry()
    assert area.contains(editor.frameGeometry()), (area, editor.frameGeometry())
    editor.close()


# -- item 10: in Chinese the editor's side panel and its undo speak Chinese -----------------------------------
def test_in_chinese_the_editor_side_panel_and_undo_are_translated(qtbot: QtBot, app: BrowserPilotApp,
                                                                   qapp: QApplication) -> None:
    import re

    from PySide6.QtWidgets import QLabel, QLineEdit

    from app.startup.i18n import CHINESE, install_translations
    from app.ui.editor.window import EditorWindow

    document = guba_like()
    document["app"]["name"] = "中文 collect"
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    assert install_translations(qapp, CHINESE) == CHINESE
    try:
        editor = app.editors.open("中文 collect")
        qtbot.waitExposed(editor)
        assert isinstance(editor, EditorWindow)
        latin_labels: list[str] = []
        for node in document["workflow"]["graph"]["nodes"]:
            editor.select_node(node["id"])
            qtbot.waitUntil(lambda: editor.form is not None and editor.form.node_id == node["id"])
            for label in editor.form.findChildren(QLabel):
                text = label.text()
                # a field's label ends with a colon: every one of them is in Chinese (x and y stay as they are)
                if re.fullmatch(r"[A-Za-z_]+\*?[:：]", text) \
                        and text.rstrip("*:：") not in ("x", "y", "XPath", "CSS"):
                    latin_labels.append(f"{node['id']}: {text}")
            about = editor.form.findChild(QLabel, "node-form-about")  # what the node does, in a sentence
            if about is None or not re.search(r"[\u4e00-\u9fff]", about.text()):
                latin_labels.append(f"{node['id']}: {about.text() if about else 'no summary'}")
        assert not latin_labels, latin_labels
        editor.select_node("open")
        qtbot.waitUntil(lambda: editor.form is not None and editor.form.node_id == "open")
        title = editor.form.findChild(QLineEdit, "field-title")
        from PySide6.QtWidgets import QFormLayout

        form_layout = next(l for l in editor.form.findChildren(QFormLayout) if l.indexOf(title) >= 0)
        assert form_layout.labelForField(title).text() == "标题：", form_layout.labelForField(title).text()
        click(title)
        QTest.keyClicks(title, "!")
        qtbot.waitUntil(lambda: editor.undo_action.isEnabled())
        undo_text = editor.undo_action.text()
        assert "open.title" not in undo_text and "标题" in undo_text and "Open the board" in undo_text, undo_text
        editor.stack.setClean()
        editor.close()
    finally:
        install_translations(qapp)


# -- item 11: polish ---------------------------------------------------------------------------------------------
def test_spin_arrows_fields_and_texts_are_whole_and_readable_in_both_themes_and_languages(
        qtbot: QtBot, app: BrowserPilotApp, qapp: QApplication) -> None:
    from PySide6.QtGui import QColor, QFontInfo
    from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QSpinBox, QStyle, QStyleOptionSpinBox

    from app.startup.i18n import CHINESE, install_translations
    from app.ui import theme
    from app.ui.run_inputs_dialog import BatchDialog
    from app.ui.welcome import WelcomeDialog

    main = app.main_window
    assert main is not None
    try:
        for scheme in ("light", "dark"):
            theme.apply_theme(qapp, scheme=scheme)
            text = QColor(theme.DARK.text if scheme == "dark" else theme.LIGHT.text)
            # Spin box arrows: a whole triangle in the text colour in each button, not a broken bracket.
            box = QSpinBox()
            box.setValue(10)
            box.resize(160, 32)
            box.show()
            qtbot.waitExposed(box)
            image = box.grab().toImage()
            option = QStyleOptionSpinBox()
            box.initStyleOption(option)
            for control in (QStyle.SubControl.SC_SpinBoxUp, QStyle.SubControl.SC_SpinBoxDown):
                rect = box.style().subControlRect(QStyle.ComplexControl.CC_SpinBox, option, control, box)
                inked = [(x, y) for x in range(rect.left(), rect.right() + 1) for y in range(rect.top(), rect.bottom() + 1)
                         if max(abs(image.pixelColor(x, y).red() - text.red()),
                                abs(image.pixelColor(x, y).green() - text.green()),
                                abs(image.pixelColor(x, y).blue() - text.blue())) < 60]
                rows = sorted({y for _x, y in inked})
                widths = [len([1 for _x, y in inked if y == row]) for row in rows]
                assert len(inked) >= 12 and len(rows) >= 3, (scheme, control, inked)
                # a triangle: its rows grow (up) or shrink (down) in width
                assert widths == sorted(widths, reverse=control == QStyle.SubControl.SC_SpinBoxDown), (scheme, widths)
            box.close()
            # The batch dialog's broker field shows its whole placeholder.
            batch = BatchDialog("Wide collect", [], [("env-default", "Default")], 3, parent=main)
            batch.show()
            qtbot.waitExposed(batch)
            broker = batch.findChild(QLineEdit, "batch-broker")
            shown = broker.contentsRect().width() - 2 * 8 - 4  # the style's text margins and padding
            assert broker.fontMetrics().horizontalAdvance(broker.placeholderText()) <= shown, broker.placeholderText()
            batch.done(0)
    finally:
        theme.apply_theme(qapp, scheme="light")

    # The Runs panel's empty state: no literal backticks.
    empty_texts = [label.text() for label in main.runs_panel.empty.findChildren(QLabel)]
    assert empty_texts and not any("`" in t for t in empty_texts), empty_texts

    # A remark of several lines says there is more.
    created = run_op(qtbot, app, "env_create", {"name": "Remarked", "remark": "first line\nsecond line"})
    model = main.environments.model
    qtbot.waitUntil(lambda: model.row_of(created["env"]) >= 0)
    cell = model.index(model.row_of(created["env"]), 1).data()
    assert cell == "first line …", cell

    # The welcome, in Chinese: its MCP configuration is whole (no scroll bar); the grey hints are readable.
    assert install_translations(qapp, CHINESE) == CHINESE
    try:
        welcome = WelcomeDialog(app.data, app.mcp, main)
        welcome.show()
        qtbot.waitExposed(welcome)
        for client, editor in welcome.config_texts.items():
            welcome.configs.setCurrentWidget(editor.parentWidget())
            qtbot.waitUntil(editor.isVisible)
            assert isinstance(editor, QPlainTextEdit)
            assert editor.verticalScrollBar().maximum() == 0, client
        hints = [label for label in welcome.findChildren(QLabel) if label.property("role") == "hint"]
        body = QFontInfo(welcome.findChildren(QLabel)[1].font()).pixelSize()
        assert hints and all(QFontInfo(h.font()).pixelSize() >= 0.8 * body for h in hints), \
            [(QFontInfo(h.font()).pixelSize(), body) for h in hints]
        area = welcome.screen().availableGeometry()
        assert area.contains(welcome.frameGeometry())
        welcome.done(0)
    finally:
        install_translations(qapp)


# -- item 1, on the way out: File → Quit says what would stop --------------------------------------------------
def test_quit_while_a_run_goes_on_asks_first(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    main = app.main_window
    assert main is not None
    main.show()
    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Waits long", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {"nodes": [
                    {"id": "start", "data": {"type": "start"}},
                    {"id": "open", "data": {"type": "goto", "url": site.url("/form")}},
                    {"id": "wait", "data": {"type": "wait", "locator": {"selector": "#never"}, "state": "appear",
                                            "timeout": 60}},
                    {"id": "end", "data": {"type": "end"}}],
                    "edges": [{"source": "start", "target": "open"}, {"source": "open", "target": "wait"},
                              {"source": "wait", "target": "end"}]}}}
    assert run_op(qtbot, app, "workflow_write", {"workflow": document})["ok"]
    started = run_op(qtbot, app, "workflow_start", {"name": "Waits long", "env": "env-default"})
    assert started["ok"], started
    said: list[str] = []

    def read_and_stay(box: QWidget) -> None:
        said.append(box.text())  # type: ignore[attr-defined]
        click(box.findChild(QPushButton, "quit-confirm-stay"))

    when_modal(lambda d: d.objectName() == "quit-confirm", read_and_stay, [])
    file_menu = main._menus["file"]
    main.menuBar().setActiveAction(file_menu.menuAction())
    qtbot.waitUntil(file_menu.isVisible)
    click(file_menu, file_menu.actionGeometry(main.actions_by_name["quit"]).center())
    qtbot.waitUntil(lambda: bool(said), timeout=5_000)
    assert "1 run still running will stop." in said[0], said
    assert not app._quitting and started["runId"] in app.ctx.runner.active_runs()  # type: ignore[union-attr]
    assert run_op(qtbot, app, "run_cancel", {"runId": started["runId"]})["ok"]
    qtbot.waitUntil(lambda: started["runId"] not in app.ctx.runner.active_runs(), timeout=10_000)  # type: ignore[union-attr]
