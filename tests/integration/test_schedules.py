"""The scheduler in the running app, on real pages: a schedule fires on time and its runs say so, an overlapping
tick is skipped and recorded, Run now is refused meanwhile, a batch's rows carry the trigger, and what was
missed while the app was closed runs once at start (policy run) or is recorded as missed (policy skip).

Intervals of a few seconds stand in for the issue's "every minute": the firing path is the same APScheduler
interval trigger, and two runs a minute apart would cost the suite two minutes (bench/schedules.py measures a
real cron minute's firing delay)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.qt import run_op, running_app
from tests.support.server import LocalServer


def document(name: str, nodes: list[dict[str, Any]]) -> dict[str, Any]:
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def visit(server: LocalServer, name: str, path: str, *, wait_ms: int = 0) -> dict[str, Any]:
    """goto PATH?who={{who}} (and, with wait_ms, wait for an element that never comes: a run that takes time)."""
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "required": False}]}},
             {"id": "go", "data": {"type": "goto", "url": server.url(path) + "?who={{#start.who#}}"}}]
    if wait_ms:
        nodes.append({"id": "hold", "data": {"type": "wait", "locator": {"selector": "#never"}, "state": "appear",
                                             "timeout": wait_ms / 1000}})
    nodes.append({"id": "end", "data": {"type": "end", "outputs": []}})
    return document(name, nodes)


@pytest.fixture
def site(server: LocalServer) -> LocalServer:
    for path in ("/tick", "/slow", "/row"):
        server.route(path, f"<!doctype html><title>{path}</title><p>{path}</p>")
    return server


def saved(qtbot: QtBot, app: BrowserPilotApp, doc: dict[str, Any]) -> str:
    result = run_op(qtbot, app, "workflow_write", {"workflow": doc})
    assert result["ok"], result
    return str(result["id"])


def schedule_of(qtbot: QtBot, app: BrowserPilotApp, schedule_id: str) -> dict[str, Any]:
    listed = run_op(qtbot, app, "schedule_list", {})
    return next(view for view in listed["schedules"] if view["id"] == schedule_id)


def triggered_runs(app: BrowserPilotApp, schedule_id: str) -> list[Any]:
    return [r for r in app.ctx.runs.list(limit=200) if r.trigger == {"schedule": schedule_id}]


def test_a_schedule_fires_on_time_twice_and_each_run_carries_its_trigger(qtbot: QtBot, shell: BrowserPilotApp,
                                                                          site: LocalServer) -> None:
    workflow = saved(qtbot, shell, visit(site, "Tick", "/tick"))
    made = run_op(qtbot, shell, "schedule_create", {"workflow": workflow, "every": "3s", "inputs": {"who": "cron"}})
    assert made["ok"], made
    schedule_id = made["schedule"]["id"]
    assert made["schedule"]["when"] == "every 3 seconds" and made["schedule"]["nextRunAt"]
    qtbot.waitUntil(lambda: len([r for r in triggered_runs(shell, schedule_id) if r.status == "ok"]) >= 2,
                    timeout=20_000)
    run_op(qtbot, shell, "schedule_update", {"schedule": schedule_id, "enabled": False})
    hits = site.hits("/tick")
    assert len(hits) >= 2 and all(hit.arg("who") == "cron" for hit in hits)  # the server saw both runs
    runs = [r for r in triggered_runs(shell, schedule_id) if r.status == "ok"]
    view = schedule_of(qtbot, shell, schedule_id)
    fired = sorted(datetime.fromisoformat(entry["at"]) for entry in view["history"] if entry["status"] == "ok")
    assert 2.5 <= (fired[1] - fired[0]).total_seconds() <= 3.5  # fired three seconds apart
    assert view["last"]["status"] == "ok" and view["last"]["runId"] in {r.id for r in runs}
    assert run_op(qtbot, shell, "run_read", {"runId": runs[0].id})["run"]["trigger"] == {"schedule": schedule_id}
    assert view["nextRunAt"] is None and view["enabled"] is False


def test_an_overlapping_tick_is_skipped_and_recorded_and_run_now_waits_its_turn(qtbot: QtBot, shell: BrowserPilotApp,
                                                                                site: LocalServer) -> None:
    workflow = saved(qtbot, shell, visit(site, "Slow", "/slow", wait_ms=4500))
    made = run_op(qtbot, shell, "schedule_create", {"workflow": workflow, "every": "2s"})
    schedule_id = made["schedule"]["id"]
    qtbot.waitUntil(lambda: any(r.status == "running" for r in triggered_runs(shell, schedule_id)), timeout=10_000)
    refused = run_op(qtbot, shell, "schedule_run", {"schedule": schedule_id})
    assert not refused["ok"] and "still going" in refused["error"]
    first = next(r for r in triggered_runs(shell, schedule_id) if r.status == "running")
    qtbot.waitUntil(lambda: any(e["status"] == "skipped" for e in schedule_of(qtbot, shell, schedule_id)["history"]),
                    timeout=10_000)
    run_op(qtbot, shell, "schedule_update", {"schedule": schedule_id, "enabled": False})
    qtbot.waitUntil(lambda: shell.ctx.runs.get(first.id).status != "running", timeout=15_000)
    history = schedule_of(qtbot, shell, schedule_id)["history"]
    skipped = [e for e in history if e["status"] == "skipped"]
    assert skipped and first.id in skipped[-1]["reason"]
    # Only one run was ever going: every run of the schedule started after the one before ended.
    runs = sorted(triggered_runs(shell, schedule_id), key=lambda r: r.started_at)
    for earlier, later in zip(runs, runs[1:]):
        assert earlier.ended_at is not None and later.started_at >= earlier.ended_at


def test_a_scheduled_batch_stamps_every_row(qtbot: QtBot, shell: BrowserPilotApp, site: LocalServer,
                                            tmp_path: Path) -> None:
    workflow = saved(qtbot, shell, visit(site, "Rows", "/row"))
    rows = tmp_path / "rows.csv"
    rows.write_text("who\nann\nbob\n")
    made = run_op(qtbot, shell, "schedule_create", {"workflow": workflow, "every": "1h", "rowsFile": str(rows)})
    schedule_id = made["schedule"]["id"]
    ran = run_op(qtbot, shell, "schedule_run", {"schedule": schedule_id, "wait": True}, timeout=60_000)
    assert ran["ok"], ran
    assert ran["result"]["status"] == "ok" and ran["result"]["counts"] == {"total": 2, "succeeded": 2, "failed": 0}
    assert sorted(hit.arg("who") for hit in site.hits("/row")) == ["ann", "bob"]
    stamped = triggered_runs(shell, schedule_id)
    assert len(stamped) == 2 and {r.batch_id for r in stamped} == {ran["result"]["batchId"]}
    assert schedule_of(qtbot, shell, schedule_id)["last"]["manual"] is True


def _closed_for(folder: Path, hours: float) -> None:
    path = folder / "schedules.json"
    data = json.loads(path.read_text())
    then = (datetime.now(timezone.utc) - timedelta(hours=hours)).isoformat()
    for schedule in data["schedules"]:
        schedule.update(createdAt=then, anchor=then, handledUntil=then)
    path.write_text(json.dumps(data))


@pytest.fixture
def two_schedules_missed(qapp: QApplication, qtbot: QtBot, data_dir: Path, site: LocalServer) -> Iterator[dict[str, str]]:
    """Two schedules (policy run and skip) of a daily workflow, made 3 h ago with the app closed since."""
    with running_app(qapp, data_dir) as app:
        workflow = saved(qtbot, app, visit(site, "Tick", "/tick"))
        ids = {policy: run_op(qtbot, app, "schedule_create", {"workflow": workflow, "every": "2h", "missed": policy,
                                                               "name": policy, "inputs": {"who": policy}})
               ["schedule"]["id"] for policy in ("run", "skip")}
    _closed_for(data_dir, 3)
    yield ids


def test_a_time_missed_while_closed_runs_once_at_start_or_is_recorded_as_missed(
        qapp: QApplication, qtbot: QtBot, data_dir: Path, site: LocalServer, two_schedules_missed: dict[str, str]) -> None:
    with running_app(qapp, data_dir) as app:
        # The schedule takes the run's outcome once the run has ended (after its record is written).
        qtbot.waitUntil(lambda: (schedule_of(qtbot, app, two_schedules_missed["run"]).get("last") or {})
                        .get("status") not in (None, "running"), timeout=20_000)
        ran = schedule_of(qtbot, app, two_schedules_missed["run"])
        skipped = schedule_of(qtbot, app, two_schedules_missed["skip"])
        assert len(triggered_runs(app, two_schedules_missed["run"])) == 1  # several missed times, one run
        assert ran["last"]["status"] == "ok"
        assert skipped["last"]["status"] == "missed" and "skips missed times" in skipped["last"]["reason"]
        assert triggered_runs(app, two_schedules_missed["skip"]) == []
    assert [hit.arg("who") for hit in site.hits("/tick")] == ["run"]
    with running_app(qapp, data_dir) as app:  # started again: nothing is missed twice
        assert schedule_of(qtbot, app, two_schedules_missed["skip"])["history"][0]["status"] == "missed"
        assert len(schedule_of(qtbot, app, two_schedules_missed["skip"])["history"]) == 1
        assert len(triggered_runs(app, two_schedules_missed["run"])) == 1


def test_schedule_on_a_workflow_in_the_workflows_panel_makes_a_schedule_through_the_dialog(
        qtbot: QtBot, shell: BrowserPilotApp, site: LocalServer) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox

    from app.ui.schedule_dialog import KINDS, ScheduleDialog

    workflow = saved(qtbot, shell, visit(site, "Morning", "/tick"))
    window = shell.main_window
    assert window is not None
    panel = window.workflows_panel
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1)
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.buttons["schedule"], Qt.MouseButton.LeftButton)
    schedules = window.schedules_panel  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: any(d.isVisible() for d in schedules.findChildren(ScheduleDialog)))
    assert window.panels.currentWidget() is schedules
    dialog = next(d for d in schedules.findChildren(ScheduleDialog) if d.isVisible())
    assert dialog.workflow.currentData() == workflow
    # While it is open, an agent saves another workflow and makes an environment: the lists follow,
    # the choices made stay.
    evening = saved(qtbot, shell, visit(site, "Evening", "/tick"))
    second = run_op(qtbot, shell, "env_create", {"name": "Second"})["env"]
    qtbot.waitUntil(lambda: dialog.workflow.findData(evening) >= 0 and dialog.env.findData(second) >= 0)
    assert dialog.workflow.currentData() == workflow and dialog.env.currentData() == "env-default"
    dialog.kind.setCurrentIndex(KINDS.index("cron"))
    dialog.cron.setText("0 25 * * *")  # no such hour: refused, with the reason
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled() and dialog.preview.text().startswith("Cannot be scheduled: ")
    dialog.kind.setCurrentIndex(KINDS.index("weekdays"))
    assert ok.isEnabled() and dialog.preview.text().startswith("every weekday at 09:00")
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(shell.ctx.schedules.list()) == 1)
    made = shell.ctx.schedules.list()[0]
    assert made.workflow_id == workflow and made.timing.kind == "weekdays" and made.timing.time == "09:00"
    qtbot.waitUntil(lambda: schedules.selected() is not None and schedules.selected().id == made.id)


def test_a_handoff_in_a_tab_the_run_followed_a_click_into_names_the_run(qtbot: QtBot, shell: BrowserPilotApp,
                                                                         server: LocalServer) -> None:
    from app.schedules.attention import AttentionWatcher

    server.route("/list", '<!doctype html><title>List</title><a href="/gate" target="_blank">Open the gate</a>')
    server.route("/gate", "<!doctype html><title>Gate</title><p>Type the code from your phone</p>")
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": server.url("/list")}},
             {"id": "follow", "data": {"type": "click", "locator": {"selector": "text=Open the gate"},
                                       "followNewTab": True}},
             {"id": "ask", "data": {"type": "handoff", "message": "Type the code"}},
             {"id": "done", "data": {"type": "wait", "locator": {"selector": "#never"}, "state": "appear",
                                     "timeout": 30}},
             {"id": "end", "data": {"type": "end", "outputs": []}}]
    watcher = AttentionWatcher(shell.ctx.runner.events, shell.service)
    try:
        run_id = run_op(qtbot, shell, "workflow_start", {"workflow": document("Gate check", nodes)})["runId"]
        qtbot.waitUntil(lambda: bool(watcher.waiting()), timeout=20_000)
        waiting = watcher.waiting()[0]
        first_tab = run_op(qtbot, shell, "run_read", {"runId": run_id})["run"]["tabId"]
        # the handoff is on the tab the click opened (it shows the gate), and it is the run's: its name, not "no run"
        assert waiting.tab_id != first_tab
        qtbot.waitUntil(lambda: any(t["id"] == waiting.tab_id and t["url"] == server.url("/gate")
                                    for t in run_op(qtbot, shell, "tab_list", {})["tabs"]), timeout=10_000)
        assert (waiting.run_id, waiting.workflow, waiting.message) == (run_id, "Gate check", "Type the code")
        assert run_op(qtbot, shell, "run_cancel", {"runId": run_id})["ok"]
        qtbot.waitUntil(lambda: not watcher.waiting(), timeout=10_000)  # the run ended: nothing waits any more
    finally:
        watcher.close()
