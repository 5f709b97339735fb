"""`browserpilot run`, `workflow` and `runs` as a person uses them: real app processes, real pages."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore
from envs.model import EnvsDocument
from tests.support.app_process import app_command, app_env, run_cli
from tests.support.server import LocalServer, Response
from workflows.runs import RunsDocument
from workflows.store import WorkflowsDocument

pytestmark = pytest.mark.e2e


def workflow(name: str, url: str, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": url + "?who={{#input.who#}}"}},
             *(extra or []),
             {"id": "read", "data": {"type": "script", "source": "return {h: document.querySelector('h1').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]}]}}]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


@pytest.fixture
def greeter(server: LocalServer) -> LocalServer:
    server.route("/hello", lambda r: Response(f"<title>Hello</title><h1>Hello {r.arg('who')}</h1>"))
    return server


def test_run_a_file_then_by_name_and_read_the_records(data_dir: Path, greeter: LocalServer, tmp_path: Path) -> None:
    file = tmp_path / "greet.json"
    file.write_bytes(b"\xef\xbb\xbf" + json.dumps(workflow("Greet", greeter.url("/hello"))).encode())
    result = run_cli(data_dir, "run", str(file), "--headless", "--json", "--input", "who=Zoë", timeout=120)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["status"] == "ok" and record["outputs"] == {"heading": "Hello Zoë"}
    # The original app's envelope fields are there too.
    assert record["ok"] is True and record["takenOver"] is False and record["files"] == [] and "title" in record
    assert greeter.hits("/hello")[0].arg("who") == "Zoë"

    imported = run_cli(data_dir, "workflow", "import", str(file))
    assert imported.returncode == 0 and imported.stdout.startswith("imported wf-")
    by_name = run_cli(data_dir, "run", "Greet", "--headless", "--input", "who=Bob", timeout=120)
    assert by_name.returncode == 0, by_name.stderr
    assert "output heading: \"Hello Bob\"" in by_name.stdout
    listed = run_cli(data_dir, "runs", "list").stdout.splitlines()
    assert len(listed) == 2 and all("\tok\tGreet\t" in line for line in listed)
    shown = json.loads(run_cli(data_dir, "runs", "show", listed[0].split("\t")[0], "--json").stdout)
    assert [t["node"] for t in shown["trace"]] == ["start", "open", "read", "end"]
    exported = tmp_path / "out.json"
    assert run_cli(data_dir, "workflow", "export", "Greet", "-o", str(exported)).returncode == 0
    assert json.loads(exported.read_text("utf-8"))["app"]["name"] == "Greet"
    first_id = imported.stdout.split()[1]
    renamed = run_cli(data_dir, "workflow", "update", "Greet", "--rename", "Greeting")
    assert renamed.returncode == 0 and renamed.stdout.strip() == f"updated {first_id}\tGreeting"  # the id stays
    assert run_cli(data_dir, "workflow", "update", "Greeting", "--remove-node", "ghost").returncode == 1
    assert run_cli(data_dir, "workflow", "delete", "Greeting").returncode == 0
    assert run_cli(data_dir, "workflow", "list").stdout == ""


def test_failures_and_batches_set_the_exit_status(data_dir: Path, greeter: LocalServer, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(workflow("Broken", greeter.url("/hello"), [
        {"id": "nope", "data": {"type": "click", "locator": {"selector": "#missing"}, "timeout": 0.5}}])))
    failed = run_cli(data_dir, "run", str(broken), "--headless", "--input", "who=x", timeout=120)
    assert failed.returncode == 1
    assert "stopped at: nope" in failed.stdout and "no element matches" in failed.stderr
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"kind": "app", "version": "0.3.0", "app": {"name": "X"}, "workflow": {"graph": '
                       '{"nodes": [{"id": "s", "data": {"type": "start"}}, {"id": "a", "data": {"type": "teleport"}}],'
                       ' "edges": [{"source": "s", "target": "a"}]}}}')
    rejected = run_cli(data_dir, "run", str(invalid), "--headless")  # loads (as in the original), fails at "a"
    assert rejected.returncode == 1 and "teleport" in rejected.stderr and "stopped at: a" in rejected.stdout
    refused = tmp_path / "refused.json"
    refused.write_text('{"app": {"name": "Y"}, "workflow": {"graph": {"nodes": [], "edges": []}}}')
    assert run_cli(data_dir, "run", str(refused), "--headless").returncode == 1
    rows = tmp_path / "rows.csv"
    rows.write_text("who\nAnn\nBen\nCid\n", "utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(workflow("Good", greeter.url("/hello"))))
    batch = run_cli(data_dir, "run", str(good), "--headless", "--rows", str(rows), "--concurrency", "2", timeout=180)
    assert batch.returncode == 0, batch.stderr
    assert batch.stdout.strip().endswith("3 ok, 0 failed of 3")
    assert sorted(r.arg("who") for r in greeter.hits("/hello") if r.arg("who") != "x") == ["Ann", "Ben", "Cid"]


def test_sigkill_during_a_run_leaves_every_store_valid(data_dir: Path, greeter: LocalServer, tmp_path: Path) -> None:
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps(workflow("Slow", greeter.url("/hello"), [
        {"id": "sleep", "data": {"type": "script", "source": "await new Promise(r => setTimeout(r, 60000)); return {}",
                                 "timeout": 120}}])))
    process = subprocess.Popen([*app_command(), "--data-dir", str(data_dir), "run", str(slow), "--headless",
                                "--input", "who=K"], env=app_env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        greeter.wait_for("/hello", timeout=60)
        time.sleep(0.5)
        process.send_signal(signal.SIGKILL)
        process.wait(20)
    finally:
        if process.poll() is None:
            process.kill()
    data = DataDir(data_dir)
    for path, model in ((data.root / "runs.json", RunsDocument), (data.envs_json, EnvsDocument)):
        assert JsonStore(path, model, model).load().problem is None
    assert not list(data_dir.glob("*.corrupt-*"))
    shown = run_cli(data_dir, "runs", "list")
    assert shown.returncode == 0 and "\tfailed\tSlow\t" in shown.stdout
    assert JsonStore(data.root / "workflows.json", WorkflowsDocument, WorkflowsDocument).load().problem is None


def test_runs_show_table_prints_a_run_s_table(data_dir: Path, tmp_path: Path) -> None:
    """`runs show ID --table` prints an exported table (aligned, Chinese counted as two columns) or, by name or
    number, a list output; `--json` gives its cells."""
    rows = "return {rows: [{'名称': '苹果', '价格': 3.5}, {'名称': 'pear', '价格': 12}]}"
    doc = {"kind": "app", "version": "0.3.0", "app": {"name": "Fruit", "mode": "workflow"},
           "workflow": {"graph": {"nodes": [
               {"id": "start", "data": {"type": "start"}},
               {"id": "make", "data": {"type": "code", "code": rows, "outputs": {"rows": {"type": "array"}}}},
               {"id": "save", "data": {"type": "export", "filename": "fruit", "headers": ["名称", "价格"],
                                       "rows_selector": ["make", "rows"], "format": "xlsx"}},
               {"id": "end", "data": {"type": "end", "outputs": [{"variable": "fruit",
                                                                  "value_selector": ["make", "rows"]}]}}],
               "edges": [{"source": "start", "target": "make"}, {"source": "make", "target": "save"},
                         {"source": "save", "target": "end"}]}}}
    file = tmp_path / "fruit.json"
    file.write_text(json.dumps(doc), "utf-8")
    ran = run_cli(data_dir, "run", str(file), "--headless", "--json", timeout=120)
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["id"]

    shown = run_cli(data_dir, "runs", "show", run_id, "--table")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["名称  价格", "----  ----", "苹果  3.5", "pear  12"]
    assert "fruit.xlsx" in shown.stderr and "other tables: 2. fruit" in shown.stderr
    output = run_cli(data_dir, "runs", "show", run_id, "--table", "2", "--json")
    assert json.loads(output.stdout)["rows"] == [["苹果", 3.5], ["pear", 12]]
    missing = run_cli(data_dir, "runs", "show", run_id, "--table", "nope")
    assert missing.returncode == 1 and "no table 'nope'" in missing.stderr


def test_a_traced_run_from_the_command_line_then_runs_show_trace_and_runs_export(
        data_dir: Path, greeter: LocalServer, tmp_path: Path) -> None:
    file = tmp_path / "broken.json"
    file.write_text(json.dumps(workflow("Traced", greeter.url("/hello"), [
        {"id": "nope", "data": {"type": "click", "title": "Confirm", "locator": {"selector": "#missing"},
                                "timeout": 0.5}}])))
    failed = run_cli(data_dir, "run", str(file), "--headless", "--json", "--input", "who=Ada", "--trace", "--video",
                     timeout=180)
    assert failed.returncode == 1
    record = json.loads(failed.stdout)
    assert record["tracing"] == {"trace": "always", "video": "always"} and record["video"].endswith(".webm")
    shown = run_cli(data_dir, "runs", "show", record["id"], "--trace")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith(f"{record['id']}  failed  Traced")
    assert any(" ERR  nope (click) 'Confirm'" in line for line in lines)
    assert any(line.strip().startswith("GET " + greeter.url("/hello")) and " 200 " in line for line in lines)
    assert sum(line.strip().startswith("after: ") for line in lines) == len(record["trace"])
    assert lines[-1] == f"video: {record['video']}"
    target = tmp_path / "bug.zip"
    exported = run_cli(data_dir, "runs", "export", record["id"], "-o", str(target))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.startswith(f"{target}\t")
    import zipfile

    with zipfile.ZipFile(target) as archive:
        names = set(archive.namelist())
    assert {"record.json", "video.webm"} <= names and any(name.startswith("trace/") for name in names)
    assert any(name.startswith("screenshots/failure-") for name in names)
