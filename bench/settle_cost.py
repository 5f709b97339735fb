"""What settling costs at the end of a run (app/browser/inflight.py): the time `page_settle` takes right after the
last action, when that action starts nothing and when it saves.

In the app (headless, in this process), on one tab and a local page, each repetition: load the page, type a
name, then the last action, then `page_settle` (timed, as a run's end calls it):

- `typing`: the last action types into a field (no click): nothing to wait for;
- `click, nothing`: a click on a button whose handler only changes the page: the quiet window (`QUIET`) is the
  cost;
- `click, fetch`: a click that POSTs (the server answers in 100 ms): the request, then the quiet window;
- `click, debounced`: a click that POSTs 250 ms later (setTimeout): the timer, the request, the quiet window.

Every save is checked on the server (one per repetition). Prints the medians and the spread.

Run: `.venv/bin/python bench/settle_cost.py [--reps N]` (N defaults to 15).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGE = b"""<!doctype html><title>Settle</title><input id=who>
<button id=nothing onclick="this.textContent = 'pressed'">Nothing</button>
<button id=fetch onclick="fetch('/save', {method: 'POST', body: 'x'})">Save</button>
<button id=debounced onclick="setTimeout(() => fetch('/save', {method: 'POST', body: 'x'}), 250)">Later</button>"""
SCENARIOS = (("typing", None), ("click, nothing", "#nothing"), ("click, fetch", "#fetch"),
             ("click, debounced", "#debounced"))


class Server:
    def __init__(self) -> None:
        self.saves = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(PAGE)

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                threading.Event().wait(0.1)
                with lock:
                    server.saves += 1
                self._answer(b"ok")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  (a page moved on)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


async def measure(reps: int, server: Server) -> dict[str, list[float]]:
    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    folder = Path(tempfile.mkdtemp(prefix="bench-settle-"))
    shell = BrowserPilotApp(DataDir(folder), headless=True)
    shell.start([])
    times: dict[str, list[float]] = {name: [] for name, _ in SCENARIOS}
    try:
        async def op(name: str, params: dict[str, Any]) -> dict[str, Any]:
            result = await shell.registry.call(shell.ctx, name, params)
            if not result.get("ok"):
                raise SystemExit(f"settle_cost: {name} failed: {result.get('error')}")
            return result

        tab = (await op("tab_open", {"url": "about:blank"}))["tabId"]
        for rep in range(-1, reps):  # one warm-up
            for name, button in SCENARIOS:
                await op("page_navigate", {"tabId": tab, "url": server.url})
                await op("page_type", {"tabId": tab, "locator": {"selector": "#who"}, "text": "Ada"})
                if button is not None:
                    await op("page_click", {"tabId": tab, "locator": {"selector": button}})
                began = time.perf_counter()
                settled = await op("page_settle", {"tabId": tab})
                elapsed = (time.perf_counter() - began) * 1000
                if not settled["settled"]:
                    raise SystemExit(f"settle_cost: {name}: still in flight: {settled['pending']}")
                if rep >= 0:
                    times[name].append(elapsed)
    finally:
        shell.shutdown()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    from app.startup.qt_asyncio import run_in_qt

    server = Server()
    times = run_in_qt(lambda: measure(args.reps, server))
    expected = 2 * (args.reps + 1)  # fetch and debounced, warm-up included
    if server.saves != expected:
        print(f"settle_cost: the server stored {server.saves} saves, not {expected}", file=sys.stderr)
        return 1
    print(f"page_settle right after the last action, {args.reps} repetitions, ms (every save checked: {expected})")
    print(f"{'last action':<18} {'median':>8} {'min':>8} {'max':>8}")
    for name, values in times.items():
        print(f"{name:<18} {statistics.median(values):>8.1f} {min(values):>8.1f} {max(values):>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
