"""Time per step of one 20-step form flow: BrowserPilot's operations in-process versus Playwright for Python.

Side by side in one run, on the same local form (a stdlib HTTP server on 127.0.0.1, port 0, in a thread):

- ours: the app started in-process as the headless app starts (app/startup/qt_asyncio.py: offscreen, qasync loop,
  `BrowserPilotApp(DataDir(tmp), headless=True).start([])`), one tab from `tab_open`; each step is one
  `await app.registry.call(app.ctx, name, params)`, timed with `time.perf_counter` around that call.
- Playwright: the sync API in a worker thread, one Debian `/usr/bin/chromium` launched once (headless, the
  flags of shared/BENCHMARKS.md), one page; each step is the Playwright call(s) listed below, timed the
  same way.

App start and browser launch are not part of the per-step times. One warm-up repetition per flow is not
counted; then the flows alternate (the order flips every repetition, so drift on these shared machines hits
both sides alike). The 20 steps, ours | Playwright:

   1 navigate   load /form ................................ page_navigate | page.goto(wait_until="load")
   2 fill/type  First name (text input) ................... page_paste    | fill
   3 fill/type  Last name (text input) .................... page_paste    | fill
   4 fill/type  Email (email input) ....................... page_paste    | fill
   5 fill/type  City (text input) ......................... page_paste    | fill
   6 fill/type  Notes (textarea, two lines) ............... page_paste    | fill
   7 fill/type  Nickname (text input) ..................... page_paste    | fill
   8 select     Size = an option by its text .............. page_select   | select_option(label=)
   9 click      the Gift wrap checkbox .................... page_click    | click
  10 drag       the Quantity range (0-100) to about 80 .... page_drag dx  | mouse.move, down, move x12, up
  11 key        ArrowRight on the focused range (+1) ...... page_key      | keyboard.press
  12 upload     a small temp file into the file input ..... page_upload   | set_input_files
  13 read       every form value, by script ............... page_script   | evaluate
  14 submit     "Place order", until #done is shown ....... page_click until | click + wait_for_selector
  15 read       the result text "Order #N received" ....... page_query    | inner_text
  16 click      the "New order" link ...................... page_click    | click
  17 wait       the form's button is visible .............. page_wait     | wait_for_selector
  18 read       "Orders so far: N" on the new form, script  page_script   | evaluate
  19 fill/type  First name again .......................... page_paste    | fill
  20 read       First name's value ........................ page_query    | input_value

Fill parity: Playwright's `fill` sets a field's value in one go (one `insertText`), so the main comparison
uses our `page_paste` (click into the field, then one input-method commit of the whole text). The extra
"key by key" flows run the same 20 steps with our `page_type` versus Playwright's `press_sequentially` for
steps 2-7 and 19 (`--no-keys` skips them). The slider drag sends the same events on both sides: a move to
the centre of the range, a press, 12 moves, a release. Playwright's `click` waits for a navigation it
starts to commit (steps 14 and 16); ours returns once the input is delivered, so for step 16 the navigation
time lands in step 17 on our side: compare those two together.

Verification, for every repetition of every flow: the page's own values (step 13: each field, the checkbox,
the range moved by the drag to 80 +/- 4 and then by exactly +1 by the key, the chosen file's name), the
order number shown on the result page (step 15) and on the next form (step 18), the value read back in
step 20, and the server's record of that order: every field value and the uploaded file's name and bytes.
A repetition that fails verification aborts the run with an error (exit status 1).

Headline: the median time per step (over all 20 x N step samples) for each side and the ratio ours /
Playwright; target at most 0.8x. Also per step, per step kind, and per flow (sum of the 20 steps).

Run: `.venv/bin/python bench/step_latency.py [--reps N] [--no-keys] [--json]` (N defaults to 10).
Exit status: 0 when every repetition was measured and verified (whether or not the target is met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import hashlib
import json
import os
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from email.parser import BytesParser
from email.policy import default as email_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from app.wiring.shell import BrowserPilotApp

CHROMIUM = "/usr/bin/chromium"
# shared/BENCHMARKS.md; Playwright adds --headless itself (headless=True).
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
DEFAULT_REPS = 10
TARGET_RATIO = 0.8
STEP_COUNT = 20
SLIDER_TARGET = 80          # the value the drag aims at
SLIDER_TOLERANCE = 4        # the drag's value must be within this of SLIDER_TARGET
SLIDER_WIDTH = 300          # CSS px, fixed by the page
# The drag presses the centre of the range (value 50) and moves by this much: 30% of the track, which is the
# range's width less its thumb (about 16 px in Chromium); the tolerance absorbs the thumb's exact size.
SLIDER_DX = round((SLIDER_TARGET - 50) / 100 * (SLIDER_WIDTH - 16))
DRAG_MOVES = 12             # our page_drag's default number of moves; Playwright gets the same
SIZES = (("Medium", "m"), ("Large", "l"), ("Small", "s"))
OP_TIMEOUT_S = 60.0

Side = Literal["ours", "playwright"]
Variant = Literal["fill", "keys"]
T = TypeVar("T")


class BenchError(RuntimeError):
    """A step failed or a repetition did not do the work it claimed."""


# -- the steps -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    number: int
    kind: str
    what: str
    ours: str
    playwright: str


STEPS: tuple[Step, ...] = (
    Step(1, "navigate", "load the form", "page_navigate", "goto"),
    Step(2, "fill/type", "First name", "page_paste", "fill"),
    Step(3, "fill/type", "Last name", "page_paste", "fill"),
    Step(4, "fill/type", "Email", "page_paste", "fill"),
    Step(5, "fill/type", "City", "page_paste", "fill"),
    Step(6, "fill/type", "Notes (textarea)", "page_paste", "fill"),
    Step(7, "fill/type", "Nickname", "page_paste", "fill"),
    Step(8, "select", "Size", "page_select", "select_option"),
    Step(9, "check/click", "Gift wrap checkbox", "page_click", "click"),
    Step(10, "slide/drag", "Quantity range to ~80", "page_drag", "mouse down/move/up"),
    Step(11, "key", "ArrowRight on the range", "page_key", "keyboard.press"),
    Step(12, "upload", "Attachment file", "page_upload", "set_input_files"),
    Step(13, "read", "all form values (script)", "page_script", "evaluate"),
    Step(14, "submit", "Place order until #done", "page_click+until", "click+wait_for_selector"),
    Step(15, "read", "result text", "page_query", "inner_text"),
    Step(16, "check/click", "New order link", "page_click", "click"),
    Step(17, "wait", "form button visible", "page_wait", "wait_for_selector"),
    Step(18, "read", "order counter (script)", "page_script", "evaluate"),
    Step(19, "fill/type", "First name again", "page_paste", "fill"),
    Step(20, "read", "First name value", "page_query", "input_value"),
)
assert len(STEPS) == STEP_COUNT and [s.number for s in STEPS] == list(range(1, STEP_COUNT + 1))
KINDS: tuple[str, ...] = tuple(dict.fromkeys(s.kind for s in STEPS))
FILL_STEPS = tuple(s.number for s in STEPS if s.kind == "fill/type")

TEXT_FIELDS = ("first", "last", "email", "city", "notes", "nick")
SEL = {
    "first": "[name=first]",
    "last": "[name=last]",
    "email": "[name=email]",
    "city": "[name=city]",
    "notes": "[name=notes]",
    "nick": "[name=nick]",
    "size": "select[name=size]",
    "gift": "[name=gift]",
    "qty": "input[type=range]",
    "doc": "input[type=file]",
    "submit": "text=Place order",
    "done": "#done",
    "again": "text=New order",
    "form_button": "#f button",
}

# Step 13's script: every value the form holds, and what the range saw (the drag's value at pointerup, the
# last key pressed on it). Ours runs it as page_script's function body; Playwright as an async arrow body.
READ_FORM = """const f = document.getElementById('f');
const e = f.elements;
const file = e.doc.files.length ? e.doc.files[0] : null;
return {first: e.first.value, last: e.last.value, email: e.email.value, city: e.city.value,
        notes: e.notes.value, nick: e.nick.value, size: e.size.value, gift: e.gift.checked,
        qty: Number(e.qty.value), dragged: window.draggedTo ?? null, keyed: window.keyedOnRange ?? null,
        file: file ? file.name : null, fileBytes: file ? file.size : null};"""
READ_COUNTER = "return document.getElementById('orders').textContent;"

FORM_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Order form</title>
<style>
  body { font: 16px sans-serif; margin: 1.5em; }
  label { display: block; margin: 6px 0; }
  input[type=range] { width: %(width)dpx; }
</style>
</head>
<body>
<h1>Order form</h1>
<p id="orders">Orders so far: %(orders)d</p>
<form id="f" method="post" action="/submit" enctype="multipart/form-data">
  <label>First name <input name="first"></label>
  <label>Last name <input name="last"></label>
  <label>Email <input name="email" type="email" placeholder="you@example.com"></label>
  <label>City <input name="city"></label>
  <label>Notes <textarea name="notes" rows="3" cols="30"></textarea></label>
  <label>Nickname <input name="nick"></label>
  <label>Size <select name="size"><option value="s">Small</option><option value="m">Medium</option>
    <option value="l">Large</option></select></label>
  <label><input type="checkbox" name="gift" value="yes"> Gift wrap</label>
  <label>Quantity <input type="range" name="qty" min="0" max="100" value="0"></label>
  <label>Attachment <input type="file" name="doc"></label>
  <button type="submit">Place order</button>
</form>
<script>
  const range = document.querySelector('input[type=range]');
  range.addEventListener('pointerup', () => { window.draggedTo = Number(range.value); });
  range.addEventListener('keydown', (e) => { window.keyedOnRange = e.key; });
</script>
</body>
</html>
"""

RESULT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thanks</title></head>
<body><h1 id="done">Order #%(number)d received</h1><p><a id="again" href="/form">New order</a></p></body>
</html>
"""


# -- the server ----------------------------------------------------------------------------------------------
@dataclass
class Submission:
    number: int
    fields: dict[str, str]
    files: dict[str, tuple[str, bytes]]


class OrderBook:
    """Thread-safe record of the orders the form posted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._orders: list[Submission] = []

    def add(self, fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> int:
        with self._lock:
            number = len(self._orders) + 1
            self._orders.append(Submission(number, fields, files))
            return number

    def count(self) -> int:
        with self._lock:
            return len(self._orders)

    def get(self, number: int) -> Submission | None:
        with self._lock:
            return self._orders[number - 1] if 1 <= number <= len(self._orders) else None


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]]:
    message = BytesParser(policy=email_policy).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            files[name] = (filename, payload)
        else:
            fields[name] = payload.decode("utf-8")
    return fields, files


def make_handler(book: OrderBook) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path.split("?", 1)[0] == "/form":
                page = FORM_PAGE % {"orders": book.count(), "width": SLIDER_WIDTH}
                self._reply(200, "text/html; charset=utf-8", page.encode("utf-8"))
            else:
                self._reply(404, "text/plain", b"not found")

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if self.path.split("?", 1)[0] != "/submit":
                self._reply(404, "text/plain", b"not found")
                return
            try:
                fields, files = parse_multipart(self.headers.get("Content-Type", ""), body)
            except Exception as exc:  # a malformed post is reported to the browser, and fails verification
                self._reply(400, "text/plain", f"bad form data: {exc}".encode())
                return
            number = book.add(fields, files)
            self._reply(200, "text/html; charset=utf-8", (RESULT_PAGE % {"number": number}).encode("utf-8"))

        def _reply(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
            pass

    return Handler


def start_server(book: OrderBook) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(book))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="form-server", daemon=True).start()
    return server


# -- one repetition's inputs and outputs ---------------------------------------------------------------------
@dataclass
class RepInput:
    side: Side
    variant: Variant
    rep: int                 # -1 is the warm-up
    values: dict[str, str]   # the six text fields
    size_text: str
    size_value: str
    again: str               # step 19's value
    file_path: Path
    file_bytes: bytes


@dataclass
class RepResult:
    side: Side
    variant: Variant
    rep: int
    step_ms: list[float]
    order: int
    readings: dict[str, Any] = field(default_factory=dict)

    @property
    def total_ms(self) -> float:
        return sum(self.step_ms)


def make_input(side: Side, variant: Variant, rep: int, folder: Path) -> RepInput:
    tag = f"{side[0]}{variant[0]}{rep + 1}"
    size_text, size_value = SIZES[(rep + 1) % len(SIZES)]
    # Unicode on purpose: accents, CJK and emoji (a ZWJ sequence longer than one key's text).
    values = {
        "first": f"Zoë {tag}",
        "last": f"山田 {tag}",
        "email": f"zoe.{tag}@example.com",
        "city": f"Kraków 🚲 {tag}",
        "notes": f"line one {tag}\nline two",
        "nick": f"Z 👩‍💻 {tag}",
    }
    file_bytes = secrets.token_bytes(3000) + tag.encode()
    path = folder / f"attachment-{tag}.bin"
    path.write_bytes(file_bytes)
    return RepInput(side, variant, rep, values, size_text, size_value, f"again {tag}", path, file_bytes)


ORDER_TEXT = re.compile(r"^Order #(\d+) received$")
COUNTER_TEXT = re.compile(r"^Orders so far: (\d+)$")


def order_problems(order: Any, number: int, values: dict[str, str], size_value: str, qty: Any, file_name: str,
                   file_bytes: bytes) -> list[str]:
    """What the server's record of order #number got wrong (also used by bench/replay.py)."""
    problems: list[str] = []
    if number and order is None:
        problems.append(f"the server has no order #{number}")
    if order is None:
        return problems
    for name, wanted in values.items():
        got = order.fields.get(name, "").replace("\r\n", "\n")
        if got != wanted:
            problems.append(f"the server got {name}={got!r}, not {wanted!r}")
    if order.fields.get("size") != size_value:
        problems.append(f"the server got size={order.fields.get('size')!r}, not {size_value!r}")
    if order.fields.get("gift") != "yes":
        problems.append(f"the server got gift={order.fields.get('gift')!r}, not 'yes'")
    if order.fields.get("qty") != str(qty):
        problems.append(f"the server got qty={order.fields.get('qty')!r}, the page had {qty!r}")
    if order.files.get("doc") != (file_name, file_bytes):
        got_file = order.files.get("doc")
        problems.append("the server did not get the file's name and bytes (got "
                        f"{(got_file[0], len(got_file[1])) if got_file else None!r})")
    return problems


def verify(inp: RepInput, readings: dict[str, Any], book: OrderBook) -> int:
    """Check the page's values and the server's record of the order; return the order number."""
    where = f"{inp.side} ({inp.variant}) repetition {inp.rep + 1 if inp.rep >= 0 else 'warm-up'}"
    problems: list[str] = []
    form = readings.get("form") or {}
    for name, wanted in inp.values.items():
        got = str(form.get(name, "")).replace("\r\n", "\n")
        if got != wanted:
            problems.append(f"page field {name} is {got!r}, not {wanted!r}")
    if form.get("size") != inp.size_value:
        problems.append(f"page size is {form.get('size')!r}, not {inp.size_value!r}")
    if form.get("gift") is not True:
        problems.append("the Gift wrap box is not checked")
    dragged, qty = form.get("dragged"), form.get("qty")
    if not isinstance(dragged, (int, float)) or abs(dragged - SLIDER_TARGET) > SLIDER_TOLERANCE:
        problems.append(f"the drag left the range at {dragged!r}, not {SLIDER_TARGET} +/- {SLIDER_TOLERANCE}")
    if form.get("keyed") != "ArrowRight" or not isinstance(dragged, (int, float)) or qty != dragged + 1:
        problems.append(f"ArrowRight did not move the range by one (key {form.get('keyed')!r}, "
                        f"{dragged!r} -> {qty!r})")
    if form.get("file") != inp.file_path.name or form.get("fileBytes") != len(inp.file_bytes):
        problems.append(f"the file input holds {form.get('file')!r} ({form.get('fileBytes')!r} bytes)")
    match = ORDER_TEXT.match(str(readings.get("result", "")).strip())
    number = int(match.group(1)) if match else 0
    if not match:
        problems.append(f"the result page says {readings.get('result')!r}")
    counter = COUNTER_TEXT.match(str(readings.get("counter", "")).strip())
    if not counter or int(counter.group(1)) < number:
        problems.append(f"the next form says {readings.get('counter')!r} after order {number}")
    if readings.get("again") != inp.again:
        problems.append(f"step 20 read {readings.get('again')!r}, not {inp.again!r}")
    order = book.get(number) if number else None
    problems += order_problems(order, number, inp.values, inp.size_value, qty, inp.file_path.name, inp.file_bytes)
    if problems:
        raise BenchError(f"{where} failed verification: " + "; ".join(problems))
    return number


# -- ours: operations in-process -----------------------------------------------------------------------------
class OursSide:
    def __init__(self, app: "BrowserPilotApp", tab: str) -> None:
        self.app = app
        self.tab = tab

    async def _op(self, times: list[float], name: str, params: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        envelope = await self.app.registry.call(self.app.ctx, name, {"tabId": self.tab, **params})
        times.append((time.perf_counter() - started) * 1000)
        if not envelope.get("ok"):
            raise BenchError(f"ours, step {len(times)} ({name}) failed: {envelope.get('error')}")
        return envelope

    async def run(self, base: str, inp: RepInput) -> tuple[list[float], dict[str, Any]]:
        t: list[float] = []
        op = self._op
        fill = "page_type" if inp.variant == "keys" else "page_paste"
        readings: dict[str, Any] = {}
        await op(t, "page_navigate", {"url": f"{base}/form", "waitUntil": "load"})                    # 1
        for name in TEXT_FIELDS:                                                                        # 2-7
            await op(t, fill, {"locator": {"selector": SEL[name]}, "text": inp.values[name]})
        await op(t, "page_select", {"locator": {"selector": SEL["size"]}, "option": inp.size_text})   # 8
        await op(t, "page_click", {"locator": {"selector": SEL["gift"]}})                              # 9
        await op(t, "page_drag", {"locator": {"selector": SEL["qty"]}, "dx": SLIDER_DX})               # 10
        await op(t, "page_key", {"shortcut": "arrowright"})                                             # 11
        await op(t, "page_upload", {"locator": {"selector": SEL["doc"]}, "paths": [str(inp.file_path)]})  # 12
        readings["form"] = (await op(t, "page_script", {"source": READ_FORM}))["value"]                 # 13
        await op(t, "page_click", {"locator": {"selector": SEL["submit"]},                             # 14
                                   "until": {"selector": SEL["done"]}})
        found = await op(t, "page_query", {"locator": {"selector": SEL["done"]}})                      # 15
        readings["result"] = found["elements"][0]["text"] if found.get("elements") else None
        await op(t, "page_click", {"locator": {"selector": SEL["again"]}})                             # 16
        await op(t, "page_wait", {"locator": {"selector": SEL["form_button"]}, "state": "appear"})     # 17
        readings["counter"] = (await op(t, "page_script", {"source": READ_COUNTER}))["value"]          # 18
        await op(t, fill, {"locator": {"selector": SEL["first"]}, "text": inp.again})                  # 19
        found = await op(t, "page_query", {"locator": {"selector": SEL["first"]}})                     # 20
        readings["again"] = found["elements"][0].get("value") if found.get("elements") else None
        return t, readings


# -- Playwright: the sync API in its own thread -------------------------------------------------------------
class PlaywrightSide:
    """Every method runs in the one worker thread that started Playwright (the sync API is thread-bound)."""

    def __init__(self) -> None:
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._page: Page | None = None
        self.version = ""

    def start(self) -> float:
        from playwright.sync_api import sync_playwright

        started = time.perf_counter()
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_FLAGS))
        self.version = self._browser.version
        self._page = self._browser.new_page()
        self._page.set_default_timeout(OP_TIMEOUT_S * 1000)
        return time.perf_counter() - started

    def stop(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            if self._pw is not None:
                self._pw.stop()

    def run(self, base: str, inp: RepInput) -> tuple[list[float], dict[str, Any]]:
        page = self._page
        assert page is not None
        t: list[float] = []
        readings: dict[str, Any] = {}

        def step(action: Callable[[], T]) -> T:
            started = time.perf_counter()
            try:
                value = action()
            except Exception as exc:
                raise BenchError(f"playwright, step {len(t) + 1} failed: {exc}") from exc
            t.append((time.perf_counter() - started) * 1000)
            return value

        def fill(selector: str, text: str) -> None:
            if inp.variant == "keys":
                page.locator(selector).press_sequentially(text)
            else:
                page.fill(selector, text)

        def drag() -> None:
            box = page.locator(SEL["qty"]).bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + SLIDER_DX, y, steps=DRAG_MOVES)
            page.mouse.up()

        def submit() -> None:
            page.click(SEL["submit"])
            page.wait_for_selector(SEL["done"], state="visible")

        step(lambda: page.goto(f"{base}/form", wait_until="load"))                                 # 1
        for name in TEXT_FIELDS:                                                                     # 2-7
            step(lambda name=name: fill(SEL[name], inp.values[name]))
        step(lambda: page.select_option(SEL["size"], label=inp.size_text))                         # 8
        step(lambda: page.click(SEL["gift"]))                                                       # 9
        step(drag)                                                                                   # 10
        step(lambda: page.keyboard.press("ArrowRight"))                                             # 11
        step(lambda: page.set_input_files(SEL["doc"], str(inp.file_path)))                          # 12
        readings["form"] = step(lambda: page.evaluate(f"async () => {{ {READ_FORM} }}"))           # 13
        step(submit)                                                                                 # 14
        readings["result"] = step(lambda: page.inner_text(SEL["done"]))                             # 15
        step(lambda: page.click(SEL["again"]))                                                      # 16
        step(lambda: page.wait_for_selector(SEL["form_button"], state="visible"))                   # 17
        readings["counter"] = step(lambda: page.evaluate(f"async () => {{ {READ_COUNTER} }}"))     # 18
        step(lambda: fill(SEL["first"], inp.again))                                                 # 19
        readings["again"] = step(lambda: page.input_value(SEL["first"]))                            # 20
        return t, readings


# -- the run -------------------------------------------------------------------------------------------------
@dataclass
class RunInfo:
    reps: int
    variants: list[str]
    app_start_s: float = 0.0
    playwright_launch_s: float = 0.0
    chromium_version: str = ""
    qtwebengine_version: str = ""
    source_digest: str = ""  # of app/ and resources/js/ as measured (the tree changes between runs)


def source_digest() -> str:
    """A short digest of the code under test, so that runs of different trees are not compared by mistake."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / "resources" / "js").glob("*.js")]):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


async def run_all(reps: int, variants: Sequence[Variant], base: str, book: OrderBook, files: Path,
                  info: RunInfo) -> list[RepResult]:
    from PySide6 import QtWebEngineCore

    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    info.qtwebengine_version = (f"{QtWebEngineCore.qWebEngineVersion()} "
                                f"(Chromium {QtWebEngineCore.qWebEngineChromiumVersion()})")
    data_dir = Path(tempfile.mkdtemp(prefix="bench-steps-data-"))
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
    pw = PlaywrightSide()
    shell: BrowserPilotApp | None = None
    results: list[RepResult] = []

    async def in_worker(fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(executor.submit(fn, *args))

    try:
        print("starting Playwright's chromium ...", file=sys.stderr, flush=True)
        info.playwright_launch_s = await in_worker(pw.start)
        info.chromium_version = pw.version
        print("starting BrowserPilot in-process ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        shell = BrowserPilotApp(DataDir(data_dir), headless=True)
        shell.start([])
        opened = await shell.registry.call(shell.ctx, "tab_open", {"url": "about:blank"})
        if not opened.get("ok"):
            raise BenchError(f"tab_open failed: {opened.get('error')}")
        ours = OursSide(shell, opened["tabId"])
        info.app_start_s = time.perf_counter() - started

        async def one(side: Side, variant: Variant, rep: int) -> RepResult:
            inp = make_input(side, variant, rep, files)
            if side == "ours":
                step_ms, readings = await asyncio.wait_for(ours.run(base, inp), OP_TIMEOUT_S * 4)
            else:
                step_ms, readings = await in_worker(pw.run, base, inp)
            if len(step_ms) != STEP_COUNT:
                raise BenchError(f"{side} timed {len(step_ms)} steps, not {STEP_COUNT}")
            number = verify(inp, readings, book)
            return RepResult(side, variant, rep, step_ms, number, readings)

        for rep in range(-1, reps):
            order: list[Side] = ["ours", "playwright"] if rep % 2 else ["playwright", "ours"]
            label = "warm-up" if rep < 0 else f"repetition {rep + 1}/{reps}"
            for variant in variants:
                for side in order:
                    result = await one(side, variant, rep)
                    if rep >= 0:
                        results.append(result)
            print(f"{label}: done", file=sys.stderr, flush=True)
    finally:
        if shell is not None:
            shell.shutdown()
            await asyncio.sleep(0.3)  # let Qt delete the pages and profiles
        try:
            await in_worker(pw.stop)
        except Exception as exc:  # stopping must not hide the run's own error
            print(f"step_latency: stopping Playwright: {exc}", file=sys.stderr)
        executor.shutdown(wait=True)
        shutil.rmtree(data_dir, ignore_errors=True)
    return results


def run_in_qt(reps: int, variants: Sequence[Variant], base: str, book: OrderBook, files: Path,
              info: RunInfo) -> list[RepResult]:
    """Start Qt and asyncio as the headless app does (app/startup/qt_asyncio.py) and run."""
    from app.startup.qt_asyncio import run_in_qt as run_headless

    return run_headless(lambda: run_all(reps, variants, base, book, files, info))


# -- the report ----------------------------------------------------------------------------------------------
def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def ratio(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or not theirs else ours / theirs


def fmt(value: float | None, spec: str = ".1f") -> str:
    return "n/a" if value is None else format(value, spec)


@dataclass
class Summary:
    variant: Variant
    per_step: list[dict[str, Any]]
    per_kind: list[dict[str, Any]]
    ours_step_ms: float | None
    playwright_step_ms: float | None
    ratio: float | None
    ours_flow_ms: float | None
    playwright_flow_ms: float | None
    flow_ratio: float | None
    ours_fill_ms: float | None
    playwright_fill_ms: float | None


def summarise(results: Sequence[RepResult], variant: Variant) -> Summary:
    by_side: dict[Side, list[RepResult]] = {
        side: [r for r in results if r.side == side and r.variant == variant] for side in ("ours", "playwright")}

    def samples(side: Side, numbers: Sequence[int]) -> list[float]:
        return [r.step_ms[n - 1] for r in by_side[side] for n in numbers]

    per_step = []
    for s in STEPS:
        o, p = median(samples("ours", [s.number])), median(samples("playwright", [s.number]))
        per_step.append({"step": s.number, "kind": s.kind, "what": s.what, "ours_op": s.ours,
                         "playwright_call": s.playwright, "ours_ms": o, "playwright_ms": p, "ratio": ratio(o, p)})
    per_kind = []
    for kind in KINDS:
        numbers = [s.number for s in STEPS if s.kind == kind]
        o, p = median(samples("ours", numbers)), median(samples("playwright", numbers))
        per_kind.append({"kind": kind, "steps": numbers, "ours_ms": o, "playwright_ms": p, "ratio": ratio(o, p)})
    all_steps = list(range(1, STEP_COUNT + 1))
    o_step, p_step = median(samples("ours", all_steps)), median(samples("playwright", all_steps))
    o_flow = median([r.total_ms for r in by_side["ours"]])
    p_flow = median([r.total_ms for r in by_side["playwright"]])
    return Summary(variant, per_step, per_kind, o_step, p_step, ratio(o_step, p_step), o_flow, p_flow,
                   ratio(o_flow, p_flow), median(samples("ours", FILL_STEPS)),
                   median(samples("playwright", FILL_STEPS)))


def target_line(main: Summary) -> tuple[str, bool | None]:
    met = None if main.ratio is None else main.ratio <= TARGET_RATIO
    verdict = {True: "MET", False: "NOT MET", None: "NOT MEASURED"}[met]
    return (f"Target: median time per step ours/Playwright at most {TARGET_RATIO}x: "
            f"{fmt(main.ratio, '.2f')}x -> {verdict}"), met


def print_table(main: Summary, keys: Summary | None, info: RunInfo) -> None:
    print(f"Step latency, {info.reps} repetitions per side (+1 warm-up each), medians in ms.")
    print(f"Ours: in-process operations, QtWebEngine {info.qtwebengine_version or '?'} (code digest "
          f"{info.source_digest}); Playwright: chromium {info.chromium_version}, headless.")
    print(f"{'#':>2}  {'kind':<11} {'step':<25} {'ours op':<16} {'playwright':<24} "
          f"{'ours':>7} {'pw':>7} {'ours/pw':>7}")
    for row in main.per_step:
        print(f"{row['step']:>2}  {row['kind']:<11} {row['what']:<25} {row['ours_op']:<16} "
              f"{row['playwright_call']:<24} {fmt(row['ours_ms']):>7} {fmt(row['playwright_ms']):>7} "
              f"{fmt(row['ratio'], '.2f'):>7}")
    print()
    print(f"{'kind':<11} {'steps':<22} {'ours':>7} {'pw':>7} {'ours/pw':>7}")
    for row in main.per_kind:
        steps = ",".join(str(n) for n in row["steps"])
        print(f"{row['kind']:<11} {steps:<22} {fmt(row['ours_ms']):>7} {fmt(row['playwright_ms']):>7} "
              f"{fmt(row['ratio'], '.2f'):>7}")
    print()
    print(f"Per flow (sum of 20 steps), median: ours {fmt(main.ours_flow_ms, '.0f')} ms, Playwright "
          f"{fmt(main.playwright_flow_ms, '.0f')} ms, ratio {fmt(main.flow_ratio, '.2f')}x")
    print(f"Start-up (not in the step times): app + tab {info.app_start_s:.2f} s; Playwright + chromium "
          f"{info.playwright_launch_s:.2f} s")
    if keys is not None:
        print(f"Extra, key by key (page_type vs press_sequentially, steps {','.join(map(str, FILL_STEPS))}): "
              f"per field ours {fmt(keys.ours_fill_ms)} ms, Playwright {fmt(keys.playwright_fill_ms)} ms "
              f"({fmt(ratio(keys.ours_fill_ms, keys.playwright_fill_ms), '.2f')}x);")
        print(f"  that flow's median per step ours {fmt(keys.ours_step_ms)} ms, Playwright "
              f"{fmt(keys.playwright_step_ms)} ms ({fmt(keys.ratio, '.2f')}x), per flow ours "
              f"{fmt(keys.ours_flow_ms, '.0f')} ms, Playwright {fmt(keys.playwright_flow_ms, '.0f')} ms")
    print(f"Median time per step (fill = page_paste vs fill): ours {fmt(main.ours_step_ms)} ms, "
          f"Playwright {fmt(main.playwright_step_ms)} ms")
    print(target_line(main)[0])


def print_json(main: Summary, keys: Summary | None, info: RunInfo, results: Sequence[RepResult]) -> None:
    line, met = target_line(main)
    payload = {
        "run": asdict(info),
        "steps": [asdict(s) for s in STEPS],
        "fill": asdict(main),
        "keys": asdict(keys) if keys is not None else None,
        "repetitions": [{"side": r.side, "variant": r.variant, "rep": r.rep + 1, "order": r.order,
                         "total_ms": r.total_ms, "step_ms": r.step_ms} for r in results],
        "target": {"max_ratio": TARGET_RATIO, "ratio": main.ratio, "met": met, "summary": line},
    }
    print(json.dumps(payload, indent=2, ensure_ascii=False))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=DEFAULT_REPS, help=f"repetitions per side (default {DEFAULT_REPS})")
    parser.add_argument("--no-keys", action="store_true", help="skip the extra key-by-key flows")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not os.access(CHROMIUM, os.X_OK):
        print(f"step_latency: {CHROMIUM} is missing or not executable", file=sys.stderr)
        return 1
    variants: list[Variant] = ["fill"] if args.no_keys else ["fill", "keys"]
    info = RunInfo(reps=args.reps, variants=list(variants), source_digest=source_digest())
    book = OrderBook()
    server = start_server(book)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    files = Path(tempfile.mkdtemp(prefix="bench-steps-files-"))
    try:
        results = run_in_qt(args.reps, variants, base, book, files, info)
    except BenchError as exc:
        print(f"step_latency: {exc}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(files, ignore_errors=True)
    main_summary = summarise(results, "fill")
    keys_summary = summarise(results, "keys") if "keys" in variants else None
    if args.json:
        print_json(main_summary, keys_summary, info, results)
    else:
        print_table(main_summary, keys_summary, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
