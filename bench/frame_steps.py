"""Steps in another site's frame: what an action there costs, against the same form in the page itself, and
against Playwright for Python doing the same in the same frame.

Two local servers: the shop on 127.0.0.1 serves `/inline` (a card form in the page) and `/framed` (the same
form in an `<iframe>` served by 127.0.0.2: another site, a renderer of its own); the payment site on 127.0.0.2
serves the form (`/card`) and records what `/pay` receives. The form's fields sit at fixed places, so both
flows below can be given as points and run on any version of the app.

The points flow, 8 timed steps on each page, by points (so that it runs on any version of the app; ours only):

  1-2  click Card number, type 16 digits ......... page_click {x, y}, page_type {text}
  3-4  click Name on card, type a name ........... page_click {x, y}, page_type {text}
  5-6  click Code, type a code ................... page_click {x, y}, page_type {text}
  7    tick Save card ........................... page_click {x, y}
  8    submit with Enter in the Code field ........ page_click {x, y} + page_key enter (one step: the form posts)

The locators flow (`--locators`; this checkout only: before it no locator reached into such a frame), 6 timed
steps, ours | Playwright (its own way into a frame, `frame_locator`):

  1-3  type the card, the name, the code ........ page_type {locator} | press_sequentially
       (`label=Card number`, `role=textbox[name="Name on card"]`, and in the frame the chain
       `iframe[name="pay"] >> label=Code` | `frame_locator('iframe[name="pay"]').get_by_label("Code")`)
  4    tick Save card ........................... page_click role=checkbox | get_by_role("checkbox").click
  5    Enter in the Code field .................. page_key enter | press("Enter")
  6    the answer shows (in the frame) ........... page_wait #paid | locator("#paid").wait_for()

Each repetition is verified by what the payment site received (every field, the tick). The headline is the
median time per step in the frame and in the page for each flow, and the ratios.

Before and after: `--against DIR` measures another checkout's code (DIR/app, DIR/resources; for example
`git archive main | tar -x -C DIR`, then compile its translations) in a process of its own with this
checkout's Python, side by side, and prints both. Before this change, every action whose input the frame
handled waited for the input fence's limit (1 s).

Run: `.venv/bin/python bench/frame_steps.py [--reps N] [--locators] [--against DIR] [--json]` (N defaults to 5).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parent.parent
CODE_ROOT = Path(os.environ.get("FRAME_STEPS_CODE_ROOT", ROOT))
if str(CODE_ROOT) not in sys.path:
    sys.path.insert(0, str(CODE_ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic")
FRAME = (20, 100)  # where the frame's content starts in the page (CSS px; the iframe has no border)
# The form's fields: fixed places in its own document (CSS px), so a point is the same on every version.
FIELDS = {"card": (40, 20), "holder": (40, 60), "code": (40, 100), "save": (12, 140)}
FORM = """<!doctype html><title>Card</title><body style="margin:0;font:16px sans-serif">
<form method=post action="{action}" style="margin:0">
<input name=card aria-label="Card number" style="position:absolute;left:30px;top:10px;width:200px;height:20px">
<input name=holder aria-label="Name on card" style="position:absolute;left:30px;top:50px;width:200px;height:20px">
<input name=code aria-label="Code" style="position:absolute;left:30px;top:90px;width:200px;height:20px">
<input type=checkbox name=save value=yes aria-label="Save card" style="position:absolute;left:4px;top:132px;
  width:16px;height:16px;margin:0">
<button style="position:absolute;left:30px;top:170px">Pay now</button>
</form></body>"""
PAGE = """<!doctype html><title>{title}</title><body style="margin:0;font:16px sans-serif">
<h1 style="margin:8px;font-size:20px">Checkout</h1>
<div style="position:absolute;left:{x}px;top:{y}px;width:400px;height:220px">{content}</div></body>"""
ANSWER = "<!doctype html><title>Paid</title><p id=paid>Paid {n}</p>"
OP_TIMEOUT_S = 60.0


class BenchError(RuntimeError):
    pass


# -- the servers -----------------------------------------------------------------------------------------------
class Book:
    """What /pay received, in order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.orders: list[dict[str, list[str]]] = []

    def wait(self, count: int, timeout: float = 20.0) -> dict[str, list[str]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.orders) >= count:
                    return self.orders[count - 1]
            time.sleep(0.01)
        raise BenchError(f"the payment site did not receive order {count}")


def serve(host: str, routes: dict[str, Callable[[bytes], str]]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            route = routes.get(self.path.split("?")[0])
            payload = (route(body) if route else "not found").encode()
            self.send_response(200 if route else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_sites(book: Book) -> tuple[ThreadingHTTPServer, ThreadingHTTPServer, str]:
    def pay(body: bytes) -> str:
        with book.lock:
            book.orders.append(parse_qs(body.decode()))
            return ANSWER.format(n=len(book.orders))

    other = serve("127.0.0.2", {"/card": lambda b: FORM.format(action="/pay"), "/pay": pay})
    frame_src = f"http://127.0.0.2:{other.server_address[1]}/card"
    framed = f'<iframe name=pay title=Payment src="{frame_src}" style="border:0;width:400px;height:220px"></iframe>'
    shop = serve("127.0.0.1", {
        "/framed": lambda b: PAGE.format(title="Framed", x=FRAME[0], y=FRAME[1], content=framed),
        "/inline": lambda b: PAGE.format(title="Inline", x=FRAME[0], y=FRAME[1],
                                         content=FORM.format(action=f"http://127.0.0.2:{other.server_address[1]}/pay")),
    })
    return shop, other, f"http://127.0.0.1:{shop.server_address[1]}"


def point(field: str) -> tuple[int, int]:
    x, y = FIELDS[field]
    return FRAME[0] + x, FRAME[1] + y


def values(rep: int, where: str) -> dict[str, str]:
    return {"card": f"4{rep:03d}000000000{len(where):03d}", "holder": f"Ada {where} {rep}", "code": f"C-{rep}"}


def check(order: dict[str, list[str]], expected: dict[str, str], where: str) -> None:
    wanted = {k: [v] for k, v in expected.items()} | {"save": ["yes"]}
    if order != wanted:
        raise BenchError(f"{where}: the payment site received {order}, not {wanted}")


# -- ours --------------------------------------------------------------------------------------------------------
async def ours_flow(app: Any, tab: str, base: str, where: str, values: dict[str, str], locators: bool) -> list[float]:
    times: list[float] = []

    async def op(name: str, params: dict[str, Any], timed: bool = True) -> dict[str, Any]:
        started = time.perf_counter()
        result = await app.registry.call(app.ctx, name, {"tabId": tab, **params})
        if timed:
            times.append((time.perf_counter() - started) * 1000)
        if not result.get("ok"):
            raise BenchError(f"ours on {where}, {name}: {result.get('error')}")
        return result

    await op("page_navigate", {"url": f"{base}/{where}", "waitUntil": "load"}, timed=False)
    if locators:
        await op("page_wait", {"locator": {"selector": "label=Card number"}, "state": "appear"}, timed=False)
        await op("page_type", {"locator": {"selector": "label=Card number"}, "text": values["card"]})
        await op("page_type", {"locator": {"selector": 'role=textbox[name="Name on card"]'}, "text": values["holder"]})
        chain = 'iframe[name="pay"] >> label=Code' if where == "framed" else "label=Code"
        await op("page_type", {"locator": {"selector": chain}, "text": values["code"]})
        await op("page_click", {"locator": {"selector": "role=checkbox"}})
        await op("page_key", {"shortcut": "enter"})
        await op("page_wait", {"locator": {"selector": "#paid"}, "state": "appear"})
        return times
    for field in ("card", "holder", "code"):
        x, y = point(field)
        await op("page_click", {"x": x, "y": y})
        await op("page_type", {"text": values[field]})
    x, y = point("save")
    await op("page_click", {"x": x, "y": y})
    x, y = point("code")
    started = time.perf_counter()
    await op("page_click", {"x": x, "y": y}, timed=False)
    await op("page_key", {"shortcut": "enter"}, timed=False)
    times.append((time.perf_counter() - started) * 1000)
    return times


async def measure_ours(reps: int, base: str, book: Book, locators: bool) -> dict[str, list[list[float]]]:
    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    data = Path(tempfile.mkdtemp(prefix="bench-frames-data-"))
    app = BrowserPilotApp(DataDir(data), headless=True)
    app.start([])
    flows: dict[str, list[list[float]]] = {}
    try:
        opened = await app.registry.call(app.ctx, "tab_open", {"url": "about:blank"})
        tab = opened["tabId"]
        kinds = [("points", False)] + ([("locators", True)] if locators else [])
        for rep in range(-1, reps):
            for where in (("framed", "inline") if rep % 2 else ("inline", "framed")):
                for kind, by_locator in kinds:
                    expected = values(rep, where)
                    count = len(book.orders) + 1
                    times = await asyncio.wait_for(ours_flow(app, tab, base, where, expected, by_locator),
                                                   OP_TIMEOUT_S)
                    check(book.wait(count), expected, f"ours {kind} on {where}")
                    if rep >= 0:
                        flows.setdefault(f"ours {kind} {where}", []).append(times)
    finally:
        app.shutdown()
        await asyncio.sleep(0.3)
        shutil.rmtree(data, ignore_errors=True)
    return flows


# -- Playwright --------------------------------------------------------------------------------------------------
def measure_playwright(reps: int, base: str, book: Book) -> dict[str, list[list[float]]]:
    from playwright.sync_api import sync_playwright

    flows: dict[str, list[list[float]]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_FLAGS))
        page = browser.new_page()
        page.set_default_timeout(OP_TIMEOUT_S * 1000)
        try:
            for rep in range(-1, reps):
                for where in (("framed", "inline") if rep % 2 else ("inline", "framed")):
                    expected = values(rep, where)
                    count = len(book.orders) + 1
                    page.goto(f"{base}/{where}", wait_until="load")
                    form: Any = page.frame_locator('iframe[name="pay"]') if where == "framed" else page
                    times: list[float] = []

                    def timed(action: Callable[[], object]) -> None:
                        started = time.perf_counter()
                        action()
                        times.append((time.perf_counter() - started) * 1000)

                    timed(lambda: form.get_by_label("Card number").press_sequentially(expected["card"]))
                    timed(lambda: form.get_by_role("textbox", name="Name on card").press_sequentially(expected["holder"]))
                    timed(lambda: form.get_by_label("Code").press_sequentially(expected["code"]))
                    timed(lambda: form.get_by_role("checkbox").click())
                    timed(lambda: form.get_by_label("Code").press("Enter"))
                    timed(lambda: form.locator("#paid").wait_for())
                    check(book.wait(count), expected, f"playwright on {where}")
                    if rep >= 0:
                        flows.setdefault(f"playwright locators {where}", []).append(times)
        finally:
            browser.close()
    return flows


# -- running and reporting -------------------------------------------------------------------------------------------
def measure(reps: int, locators: bool, playwright: bool) -> dict[str, list[list[float]]]:
    from app.startup.qt_asyncio import run_in_qt

    book = Book()
    shop, other, base = start_sites(book)
    try:
        flows: dict[str, list[list[float]]] = {}
        if playwright and locators:
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                flows.update(pool.submit(measure_playwright, reps, base, book).result())
        flows.update(run_in_qt(lambda: measure_ours(reps, base, book, locators)))
        return flows
    finally:
        for server in (shop, other):
            server.shutdown()
            server.server_close()


def report(sides: dict[str, dict[str, list[list[float]]]]) -> None:
    print(f"{'side':<8} {'flow':<26} {'median ms/step':>15} {'median ms/flow':>15}  (each step's median)")
    for side, flows in sides.items():
        for name, runs in sorted(flows.items()):
            steps = [t for run in runs for t in run]
            print(f"{side:<8} {name:<26} {statistics.median(steps):>15.1f} {statistics.median(map(sum, runs)):>15.1f}"
                  f"  {' '.join(f'{statistics.median(col):.0f}' for col in zip(*runs))}")
    for side, flows in sides.items():
        for kind in ("ours points", "ours locators", "playwright locators"):
            framed, inline = flows.get(f"{kind} framed"), flows.get(f"{kind} inline")
            if framed and inline:
                f = statistics.median(t for run in framed for t in run)
                i = statistics.median(t for run in inline for t in run)
                print(f"{side}: {kind}: in another site's frame {f:.1f} ms/step, in the page {i:.1f} ms/step: "
                      f"{f / i:.2f}x")
    after = sides.get("after", {})
    for where in ("framed", "inline"):
        ours, theirs = after.get(f"ours locators {where}"), after.get(f"playwright locators {where}")
        if ours and theirs:
            o = statistics.median(map(sum, ours))
            p = statistics.median(map(sum, theirs))
            print(f"after, locators flow {where}: ours {o:.0f} ms vs Playwright {p:.0f} ms per flow: {o / p:.2f}x")
    ours = after.get("ours points framed")
    before = sides.get("before", {}).get("ours points framed")
    if before and ours:
        b = statistics.median(t for run in before for t in run)
        o = statistics.median(t for run in ours for t in run)
        print(f"before -> after, ours in the frame: {b:.1f} -> {o:.1f} ms/step ({b / o:.1f}x faster)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--locators", action="store_true", help="also the flow by locators (this checkout)")
    parser.add_argument("--against", type=Path, help="another checkout's code, measured in a process of its own")
    parser.add_argument("--no-playwright", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sides: dict[str, dict[str, list[list[float]]]] = {}
    try:
        if args.against:
            print(f"measuring {args.against} ...", file=sys.stderr, flush=True)
            env = {**os.environ, "FRAME_STEPS_CODE_ROOT": str(args.against.resolve())}
            done = subprocess.run([sys.executable, __file__, "--reps", str(args.reps), "--json", "--no-playwright"],
                                  env=env, capture_output=True, text=True, timeout=3600)
            if done.returncode != 0:
                raise BenchError(f"the other checkout failed: {done.stderr[-2000:]}")
            sides["before"] = json.loads(done.stdout)["after"]
        print(f"measuring {CODE_ROOT} ...", file=sys.stderr, flush=True)
        sides["after"] = measure(args.reps, args.locators, not args.no_playwright)
    except BenchError as exc:
        print(f"frame_steps: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(sides))
    else:
        report(sides)
    return 0


if __name__ == "__main__":
    sys.exit(main())
