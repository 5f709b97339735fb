"""Workflow versions: every change keeps a version; `browserpilot workflow history|diff|restore` from a
shell; and a SIGKILL in the middle of saves loses no version and leaves no file half written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plumbing.datadir import DataDir
from tests.support.app_process import run_cli
from workflows.store import WorkflowStore
from workflows.versions import KEPT

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[1] / "unit" / "workflows" / "fixtures" / "shop_orders_0.3.0.json"


def test_history_diff_and_restore_from_the_command_line(data_dir: Path) -> None:
    assert run_cli(data_dir, "workflow", "import", str(FIXTURE)).returncode == 0
    name = run_cli(data_dir, "workflow", "list").stdout.splitlines()[0].split("\t")[1]
    document = json.loads(run_cli(data_dir, "workflow", "list", "--json").stdout)[0]
    node = next(n for n in json.loads(FIXTURE.read_text("utf-8-sig"))["workflow"]["graph"]["nodes"]
                if n["data"]["type"] not in ("start", "end"))
    updated = run_cli(data_dir, "workflow", "update", name, "--description", "second", "--remove-node", node["id"])
    assert updated.returncode == 0, updated.stderr

    history = run_cli(data_dir, "workflow", "history", name)
    assert history.returncode == 0, history.stderr
    lines = [line.split("\t") for line in history.stdout.splitlines()]
    assert [(line[0], line[2]) for line in lines] == [("2", "update"), ("1", "import")]
    assert lines[0][3] == f"{int(lines[1][3].split()[0]) - 1} nodes"

    diffed = run_cli(data_dir, "workflow", "diff", name, "1", "2")
    assert diffed.returncode == 0, diffed.stderr
    assert diffed.stdout.startswith("version 1 -> 2\n")
    assert f"  removed node {node['id']} ({node['data']['type']}" in diffed.stdout
    assert any(line.startswith("+") and '"description": "second"' in line for line in diffed.stdout.splitlines())

    restored = run_cli(data_dir, "workflow", "restore", name, "1")
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.strip() == f"restored version 1 of {name} as version 3"
    again = json.loads(run_cli(data_dir, "workflow", "history", name, "--json").stdout)
    assert [(v["version"], v["reason"], v["note"]) for v in again["versions"]][0] == (3, "restore", "version 1")
    nodes_now = json.loads(run_cli(data_dir, "workflow", "list", "--json").stdout)[0]["nodeCount"]
    assert nodes_now == document["nodeCount"]
    assert run_cli(data_dir, "workflow", "diff", name, "1", "3").stdout.splitlines()[1] == "  no change"
    missing = run_cli(data_dir, "workflow", "restore", name, "9")
    assert missing.returncode == 1 and "there is no version 9" in missing.stderr


def test_only_the_last_50_versions_are_kept(tmp_path: Path) -> None:
    store = WorkflowStore(DataDir(tmp_path))
    doc = json.loads(FIXTURE.read_text("utf-8-sig"))
    for i in range(KEPT + 7):
        doc["app"]["description"] = f"change {i}"
        store.save(doc["app"]["name"], f"change {i}", json.loads(json.dumps(doc)), 3)
    saved = store.find(doc["app"]["name"])
    kept = WorkflowStore(DataDir(tmp_path)).versions.list(saved.id)   # as read back from disk
    assert [v.version for v in kept] == list(range(8, KEPT + 8))
    assert kept[-1].document["app"]["description"] == f"change {KEPT + 6}"


SAVER = """
import json, sys
from pathlib import Path
from plumbing.datadir import DataDir
from workflows.store import WorkflowStore
doc = json.loads(Path(sys.argv[2]).read_text("utf-8-sig"))
store = WorkflowStore(DataDir(Path(sys.argv[1])))
i = 0
while True:
    i += 1
    doc["app"]["description"] = f"change {i}"
    store.save(doc["app"]["name"], doc["app"]["description"], doc, 3)
    print(i, flush=True)
"""


def test_a_sigkill_during_saves_loses_no_version_and_leaves_no_half_file(tmp_path: Path) -> None:
    """A process saving as fast as it can is killed (SIGKILL) five times at different moments; each time every
    file parses, the versions are numbered without a gap, and the saved document is the newest version (the
    one written last, or recovered on the next start when the kill fell between the two files)."""
    root = Path(__file__).resolve().parents[2]
    for attempt in range(5):
        child = subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), str(FIXTURE)], cwd=root,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        while True:
            line = child.stdout.readline()
            assert line, "the saver stopped by itself"
            if int(line) >= 20 + 7 * attempt:
                break
        time.sleep(0.003 * attempt)
        os.kill(child.pid, signal.SIGKILL)
        rest = child.stdout.read()
        child.stdout.close()
        child.wait()
        newest = int(([line] + rest.split())[-1])   # the last save the child saw return
        for path in [tmp_path / "workflows.json", *(tmp_path / "workflow-versions").glob("*.json")]:
            json.loads(path.read_text())   # whole: parses
        store = WorkflowStore(DataDir(tmp_path))   # reconciles
        saved = store.find(json.loads(FIXTURE.read_text("utf-8-sig"))["app"]["name"])
        versions = store.versions.list(saved.id)
        numbers = [v.version for v in versions]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers
        assert versions[-1].document == saved.document
        described = [v.document["app"]["description"] for v in versions]
        assert described[-1] in (f"change {newest}", f"change {newest + 1}"), (newest, described[-3:])
        assert {f"change {i}" for i in range(max(1, newest - 40), newest + 1)} <= set(described), (newest, described)
