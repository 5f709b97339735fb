"""Distributed batches as a person runs them: one real redis-server and two `browserpilot worker` processes
(default settings: no shortened timeouts) shared by the module, submitters (`browserpilot run … --broker`,
`browserpilot batch resume`) on data folders of their own, and rows going to a local page whose server
records every row that reaches it, and when.

The server can hold a row at the point where the page reports it (`/done`): the test then knows that the
row is in a worker's hands, mid-row, and lets it finish when it chooses. Which worker holds which row is read
from the workers' own run records.

Faults: a worker SIGKILLed or SIGSTOPped mid-row (its row runs on the other worker within 30 s of the fault,
as the server sees it; the stopped worker's late result is recorded as a duplicate), Redis restarted
mid-batch (the rows it lost are sent again, none runs twice), the submitter killed (before it could send, then
mid-batch) and resumed, a broker down at first, a renderer crash (the row goes back to the queue), a warm
shutdown with a row in hand, `--retries`, Ctrl-C (the rows not started never run), `--ship-login`, and the
batch dialog's "Run on workers" in the app's own window.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from plumbing.jsonstore import JsonStore
from tests.support.app_process import app_command, app_env
from tests.support.distributed import Site, Worker, batch_id_of, ledger_events, until, workflow
from tests.support.order_shop import LAST_NODES, OrderShop, branching_order_workflow
from tests.support.qt import saved, shell  # noqa: F401  (shell: the app in this process, for the dialog's test)
from tests.support.redis_server import RedisServer
from tests.support.server import LocalServer
from tests.support.spa_saves import CASES as SPA_CASES, NO_SAVE, SaveSite, case_url, save_workflow
from workflows.runs import RunsDocument

pytestmark = pytest.mark.e2e

DEATH_TO_RERUN_LIMIT = 30.0  # seconds: the bound, with default settings
SUBMITTERS: list[subprocess.Popen[str]] = []  # started by the running test; ended after it if still running


class Pool:
    """The module's two live workers; a test that ends one calls `replace` so the next test has two again."""

    def __init__(self, root: Path, broker: str) -> None:
        self.root = root
        self.broker = broker
        self.started = 0
        self.workers = [self._new(), self._new()]

    def _new(self) -> Worker:
        self.started += 1
        name = f"w{self.started}"
        return Worker(self.root / name, self.broker, name, self.root / f"{name}.log")

    def ready(self) -> list[Worker]:
        for worker in self.workers:
            worker.wait_for("ready")
        return self.workers

    def replace(self, gone: Worker) -> None:
        if gone.process.poll() is None:
            gone.kill()
        self.workers[self.workers.index(gone)] = self._new()

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                os.killpg(worker.process.pid, signal.SIGKILL)
                worker.process.wait()
            worker._err.close()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, RedisServer, Pool]]:
    root = tmp_path_factory.mktemp("distributed")
    with LocalServer() as server, RedisServer(root / "redis") as redis:
        pool = Pool(root, redis.url)
        try:
            yield Site(server), redis, pool
        finally:
            pool.close()


@pytest.fixture
def site(env: tuple[Site, RedisServer, Pool]) -> Iterator[Site]:
    yield env[0]
    env[0].release()  # nothing stays held for the next test


@pytest.fixture
def redis(env: tuple[Site, RedisServer, Pool]) -> Iterator[RedisServer]:
    yield env[1]
    if env[1].process is None or env[1].process.poll() is not None:
        env[1].start()  # a test that stopped it and failed


@pytest.fixture
def pool(env: tuple[Site, RedisServer, Pool]) -> Pool:
    env[2].ready()
    return env[2]


@pytest.fixture(autouse=True)
def _no_submitter_left() -> Iterator[None]:
    """A test that fails before its submitter ends must not leave it running."""
    yield
    for process in SUBMITTERS:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    SUBMITTERS.clear()


# -- the submitter's side --------------------------------------------------------------------------------
def write_batch(folder: Path, site: Site, names: list[str], path: str = "/row",
                wait_timeout: float = 90) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    wf, rows = folder / "row.json", folder / "rows.json"
    wf.write_text(json.dumps(workflow(site.url(path), wait_timeout)))
    rows.write_text(json.dumps([{"who": name} for name in names]))
    return wf, rows


def launch(*args: str) -> subprocess.Popen[str]:
    """`browserpilot ARGS` in its own session (so a kill takes its whole group), JSON on stdout."""
    process = subprocess.Popen([*app_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=app_env(), stdin=subprocess.DEVNULL, start_new_session=True)
    SUBMITTERS.append(process)
    return process


def submit(data_dir: Path, wf: Path, rows: Path, broker: str, *extra: str) -> subprocess.Popen[str]:
    return launch("run", str(wf), "--data-dir", str(data_dir), "--rows", str(rows), "--broker", broker, "--json",
                  *extra)


def resume(data_dir: Path, batch_id: str) -> subprocess.Popen[str]:
    return launch("batch", "resume", batch_id, "--data-dir", str(data_dir), "--json")


def finish(process: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    """The submitter's JSON answer once it exits 0 (its stderr in the failure message otherwise)."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"the submitter did not end within {timeout} s:\n{err}") from None
    assert process.returncode == 0, err
    return dict(json.loads(out))


def kill_group(process: subprocess.Popen[str]) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=10)


def batch_file(data_dir: Path, batch_id: str) -> dict[str, Any]:
    def read() -> dict[str, Any] | None:
        try:
            return dict(json.loads((data_dir / "batches" / f"{batch_id}.json").read_text()))
        except (OSError, ValueError):
            return None
    return until(read, 10, "a readable batch record")


def records(data_dir: Path, batch_id: str | None = None) -> dict[int, Any]:
    """The submitter's run records of the batch (of its only batch when None), by row."""
    runs = JsonStore(data_dir / "runs.json", RunsDocument, RunsDocument).load().document.runs
    by_row: dict[int, Any] = {}
    for run in runs:
        if run.batch_id is not None and run.batch_id == (batch_id or run.batch_id):
            assert run.row_index not in by_row, f"row {run.row_index} has two records"
            by_row[run.row_index] = run
    return by_row


def in_hand(site: Site, names: list[str], count: int, timeout: float = 60) -> list[str]:
    """The first `count` rows that reached the server (held there: mid-row on a worker)."""
    return until(lambda: site.first_in(names, count), timeout, f"{count} row(s) reaching the server")


@dataclass
class HeldBatch:
    """A batch whose rows the site holds: `rows` reached the server (mid-row on workers), in that order."""

    data: Path
    submitter: subprocess.Popen[str]
    names: list[str]
    rows: list[str]
    pool: Pool

    def worker_of(self, who: str) -> Worker:
        """The worker running the row `who` (from the workers' own run records)."""
        return until(lambda: next((w for w in self.pool.workers if any(r["status"] == "running" for r in w.runs(who))),
                                  None), 10, f"a worker's record of row {who} running")

    def other_than(self, worker: Worker) -> Worker:
        return next(w for w in self.pool.workers if w is not worker)


def start_held(tmp_path: Path, site: Site, redis: RedisServer, pool: Pool, names: list[str], in_hand_count: int = 2,
               wait_timeout: float = 90) -> HeldBatch:
    """Submit a batch of `names`, all held by the site, and wait until `in_hand_count` of them are mid-row."""
    site.hold(*names)
    data = tmp_path / "submitter"
    submitter = submit(data, *write_batch(tmp_path, site, names, wait_timeout=wait_timeout), redis.url)
    return HeldBatch(data, submitter, names, in_hand(site, names, in_hand_count), pool)


# -- faults ----------------------------------------------------------------------------------------------
def test_a_worker_killed_mid_row_has_its_row_run_elsewhere_within_30_s(tmp_path: Path, site: Site, redis: RedisServer,
                                                                       pool: Pool) -> None:
    names = [f"kill{i}" for i in range(4)]
    held = start_held(tmp_path, site, redis, pool, names)  # both workers are mid-row
    killed_row = held.rows[0]
    victim = held.worker_of(killed_row)
    survivor = held.other_than(victim)
    victim.kill()
    killed_at = time.monotonic()
    site.release()
    result = finish(held.submitter)
    again = site.wait_reached(killed_row, times=2, timeout=1)
    pool.replace(victim)
    assert again - killed_at < DEATH_TO_RERUN_LIMIT, f"the killed worker's row ran {again - killed_at:.1f} s later"
    assert result["succeeded"] == 4 and result["failed"] == 0
    # Every row reached the server; the killed one twice (its first run died with the worker).
    assert site.reached(names) == {name: 2 if name == killed_row else 1 for name in names}
    by_row = records(held.data, result["batchId"])
    assert sorted(by_row) == [0, 1, 2, 3]
    assert all(r.status == "ok" and r.outputs["heading"] == names[i] for i, r in by_row.items())
    assert by_row[names.index(killed_row)].worker == survivor.name
    assert by_row[names.index(killed_row)].remote["attempts"] == 2  # its second run
    assert all(r.remote and r.remote["workerMs"] > 0 and r.remote["duplicates"] == [] for r in by_row.values())


def test_a_worker_stopped_mid_row_has_its_row_run_elsewhere_and_its_late_result_is_a_duplicate(
        tmp_path: Path, site: Site, redis: RedisServer, pool: Pool) -> None:
    names = [f"stop{i}" for i in range(3)]
    held = start_held(tmp_path, site, redis, pool, names)
    data, stuck_row = held.data, held.rows[0]
    stuck = held.worker_of(stuck_row)
    other = held.other_than(stuck)
    stuck.signal_group(signal.SIGSTOP)  # hangs: its process is there, its heartbeat is not
    stopped_at = time.monotonic()
    try:
        site.release()
        result = finish(held.submitter)
        again = site.wait_reached(stuck_row, times=2, timeout=1)
    finally:
        stuck.signal_group(signal.SIGCONT)
    assert again - stopped_at < DEATH_TO_RERUN_LIMIT, f"the stopped worker's row ran {again - stopped_at:.1f} s later"
    assert result["succeeded"] == 3 and result["duplicates"] == 0
    batch, index = result["batchId"], names.index(stuck_row)
    assert records(data, batch)[index].worker == other.name
    # Woken up, the stopped worker finishes its row too: a second run of it, which the submitter counts once.
    until(lambda: [e for e in ledger_events(redis.url, batch) if e["kind"] == "result" and e["row"] == index
                   and e["worker"] == stuck.name], 60, "the woken worker's late result")
    late = finish(resume(data, batch))
    assert late["succeeded"] == 3 and late["duplicates"] == 1
    assert [r["duplicates"] for r in late["results"]] == [1 if i == index else 0 for i in range(3)]
    kept = records(data, batch)[index]
    assert kept.worker == other.name and [d["worker"] for d in kept.remote["duplicates"]] == [stuck.name]
    assert kept.remote["duplicates"][0]["status"] == "ok"
    assert site.reached(names) == {name: 2 if name == stuck_row else 1 for name in names}
    assert "ran again on" in (data / "logs" / "browserpilot.log").read_text()


def test_redis_restarted_mid_batch_loses_no_row_and_runs_none_twice(tmp_path: Path, site: Site, redis: RedisServer,
                                                                    pool: Pool) -> None:
    names = [f"restart{i}" for i in range(5)]
    held = start_held(tmp_path, site, redis, pool, names)
    data = held.data
    redis.stop()  # no persistence: the queue, the workers' claims and the batch's ledger are gone
    redis.start()
    site.release()
    result = finish(held.submitter)
    assert result["succeeded"] == 5 and result["duplicates"] == 0
    assert site.reached(names) == {name: 1 for name in names}  # the rows in hand finished once, the rest ran once
    by_row = records(data, result["batchId"])
    assert sorted(by_row) == list(range(5)) and all(r.status == "ok" for r in by_row.values())
    assert "no longer in the broker" in (data / "logs" / "browserpilot.log").read_text()


def test_a_killed_submitter_is_resumed_and_sends_only_what_is_missing(tmp_path: Path, site: Site, redis: RedisServer,
                                                                      pool: Pool) -> None:
    names = [f"resume{i}" for i in range(4)]
    data = tmp_path / "submitter"
    wf, rows = write_batch(tmp_path, site, names)
    # 1. Killed before it could send anything (the broker was down): every row is missing.
    redis.stop()
    first = submit(data, wf, rows, redis.url)
    batch = batch_id_of(data)
    until(lambda: "cannot reach the broker" in (data / "logs" / "browserpilot.log").read_text(), 60,
          "the submitter saying it cannot reach the broker")
    kill_group(first)
    assert all(row["messageIds"] == [] for row in batch_file(data, batch)["rows"])
    redis.start()
    # 2. Resumed, it sends every row; killed again once one row is stored and two more are in hand.
    site.hold(*names)
    second = resume(data, batch)
    stored = in_hand(site, names, 2)[0]
    site.release(stored)
    until(lambda: names.index(stored) in records(data, batch), 30, "the first row stored")
    until(lambda: batch_file(data, batch)["rows"][names.index(stored)]["outcome"] == "ok", 30,
          "the first row's outcome on file")
    kill_group(second)
    # 3. With no submitter, the workers finish every row; their results wait in Redis.
    site.release()
    until(lambda: {e["row"] for e in ledger_events(redis.url, batch) if e["kind"] == "result"} == set(range(4)), 60,
          "every row's result in the ledger")
    result = finish(resume(data, batch))
    assert result["succeeded"] == 4 and result["duplicates"] == 0
    assert site.reached(names) == {name: 1 for name in names}  # nothing finished or queued was sent again
    by_row = records(data, batch)
    assert sorted(by_row) == [0, 1, 2, 3] and all(r.status == "ok" for r in by_row.values())
    assert all(len(row["messageIds"]) == 1 for row in batch_file(data, batch)["rows"])
    assert batch_file(data, batch)["status"] == "ended"


def test_a_broker_down_at_first_loses_nothing(tmp_path: Path, site: Site, redis: RedisServer, pool: Pool) -> None:
    names = ["ann", "bob"]
    data = tmp_path / "submitter"
    redis.stop()
    submitter = submit(data, *write_batch(tmp_path, site, names), redis.url)
    until(lambda: (data / "logs" / "browserpilot.log").exists() and "cannot reach the broker" in
          (data / "logs" / "browserpilot.log").read_text(), 60, "the submitter saying so")
    newcomer = Worker(tmp_path / "w-late", redis.url, "w-late", tmp_path / "w-late.log")
    try:
        newcomer.wait_for("cannot reach the broker")
        redis.start()
        result = finish(submitter)
        newcomer.wait_for("ready")
    finally:
        assert newcomer.stop() == 0, newcomer.output()
    assert result["succeeded"] == 2
    assert site.reached(names) == {"ann": 1, "bob": 1}
    assert sorted(records(data, result["batchId"])) == [0, 1]


def test_a_renderer_crash_sends_the_row_back_to_the_queue(tmp_path: Path, site: Site, redis: RedisServer,
                                                           pool: Pool) -> None:
    names = ["crash0"]
    held = start_held(tmp_path, site, redis, pool, names, in_hand_count=1, wait_timeout=5)
    worker = held.worker_of("crash0")
    renderers = until(worker.renderers, 10, "the worker's renderer")
    for renderer in renderers:
        renderer.kill()
    until(lambda: sum(len(w.runs("crash0")) for w in pool.workers) >= 2, 60, "the row starting again")
    site.release()
    result = finish(held.submitter)
    assert result["succeeded"] == 1
    record = records(held.data, result["batchId"])[0]
    assert record.status == "ok" and record.remote["attempts"] == 2
    # The crashed run ended failed on its worker (no --retries: only the app fault sent the row back); the
    # row's second run is the kept one.
    assert [run["status"] for run in worker.runs("crash0")][-1] == "failed"


def test_a_warm_shutdown_finishes_the_row_in_hand_and_leaves_the_rest(tmp_path: Path, site: Site, redis: RedisServer,
                                                                      pool: Pool) -> None:
    names = [f"warm{i}" for i in range(4)]
    held = start_held(tmp_path, site, redis, pool, names)
    rows_in_hand = held.rows
    leaving = held.worker_of(rows_in_hand[0])
    staying = held.other_than(leaving)
    leaving.process.send_signal(signal.SIGTERM)  # a warm shutdown, its row still held by the server
    leaving.wait_for("finishing the rows in hand")
    site.release()
    assert leaving.exited() == 0, leaving.output()
    pool.replace(leaving)
    result = finish(held.submitter)
    assert result["succeeded"] == 4 and result["duplicates"] == 0
    assert site.reached(names) == {name: 1 for name in names}
    by_row = records(held.data, result["batchId"])
    assert by_row[names.index(rows_in_hand[0])].worker == leaving.name  # finished, not handed on
    assert {r.worker for i, r in by_row.items() if names[i] not in rows_in_hand} == {staying.name}


def test_the_last_submit_of_each_row_lands_before_the_worker_closes_its_tab(tmp_path: Path, redis: RedisServer,
                                                                           pool: Pool) -> None:
    """A row whose last node places an order (a form post by a click, by Enter, by form.submit() in a script, a
    fetch fired by a click): the worker closes the row's tab right after the run, and the order must have
    landed by then (the shop counts an order only when its client is still there for the answer)."""
    data = tmp_path / "submitter"
    with OrderShop() as shop:
        wf, rows = tmp_path / "order.json", tmp_path / "rows.json"
        wf.write_text(json.dumps(branching_order_workflow(shop.url("/form"))))
        rows.write_text(json.dumps([{"case": case, "who": f"row{index}"} for index, case in enumerate(LAST_NODES)]))
        result = finish(submit(data, wf, rows, redis.url))
        assert result["succeeded"] == len(LAST_NODES) and result["failed"] == 0
        counted = sorted((request.path, re.search(r"row\d", request.body.decode()).group()) for request in shop.orders)
    assert counted == sorted((path, f"row{index}") for index, (path, _node) in enumerate(LAST_NODES.values()))


def test_a_single_page_apps_save_a_moment_after_the_click_lands_before_the_worker_closes_its_tab(
        tmp_path: Path, redis: RedisServer, pool: Pool) -> None:
    """Each way a single-page app saves a moment after the click (tests/support/spa_saves.py: a debounce, a token
    first, a WebSocket, a chain, a queue answered on an EventSource, a Web Worker, a form in a shadow root or an
    iframe) as the last click of a row: the worker closes the row's tab right after the run, and the save must be
    stored by then; a click that starts nothing is an ordinary row."""
    data = tmp_path / "submitter"
    with SaveSite() as shop:
        wf, rows = tmp_path / "save.json", tmp_path / "rows.json"
        wf.write_text(json.dumps(save_workflow()))
        rows.write_text(json.dumps([{"url": case_url(shop, case), "who": f"worker-{case}"}
                                    for case in (*SPA_CASES, NO_SAVE)]))
        result = finish(submit(data, wf, rows, redis.url), timeout=240)
        assert result["succeeded"] == len(SPA_CASES) + 1 and result["failed"] == 0, result
        stored = {case: shop.saves(f"worker-{case}") for case in (*SPA_CASES, NO_SAVE)}
    assert stored == {**{case: [case] for case in SPA_CASES}, NO_SAVE: []}


def test_retries_run_a_failed_row_again(tmp_path: Path, site: Site, redis: RedisServer, pool: Pool) -> None:
    names = ["flaky0", "flaky1"]
    data = tmp_path / "submitter"
    result = finish(submit(data, *write_batch(tmp_path, site, names, path="/flaky", wait_timeout=3), redis.url,
                           "--retries", "1"))
    assert result["succeeded"] == 2
    assert site.served == {"flaky0": 2, "flaky1": 2}  # each page served twice: the failed run and the retry
    by_row = records(data, result["batchId"])
    assert [by_row[i].remote["attempts"] for i in (0, 1)] == [2, 2]


def test_ctrl_c_revokes_the_rows_not_started_also_for_a_worker_that_connects_later(
        tmp_path: Path, site: Site, redis: RedisServer, pool: Pool) -> None:
    names = [f"cancel{i}" for i in range(5)]
    held = start_held(tmp_path, site, redis, pool, names)
    data, submitter, running = held.data, held.submitter, held.rows
    submitter.send_signal(signal.SIGINT)
    until(lambda: "revoked 3 row(s)" in (data / "logs" / "browserpilot.log").read_text(), 30,
          "the rows not started revoked")
    # A worker that connects after the revocation is the first to reach the revoked rows (the others are busy).
    newcomer = Worker(tmp_path / "w-new", redis.url, "w-new", tmp_path / "w-new.log")
    try:
        newcomer.wait_for("ready")
        site.release(*running)
        out, err = submitter.communicate(timeout=60)
        assert submitter.returncode == 1, err
        workers = [*pool.workers, newcomer]
        until(lambda: sum((w.data_dir / "logs" / "browserpilot.log").read_text().count("skipped: revoked")
                          for w in workers) == 3, 30, "the workers dropping the three revoked rows")
    finally:
        assert newcomer.stop() == 0, newcomer.output()
    assert site.reached(names) == {name: 1 if name in running else 0 for name in names}
    by_row = records(data)
    assert {names[i]: r.status for i, r in by_row.items()} == {
        name: "ok" if name in running else "cancelled" for name in names}


def test_a_shipped_login_reaches_the_site_from_the_workers(tmp_path: Path, site: Site, redis: RedisServer,
                                                           pool: Pool) -> None:
    data = tmp_path / "submitter"
    login = tmp_path / "login.json"
    login.write_text(json.dumps({**workflow(site.url("/login")), "workflow": {
        "environment_variables": [], "conversation_variables": [], "graph": {
            "nodes": [{"id": "start", "data": {"type": "start", "variables": []}},
                      {"id": "open", "data": {"type": "goto", "url": site.url("/login") + "?user=ann"}},
                      {"id": "in", "data": {"type": "wait", "locator": {"selector": "#welcome"}, "timeout": 20}},
                      {"id": "end", "data": {"type": "end", "outputs": []}}],
            "edges": [{"source": "start", "target": "open"}, {"source": "open", "target": "in"},
                      {"source": "in", "target": "end"}]}}}))
    logged_in = subprocess.run([*app_command(), "run", str(login), "--data-dir", str(data), "--headless"],
                               capture_output=True, text=True, env=app_env(), stdin=subprocess.DEVNULL, timeout=120)
    assert logged_in.returncode == 0, logged_in.stderr
    # The environment's identity travels with its login: the workers' tabs present it too.
    agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
    identity = subprocess.run([*app_command(), "env", "update", "env-default", "--user-agent", agent, "--languages",
                               "fr-FR", "--data-dir", str(data)], capture_output=True, text=True, env=app_env(),
                              stdin=subprocess.DEVNULL, timeout=60)
    assert identity.returncode == 0, identity.stderr
    names = ["ship0", "ship1"]
    result = finish(submit(data, *write_batch(tmp_path, site, names), redis.url, "--ship-login", "env-default"))
    assert result["succeeded"] == 2
    assert [r["outputs"]["user"] for r in result["results"]] == ["ann", "ann"]  # the page saw the cookie
    done = [r for r in site.server.hits("/done") if r.arg("who") in names]
    assert len(done) == 2 and all("session=ann" in r.headers.get("cookie", "") for r in done)
    assert all(r.headers["user-agent"] == agent and r.headers["accept-language"] == "fr-FR" for r in done)
    # The workers' own environments never got the login: their temporary ones are gone (once saved).
    for worker in pool.workers:
        until(lambda: [e["id"] for e in json.loads((worker.data_dir / "envs.json").read_text())["environments"]]
              == ["env-default"], 10, f"{worker.name} left with its own environment only")


# -- the batch dialog, in the app's own window ----------------------------------------------------------
def test_the_batch_dialog_runs_rows_on_workers(qtbot: Any, shell: Any, tmp_path: Path, site: Site,
                                                redis: RedisServer, pool: Pool) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from app.stores.settings import SettingsStore
    from app.ui.run_inputs_dialog import BatchDialog
    from tests.integration.test_gui import answer_dialog
    from tests.support.qt import run_op

    window = shell.main_window
    panel = window.workflows_panel
    window.panels.setCurrentWidget(panel)
    assert run_op(qtbot, shell, "workflow_write", {"workflow": workflow(site.url("/row"))})["ok"]
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1)
    panel.select_workflow("Row")
    rows = tmp_path / "rows.csv"
    rows.write_text("who\ngui0\ngui1\ngui2\n")

    def fill(dialog: BatchDialog) -> None:
        dialog.load_rows(str(rows))
        dialog.on_workers.setChecked(True)
        dialog.broker.setText(redis.url)
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert ok.isEnabled(), dialog.problem.text()
        ok.click()

    answer_dialog(qtbot, fill)
    panel.buttons["batch"].click()
    qtbot.waitUntil(lambda: panel.result_box is not None and panel.result_box.isVisible(), timeout=120_000)
    assert panel.result_box.text() == "Batch of “Row” done: 3 of 3 rows ok."
    assert site.reached(["gui0", "gui1", "gui2"]) == {"gui0": 1, "gui1": 1, "gui2": 1}
    listed = [r for r in shell.ctx.runs.list() if r.batch_id]
    assert sorted(r.row_index for r in listed) == [0, 1, 2]
    assert {r.worker for r in listed} <= {w.name for w in pool.workers} and all(r.status == "ok" for r in listed)
    saved(qtbot, shell)
    assert SettingsStore(shell.data).current.workers_broker == redis.url  # remembered for the next batch
