"""`browserpilot edit NAME` from a shell: the running app opens its editor window on that workflow."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp.client import wait_for_endpoint
from plumbing.datadir import DataDir
from tests.support.app_process import AppProcess, run_cli

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "workflows" / "fixtures" / "shop_orders_0.3.0.json"


def test_edit_name_opens_the_editor_of_the_running_app(data_dir: Path) -> None:
    imported = run_cli(data_dir, "workflow", "import", str(FIXTURE))
    assert imported.returncode == 0, imported.stderr
    name = run_cli(data_dir, "workflow", "list").stdout.splitlines()[0].split("\t")[1]
    with AppProcess(data_dir) as app:
        wait_for_endpoint(DataDir(data_dir), timeout=90)
        opened = run_cli(data_dir, "edit", name)
        assert opened.returncode == 0, opened.stderr
        said, title = opened.stdout.strip().split("\t")
        assert said.startswith("opened wf-") and title.startswith(name)
        workflow_id = said.removeprefix("opened ")
        again = run_cli(data_dir, "edit", workflow_id)  # the same window, raised
        assert again.returncode == 0 and again.stdout == opened.stdout
        missing = run_cli(data_dir, "edit", "No such workflow")
        assert missing.returncode == 1 and missing.stderr.startswith("browserpilot:")
        rc, err = app.stop()
    assert rc == 0, err
    assert "Traceback" not in err
    log = (data_dir / "logs" / "browserpilot.log").read_text()
    assert log.count(f"editor opened for {workflow_id}") == 1  # one window: the second edit raised it
