"""Schedules through the command line and the real app process: `schedule add|list|disable|remove`, the headless
app firing them, SIGKILL in the middle of a scheduled run losing no record, and schedules surviving a restart."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import psutil
import pytest

from tests.support.app_process import AppProcess, run_cli
from tests.support.server import LocalServer
from workflows.runs import RunStore
from workflows.schedules import ScheduleStore
from plumbing.datadir import DataDir

pytestmark = pytest.mark.e2e


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `condition` (a file another process writes) until it is truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def triggered(data_dir: Path, schedule_id: str, status: str) -> list[dict[str, Any]]:
    try:
        runs = json.loads((data_dir / "runs.json").read_text())["runs"]
    except (OSError, ValueError, KeyError):
        return []
    return [r for r in runs if r.get("trigger") == {"schedule": schedule_id} and r["status"] == status]


def workflow_file(tmp_path: Path, server: LocalServer) -> Path:
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "go", "data": {"type": "goto", "url": server.url("/long")}},
             {"id": "hold", "data": {"type": "wait", "locator": {"selector": "#never"}, "state": "appear",
                                     "timeout": 8}},
             {"id": "end", "data": {"type": "end"}}]
    doc = {"kind": "app", "version": "0.3.0", "app": {"name": "Long report", "mode": "workflow"},
           "workflow": {"environment_variables": [], "conversation_variables": [],
                        "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                            for a, b in zip(nodes, nodes[1:])]}}}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    return path


def test_the_cli_verbs_and_their_exit_codes(data_dir: Path, tmp_path: Path, server: LocalServer) -> None:
    assert run_cli(data_dir, "workflow", "import", str(workflow_file(tmp_path, server))).returncode == 0
    added = run_cli(data_dir, "schedule", "add", "Long report", "--daily", "9:00", "--weekdays", "--json")
    assert added.returncode == 0, added.stderr
    schedule = json.loads(added.stdout)
    assert schedule["when"] == "every weekday at 09:00" and schedule["next"] and schedule["nextRunAt"]
    bad = run_cli(data_dir, "schedule", "add", "Long report", "--cron", "0 25 * * *")
    assert bad.returncode == 1 and "hour" in bad.stderr or "25" in bad.stderr
    neither = run_cli(data_dir, "schedule", "add", "Long report", "--every", "5m", "--at", "2030-01-01T09:00")
    assert neither.returncode == 1 and "exactly one" in neither.stderr
    assert run_cli(data_dir, "schedule", "add", "Long report").returncode == 1
    assert run_cli(data_dir, "schedule", "add", "Long report", "--every", "5m", "--input", "novalue").returncode == 2
    assert run_cli(data_dir, "schedule", "disable", schedule["id"]).returncode == 0
    listed = run_cli(data_dir, "schedule", "list")
    assert listed.returncode == 0 and f"{schedule['id']}\tLong report\tevery weekday at 09:00\toff" in listed.stdout
    assert run_cli(data_dir, "schedule", "remove", schedule["id"]).returncode == 0
    assert run_cli(data_dir, "schedule", "remove", schedule["id"]).returncode == 1
    assert json.loads(run_cli(data_dir, "schedule", "list", "--json").stdout) == []


def test_sigkill_during_a_scheduled_run_loses_no_record_and_schedules_survive_a_restart(
        data_dir: Path, tmp_path: Path, server: LocalServer) -> None:
    server.route("/long", "<!doctype html><title>Long</title><p>working</p>")
    assert run_cli(data_dir, "workflow", "import", str(workflow_file(tmp_path, server))).returncode == 0
    added = run_cli(data_dir, "schedule", "add", "Long report", "--every", "2s", "--json")
    schedule_id = json.loads(added.stdout)["id"]
    app = AppProcess(data_dir)
    try:
        running = wait_for(lambda: triggered(data_dir, schedule_id, "running"), 30, "a scheduled run in runs.json")
        # The kill lands mid-run, not inside the save manager's debounce (at most ~0.3 s, plumbing/savemanager.py):
        # schedules.json names the run too.
        wait_for(lambda: running[0]["id"] in (data_dir / "schedules.json").read_text(), 10, "the run in schedules.json")
        children = app.children()
        app.process.kill()  # SIGKILL in the middle of the run
        app.process.communicate(timeout=10)
        psutil.wait_procs(children, timeout=10)
    finally:
        app.__exit__()
    run_id = running[0]["id"]
    record = RunStore(DataDir(data_dir)).get(run_id)
    assert record.trigger == {"schedule": schedule_id} and record.status == "failed"
    assert "stopped" in (record.error or "")
    store = ScheduleStore(DataDir(data_dir))
    assert store.load_problem is None
    last = store.get(schedule_id).last
    assert last is not None and last.run_id == run_id and last.status == "failed"

    with AppProcess(data_dir) as again:  # started again: the schedule is there and fires again
        wait_for(lambda: [r for r in triggered(data_dir, schedule_id, "running") if r["id"] != run_id], 30,
                 "the schedule to fire after the restart")
        listed = run_cli(data_dir, "schedule", "list", "--json")  # answered by the running app
        assert listed.returncode == 0, listed.stderr
        assert [view["id"] for view in json.loads(listed.stdout)] == [schedule_id]
        assert run_cli(data_dir, "schedule", "disable", schedule_id).returncode == 0
        code, err = again.stop(timeout=60)
        assert code == 0, err
