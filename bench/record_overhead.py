"""What recording costs per input event: the same trusted input with the recorder on and off (the
target: under 2 ms per event).

The app runs in-process (offscreen QApplication, qasync loop, `BrowserPilotApp(DataDir(tmp), headless=True)`),
one tab shows a local form (a stdlib HTTP server on 127.0.0.1, port 0) with a text field, a button and a
checkbox. One batch is the same trusted input every time, sent with the tab's `InputDriver` (fresh Qt events
to the render widget, as in production; not through an operation, which would pause the recording): a click
into the field, 40 characters typed, a click on the button, a click on the checkbox, Tab, Enter — 45 input
events, ~50 DOM events each with its locator work when recording. A batch is timed from the first event sent
until `InputDriver.fence()` says the page has handled them all and, when recording, until the recorder's
Python side has taken the batch's last step (so the console messages and the merging are counted).

Batches alternate off / on (the order flips every repetition); one warm-up pair is not counted. Printed: the
median batch time off and on, and the per-event overhead (on - off) / events, with the median of the pairwise
differences; also the time Python spends per recorder message (`TabRecorder._take`).

Run: `.venv/bin/python bench/record_overhead.py [--reps N]` (N defaults to 20). Exit status 0 when measured.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Sequence

PAGE = b"""<!doctype html><title>Bench</title><body style="margin:0;font:16px sans-serif">
<label>Full name <input name=fullname style="position:absolute;left:20px;top:20px;width:300px;height:24px"></label>
<button style="position:absolute;left:20px;top:70px;width:120px;height:30px" onclick="this.dataset.n=(+this.dataset.n||0)+1">Add one</button>
<label style="position:absolute;left:20px;top:120px"><input type=checkbox name=agree> I agree</label>
<form onsubmit="return false"></form></body>"""
TEXT = "The quick brown fox jumps over a lazy do"  # 40 characters
EVENTS = 1 + len(TEXT) + 1 + 1 + 2  # field click, characters, button click, checkbox click, Tab, Enter


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


async def measure(reps: int) -> int:
    from app.browser.input_driver import InputDriver
    from app.browser.js import run_js
    from app.browser.recorder import TabRecorder
    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    data_dir = Path(tempfile.mkdtemp(prefix="bench-record-"))
    shell = BrowserPilotApp(DataDir(data_dir), headless=True)
    shell.start([])
    take_ms: list[float] = []
    enters: list[float] = []  # when the recorder took each batch's closing Enter
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        tab = shell.service.new_tab("env-default", url, control="shared").view
        while tab.loading:
            await asyncio.sleep(0.02)
        driver = InputDriver(tab)
        await driver.ready()
        page = tab.page()

        async def centre(selector: str) -> tuple[float, float]:
            x, y = await run_js(page, f"(() => {{ const r = document.querySelector('{selector}')"
                                      ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            return float(x), float(y)

        field, button, box = await centre("input[name=fullname]"), await centre("button"), await centre("input[type=checkbox]")

        async def batch(recorder: TabRecorder | None) -> float:
            await run_js(page, "(() => { document.querySelector('input[name=fullname]').value = ''; return 1; })()")
            enters_before = len(enters)
            started = time.perf_counter()
            await driver.click(*field)
            await driver.type_text(TEXT)
            await driver.click(*button)
            await driver.click(*box)
            await driver.key("tab")
            await driver.key("enter")
            await driver.fence()
            if recorder is not None:
                deadline = time.perf_counter() + 10
                # The batch's last input, Enter, reported by the page and taken by Python: everything before it
                # has been (a field's typing is one message per burst, sent before the next non-typing key).
                while len(enters) == enters_before and time.perf_counter() < deadline:
                    await asyncio.sleep(0)
                if len(enters) == enters_before:
                    raise RuntimeError("the recorder never reported the batch's Enter")
            return (time.perf_counter() - started) * 1000

        def start() -> TabRecorder:
            recorder = TabRecorder(tab)
            original = recorder._take

            def timed(raw: dict) -> None:  # type: ignore[type-arg]
                t = time.perf_counter()
                original(raw)
                take_ms.append((time.perf_counter() - t) * 1000)
                if raw.get("kind") == "press" and raw.get("shortcut") == "enter":
                    enters.append(t)

            recorder._take = timed  # type: ignore[method-assign]
            return recorder

        off: list[float] = []
        on: list[float] = []
        for rep in range(-1, reps):
            for mode in (("off", "on") if rep % 2 else ("on", "off")):
                if mode == "on":
                    recorder = start()
                    await asyncio.sleep(0.05)  # the script has run in the shown document
                    elapsed = await batch(recorder)
                    recorder.stop()
                    (on if rep >= 0 else []).append(elapsed)
                else:
                    (off if rep >= 0 else []).append(await batch(None))
        pairs = [b - a for a, b in zip(off, on)]
        print(f"record_overhead: {EVENTS} trusted input events per batch, {reps} batches each way")
        print(f"  recording off: median {statistics.median(off):.1f} ms per batch "
              f"({statistics.median(off) / EVENTS:.2f} ms per event)")
        print(f"  recording on:  median {statistics.median(on):.1f} ms per batch "
              f"({statistics.median(on) / EVENTS:.2f} ms per event)")
        print(f"  overhead per event: {(statistics.median(on) - statistics.median(off)) / EVENTS:.3f} ms "
              f"(median of pairwise differences: {statistics.median(pairs) / EVENTS:.3f} ms; target < 2 ms)")
        if take_ms:
            print(f"  Python per recorder message: median {statistics.median(take_ms):.3f} ms, "
                  f"max {max(take_ms):.3f} ms ({len(take_ms)} messages)")
    finally:
        shell.shutdown()
        await asyncio.sleep(0.3)
        server.shutdown()
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    from app.startup.qt_asyncio import run_in_qt  # Qt and asyncio as the headless app starts them

    return run_in_qt(lambda: measure(args.reps))


if __name__ == "__main__":
    sys.exit(main())
