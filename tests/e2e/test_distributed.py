"""Distributed batches as a person runs them: a real redis-server, two `browserpilot worker` processes on two
data folders, a submitter (`browserpilot run … --broker`), rows going to a local page whose server records
them. One worker is SIGKILLed mid-row: every row still reaches the server, and the submitter holds one ok
record per row. A worker stopped by SIGTERM finishes its row in hand and leaves the rest to another. And a
broker that is down at first: both sides say so, retry, and lose nothing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Any, Iterator

import pytest

from envs.jsonstore import JsonStore
from tests.support.app_process import app_command, app_env
from tests.support.redis_server import RedisServer, free_port
from tests.support.server import LocalServer, Response
from workflows.runs import RunsDocument

pytestmark = pytest.mark.e2e

ROW_LIMIT = "4"  # seconds: a SIGKILLed worker's row is delivered again after 2 x 4 + 5 s (swept every 2 s)
PAGE = """<title>Row</title><h1>{who}</h1><script>
setTimeout(() => fetch('/done?who=' + encodeURIComponent({who_js})).then(() => {{
  const p = document.createElement('p'); p.id = 'done'; p.textContent = 'done'; document.body.append(p); }}), 700);
</script>"""


def workflow(url: str) -> dict[str, Any]:
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": url + "?who={{#input.who#}}"}},
             {"id": "done", "data": {"type": "wait", "locator": {"selector": "#done"}, "timeout": 4}},
             {"id": "read", "data": {"type": "script", "source": "return {h: document.querySelector('h1').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]}]}}]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Row", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


@pytest.fixture
def row_site(server: LocalServer) -> LocalServer:
    server.route("/row", lambda r: Response(PAGE.format(who=r.arg("who"), who_js=json.dumps(r.arg("who")))))
    server.route("/done", lambda r: Response("ok", content_type="text/plain"))
    return server


class Worker:
    """`browserpilot worker` in its own session (so SIGKILL takes its renderers too), stderr to a file."""

    def __init__(self, data_dir: Path, broker: str, name: str, log: Path) -> None:
        self.name = name
        self.data_dir = data_dir
        self.log = log
        self._err: IO[str] = log.open("w")
        self.process = subprocess.Popen(
            [*app_command(), "worker", "--data-dir", str(data_dir), "--broker", broker, "--name", name,
             "--row-time-limit", ROW_LIMIT], stdout=subprocess.DEVNULL, stderr=self._err, text=True,
            env=app_env(), stdin=subprocess.DEVNULL, start_new_session=True)

    def output(self) -> str:
        return self.log.read_text()

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            assert self.process.poll() is None, f"worker {self.name} exited:\n{self.output()}"
            time.sleep(0.05)
        raise AssertionError(f"worker {self.name} did not say {text!r} within {timeout} s:\n{self.output()}")

    def running_rows(self) -> list[int]:
        """Rows this worker's app has started and not ended (its own runs.json)."""
        path = self.data_dir / "runs.json"
        if not path.exists():
            return []
        try:
            runs = json.loads(path.read_text())["runs"]
        except (ValueError, KeyError):
            return []  # being replaced right now (atomic write): read again
        return [run["rowIndex"] for run in runs if run.get("status") == "running" and run.get("rowIndex") is not None]

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._err.close()

    def stop(self, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
                raise AssertionError(f"worker {self.name} did not stop after SIGTERM:\n{self.output()}")
        self._err.close()
        return self.process.returncode


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for worker in started:
        if worker.process.poll() is None:
            os.killpg(worker.process.pid, signal.SIGKILL)
            worker.process.wait()
        worker._err.close()


def submit(data_dir: Path, wf: Path, rows: Path, broker: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*app_command(), "run", str(wf), "--data-dir", str(data_dir), "--rows", str(rows),
                             "--broker", broker, "--row-time-limit", ROW_LIMIT, "--json", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=app_env(),
                            stdin=subprocess.DEVNULL)


def batch_records(data_dir: Path) -> list[Any]:
    return JsonStore(data_dir / "runs.json", RunsDocument, RunsDocument).load().document.runs


def until(condition: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def test_a_worker_killed_mid_row_loses_no_row(tmp_path: Path, row_site: LocalServer, workers: list[Worker]) -> None:
    names = [f"row{i}" for i in range(6)]
    (tmp_path / "rows.csv").write_text("who\n" + "\n".join(names) + "\n")
    (tmp_path / "row.json").write_text(json.dumps(workflow(row_site.url("/row"))))
    with RedisServer(tmp_path / "redis") as redis:
        for name in ("w1", "w2"):
            workers.append(Worker(tmp_path / name, redis.url, name, tmp_path / f"{name}.log"))
        for worker in workers:
            worker.wait_for("ready")
        submitter = submit(tmp_path / "submitter", tmp_path / "row.json", tmp_path / "rows.csv", redis.url)
        victim, survivor = workers
        killed_row = until(lambda: victim.running_rows(), 60, "worker w1 starting a row")[0]
        victim.kill()  # mid-row: its row is unacknowledged
        out, err = submitter.communicate(timeout=120)
        assert submitter.returncode == 0, err
        assert survivor.stop() == 0, survivor.output()
    result = json.loads(out)
    assert result["succeeded"] == 6 and result["failed"] == 0
    # Every row reached the server, the killed one too (from the other worker).
    reached = {request.arg("who") for request in row_site.hits("/done")}
    assert reached == set(names)
    # The submitter holds one ok record per row, saying which worker ran it.
    records = [r for r in batch_records(tmp_path / "submitter") if r.batch_id == result["batchId"]]
    assert sorted(r.row_index for r in records) == list(range(6))
    assert all(r.status == "ok" and r.outputs == {"heading": names[r.row_index]} for r in records)
    by_row = {r.row_index: r for r in records}
    assert by_row[killed_row].worker == "w2"
    assert {r.worker for r in records} <= {"w1", "w2"}
    assert all(r.remote and r.remote["workerMs"] > 0 for r in records)


def test_a_broker_down_at_first_loses_nothing(tmp_path: Path, row_site: LocalServer, workers: list[Worker]) -> None:
    (tmp_path / "rows.json").write_text(json.dumps([{"who": "ann"}, {"who": "bob"}]))
    (tmp_path / "row.json").write_text(json.dumps(workflow(row_site.url("/row"))))
    redis = RedisServer(tmp_path / "redis", port=free_port())
    workers.append(Worker(tmp_path / "w1", redis.url, "w1", tmp_path / "w1.log"))
    submitter = submit(tmp_path / "submitter", tmp_path / "row.json", tmp_path / "rows.json", redis.url)
    workers[0].wait_for("Cannot connect to redis://")
    until(lambda: (tmp_path / "submitter" / "logs" / "browserpilot.log").exists() and "cannot reach the broker" in
          (tmp_path / "submitter" / "logs" / "browserpilot.log").read_text(), 60, "the submitter saying so")
    with redis:
        out, err = submitter.communicate(timeout=120)
        assert submitter.returncode == 0, err
        assert "cannot reach the broker" in err
        assert workers[0].stop() == 0
    result = json.loads(out)
    assert result["succeeded"] == 2
    assert {request.arg("who") for request in row_site.hits("/done")} == {"ann", "bob"}
    assert sorted(r.row_index for r in batch_records(tmp_path / "submitter")) == [0, 1]


def test_sigterm_mid_row_finishes_that_row_and_leaves_the_rest_to_another_worker(
        tmp_path: Path, row_site: LocalServer, workers: list[Worker]) -> None:
    names = ["ann", "bob", "cy"]
    (tmp_path / "rows.json").write_text(json.dumps([{"who": name} for name in names]))
    (tmp_path / "row.json").write_text(json.dumps(workflow(row_site.url("/row"))))
    with RedisServer(tmp_path / "redis") as redis:
        first = Worker(tmp_path / "w1", redis.url, "w1", tmp_path / "w1.log")
        workers.append(first)
        first.wait_for("ready")
        submitter = submit(tmp_path / "submitter", tmp_path / "row.json", tmp_path / "rows.json", redis.url)
        in_hand = until(lambda: first.running_rows(), 60, "worker w1 starting a row")[0]
        assert first.stop() == 0, first.output()  # SIGTERM: a warm shutdown
        assert "worker w1 stopped" in first.output()
        second = Worker(tmp_path / "w2", redis.url, "w2", tmp_path / "w2.log")
        workers.append(second)
        out, err = submitter.communicate(timeout=120)
        assert submitter.returncode == 0, err
        assert second.stop() == 0, second.output()
    result = json.loads(out)
    assert result["succeeded"] == 3 and result["failed"] == 0
    assert sorted(request.arg("who") for request in row_site.hits("/done")) == sorted(names)  # each row once
    by_row = {r.row_index: r for r in batch_records(tmp_path / "submitter") if r.batch_id == result["batchId"]}
    assert sorted(by_row) == [0, 1, 2] and all(r.status == "ok" for r in by_row.values())
    assert by_row[in_hand].worker == "w1"  # the row in hand was finished, not handed on
    assert {r.worker for i, r in by_row.items() if i != in_hand} == {"w2"}
