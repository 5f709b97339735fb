"""A field the page replaced with a rich-text editor: a recorded "type into the note" replays into the editor.

Real applications enhance a plain `<textarea>` after an upgrade or in another theme (a tracker's markdown editor,
a CMS's rich text): the field is still in the page, with its id and name, but hidden, and a person types into the
editor that stands for it. A step recorded on the plain field types there: into EasyMDE's CodeMirror (as SimpleMDE,
which a real tracker's theme uses) and into Trix (whose field is a hidden input the editor names), replacing what
the editor held, and the form posts what was typed. Where no editor stands for a hidden field, the step still
fails as before: "is not visible". And the other way round: a person who types into the editor while recording
records typing into the field, which replays on the plain form and into the other editor. The editors are the
real libraries (tests/fixtures/editors, vendored from npm).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.qt import open_view, run_js, run_op, running_app, wait_loaded
from tests.support.server import LocalServer, Request, Response

EDITORS = Path(__file__).resolve().parent.parent / "fixtures" / "editors"
NOTE = "Bring a laptop, doors open at nine."
FIELD = '<label for=note>Change note</label><textarea id=note name=note rows=4>an old draft</textarea>'
PAGES = {
    "plain": FIELD,
    "easymde": '<link rel=stylesheet href="/editors/easymde.min.css"><script src="/editors/easymde.min.js"></script>'
               + FIELD + "<script>new EasyMDE({element: document.getElementById('note'), spellChecker: false, "
                         "autoDownloadFontAwesome: false, status: false});</script>",
    "trix": '<link rel=stylesheet href="/editors/trix.css"><script src="/editors/trix.umd.min.js"></script>'
            '<label for=note>Change note</label><input id=note type=hidden name=note value="an old draft">'
            '<trix-editor input=note></trix-editor>',
    "nothing": '<label for=note>Change note</label><textarea id=note name=note hidden></textarea>'
               '<div class=preview><p>Preview</p></div>',
}


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as local:
        for path in EDITORS.iterdir():
            kind = "text/css" if path.suffix == ".css" else "text/javascript"
            local.route(f"/editors/{path.name}", path.read_bytes(), content_type=kind)
        for name, field in PAGES.items():
            local.route(f"/form/{name}", "<!doctype html><meta charset=utf-8><title>Issue</title>"
                                         f"<form method=post action=/sent>{field}<p><button id=save>Submit changes</button>"
                                         "</form>")
        shown = {"page": "plain"}
        local.route("/form/current", lambda request: Response(
            "<!doctype html><meta charset=utf-8><title>Issue</title><form method=post action=/sent>"
            f"{PAGES[shown['page']]}<p><button id=save>Submit changes</button></form>"))
        local.shown = shown  # type: ignore[attr-defined]
        local.route("/sent", lambda request: Response("<!doctype html><title>Saved</title><p>Saved</p>"))
        yield local


def workflow(url: str) -> dict[str, Any]:
    """As recorded on the plain form: type the note into the field, submit, see it saved."""
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": url}},
             {"id": "note", "data": {"type": "fill", "locator": {"selector": "#note"}, "text": NOTE, "timeout": 3}},
             {"id": "save", "data": {"type": "click", "locator": {"selector": "#save"}}},
             {"id": "saved", "data": {"type": "wait", "locator": {"xpath": "//p[.='Saved']"}}},
             {"id": "end", "data": {"type": "end"}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Note", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                "nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]}}}


def posted_note(request: Request) -> str:
    """The note as the form sent it, its markup (Trix sends HTML) taken off."""
    return re.sub(r"<[^>]+>", "", parse_qs(request.body.decode())["note"][0]).strip()


@pytest.mark.parametrize("page", ["plain", "easymde", "trix"])
def test_a_note_typed_into_the_field_replays_into_the_editor_that_stands_for_it(
        qtbot: QtBot, app: BrowserPilotApp, server: LocalServer, page: str) -> None:
    before = len(server.hits("/sent"))
    run = run_op(qtbot, app, "workflow_run", {"workflow": workflow(server.url(f"/form/{page}"))}, timeout=60_000)
    assert run["ok"], run.get("error")
    sent = server.hits("/sent")[before:]
    assert len(sent) == 1 and posted_note(sent[0]) == NOTE, [r.body for r in sent]  # the old draft replaced
    typed = next(step for step in run["run"]["trace"] if step["node"] == "note")
    assert typed["ok"]


def test_a_hidden_field_that_no_editor_stands_for_still_fails_clearly(
        qtbot: QtBot, app: BrowserPilotApp, server: LocalServer) -> None:
    before = len(server.hits("/sent"))
    run = run_op(qtbot, app, "workflow_run", {"workflow": workflow(server.url("/form/nothing"))}, timeout=60_000)
    assert not run["ok"] and "is not visible" in run["error"], run.get("error")
    assert len(server.hits("/sent")) == before  # nothing was submitted


def test_typing_into_an_editor_while_recording_is_typing_into_its_field_and_replays_anywhere(
        qtbot: QtBot, app: BrowserPilotApp, server: LocalServer) -> None:
    server.shown["page"] = "easymde"  # type: ignore[attr-defined]
    tab = open_view(app, "env-default", server.url("/form/current"))
    wait_loaded(qtbot, tab)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "!!document.querySelector('.CodeMirror-lines')"), timeout=10_000)
    assert run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})["ok"]
    submitted = len(server.hits("/sent"))

    def point(selector: str) -> QPoint:
        x, y = run_js(qtbot, tab, f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect();"
                                  " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        return QPoint(round(x * tab.zoomFactor()), round(y * tab.zoomFactor()))

    # A person clicks into the editor, selects the old draft, types the note over it and submits.
    proxy = tab.focusProxy()
    QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point(".CodeMirror-lines"))
    QTest.keyClick(proxy, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(proxy, NOTE)
    qtbot.waitUntil(lambda: NOTE in run_js(qtbot, tab, "document.querySelector('.CodeMirror').innerText"),
                    timeout=5_000)
    QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point("#save"))
    steps: list[dict[str, Any]] = []

    def recorded() -> bool:
        steps[:] = run_op(qtbot, app, "record_status", {"tabId": tab.tab_id})["steps"]
        return bool(steps) and steps[-1]["words"] == "Click button 'Submit changes'"

    qtbot.waitUntil(recorded, timeout=10_000)
    # The person's own submit has landed (before the replays count theirs); waited for with Qt's loop turning
    # (server.wait_for would block it, and the form's navigation starts on the Qt thread).
    qtbot.waitUntil(lambda: len(server.hits("/sent")) > submitted, timeout=20_000)
    assert [s["words"] for s in steps] == [f"Go to {server.url('/form/current')}",
                                           f"Type '{NOTE}' into textbox 'Change note'",
                                           "Click button 'Submit changes'"], steps
    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": "Change note", "save": True})
    assert stopped["ok"], stopped
    # Replayed on the plain form, in the other editor, and in the editor it was recorded in.
    for page in ("plain", "trix", "easymde"):
        server.shown["page"] = page  # type: ignore[attr-defined]
        before = len(server.hits("/sent"))
        run = run_op(qtbot, app, "workflow_run", {"name": "Change note"}, timeout=60_000)
        assert run["ok"], (page, run.get("error"))
        sent = server.hits("/sent")[before:]
        assert len(sent) == 1 and posted_note(sent[0]) == NOTE, (page, [r.body for r in sent])
