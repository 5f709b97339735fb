"""Playwright codegen's side of the real-application bench: the real `playwright codegen --target python`
records the person's real X input, and the script it wrote is replayed by Playwright for Python.

Nothing of codegen is replaced: its own recorder, locator generator and inspector window run as a user runs
them. Two things only are set from outside, through its environment: the browser is Debian's chromium
(`PWTEST_CLI_EXECUTABLE_PATH`, the variable codegen itself reads for its executable; `playwright install`
cannot download here), started through a small wrapper that adds `--remote-debugging-port` to the recorded
window (not to the inspector), so that the person's eyes (tests/support/xinput.py) can read the page.

The replay runs the generated script unchanged but for three lines: headless on /usr/bin/chromium with the
bench's flags, a default timeout of TIMEOUT_MS per action (codegen's is 30 s: the outcome is the same,
slower), and the servers' addresses (bench/realapps.py `rebase`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from bench.realapps.common import free_port, stop_group
from bench.realapps.person import Step, perform
from tests.support.xinput import DevTools, Eyes, Screen, wait_until

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 10_000
BROWSER_WIDTH = 1600  # the recorded window; codegen's inspector beside it
WRAPPER = """#!/bin/sh
# The recorded window gets a DevTools port for the bench's eyes; codegen's inspector (an --app window) does not.
case "$*" in *--app=*) exec {chromium} "$@";; esac
exec {chromium} --remote-debugging-port={port} --remote-allow-origins=* "$@"
"""


def record(screen: Screen, start_url: str, origin: str, steps: list[Step], work: Path,
           say: Callable[[str], None]) -> str:
    """The person records the flow in codegen's browser; the Python script codegen wrote."""
    port = free_port("127.0.0.1")
    wrapper = work / "chromium-for-codegen"
    wrapper.write_text(WRAPPER.format(chromium=CHROMIUM, port=port))
    wrapper.chmod(0o755)
    output = work / "codegen.py"
    with (work / "codegen.log").open("wb") as log:
        codegen = subprocess.Popen([sys.executable, "-m", "playwright", "codegen", "--target", "python", "-o",
                                    str(output), start_url], cwd=work, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=log, start_new_session=True,
                                   env={**os.environ, **screen.env(), "PWTEST_CLI_EXECUTABLE_PATH": str(wrapper)})
    devtools = DevTools(port)
    try:
        eyes = Eyes(devtools, origin)
        wait_until(eyes.page, 60, "codegen's browser page")
        inspector = wait_until(lambda: screen.windows("Playwright Inspector"), 30, "codegen's inspector")
        screen.place(inspector[0], BROWSER_WIDTH + 10, 0, screen.width - BROWSER_WIDTH - 10, screen.height)
        browser = wait_until(lambda: [w for w in screen.windows(".") if w not in inspector
                                      and w not in screen.windows("Playwright Inspector")], 30, "the browser window")
        screen.place(browser[-1], 0, 0, BROWSER_WIDTH, screen.height)
        screen.run("xdotool", "windowactivate", str(browser[-1]), check=False)
        perform(screen, eyes, steps, work, "codegen", say)
        # codegen writes its file a moment after each action: wait until it stopped changing
        last = ""
        for _ in range(20):
            time.sleep(0.5)
            now = output.read_text() if output.exists() else ""
            if now and now == last:
                break
            last = now
        if not last:
            raise RuntimeError(f"codegen wrote nothing: {(work / 'codegen.log').read_text()[-1500:]}")
        return last
    finally:
        devtools.close()
        stop_group(codegen)


def for_replay(script: str) -> str:
    """The generated script, headless on Debian's chromium with TIMEOUT_MS per action."""
    launched = re.sub(r"\.launch\(headless=False\)",
                      f".launch(headless=True, executable_path={CHROMIUM!r}, args={FLAGS!r})", script)
    return re.sub(r"^(\s*)(context = browser\.new_context\([^\n]*\))$",
                  rf"\1\2\n\1context.set_default_timeout({TIMEOUT_MS})", launched, flags=re.M)


def replay(script: str, work: Path, timeout: float = 300) -> dict[str, Any]:
    path = work / "codegen_replay.py"
    path.write_text(for_replay(script))
    began = time.monotonic()
    try:
        done = subprocess.run([sys.executable, str(path)], cwd=work, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env={k: v for k, v in os.environ.items() if k != "DISPLAY"})
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"the script did not end within {timeout:.0f} s", "seconds": timeout}
    seconds = time.monotonic() - began
    (work / "codegen_replay.stderr").write_text(done.stderr)
    error = ""
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        error = next((line for line in lines if re.match(r"^\w+(\.\w+)*(Error|Exception)\b", line)), lines[-1] if
                     lines else f"exit {done.returncode}")
        call_log = [line.strip() for line in lines if line.strip().startswith(("- waiting for", "- locator"))]
        error += (" | " + "; ".join(call_log[:2])) if call_log else ""
    return {"ok": done.returncode == 0, "error": error, "seconds": seconds}

