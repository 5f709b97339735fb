"""No disk on the Qt thread: a workflow run (pages, an extract, an export file, a download; a failure with its
screenshot and HAR), an agent run's steps, a settings change, a workflow import and export, a batch's rows
file, a tab group and a PDF write, move and delete files on other threads only, and read the data folder's and
the person's files there too (tests/support/disk_audit.py says what counts and what is allowed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QSpinBox
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from app.ui.settings_dialog import UnattendedSection
from tests.support.disk_audit import qt_thread_disk
from tests.support.documents import chain, node, ok
from tests.support.fake_anthropic import FakeAnthropic, Reply, text, tool
from tests.support.qt import run_op, running_app
from tests.support.server import LocalServer, Response

FORM = """<!doctype html><title>Form</title><form action=/done><input id=name name=name>
<button id=go>Send</button></form><a id=file href=/file.txt download>file</a>"""


@pytest.fixture(scope="module")
def app(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("disk-data")) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        local.route("/form", FORM)
        local.route("/done", lambda r: Response(f"<title>Done</title><p id=said>Hello {r.arg('name')}</p>"))
        local.route("/file.txt", lambda r: Response(b"file body", content_type="text/plain"))
        yield local


def assert_none_on_the_qt_thread(accesses: list[Any]) -> None:
    assert not accesses, f"{len(accesses)} on the Qt thread:\n" + "\n".join(map(str, accesses))


def test_a_workflow_run_with_files_touches_no_disk_on_the_qt_thread(qtbot: QtBot, app: BrowserPilotApp,
                                                                     site: LocalServer) -> None:
    doc = chain("Files",
                node("start", "start", variables=[{"variable": "who", "type": "secret"}]),
                node("open", "goto", url=site.url("/form")),
                node("get", "download", locator={"selector": "#file"}),
                node("type", "fill", locator={"selector": "#name"}, text="{{#input.who#}}"),
                node("send", "click", locator={"selector": "#go"}),
                node("said", "script", source="return {text: document.querySelector('#said').textContent}",
                     outputs={"text": {"type": "string"}}),
                node("pick", "extract", variable_selector=["said", "text"], pattern="Hello (\\w+)", group=1),
                node("table", "export", filename="people", headers=["name"],
                     rows_selector=["pick", "matches"], format="csv"),
                node("end", "end", outputs=[{"variable": "name", "value_selector": ["pick", "value"]}]))
    tab = ok(run_op(qtbot, app, "tab_open", {}))["tabId"]  # opening the environment's profile is not the run
    with qt_thread_disk([app.data.root]) as recorded:
        run = ok(run_op(qtbot, app, "workflow_run", {"workflow": doc, "tabId": tab, "inputs": {"who": "ada"}},
                        timeout=60_000))
    # Left on the Qt thread, and allowed here: QtWebEngine asks for a download's path in a signal it must be
    # answered in, and app/browser/downloads.py makes its folder and reserves the name there (an empty file).
    downloads = str(app.data.downloads("env-default").parent)
    accesses = [a for a in recorded if not (a.path.startswith(downloads) and a.event in ("os.mkdir", "open"))]
    assert run["outputs"] == {"name": "<secret:who>"}
    files = [Path(path) for path in run["files"]]
    assert [path.suffix for path in files] == [".txt", ".csv"] and files[0].read_bytes() == b"file body"
    assert files[1].read_bytes() == "\ufeffname\r\nada".encode("utf-8")
    assert_none_on_the_qt_thread(accesses)


def test_a_failed_run_with_its_screenshot_and_har_touches_no_disk_on_the_qt_thread(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer) -> None:
    tab = ok(run_op(qtbot, app, "tab_open", {}))["tabId"]
    ok(run_op(qtbot, app, "net_start", {"tabId": tab}))
    doc = chain("Fails", node("start", "start"), node("open", "goto", url=site.url("/form")),
                node("boom", "wait", locator={"selector": "#never"}, timeout=0.3), node("end", "end"))
    with qt_thread_disk([app.data.root]) as accesses:
        failed = run_op(qtbot, app, "workflow_run", {"workflow": doc, "tabId": tab}, timeout=60_000)
    assert not failed["ok"] and failed["run"]["stoppedAt"] == "boom"
    assert Path(failed["run"]["screenshot"]).stat().st_size > 0 and Path(failed["run"]["har"]).stat().st_size > 0
    assert_none_on_the_qt_thread(accesses)


def test_an_agent_run_touches_no_disk_on_the_qt_thread(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    script = [Reply([text("Let me look."), tool("page_snapshot")]),
              Reply([tool("done", success=True, answer="seen", outputs={})])]
    with FakeAnthropic(script) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        with qt_thread_disk([app.data.root]) as accesses:
            result = run_op(qtbot, app, "agent_run", {"task": "Look at the form", "url": site.url("/form")},
                            timeout=60_000)
        assert fake.problems == []
    record = ok(result)["record"]
    assert [len(step["calls"]) for step in record["steps"]] == [1, 1] and record["status"] == "succeeded"
    assert (app.data.root / "agent_runs" / record["id"] / "record.json").exists()
    assert_none_on_the_qt_thread(accesses)


def test_a_settings_change_touches_no_disk_on_the_qt_thread(qtbot: QtBot, app: BrowserPilotApp) -> None:
    section = UnattendedSection(app.settings)  # the settings dialog's numbers, as a person changes them
    qtbot.addWidget(section)
    minutes = section.findChild(QSpinBox, "idle-exit-minutes")
    assert minutes is not None
    with qt_thread_disk([app.data.root]) as accesses:
        minutes.setValue(33)
        app.settings.update(settle_seconds=4)
    assert app.settings.current.idle_exit_minutes == 33 and app.ctx.settle_seconds() == 4
    qtbot.waitUntil(lambda: not app.saves.dirty())
    assert json.loads(app.data.settings_json.read_text())["settleSeconds"] == 4
    assert json.loads(app.data.settings_json.read_text())["idleExitMinutes"] == 33
    assert_none_on_the_qt_thread(accesses)


def test_import_export_a_rows_file_a_group_and_a_pdf_touch_no_disk_on_the_qt_thread(
        qtbot: QtBot, app: BrowserPilotApp, site: LocalServer, tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(chain("Imported", node("start", "start"), node("end", "end"))), "utf-8")
    rows = tmp_path / "rows.csv"
    rows.write_text("who\nada\n", "utf-8")
    tab = ok(run_op(qtbot, app, "tab_open", {"url": site.url("/form")}))["tabId"]
    with qt_thread_disk([app.data.root, tmp_path]) as accesses:
        imported = ok(run_op(qtbot, app, "workflow_import", {"path": str(source)}))
        target = str(tmp_path / "out.json")
        exported = ok(run_op(qtbot, app, "workflow_export", {"name": imported["id"], "path": target}))
        batch = ok(run_op(qtbot, app, "workflow_batch", {"name": imported["id"], "rowsFile": str(rows)},
                          timeout=60_000))
        group = ok(run_op(qtbot, app, "group_create", {"name": "Disk", "color": "blue"}))
        pdf = ok(run_op(qtbot, app, "page_pdf", {"tabId": tab}, timeout=60_000))
    assert json.loads(Path(exported["path"]).read_text("utf-8"))["app"]["name"] == "Imported"
    assert batch["results"][0]["status"] == "ok" and group["name"] == "Disk"
    assert Path(pdf["path"]).read_bytes().startswith(b"%PDF")
    assert_none_on_the_qt_thread(accesses)
