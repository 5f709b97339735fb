"""Distributed batches' test parts, shared by tests/e2e/test_distributed.py and bench/distributed.py (no Qt):
the row workflow, the rows' web site (which can hold a row mid-way and records when each row reached it),
and a `browserpilot worker` subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable

import psutil
import redis

from tests.support.app_process import app_command, app_env
from tests.support.server import LocalServer, Request, Response

ROW_PAGE = """<title>Row</title><h1>{who}</h1><p id=user>{user}</p>{script}"""
DONE_SCRIPT = """<script>
setTimeout(() => fetch('/done?who=' + encodeURIComponent({who_js})).then(r => r.text()).then(() => {{
  const p = document.createElement('p'); p.id = 'done'; p.textContent = 'done'; document.body.append(p); }}), 100);
</script>"""


def workflow(url: str, wait_timeout: float = 90) -> dict[str, Any]:
    """goto the row's page, wait until the page has reported the row (`/done` answered), read the page."""
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": url + "?who={{#input.who#}}"}},
             {"id": "done", "data": {"type": "wait", "locator": {"selector": "#done"}, "timeout": wait_timeout}},
             {"id": "read", "data": {"type": "script", "source": "return {h: document.querySelector('h1').textContent, "
                                                                 "u: document.querySelector('#user').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]},
                                                              {"variable": "user", "value_selector": ["read", "u"]}]}}]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Row", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Wait for a condition (polled), never for a fixed time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {timeout} s")


class Site:
    """The rows' web site. `/row?who=X` is the row's page (it shows the `session` cookie's user, if any);
    its script calls `/done?who=X`, which the site can hold until the test releases X. `/flaky` fails the
    first time for each row (no script: the workflow's wait times out); `/login?user=U` sets the cookie."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.held: set[str] = set()
        self.arrivals: list[tuple[float, str]] = []
        self.served: dict[str, int] = {}
        self._cond = threading.Condition()
        server.ignore_disconnects()  # rows whose worker was killed leave their requests behind
        server.route("/row", self._row)
        server.route("/flaky", self._flaky)
        server.route("/done", self._done)
        server.route("/login", lambda r: Response("<title>In</title><p id=welcome>welcome</p>",
                                                  headers=[("Set-Cookie", f"session={r.arg('user')}; Path=/")]))

    def url(self, path: str) -> str:
        return self.server.url(path)

    def _page(self, request: Request, script: bool = True) -> Response:
        who = request.arg("who")
        pairs = [part.strip().split("=", 1) for part in request.headers.get("cookie", "").split(";") if "=" in part]
        cookies = dict(pairs)
        return Response(ROW_PAGE.format(who=who, user=cookies.get("session", ""),
                                        script=DONE_SCRIPT.format(who_js=json.dumps(who)) if script else ""))

    def _row(self, request: Request) -> Response:
        return self._page(request)

    def _flaky(self, request: Request) -> Response:
        who = request.arg("who")
        with self._cond:
            self.served[who] = self.served.get(who, 0) + 1
            first = self.served[who] == 1
        return self._page(request, script=not first)

    def _done(self, request: Request) -> Response:
        who = request.arg("who")
        with self._cond:
            self.arrivals.append((time.monotonic(), who))
            self._cond.notify_all()
            self._cond.wait_for(lambda: who not in self.held, timeout=150)
        return Response("ok", content_type="text/plain")

    def hold(self, *names: str) -> None:
        with self._cond:
            self.held.update(names)

    def release(self, *names: str) -> None:
        with self._cond:
            self.held.difference_update(names or set(self.held))
            self._cond.notify_all()

    def times(self, who: str) -> list[float]:
        with self._cond:
            return [at for at, name in self.arrivals if name == who]

    def reached(self, names: list[str]) -> dict[str, int]:
        """How many times each row reached the server."""
        with self._cond:
            return {name: sum(1 for _at, who in self.arrivals if who == name) for name in names}

    def first_in(self, names: list[str], count: int) -> list[str] | None:
        """The first `count` of `names` that reached the server, in that order; None while fewer did."""
        with self._cond:
            order = list(dict.fromkeys(who for _at, who in self.arrivals if who in names))
        return order[:count] if len(order) >= count else None

    def wait_reached(self, who: str, times: int = 1, timeout: float = 60) -> float:
        """When `who` reached the server for the `times`-th time."""
        return until(lambda: len(self.times(who)) >= times and self.times(who)[times - 1], timeout,
                     f"row {who} reaching the server {times} time(s)")


class Worker:
    """`browserpilot worker` in its own session (so a signal to its group reaches its renderers too)."""

    def __init__(self, data_dir: Path, broker: str, name: str, log: Path, *extra: str) -> None:
        self.name = name
        self.data_dir = data_dir
        self.log = log
        self._err: IO[str] = log.open("w")
        self.process = subprocess.Popen(
            [*app_command(), "worker", "--data-dir", str(data_dir), "--broker", broker, "--name", name, *extra],
            stdout=subprocess.DEVNULL, stderr=self._err, text=True, env=app_env(), stdin=subprocess.DEVNULL,
            start_new_session=True)

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

    def signal_group(self, signum: int) -> None:
        os.killpg(self.process.pid, signum)

    def kill(self) -> None:
        self.signal_group(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._err.close()

    def runs(self, who: str) -> list[dict[str, Any]]:
        """This worker's own run records of the row `who` (its runs.json; [] while it is being replaced)."""
        try:
            runs = json.loads((self.data_dir / "runs.json").read_text())["runs"]
        except (OSError, ValueError, KeyError):
            return []
        return [run for run in runs if (run.get("inputs") or {}).get("who") == who]

    def renderers(self) -> list[psutil.Process]:
        """Its pages' renderer processes (forked by QtWebEngine's zygote, so they carry the zygote's command
        line: they are the zygote's children)."""
        children = psutil.Process(self.process.pid).children(recursive=True)
        return [child for child in children if "--type=zygote" in " ".join(child.parent().cmdline())
                and child.parent().pid != self.process.pid]

    def exited(self, timeout: float = 60) -> int:
        """Its exit status once it has stopped by itself (after a signal sent earlier)."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"worker {self.name} did not exit within {timeout} s:\n{self.output()}") from None
        self._err.close()
        return self.process.returncode

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


def batch_id_of(data_dir: Path) -> str:
    """The batch a submitter wrote on file (it does so before it sends any row)."""
    found = until(lambda: sorted((data_dir / "batches").glob("batch-*.json")), 60, "the batch's record on file")
    return str(found[0].stem)


def ledger_events(url: str, batch_id: str) -> list[dict[str, Any]]:
    """The batch's events in Redis, as the workers wrote them (`started`, `result`, `failed`)."""
    client = redis.Redis.from_url(url)
    try:
        entries = client.xrange(f"browserpilot:batch:{batch_id}:events")
    finally:
        client.close()
    return [json.loads(fields[b"event"]) for _id, fields in entries]

