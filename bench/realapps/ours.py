"""BrowserPilot's side of the real-application bench: record a person's flow in the app's own environment window
with real X input, and replay the saved workflow headless with `browserpilot run`.

Any checkout can be measured (`--checkout DIR`): the app is that checkout's `.venv/bin/browserpilot`, and the
few operations the harness calls (record_start, record_stop, tab_list: what the Record button and the
Recording panel call) go through that checkout's own Python (`forward_operation`, as `browserpilot` verbs do).
The eyes read the page over QtWebEngine's DevTools port (QTWEBENGINE_CHROMIUM_FLAGS=--remote-debugging-port),
never through the app.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from bench.realapps.common import free_port, stop_group
from bench.realapps.person import Step, perform
from tests.support.xinput import DevTools, Eyes, Screen, wait_until

WINDOW_WIDTH = 1900  # the environment window: its page about as wide as the peers' 1600 beside the Recording panel
# Run by the checkout's own Python: one operation in the running app (as `browserpilot` verbs forward them), and
# the welcome dialog marked as seen (a person who has used the app before).
OP_SCRIPT = """import json, sys
from pathlib import Path
from app.mcp.client import forward_operation
from plumbing.datadir import DataDir
print(json.dumps(forward_operation(DataDir(Path(sys.argv[1])), sys.argv[2], json.loads(sys.argv[3]), timeout=60)))
"""
WELCOMED = """import sys
from pathlib import Path
from app.stores.settings import SettingsStore
from plumbing.datadir import DataDir
SettingsStore(DataDir(Path(sys.argv[1]))).update(welcome_shown=True)
"""


@dataclass
class Checkout:
    """A BrowserPilot checkout with its .venv (./dev.sh setup)."""

    root: Path

    @property
    def python(self) -> Path:
        return self.root / ".venv" / "bin" / "python"

    @property
    def browserpilot(self) -> Path:
        return self.root / ".venv" / "bin" / "browserpilot"

    def check(self) -> None:
        if not self.browserpilot.exists():
            raise SystemExit(f"{self.browserpilot} does not exist: run ./dev.sh setup in {self.root}")

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("BROWSERPILOT_HOME", "QT_QPA_PLATFORM",
                                                                  "QTWEBENGINE_REMOTE_DEBUGGING", "VIRTUAL_ENV")}
        env.update(QTWEBENGINE_DISABLE_SANDBOX="1", BROWSERPILOT_LANG="en", PYTHONPATH=str(self.root), **extra)
        return env

    def op(self, data: Path, name: str, params: dict[str, Any]) -> dict[str, Any]:
        done = subprocess.run([str(self.python), "-c", OP_SCRIPT, str(data), name, json.dumps(params)],
                              cwd=self.root, env=self.env(), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{name} failed: {done.stderr.strip()[-1500:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def record(checkout: Checkout, screen: Screen, start_url: str, origin: str, steps: list[Step], work: Path,
           say: Callable[[str], None]) -> dict[str, Any]:
    """The person records the flow in BrowserPilot's environment window; the saved workflow document."""
    data = work / "ours-record-data"
    data.mkdir(parents=True)
    subprocess.run([str(checkout.python), "-c", WELCOMED, str(data)], cwd=checkout.root, env=checkout.env(),
                   check=True, capture_output=True)
    port = free_port("127.0.0.1")
    log_path = work / "ours-record.log"
    with log_path.open("wb") as log:
        app = subprocess.Popen([str(checkout.browserpilot), "--data-dir", str(data), "--open", start_url],
                               cwd=work, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                               env=checkout.env(**screen.env(), QTWEBENGINE_CHROMIUM_FLAGS=(
                                   f"--remote-debugging-port={port} --remote-allow-origins=*")))
    devtools = DevTools(port)
    try:
        eyes = Eyes(devtools, origin, bars=False)  # the view never moves in its window
        wait_until(eyes.page, 90, "the environment's tab in BrowserPilot")
        tabs = wait_until(lambda: [t for t in checkout.op(data, "tab_list", {}).get("tabs", [])
                                   if str(t.get("url", "")).startswith(origin)], 60, "the tab in tab_list")
        tab_id = tabs[0]["tabId"] if "tabId" in tabs[0] else tabs[0]["id"]
        window = wait_until(lambda: [w for w in screen.windows(".") if w not in screen.windows("^BrowserPilot$")],
                            30, "the environment window")
        for wid in screen.windows("^BrowserPilot$"):  # the main window: out of the way, as a person would
            screen.run("xdotool", "windowminimize", str(wid), check=False)
        screen.place(window[-1], 0, 0, WINDOW_WIDTH, screen.height)
        screen.run("xdotool", "windowactivate", str(window[-1]), check=False)
        started = checkout.op(data, "record_start", {"tabId": tab_id})
        if not started.get("ok", True):
            raise RuntimeError(f"record_start: {started}")
        perform(screen, eyes, steps, work, "ours", say)
        time.sleep(1.0)  # the last steps reach the recording (it merges typing until the field is left)
        status = checkout.op(data, "record_status", {"tabId": tab_id})
        (work / "ours-record-status.json").write_text(json.dumps(status, indent=1))
        stopped = checkout.op(data, "record_stop", {"tabId": tab_id, "name": "bench flow", "save": False})
        if not stopped.get("ok", True) or "workflow" not in stopped:
            raise RuntimeError(f"record_stop: {json.dumps(stopped)[:1500]}")
        return stopped["workflow"]  # type: ignore[no-any-return]
    finally:
        devtools.close()
        stop_group(app)


def replay(checkout: Checkout, document_path: Path, work: Path, inputs: dict[str, str] | None = None,
           timeout: float = 300) -> dict[str, Any]:
    """`browserpilot run FILE --headless --json [--input K=V]` on a fresh data folder: exit status, the run
    record, seconds."""
    data = work / "ours-run-data"
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    began = time.monotonic()
    try:
        command = [str(checkout.browserpilot), "--data-dir", str(data), "run", str(document_path), "--headless",
                   "--json", *(f"--input={k}={v}" for k, v in (inputs or {}).items())]
        done = subprocess.run(command, cwd=work, env=checkout.env(QT_QPA_PLATFORM="offscreen"), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"browserpilot run did not end within {timeout:.0f} s", "seconds": timeout,
                "trace": []}
    seconds = time.monotonic() - began
    (work / "ours-run.stderr").write_text(done.stderr)
    (work / "ours-run.stdout").write_text(done.stdout)
    try:
        record_ = json.loads(done.stdout)
    except json.JSONDecodeError:
        record_ = {}
    run = record_.get("run", record_) if isinstance(record_, dict) else {}
    trace = run.get("trace") or []
    error = run.get("error") or next((e.get("error") for e in trace if e.get("error")), None)
    if done.returncode != 0 and not error:
        error = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return {"ok": done.returncode == 0, "error": error, "seconds": seconds, "trace": trace,
            "healed": sum(1 for e in trace if e.get("healed"))}

