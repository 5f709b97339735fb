"""Chrome Recorder's side of the real-application bench: the Recorder's own recording client records the
person's real X input in Debian's chromium (bench/realapps/chrome_recorder.mjs says how faithfully), and the
recording is replayed by @puppeteer/replay on puppeteer-core (bench/heal.mjs, the heal bench's replayer: the
stock PuppeteerRunnerExtension, TIMEOUT_MS per step).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from bench.realapps.codegen import CHROMIUM, FLAGS
from bench.realapps.common import free_port, stop_group
from bench.realapps.person import Step, perform
from tests.support.xinput import DevTools, Eyes, Screen, wait_until

BENCH = Path(__file__).resolve().parent.parent
TIMEOUT_MS = 10_000
WIDTH = 1600


def ensure_node_packages() -> None:
    wanted = ("@puppeteer/replay", "puppeteer-core", "chrome-devtools-frontend", "esbuild")
    if all((BENCH / "node_modules" / name).exists() for name in wanted):
        return
    subprocess.run(["npm", "install", "--no-package-lock", "--no-audit", "--no-fund"], cwd=BENCH, check=True,
                   env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"})


def record(screen: Screen, start_url: str, origin: str, steps: list[Step], work: Path,
           say: Callable[[str], None]) -> dict[str, Any]:
    ensure_node_packages()
    port = free_port("127.0.0.1")
    out = work / "recording.json"
    spec = work / "recorder-spec.json"
    spec.write_text(json.dumps({"chromium": CHROMIUM, "args": FLAGS, "url": start_url, "port": port, "out": str(out),
                                "width": WIDTH, "height": screen.height}))
    with (work / "recorder.log").open("wb") as log:
        node = subprocess.Popen(["node", str(Path(__file__).with_name("chrome_recorder.mjs")), str(spec)], cwd=work,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True,
                                env={**os.environ, **screen.env(), "PUPPETEER_SKIP_DOWNLOAD": "1"})
    devtools = DevTools(port)
    try:
        assert node.stdout is not None and node.stdin is not None
        line = node.stdout.readline().decode().strip()
        if line != "recording":
            raise RuntimeError(f"the recorder did not start: {line!r} {(work / 'recorder.log').read_text()[-1500:]}")
        eyes = Eyes(devtools, origin)
        wait_until(eyes.page, 30, "the recorded page")
        perform(screen, eyes, steps, work, "recorder", say)
        time.sleep(1.0)  # the recorder's last events reach the session
        node.stdin.write(b"stop\n")
        node.stdin.flush()
        node.stdin.close()
        node.wait(timeout=60)
        if not out.exists():
            raise RuntimeError(f"the recorder wrote nothing: {(work / 'recorder.log').read_text()[-1500:]}")
        return json.loads(out.read_text())  # type: ignore[no-any-return]
    finally:
        devtools.close()
        stop_group(node)


def replay(recording: dict[str, Any], work: Path, timeout: float = 300) -> dict[str, Any]:
    ensure_node_packages()
    spec = work / "replay-spec.json"
    recording = {**recording, "timeout": TIMEOUT_MS}
    spec.write_text(json.dumps({"chromium": CHROMIUM, "args": FLAGS, "timeoutMs": TIMEOUT_MS, "recording": recording}))
    began = time.monotonic()
    try:
        done = subprocess.run(["node", str(BENCH / "heal.mjs"), str(spec)], capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"},
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"the replay did not end within {timeout:.0f} s", "seconds": timeout}
    seconds = time.monotonic() - began
    try:
        out = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        out = {"ok": False, "error": f"node exited {done.returncode}: {done.stderr.strip()[-300:]}"}
    return {"ok": bool(out.get("ok")), "error": out.get("error") or "", "seconds": seconds}
