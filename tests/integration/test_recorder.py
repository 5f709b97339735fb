"""Issue 11's "Done means", as a person does it: recording by clicking through a real page with trusted input.

A person (QTest: spontaneous events, like the window system's, straight to the render widget) logs in with a
password, fills a form — text fields, a select (by keyboard), a checkbox, a file chosen in the real file
dialog, a slider clicked at a point — submits, and stops. The saved workflow has about one node per action,
the password is in no file of the data folder, and it replays 10 times out of 10 while the site regenerates
every id and class and wraps its fields in new divs before each replay; the server checks what it received.
Also: the app's own operations are not recorded, merge rules, panel edits through record_edit, and the
recorder leaves no trace in the page.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit
from pytestqt.qtbot import QtBot

from app.browser.recorder import TabRecorder, app_acting
from app.browser.tab import BrowserTab
from app.ops.results import RecordStopResult
from app.wiring.shell import BrowserPilotApp
from tests.support.qt import open_view, run_js, run_op, running_app, wait_loaded, window_of
from tests.support.server import LocalServer, Request, Response
from workflows.document import validate_document
from workflows.nodes.locators import NodeLocator

PASSWORD = "s3cr3t-Pa55w0rd-" + secrets.token_hex(4)


class Site:
    """The fixture site: a login and a form whose ids, classes and wrappers change with `regenerate()`."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.seed = "a1"
        self.wraps = 0
        self.received: list[dict[str, Any]] = []
        self.logins: list[dict[str, list[str]]] = []
        server.route("/login", self.login)
        server.route("/form", self.form)
        server.route("/submit", self.submit)

    def regenerate(self) -> None:
        self.seed = secrets.token_hex(5)
        self.wraps += 1

    def _id(self, name: str) -> str:
        return f"{name}-{self.seed}{secrets.token_hex(2)}" if self.wraps else name

    def _cls(self) -> str:
        return f"css-{secrets.token_hex(3)} sc-{self.seed}" if self.wraps else "field"

    def _wrap(self, html: str) -> str:
        for _ in range(self.wraps % 3 + (1 if self.wraps else 0)):
            html = f'<div class="{self._cls()}">{html}</div>'
        return html

    def login(self, request: Request) -> Response:
        if request.method == "POST":
            form = parse_qs(request.body.decode())
            self.logins.append(form)
            if form.get("username") == ["alice"] and form.get("password") == [PASSWORD]:
                return Response("", status=303, headers=[("Location", "/form")])
            return Response("<title>Login failed</title><p>wrong password</p>", status=403)
        user, pw = self._id("user"), self._id("pw")
        return Response(f"""<!doctype html><title>Sign in</title><body style="margin:0;font:16px sans-serif">
<form method=post action=/login class="{self._cls()}" style="padding:20px">
{self._wrap(f'<label for={user}>Username</label> <input id={user} name=username class="{self._cls()}">')}
{self._wrap(f'<label for={pw}>Password</label> <input id={pw} type=password name=password autocomplete=current-password class="{self._cls()}">')}
{self._wrap(f'<button class="{self._cls()}" id={self._id("go")}>Sign in</button>')}
</form></body>""")

    def form(self, request: Request) -> Response:
        ids = {k: self._id(k) for k in ("name", "email", "country", "agree", "doc", "volume")}
        fields = [
            f'<label for={ids["name"]}>Full name</label> <input id={ids["name"]} class="{self._cls()}">',
            f'<input id={ids["email"]} name=email placeholder="Email address" class="{self._cls()}">',
            f'<label for={ids["country"]}>Country</label> <select id={ids["country"]} name=country '
            f'class="{self._cls()}"><option>Choose</option><option value=fr>France</option>'
            f'<option value=jp>Japan</option></select>',
            f'<label class="{self._cls()}"><input type=checkbox id={ids["agree"]} name=agree value=yes> '
            f'I agree to the terms</label>',
            f'<label for={ids["doc"]}>Attachment</label> <input type=file id={ids["doc"]} name=doc>',
            f'<label for={ids["volume"]}>Volume</label> <input type=range id={ids["volume"]} name=volume '
            f'min=0 max=100 value=10 style="width:400px;margin:0;padding:0">',
            f'<button class="{self._cls()}">Send the form</button>',
        ]
        body = "\n".join(f'<p style="margin:14px 0">{self._wrap(f)}</p>' for f in fields)
        return Response(f"""<!doctype html><title>Form</title><body style="margin:0;font:16px sans-serif">
<form method=post action=/submit enctype=multipart/form-data style="padding:20px">
{body}</form>
<script>document.querySelector('select').addEventListener('change', (e) => {{
  e.target.dataset.changed = '1'; }});</script></body>""")

    def submit(self, request: Request) -> Response:
        boundary = request.headers["content-type"].split("boundary=")[1].encode()
        fields: dict[str, Any] = {}
        for part in request.body.split(b"--" + boundary):
            head, _, value = part.partition(b"\r\n\r\n")
            match = re.search(rb'name="([^"]+)"(?:; filename="([^"]*)")?', head)
            if match:
                key = match.group(1).decode()
                fields[key] = value.rstrip(b"\r\n").decode(errors="replace")
                if match.group(2) is not None:
                    fields[key + ".filename"] = match.group(2).decode()
        # The full name has no name attribute in this fixture: the page copies nothing, so the server checks
        # only the named fields and the name comes back through the thanks page.
        self.received.append(fields)
        return Response(f"<title>Thanks</title><p>Received {len(fields)} fields</p>")


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with LocalServer() as server:
        yield Site(server)


# -- a person ------------------------------------------------------------------------------------------------
def centre(qtbot: QtBot, tab: BrowserTab, selector: str, fx: float = 0.5, fy: float = 0.5) -> QPoint:
    x, y = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                              f".getBoundingClientRect(); return [r.x + r.width * {fx}, r.y + r.height * {fy}]; }})()")
    return QPoint(round(x * tab.zoomFactor()), round(y * tab.zoomFactor()))


def person_clicks(qtbot: QtBot, tab: BrowserTab, selector: str, fx: float = 0.5, fy: float = 0.5) -> None:
    QTest.mouseClick(tab.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     centre(qtbot, tab, selector, fx, fy))


def person_types(tab: BrowserTab, text: str) -> None:
    QTest.keyClicks(tab.focusProxy(), text)


def person_presses(tab: BrowserTab, key: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(tab.focusProxy(), key, modifiers)


def person_chooses_file(qtbot: QtBot, tab: BrowserTab, selector: str, path: Path) -> None:
    """Click the file input and answer the real file dialog by typing the path, as a person would."""
    answered: list[object] = []
    tab.browser_page.file_chooser_answered.connect(answered.append)

    def answer() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QFileDialog) and widget.isVisible():
                widget.findChild(QLineEdit, "fileNameEdit").setText(str(path))
                widget.accept()
        if not answered:
            QTimer.singleShot(30, answer)

    QTimer.singleShot(30, answer)
    person_clicks(qtbot, tab, selector)
    qtbot.waitUntil(lambda: bool(answered), timeout=10_000)
    tab.browser_page.file_chooser_answered.disconnect(answered.append)


def status(qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab) -> dict[str, Any]:
    result = run_op(qtbot, app, "record_status", {"tabId": tab.tab_id})
    assert result["ok"], result
    return result


def wait_steps(qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab, predicate: Any) -> list[dict[str, Any]]:
    box: list[list[dict[str, Any]]] = []

    def check() -> bool:
        steps = status(qtbot, app, tab)["steps"]
        box[:] = [steps]
        return bool(predicate(steps))

    qtbot.waitUntil(check, timeout=10_000)
    return box[0]


def open_person_tab(qtbot: QtBot, app: BrowserPilotApp, url: str) -> BrowserTab:
    tab = open_view(app, "env-default", url)
    wait_loaded(qtbot, tab)
    return tab


# -- the acceptance test ---------------------------------------------------------------------------------------
def test_record_login_and_form_then_replay_after_the_site_changes(qtbot: QtBot, app: BrowserPilotApp, site: Site,
                                                                  tmp_path: Path) -> None:
    upload = tmp_path / "report.txt"
    upload.write_text("quarterly numbers\n")
    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    started = run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    assert started["ok"] and [s["type"] for s in started["steps"]] == ["goto"]
    assert not run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})["ok"]  # one recording per tab

    person_clicks(qtbot, tab, "input[name=username]")
    person_types(tab, "alicx")
    person_presses(tab, Qt.Key.Key_Backspace)
    person_types(tab, "e")
    person_clicks(qtbot, tab, "input[name=password]")
    person_types(tab, PASSWORD)
    wait_steps(qtbot, app, tab, lambda steps: len(steps) == 3)
    person_presses(tab, Qt.Key.Key_Return)  # submits: the navigation belongs to this step
    qtbot.waitUntil(lambda: tab.url().path() == "/form" and not tab.loading, timeout=10_000)
    wait_loaded(qtbot, tab)

    person_clicks(qtbot, tab, "label + input")  # Full name
    person_types(tab, "Alice Liddell")
    person_clicks(qtbot, tab, "input[name=email]")
    person_presses(tab, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    person_types(tab, "alice@example.org")
    person_presses(tab, Qt.Key.Key_Tab)  # to the select, then choose by keyboard
    person_presses(tab, Qt.Key.Key_Down)
    person_presses(tab, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('select').value") == "jp", timeout=5_000)
    person_clicks(qtbot, tab, "input[type=checkbox]")
    person_chooses_file(qtbot, tab, "input[type=file]", upload)
    person_clicks(qtbot, tab, "input[type=range]", fx=0.75)
    volume = "document.querySelector('input[type=range]').value"
    qtbot.waitUntil(lambda: run_js(qtbot, tab, volume) != "10", timeout=5_000)
    recorded_volume = run_js(qtbot, tab, volume)
    assert 60 <= int(recorded_volume) <= 90
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["type"] == "click" and "offset" in steps[-1]["data"])
    person_clicks(qtbot, tab, "button")
    qtbot.waitUntil(lambda: bool(site.server.hits("/submit")), timeout=10_000)
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["words"].startswith("Click button 'Send the form'"))

    words = [step["words"] for step in steps]
    types = [step["type"] for step in steps]
    assert words[1] == "Type 'alice' into textbox 'Username'"
    assert words[2].startswith("Type the secret {{password}} into")
    assert "Type 'Alice Liddell' into textbox 'Full name'" in words
    assert "Type 'alice@example.org' into textbox 'Email address'" in words
    assert "Select 'Japan' in combobox 'Country'" in words
    assert types == ["goto", "fill", "fill", "press", "fill", "fill", "press", "select", "click", "upload", "click",
                     "click"]
    # one node per action: open, user, password, Enter, name, email, Tab, country, agree, file, volume, send
    assert PASSWORD not in json.dumps(steps)
    upload_step = steps[types.index("upload")]
    assert upload_step["data"]["paths"] == [str(upload)]
    slider = steps[10]
    assert 0.7 <= slider["data"]["offset"]["x"] <= 0.8
    for step in steps[1:]:
        if step["type"] != "press":
            locator = step["data"]["locator"]
            assert ("selector" in locator) != ("xpath" in locator), locator  # a plain primary the original runs
            assert locator.get("alternatives"), step

    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Sign in and send the form"})
    assert stopped["ok"] and stopped["saved"]
    document = stopped["workflow"]
    assert validate_document(document).warnings == []
    assert status(qtbot, app, tab)["recording"] is False
    listed = run_op(qtbot, app, "workflow_list", {})
    assert "Sign in and send the form" in [w["name"] for w in listed["workflows"]]
    start = document["workflow"]["graph"]["nodes"][0]["data"]
    assert start["variables"] == [{"variable": "password", "label": "textbox 'Password'", "type": "secret"}]
    assert len(document["workflow"]["graph"]["nodes"]) == len(steps) + 2  # start and end

    first = site.received[0]
    for run in range(10):
        site.regenerate()
        before = len(site.received)
        result = run_op(qtbot, app, "workflow_run", {"name": "Sign in and send the form", "tabId": tab.tab_id,
                                                     "inputs": {"password": PASSWORD}}, timeout=90_000)
        assert result["ok"], (run, result.get("error"), result.get("node"))
        qtbot.waitUntil(lambda: len(site.received) == before + 1, timeout=10_000)
        qtbot.waitUntil(lambda: tab.title() == "Thanks", timeout=10_000)
        got = site.received[-1]
        assert {k: got.get(k) for k in ("email", "country", "agree", "doc", "doc.filename")} == \
            {"email": "alice@example.org", "country": "jp", "agree": "yes", "doc": "quarterly numbers",
             "doc.filename": "report.txt"}, run
        assert got["volume"] == first["volume"] == recorded_volume
    assert all(login == {"username": ["alice"], "password": [PASSWORD]} for login in site.logins)

    leaks = [str(path) for path in Path(app.data.root).rglob("*") if path.is_file()
             and PASSWORD.encode() in path.read_bytes()]
    assert leaks == []


def test_the_apps_own_operations_are_not_recorded(qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    site.wraps = 0
    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    assert run_op(qtbot, app, "page_type", {"tabId": tab.tab_id, "locator": {"selector": "input[name=username]"},
                                            "text": "agent"})["ok"]
    assert run_op(qtbot, app, "page_click", {"tabId": tab.tab_id, "locator": {"selector": "text=Password"}})["ok"]
    with app_acting(tab):  # what every operation on the tab is wrapped in: the panel says so
        assert status(qtbot, app, tab)["paused"].startswith("paused while the app acts on this tab")
    qtbot.waitUntil(lambda: "paused" not in status(qtbot, app, tab), timeout=5_000)
    person_clicks(qtbot, tab, "input[name=username]")
    person_presses(tab, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    person_types(tab, "bob")
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["words"] == "Type 'bob' into textbox 'Username'")
    assert [s["words"] for s in steps] == [f"Go to {site.server.url('/login')}", "Type 'bob' into textbox 'Username'"]
    # edits, as the panel makes them
    fill = steps[1]["id"]
    edited = run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "make_input", "step": fill,
                                                "name": "user"})
    assert edited["steps"][1]["words"] == "Type {{user}} into textbox 'Username'"
    assert edited["steps"][1]["default"] == "bob"
    alternatives = edited["steps"][1]["alternatives"]
    plain = next(i for i, a in enumerate(alternatives) if a.startswith(("input", "/")))
    switched = run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "set_locator", "step": fill,
                                                  "index": plain})
    assert switched["steps"][1]["locator"] == alternatives[plain]
    run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "insert", "kind": "handoff",
                                       "message": "Type the code from your phone"})
    run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "insert", "kind": "check"})
    person_clicks(qtbot, tab, "button")  # picks the element of the check (not a click step)
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["type"] == "wait")
    assert steps[-1]["words"] == "Check that button 'Sign in' is there" and steps[-1]["data"]["timeout"] == 5
    bad = run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "delete", "step": "nope"})
    assert not bad["ok"] and "no step 'nope'" in bad["error"]
    run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "delete", "step": steps[-1]["id"]})
    out = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Draft", "save": False})
    assert out["ok"] and not out["saved"]
    doc = out["workflow"]
    assert [n["data"]["type"] for n in doc["workflow"]["graph"]["nodes"]] == ["start", "goto", "fill", "handoff", "end"]
    assert doc["workflow"]["graph"]["nodes"][0]["data"]["variables"][0]["default"] == "bob"
    assert validate_document(doc).warnings == []
    fill_locator = doc["workflow"]["graph"]["nodes"][2]["data"]["locator"]  # the switch: replay tries it first
    primary = {k: v for k, v in steps[1]["data"]["locator"].items() if k in ("selector", "xpath")}
    assert primary and {k: fill_locator[k] for k in primary} == primary and fill_locator["prefer"] == plain
    assert NodeLocator.model_validate(fill_locator).labeled_candidates()[0].source == f"alternatives[{plain}]"
    assert "Draft" not in [w["name"] for w in run_op(qtbot, app, "workflow_list", {})["workflows"]]


def test_a_typing_burst_is_one_message_and_survives_an_operation_that_starts_before_it_is_sent(
        qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    site.wraps = 0
    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    recorder_before = run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    assert recorder_before["ok"]
    person_clicks(qtbot, tab, "input[name=username]")
    person_types(tab, "carol")
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('input[name=username]').value") == "carol",
                    timeout=5_000)
    # The page holds the burst's fill until the typing ends; the agent acts at once, before that.
    assert run_op(qtbot, app, "page_type", {"tabId": tab.tab_id, "locator": {"selector": "input[name=password]"},
                                            "text": "agent-secret"})["ok"]
    qtbot.waitUntil(lambda: "paused" not in status(qtbot, app, tab), timeout=5_000)
    person_clicks(qtbot, tab, "button")
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["type"] == "click")
    assert [s["words"] for s in steps] == [f"Go to {site.server.url('/login')}", "Type 'carol' into textbox 'Username'",
                                           "Click button 'Sign in'"], steps
    recorder = TabRecorder.of(tab)
    assert recorder is not None and recorder.events < 10, recorder.events  # per key it would be 17 or more
    run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Burst", "save": False})


def test_the_recorder_leaves_no_trace_in_the_page(qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    before = run_js(qtbot, tab, "[Object.keys(window).length, document.documentElement.outerHTML.length]")
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    person_clicks(qtbot, tab, "input[name=username]")
    person_types(tab, "x")
    wait_steps(qtbot, app, tab, lambda steps: len(steps) == 2)
    after = run_js(qtbot, tab, "[Object.keys(window).length, document.documentElement.outerHTML.length]")
    assert after[0] == before[0]  # no global in the page's world
    assert run_js(qtbot, tab, "typeof window.__bpRecorder + typeof window.__bpGen + typeof window.__bp") == \
        "undefinedundefinedundefined"
    assert "__bprec" not in run_js(qtbot, tab, "document.documentElement.outerHTML")
    names = [script.name() for script in tab.browser_page.scripts().toList()]
    assert names.count("browserpilot-recorder") == 1
    run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "x", "save": False})
    assert [s.name() for s in tab.browser_page.scripts().toList()].count("browserpilot-recorder") == 0


def test_record_button_panel_and_stop_in_the_window(qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    from app.ui.recording_panel import StopDialog

    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    window = window_of(app, "env-default")
    window.tabs.setCurrentWidget(tab)
    assert window.record_action.shortcut().toString() == "Ctrl+Shift+R"
    window.record_action.trigger()
    panel = window.recording_panel
    assert panel is not None
    qtbot.waitUntil(lambda: panel.isVisible() and window.record_label.isVisible(), timeout=5_000)
    index = window.tabs.indexOf(tab)
    assert window.tabs.tabBar().tabTextColor(index).name() == "#d93025"  # the red tab
    person_clicks(qtbot, tab, "input[name=username]")
    person_types(tab, "carol")
    qtbot.waitUntil(lambda: panel.list.count() == 2 and "carol" in panel.list.item(1).text(), timeout=5_000)
    assert panel.list.item(1).text().startswith("2. Type 'carol' into textbox 'Username'\n    fill · ")

    def answer() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, StopDialog) and widget.isVisible():
                widget.name.setText("Carol signs in")
                widget.accept()
                return
        QTimer.singleShot(30, answer)

    QTimer.singleShot(30, answer)
    window.record_action.trigger()  # Stop: asks for a name
    qtbot.waitUntil(lambda: "Carol signs in" in [w.name for w in app.ctx.workflows.list()], timeout=5_000)
    qtbot.waitUntil(lambda: not window.record_label.isVisible(), timeout=5_000)
    assert window.tabs.tabBar().tabTextColor(window.tabs.indexOf(tab)).name() != "#d93025"
    assert not window.record_action.isChecked()


def test_the_panel_shows_an_action_it_could_not_record_in_red_and_stop_does_not_save_it(
        qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.ui.recording_panel import RECORDING_RED, StopDialog

    tab = open_person_tab(qtbot, app, site.server.url("/login"))
    window = window_of(app, "env-default")
    window.tabs.setCurrentWidget(tab)
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})  # an agent's record_start shows the panel too
    qtbot.waitUntil(lambda: window.recording_panel is not None and window.recording_panel.isVisible(), timeout=5_000)
    panel = window.recording_panel
    recorder = TabRecorder.of(tab)
    assert recorder is not None
    # What the page reports for typing into an element nothing finds again (tests/e2e/test_recorder_x.py makes
    # one with a person's real input: one of two identical anonymous components).
    recorder.recording.add({"kind": "fill", "loc": {"alternatives": [], "unique": False}, "value": "Hello",
                            "desc": "<div contenteditable>", "variable": "text", "paste": False})
    recorder.changed.emit()
    qtbot.waitUntil(lambda: any("Not recorded: typing" in panel.list.item(i).text()
                                for i in range(panel.list.count())), timeout=5_000)
    row = next(i for i in range(panel.list.count()) if "Not recorded: typing" in panel.list.item(i).text())
    assert panel.list.item(row).foreground().color().name() == RECORDING_RED
    assert "could not be recorded" in panel.notes.text() and "cannot be saved" in panel.notes.text()
    warnings: list[str] = []

    def answer() -> None:  # the name asked at Stop, then the refusal's message box
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, StopDialog) and widget.isVisible():
                widget.name.setText("Twin pads")
                widget.accept()
            elif isinstance(widget, QMessageBox) and widget.isVisible():
                warnings.append(widget.text())
                widget.accept()
                return
        QTimer.singleShot(30, answer)

    QTimer.singleShot(30, answer)
    window.record_action.trigger()  # Stop
    qtbot.waitUntil(lambda: bool(warnings), timeout=10_000)
    assert "could not be recorded" in warnings[0] and "Not recorded: typing" in warnings[0], warnings
    assert "Twin pads" not in [w.name for w in app.ctx.workflows.list()]
    assert TabRecorder.of(tab) is not None  # still recording: nothing the person did is lost
    for step in [s for s in status(qtbot, app, tab)["steps"] if s.get("missing")]:
        run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "delete", "step": step["id"]})
    assert run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Twin pads"})["saved"]


# -- shadow roots and same-origin frames ---------------------------------------------------------------------
DEEP_PAGE = """<!doctype html><title>Deep</title><body style="margin:0;font:16px sans-serif">
<p><button>Save</button> <input placeholder="Search"></p>
<x-card></x-card>
<iframe name=pay src="/deep-frame" style="width:400px;height:120px;border:0"></iframe>
<script>
customElements.define('x-card', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<p><input placeholder="Nickname"> <button class="primary">Save</button></p>';
    root.querySelector('button').addEventListener('click', () =>
      fetch('/deep-hit?nick=' + encodeURIComponent(root.querySelector('input').value)));
  }
});
</script></body>"""
DEEP_FRAME = """<!doctype html><body style="margin:0;font:16px sans-serif">
<p><input name=code> <button title="Save the code" onclick="fetch('/deep-hit?code=' + document.querySelector('input').value)">Save</button></p>
</body>"""


def deep_point(qtbot: QtBot, tab: BrowserTab, find: str) -> QPoint:
    """The centre of an element found by the JS expression `find` (in a shadow root or a frame), in view px."""
    x, y = run_js(qtbot, tab, f"""(() => {{ const el = {find};
        const r = el.getBoundingClientRect(); const f = el.ownerDocument.defaultView.frameElement;
        const o = f ? f.getBoundingClientRect() : {{x: 0, y: 0}};
        return [o.x + r.x + r.width / 2, o.y + r.y + r.height / 2]; }})()""")
    return QPoint(round(x * tab.zoomFactor()), round(y * tab.zoomFactor()))


def test_record_in_a_shadow_root_and_a_frame_loaded_before_the_start(qtbot: QtBot, app: BrowserPilotApp,
                                                                    site: Site) -> None:
    server = site.server
    server.route("/deep", DEEP_PAGE)
    server.route("/deep-frame", DEEP_FRAME)
    server.route("/deep-hit", "ok")
    tab = open_person_tab(qtbot, app, server.url("/deep"))
    frame_doc = "document.querySelector('iframe').contentDocument"
    qtbot.waitUntil(lambda: run_js(qtbot, tab, f"!!{frame_doc}.querySelector('button')") is True, timeout=10_000)
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})  # the frame is already loaded
    shadow = "document.querySelector('x-card').shadowRoot"
    click = lambda find: QTest.mouseClick(tab.focusProxy(), Qt.MouseButton.LeftButton,  # noqa: E731
                                          Qt.KeyboardModifier.NoModifier, deep_point(qtbot, tab, find))
    click(f"{shadow}.querySelector('input')")
    person_types(tab, "zed")
    click(f"{shadow}.querySelector('button')")
    click(f"{frame_doc}.querySelector('input')")
    person_types(tab, "4711")
    click(f"{frame_doc}.querySelector('button')")
    qtbot.waitUntil(lambda: len(server.hits("/deep-hit")) == 2, timeout=10_000)
    assert [h.query for h in server.hits("/deep-hit")] == [{"nick": ["zed"]}, {"code": ["4711"]}]
    steps = wait_steps(qtbot, app, tab, lambda steps: len(steps) == 5)
    assert [s["type"] for s in steps] == ["goto", "fill", "click", "fill", "click"]
    for step in steps[1:]:
        locator = step["data"]["locator"]
        assert ("selector" in locator) != ("xpath" in locator) and ">>" not in str(locator.get("selector")), locator
        chains = [a["selector"] for a in locator["alternatives"] if ">>" in a.get("selector", "")]
        assert chains, step
        # each of them, as replay resolves it, finds exactly one element
        for candidate in [{k: v for k, v in locator.items() if k not in ("alternatives", "fingerprint")}] + \
                [{"selector": chain} for chain in chains]:
            found = run_op(qtbot, app, "page_query", {"tabId": tab.tab_id, "locator": candidate})
            assert found["ok"] and found["count"] == 1, (candidate, found)
    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Deep steps"})
    assert validate_document(stopped["workflow"]).warnings == []
    result = run_op(qtbot, app, "workflow_run", {"name": "Deep steps", "tabId": tab.tab_id}, timeout=60_000)
    assert result["ok"], result
    qtbot.waitUntil(lambda: len(server.hits("/deep-hit")) == 4, timeout=10_000)
    assert [h.query for h in server.hits("/deep-hit")][2:] == [{"nick": ["zed"]}, {"code": ["4711"]}]


# -- drags, the app's input next to a person's, new tabs, Replay now -----------------------------------------
DRAG_PAGE = """<!doctype html><title>Drag</title><body style="margin:0;font:16px sans-serif">
<p style="margin:20px"><input name=note value="select me by dragging across" style="width:300px"></p>
<canvas id=pad width=400 height=200 style="margin:20px;display:block;background:#eee;touch-action:none"></canvas>
<script>
const pad = document.getElementById('pad');
let path = null;
pad.addEventListener('pointerdown', (e) => { path = [[e.offsetX, e.offsetY]]; pad.setPointerCapture(e.pointerId);
  e.preventDefault(); });
pad.addEventListener('pointermove', (e) => { if (path) path.push([e.offsetX, e.offsetY]); });
pad.addEventListener('pointerup', (e) => {
  if (!path) return;
  path.push([e.offsetX, e.offsetY]);
  const [x0, y0] = path[0], [x1, y1] = path[path.length - 1];
  fetch(`/drag-hit?type=${e.pointerType}&x0=${x0}&y0=${y0}&x1=${x1}&y1=${y1}&n=${path.length}`);
  path = null;
});
pad.addEventListener('click', () => fetch('/drag-click'));
</script></body>"""


def person_drags(qtbot: QtBot, tab: BrowserTab, start: QPoint, end: QPoint, steps: int = 8) -> None:
    """Press, move in steps, release: the window system's (spontaneous) mouse events, as QTest makes them."""
    proxy = tab.focusProxy()
    QTest.mousePress(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, steps + 1):
        QTest.mouseMove(proxy, QPoint(start.x() + (end.x() - start.x()) * i // steps,
                                      start.y() + (end.y() - start.y()) * i // steps))
    QTest.mouseRelease(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def test_a_drag_becomes_a_swipe_that_replays_the_drag(qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    server = site.server
    server.route("/drag", DRAG_PAGE)
    server.route("/drag-hit", "ok")
    server.route("/drag-click", "ok")
    tab = open_person_tab(qtbot, app, server.url("/drag"))
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    # Selecting text in a field by dragging is not a step.
    person_drags(qtbot, tab, centre(qtbot, tab, "input", 0.1), centre(qtbot, tab, "input", 0.7))
    selected = "(document.activeElement.selectionEnd || 0) - (document.activeElement.selectionStart || 0)"
    qtbot.waitUntil(lambda: run_js(qtbot, tab, selected) > 3, timeout=5_000)
    person_drags(qtbot, tab, centre(qtbot, tab, "canvas", 0.25, 0.3), centre(qtbot, tab, "canvas", 0.75, 0.6))
    qtbot.waitUntil(lambda: bool(server.hits("/drag-hit")), timeout=10_000)
    recorded = server.hits("/drag-hit")[0].query
    assert recorded["type"] == ["mouse"] and int(recorded["n"][0]) >= 3
    steps = wait_steps(qtbot, app, tab, lambda steps: steps[-1]["type"] == "swipe")
    assert [s["type"] for s in steps] == ["goto", "swipe"]  # no click after the drag, nothing for the text field
    drag = steps[1]
    assert drag["words"] == "Drag <canvas id=pad> by +200, +60 px" and drag["data"]["direction"] == "right"
    assert drag["data"]["dx"] == pytest.approx(200, abs=2) and drag["data"]["dy"] == pytest.approx(60, abs=2)
    assert drag["data"]["offset"] == {"x": pytest.approx(0.25, abs=0.01), "y": pytest.approx(0.3, abs=0.01)}
    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Drag on the pad"})
    assert validate_document(stopped["workflow"]).warnings == []
    result = run_op(qtbot, app, "workflow_run", {"name": "Drag on the pad", "tabId": tab.tab_id}, timeout=60_000)
    assert result["ok"], result
    qtbot.waitUntil(lambda: len(server.hits("/drag-hit")) == 2, timeout=10_000)
    replayed = server.hits("/drag-hit")[1].query
    assert replayed["type"] == ["mouse"]
    for key in ("x0", "y0", "x1", "y1"):  # the same path ends, to the pixel or so
        assert abs(float(replayed[key][0]) - float(recorded[key][0])) <= 2, (key, recorded, replayed)


TWO_BUTTONS = """<!doctype html><title>Two buttons</title><body style="margin:0;font:16px sans-serif">
<p style="margin:20px"><button onclick="fetch('/ab?b=agent')">Agent's</button>
<button onclick="fetch('/ab?b=person')">Person's</button></p></body>"""


def test_a_persons_click_right_after_the_agents_is_recorded_and_the_agents_is_not(
        qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    server = site.server
    server.route("/ab", "ok")
    server.route("/two", TWO_BUTTONS)
    tab = open_person_tab(qtbot, app, server.url("/two"))
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    person = centre(qtbot, tab, "button + button")
    for _ in range(3):
        before = len(server.hits("/ab"))
        clicked = run_op(qtbot, app, "page_click", {"tabId": tab.tab_id, "locator": {"selector": "button >> nth=0"}})
        assert clicked["ok"], clicked
        # at once: well inside the 0.4 s the recorder used to wait after an operation
        QTest.mouseClick(tab.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, person)
        qtbot.waitUntil(lambda: len(server.hits("/ab")) == before + 2, timeout=10_000)
        assert [h.query["b"] for h in server.hits("/ab")[before:]] == [["agent"], ["person"]]
    steps = wait_steps(qtbot, app, tab, lambda steps: len(steps) >= 4 and "paused" not in status(qtbot, app, tab))
    assert [s["words"] for s in steps] == [f"Go to {server.url('/two')}"] + ["Click button 'Person's'"] * 3
    run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "x", "save": False})


OPENER = """<!doctype html><title>Opener</title><body style="margin:0;font:16px sans-serif">
<p style="margin:20px"><a href="/newform" target="_blank">Open the form</a></p></body>"""
NEW_FORM = """<!doctype html><title>New form</title><body style="margin:0;font:16px sans-serif">
<form action="/newsubmit" style="margin:20px"><label for=who>Who</label> <input id=who name=who>
<button>Send</button></form></body>"""


def test_replay_follows_into_the_new_tab_and_replay_now_asks_with_the_run_form(
        qtbot: QtBot, app: BrowserPilotApp, site: Site) -> None:
    from app.ui.run_inputs_dialog import RunInputsDialog

    server = site.server
    server.route("/opener", OPENER)
    server.route("/newform", NEW_FORM)
    server.route("/newsubmit", "<title>Got it</title>")
    tab = open_person_tab(qtbot, app, server.url("/opener"))
    window = window_of(app, "env-default")
    run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})
    tabs_before = set(range(window.tabs.count()))
    person_clicks(qtbot, tab, "a")

    def new_tab() -> BrowserTab | None:
        found = [window.tabs.widget(i) for i in range(window.tabs.count())
                 if isinstance(window.tabs.widget(i), BrowserTab) and window.tabs.widget(i).url().path() == "/newform"]
        return found[-1] if found else None

    qtbot.waitUntil(lambda: new_tab() is not None, timeout=10_000)
    opened = new_tab()
    assert opened is not None and window.tabs.count() == len(tabs_before) + 1
    window.tabs.setCurrentWidget(opened)
    wait_loaded(qtbot, opened)
    person_clicks(qtbot, opened, "input")
    person_types(opened, "Zoe")
    person_clicks(qtbot, opened, "button")
    qtbot.waitUntil(lambda: bool(server.hits("/newsubmit")), timeout=10_000)
    assert server.hits("/newsubmit")[-1].query == {"who": ["Zoe"]}
    steps = wait_steps(qtbot, app, tab, lambda steps: len(steps) == 4)
    assert [s["type"] for s in steps] == ["goto", "click", "fill", "click"]
    assert steps[1]["data"]["followNewTab"] is True and steps[1]["words"].endswith("(opens a new tab)")
    run_op(qtbot, app, "record_edit", {"tabId": tab.tab_id, "action": "make_input", "step": steps[2]["id"],
                                       "name": "who"})
    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Open and send"})
    assert validate_document(stopped["workflow"]).warnings == []

    window.tabs.setCurrentWidget(tab)
    panel = window.recording_panel
    assert panel is not None
    dialog = panel.replay(RecordStopResult.model_validate(stopped), tab)  # Replay now: the Workflows panel's run form
    assert isinstance(dialog, RunInputsDialog) and dialog.isVisible()
    assert dialog.fields["who"].value() == "Zoe"  # the recorded value is the default
    assert not dialog.env.isEnabled() and dialog.env_id() == tab.env_id
    dialog.fields["who"].set_value("Yan")
    shown_before = {window.tabs.widget(i) for i in range(window.tabs.count())}
    dialog.accept()
    qtbot.waitUntil(lambda: len(server.hits("/newsubmit")) == 2, timeout=30_000)
    assert server.hits("/newsubmit")[-1].query == {"who": ["Yan"]}  # typed and sent in the replay's new tab
    # The tab the replay's click opened: the one that was not there before (by the time the server has the
    # form, that tab may already show the answer, so its address cannot tell it).
    [replayed] = [window.tabs.widget(i) for i in range(window.tabs.count())
                  if window.tabs.widget(i) not in shown_before and isinstance(window.tabs.widget(i), BrowserTab)]
    assert replayed is not opened
    qtbot.waitUntil(lambda: replayed.url().path() == "/newsubmit", timeout=10_000)
    assert tab.url().path() == "/opener"  # the opener stayed where the click left it
