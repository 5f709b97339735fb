"""Idle exit, end to end: `browserpilot mcp` (the real stdio bridge, driven by the real `mcp` client) starts the
app headless with a tiny idle timeout (`BROWSERPILOT_IDLE_EXIT_SECONDS`); the app stays while a bridge is
connected and while a workflow run is in progress, says so in `browserpilot mcp status`, and quits by itself
once neither holds it. Waits are process waits (psutil), never sleeps.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcp import Client, StdioServerParameters

from app.mcp.client import Endpoint, call_operation, wait_for_endpoint
from plumbing.datadir import DataDir
from tests.support.app_process import app_command, app_env, run_cli

pytestmark = pytest.mark.e2e

IDLE_SECONDS = 1.0


def status(data_dir: Path) -> dict[str, Any]:
    result = run_cli(data_dir, "mcp", "status", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def status_text(data_dir: Path) -> dict[str, str]:
    result = run_cli(data_dir, "mcp", "status")
    assert result.returncode == 0, result.stderr
    return dict(line.split("\t", 1) for line in result.stdout.splitlines())


def slow_workflow() -> dict[str, Any]:
    """A run that waits for an element that never appears (until it is cancelled)."""
    def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
        return {"id": node_id, "data": {"type": kind, **data}}

    return {"kind": "app", "version": "0.3.0", "app": {"name": "Never done", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                "nodes": [node("start", "start"), node("wait", "wait", locator={"selector": "#never"}, timeout=600),
                          node("end", "end")],
                "edges": [{"source": "start", "target": "wait"}, {"source": "wait", "target": "end"}]}}}


def test_an_app_started_by_the_bridge_quits_once_its_client_and_its_runs_are_gone(tmp_path: Path) -> None:
    data_dir = tmp_path / "idle"
    env = app_env(BROWSERPILOT_IDLE_EXIT_SECONDS=str(IDLE_SECONDS))
    params = StdioServerParameters(command=app_command()[0], args=[*app_command()[1:], "mcp", "--data-dir",
                                                                    str(data_dir)], env=env)

    async def while_connected() -> tuple[dict[str, str], str]:
        async with Client(params) as client:
            started = await client.call_tool("workflow_start", {"workflow": slow_workflow()})
            assert not started.is_error and started.structured_content is not None, started.content
            return status_text(data_dir), str(started.structured_content["runId"])

    lines, run_id = asyncio.run(while_connected())
    app_pid = int((data_dir / "browserpilot.lock").read_text())
    app = psutil.Process(app_pid)
    assert lines["running"].endswith(f"pid {app_pid}")
    bridge_pid = int(lines["started by"].split("pid ")[1].split()[0])
    assert lines["started by"].startswith(f"browserpilot mcp, pid {bridge_pid} (")
    assert f"mcp --data-dir {data_dir}), headless; its client: pid " in lines["started by"]
    assert lines["clients"].startswith(f"pid {bridge_pid} (")
    assert lines["stops"] == "not by itself: not while a run is in progress (" + run_id + ")"

    # The client has gone (and its bridge with it), but the run holds the app.
    try:
        psutil.Process(bridge_pid).wait(timeout=30)
    except psutil.NoSuchProcess:
        pass
    held = status(data_dir)
    assert held["pid"] == app_pid and held["headless"] is True
    assert held["bridges"] == [] and held["startedBy"]["pid"] == bridge_pid and held["startedBy"]["alive"] is False
    assert held["idleExit"] == {"timeoutSeconds": IDLE_SECONDS, "stopsInSeconds": None,
                                "wontStopBecause": f"not while a run is in progress ({run_id})"}
    with pytest.raises(psutil.TimeoutExpired):
        app.wait(timeout=3 * IDLE_SECONDS)  # well past the timeout: still there

    # The run ends (cancelled with the command line's kind of request, which is not activity): the app goes.
    endpoint: Endpoint = wait_for_endpoint(DataDir(data_dir), timeout=10)
    cancelled = asyncio.run(call_operation(endpoint, "run_cancel", {"runId": run_id}))
    assert cancelled["ok"] is True, cancelled
    app.wait(timeout=60)
    assert json.loads((data_dir / "mcp.json").read_text())["pid"] is None
    log = (data_dir / "logs" / "browserpilot.log").read_text("utf-8")
    assert "idle exit: no bridge client and nothing in progress" in log
    assert "shut down: pages and profiles released" in log
