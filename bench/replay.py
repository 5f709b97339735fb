"""Replaying a saved 20-step workflow: BrowserPilot (in the app, and as a cold `browserpilot run` process) versus
a hand-written Playwright for Python script and @puppeteer/replay; plus a 100-row batch at concurrency 3.

The flow is bench/step_latency.py's order form (its page, server and order book are imported from there), 20
steps: load the form, fill six text fields, choose a size, tick Gift wrap, set the Quantity range, ArrowRight,
attach a file, read the form, submit until "#done", read the result, follow "New order", wait for the form,
read the order counter, fill First name again, read it back. The sides, all on the same local server:

(a) ours in the app: the flow as a BrowserPilot 0.3.0 workflow document (start, 20 nodes, end; values from
    start variables through `{{#input.x#}}` templates; fills are `entry: paste`), run in-process as
    the headless app starts (app/startup/qt_asyncio.py); one sample is one `workflow_run` operation call (document
    validation, run start, the 20 nodes, the run record written to runs.json), always on the same tab.
(c) Playwright for Python: bench/replay_playwright.py's `run_flow` on one page of one Debian chromium, in a
    worker thread; one sample is the sum of its 20 timed steps (browser launch and page creation excluded).
(b) cold processes, spawn to exit: `browserpilot run WORKFLOW.json --headless --json --data-dir FRESH
    --input k=v ...` (a new, empty data folder every time: the app allows one instance per data folder)
    versus `python bench/replay_playwright.py SPEC.json` (start Playwright, launch chromium, the 20 steps,
    close, exit).
(d) for reference, @puppeteer/replay 3 over puppeteer-core with Debian's chromium, replaying an equivalent
    Chrome DevTools Recorder recording through its JS API (bench/replay.mjs:
    `createRunner(recording, new PuppeteerRunnerExtension(browser, page))`): a cold `node replay.mjs`
    process (spawn to exit), and in one process the time of each replay on an open page (createRunner + run).
    The Recorder format has no upload or read step: bench/replay.mjs handles two customSteps for them.
Batch: `workflow_batch` with R rows (default 100, each row its own values and file) at concurrency 3 in the
app, spread over three environments (`envs`: env-default and two made for the run, so each of the three tabs
is the front tab of its own window, and each has its own cookies like a browser context), versus the same
rows through three browser contexts of one chromium (Playwright's async API, three workers taking rows from
one queue); rows per minute from the operation call (ours: windows and tabs opened and closed inside it) and
from the first context's creation to the last one's close (Playwright; browser launch excluded). Then, not
measured but reported: a small batch at concurrency 3 in ONE environment (three tabs in one window), which
is what the GUI's batch dialog does by default; rows that fail there are reported, not fatal. Last, (a) once
more (N runs) after runs.json was topped up to its maximum of 200 records (copies of this run's records): the
steady state of any data folder in use, compared with (c)'s median.

Step 10 differs from step_latency.py's drag: the workflow format has no drag node (the 22 node types; `swipe`
is a touch swipe of 60% of the viewport and the Chrome-recording importer drops click offsets), so every side
sets the range the way a recorded workflow does it: one click at the range's 80% point (ours: a `click` node
with `x, y`; Playwright: `page.mouse.click(x, y)`; the recording: a `click` step with `offsetX/offsetY`). The
point is measured once per engine before anything is timed (a cold probe workflow for ours, which also warms
the file cache for the cold runs).

Verification, for every run of every side (warm-ups and batch rows included): the page's values read at step 13
(each text field, the size, the box ticked, the range at 80 +/- 4 when the pointer was released and exactly +1
after ArrowRight, the file's name and size), the result text "Order #N received" (N used by no other run),
"Orders so far: M" with M >= N on the next form, the value read back at step 20, and the server's record of
order N: every field, the size, gift, qty and the uploaded file's name and bytes. After each phase the server
must hold exactly one order per run (a double submit aborts the run). Any failure aborts with exit status 1.

Order and warm-up: one warm-up run per side that is not counted, then the sides alternate every repetition
(in-process: ours/Playwright order flips; cold: the three processes rotate). Ratios are what count: absolute
times drift by 10-30% between runs on these shared 2-core machines. Targets: (a)/(c) at most 0.8x; (b) ours /
Playwright at most 1.0x; batch rows per minute ours / Playwright at least 1.0x.

Before and after: `--against DIR` first runs DIR's own bench/replay.py with DIR's .venv (another checkout, for
example the code before a change) with the same --reps/--rows, then this one, and prints both and the ratios
after/before of each side's figures and of its ratios to Playwright (which carry the load of the moment).

Traces: `--traces` measures only (a), in the app on one tab, with the run's trace and video modes
side by side, rotating every repetition: trace and video off; `trace: on-failure` (the default; these runs end
ok, so nothing is kept); `trace: always` (every node's screenshots, console, requests); `video: always`; both. It prints the medians, the ratios to "off" (targets: trace at most
1.2x, video at most 1.4x) and the disk each run kept (its trace folder and video). Then, for reference, the same
flow in Playwright (as (c), on one page of one chromium) with its own tracing, rotating the same way: off;
`context.tracing.start(screenshots=True)` (its screencast); with `snapshots=True` too (the trace viewer's before
and after of every action, with its network and console: what ours is compared with); each sample from the
tracing's start to its zip written by `tracing.stop(path=...)`. Both sides print what a trace adds to a run in
milliseconds as well as the ratio: a faster run pays a larger ratio for the same milliseconds. Every run is
verified as above.

Run: `.venv/bin/python bench/replay.py [--reps N] [--rows R] [--quick] [--json] [--against DIR] [--traces]` (N defaults to 10, R to 100;
--quick means 3 repetitions and 30 rows unless given). Needs node and npm: @puppeteer/replay and puppeteer-core
are installed into bench/node_modules from bench/package.json on first use (PUPPETEER_SKIP_DOWNLOAD=1).
Exit status: 0 when every run was measured and verified (whether or not the targets are met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, Literal, Sequence, TypeVar

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for _path in (str(ROOT), str(BENCH)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import replay_playwright as rp  # noqa: E402  (the hand-written Playwright script)
import step_latency as sl  # noqa: E402  (the form page, its server and the order book)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from app.wiring.shell import BrowserPilotApp

DEFAULT_REPS = 10
DEFAULT_ROWS = 100
QUICK_REPS = 3
QUICK_ROWS = 30
ONE_WINDOW_ROWS = 6       # the unmeasured check of a batch in one environment's window
CONCURRENCY = 3
TARGET_IN_APP = 0.8       # (a) / (c), at most
TARGET_COLD = 1.0         # (b) ours / Playwright, at most
TARGET_BATCH = 1.0        # rows per minute ours / Playwright, at least
RANGE_TARGET = 80         # the click sets the range to about this value
RANGE_TOLERANCE = 4
RANGE_THUMB = 16          # CSS px: the value runs from the thumb's centre at one end to the other
PROCESS_TIMEOUT_S = 180.0
OP_TIMEOUT_S = 120.0
BROWSERPILOT = Path(sys.executable).with_name("browserpilot")
NODE_PACKAGES = (BENCH / "node_modules" / "@puppeteer" / "replay", BENCH / "node_modules" / "puppeteer-core")
TEXT_FIELDS = sl.TEXT_FIELDS
INPUT_NAMES = (*TEXT_FIELDS, "size", "file", "again")

Side = Literal["ours", "playwright", "replay"]
T = TypeVar("T")


class BenchError(RuntimeError):
    """A run failed, or did not do the work it claimed."""


# -- one run's data ------------------------------------------------------------------------------------------
@dataclass
class Case:
    label: str                # for messages: "ours cold, repetition 3"
    tag: str                  # unique per run; part of every value
    values: dict[str, str]    # the six text fields
    size_text: str
    size_value: str
    again: str                # step 19's value
    file: Path
    file_bytes: bytes

    def inputs(self) -> dict[str, str]:
        """The workflow's start variables."""
        return {**self.values, "size": self.size_text, "file": str(self.file), "again": self.again}

    def playwright(self, base: str, point: tuple[float, float]) -> dict[str, Any]:
        """A case for bench/replay_playwright.py."""
        return {"base": base, "values": self.values, "size_text": self.size_text, "file": str(self.file),
                "again": self.again, "point": list(point)}


def make_case(label: str, tag: str, index: int, folder: Path) -> Case:
    size_text, size_value = sl.SIZES[index % len(sl.SIZES)]
    # Unicode on purpose, as in step_latency.py: accents, CJK and an emoji ZWJ sequence.
    values = {"first": f"Zoë {tag}", "last": f"山田 {tag}", "email": f"zoe.{tag}@example.com",
              "city": f"Kraków 🚲 {tag}", "notes": f"line one {tag}\nline two", "nick": f"Z 👩‍💻 {tag}"}
    file_bytes = secrets.token_bytes(3000) + tag.encode()
    path = folder / f"attachment-{tag}.bin"
    path.write_bytes(file_bytes)
    return Case(label, tag, values, size_text, size_value, f"again {tag}", path, file_bytes)


ORDER_TEXT = re.compile(r"^Order #(\d+) received$")
COUNTER_TEXT = re.compile(r"^Orders so far: (\d+)$")


class Verifier:
    """Checks each run's readings and the server's record of its order; every order number is used once."""

    def __init__(self, book: sl.OrderBook) -> None:
        self.book = book
        self.claimed: set[int] = set()
        self.runs = 0

    def check(self, case: Case, readings: dict[str, Any] | None) -> int:
        self.runs += 1
        readings = readings or {}
        problems: list[str] = []
        form = readings.get("form") or {}
        for name, wanted in case.values.items():
            got = str(form.get(name, "")).replace("\r\n", "\n")
            if got != wanted:
                problems.append(f"page field {name} is {got!r}, not {wanted!r}")
        if form.get("size") != case.size_value:
            problems.append(f"page size is {form.get('size')!r}, not {case.size_value!r}")
        if form.get("gift") is not True:
            problems.append("the Gift wrap box is not checked")
        released, qty = form.get("dragged"), form.get("qty")
        if not isinstance(released, (int, float)) or abs(released - RANGE_TARGET) > RANGE_TOLERANCE:
            problems.append(f"the pointer left the range at {released!r}, not {RANGE_TARGET} +/- {RANGE_TOLERANCE}")
        elif form.get("keyed") != "ArrowRight" or qty != released + 1:
            problems.append(f"ArrowRight did not move the range by one (key {form.get('keyed')!r}, "
                            f"{released!r} -> {qty!r})")
        if form.get("file") != case.file.name or form.get("fileBytes") != len(case.file_bytes):
            problems.append(f"the file input holds {form.get('file')!r} ({form.get('fileBytes')!r} bytes)")
        match = ORDER_TEXT.match(str(readings.get("result", "")).strip())
        number = int(match.group(1)) if match else 0
        if not match:
            problems.append(f"the result page says {readings.get('result')!r}")
        elif number in self.claimed:
            problems.append(f"order #{number} was already claimed by another run")
        counter = COUNTER_TEXT.match(str(readings.get("counter", "")).strip())
        if not counter or int(counter.group(1)) < number:
            problems.append(f"the next form says {readings.get('counter')!r} after order {number}")
        if readings.get("again") != case.again:
            problems.append(f"step 20 read {readings.get('again')!r}, not {case.again!r}")
        order = self.book.get(number) if number else None
        problems += sl.order_problems(order, number, case.values, case.size_value, qty, case.file.name,
                                      case.file_bytes)
        if problems:
            raise BenchError(f"{case.label} failed verification: " + "; ".join(problems))
        self.claimed.add(number)
        return number

    def check_count(self, phase: str) -> None:
        """One order per run so far: no double submits, no lost ones."""
        if self.book.count() != self.runs:
            raise BenchError(f"after {phase} the server holds {self.book.count()} orders for {self.runs} runs")


# -- the workflow and the recording --------------------------------------------------------------------------
def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


STEP_NODES = ("open", "first", "last", "email", "city", "notes", "nick", "size", "gift", "qty", "arrow",
              "upload", "read_form", "submit", "result", "new_order", "form_again", "counter", "first_again",
              "read_again")
"""The workflow's node for each of the 20 steps, in order (plus `start` and `end`)."""


def workflow_document(base: str, point: tuple[float, float]) -> dict[str, Any]:
    """The 20 steps as a BrowserPilot 0.3.0 workflow; the run's values are start variables."""
    def css(selector: str) -> dict[str, str]:
        return {"selector": selector}

    variables = [{"variable": name, "label": name, "type": "paragraph" if name == "notes" else "string"}
                 for name in INPUT_NAMES]
    nodes = [
        node("start", "start", variables=variables),
        node("open", "goto", title="Load the form", url=f"{base}/form"),
        *[node(name, "fill", locator=css(f"[name={name}]"), entry="paste", text=f"{{{{#input.{name}#}}}}")
          for name in TEXT_FIELDS],
        node("size", "select", locator=css("select[name=size]"), option="{{#input.size#}}"),
        node("gift", "click", title="Gift wrap", locator=css("[name=gift]")),
        node("qty", "click", title="Quantity to 80", x=round(point[0], 1), y=round(point[1], 1)),
        node("arrow", "press", shortcut="arrowright"),
        node("upload", "upload", locator=css("input[type=file]"), paths=["{{#input.file#}}"]),
        node("read_form", "script", source=as_object(sl.READ_FORM)),
        node("submit", "click", title="Place order", locator=css("text=Place order"), until=css("#done")),
        node("result", "script", source="return {value: document.querySelector('#done').textContent};"),
        node("new_order", "click", locator=css("text=New order")),
        node("form_again", "wait", locator=css("#f button"), state="appear"),
        node("counter", "script", source=as_object(sl.READ_COUNTER)),
        node("first_again", "fill", locator=css("[name=first]"), entry="paste", text="{{#input.again#}}"),
        node("read_again", "script", source="return {value: document.querySelector('[name=first]').value};"),
        node("end", "end", outputs=[{"variable": key, "value_selector": [source, "value"]} for key, source in
                                    (("form", "read_form"), ("result", "result"), ("counter", "counter"),
                                     ("again", "read_again"))]),
    ]
    assert [n["id"] for n in nodes[1:-1]] == list(STEP_NODES)
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0",
            "app": {"name": "Bench order form", "mode": "workflow",
                    "description": "bench/replay.py: the 20-step order form flow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def as_object(source: str) -> str:
    """A script body whose result is wrapped as {value}: workflow scripts must return an object."""
    return "return {value: await (async () => {" + source + "})()};"


PROBE_SOURCE = """const r = document.querySelector('input[type=range]').getBoundingClientRect();
return {x: r.x, y: r.y, width: r.width, height: r.height, vw: innerWidth, vh: innerHeight};"""


def probe_document(base: str) -> dict[str, Any]:
    """Where the range is in our engine (a cold run of this also warms the file cache)."""
    nodes = [node("start", "start"), node("open", "goto", url=f"{base}/form"),
             node("rect", "script", source=PROBE_SOURCE),
             node("end", "end")]  # no outputs: the run's outputs are the last script's (the original's rule)
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Bench probe", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def range_offset(rect: dict[str, float]) -> tuple[float, float]:
    """The point inside the range's box where its value is RANGE_TARGET."""
    return (RANGE_THUMB / 2 + RANGE_TARGET / 100 * (rect["width"] - RANGE_THUMB), rect["height"] / 2)


def range_point(rect: dict[str, float]) -> tuple[float, float]:
    dx, dy = range_offset(rect)
    x, y = rect["x"] + dx, rect["y"] + dy
    if not (0 < x < rect["vw"] and 0 < y < rect["vh"]):
        raise BenchError(f"the range's point ({x:.0f}, {y:.0f}) is outside the {rect['vw']}x{rect['vh']} viewport")
    return x, y


def recording(case: Case, base: str, offset: tuple[float, float]) -> dict[str, Any]:
    """The flow as a Chrome DevTools Recorder recording (selectors as the Recorder writes them: ARIA, CSS,
    XPath, pierce, text; every click with the offsetX/offsetY the Recorder always records: without them
    puppeteer's click never finds a clickable point), plus the two customSteps bench/replay.mjs handles
    (upload, read)."""
    def selectors(aria: str, css: str, xpath: str, text: str | None = None) -> list[list[str]]:
        out = [[f"aria/{aria}"], [css], [f"xpath/{xpath}"], [f"pierce/{css}"]]
        return out + ([[f"text/{text}"]] if text else [])

    def field_step(name: str, aria: str, value: str) -> dict[str, Any]:
        return {"type": "change", "value": value, "target": "main",
                "selectors": selectors(aria, f"[name={name}]", f'//*[@name="{name}"]')}

    def read(key: str, expression: str) -> dict[str, Any]:
        return {"type": "customStep", "name": "read", "parameters": {"key": key, "expression": expression}}

    labels = {"first": "First name", "last": "Last name", "email": "Email", "city": "City", "notes": "Notes",
              "nick": "Nickname"}
    read_form = "(() => {" + sl.READ_FORM + "})()"
    steps: list[dict[str, Any]] = [
        {"type": "navigate", "url": f"{base}/form",
         "assertedEvents": [{"type": "navigation", "url": f"{base}/form", "title": "Order form"}]},  # 1
        *[field_step(name, labels[name], case.values[name]) for name in TEXT_FIELDS],               # 2-7
        {"type": "change", "value": case.size_value, "target": "main",                                 # 8
         "selectors": selectors("Size", "select[name=size]", '//*[@name="size"]')},
        {"type": "click", "target": "main", "offsetX": 6, "offsetY": 6,                                # 9
         "selectors": selectors("Gift wrap", "[name=gift]", '//*[@name="gift"]')},
        {"type": "click", "target": "main", "offsetX": round(offset[0], 1), "offsetY": round(offset[1], 1),
         "selectors": selectors("Quantity", "input[type=range]", '//*[@name="qty"]')},                # 10
        {"type": "keyDown", "target": "main", "key": "ArrowRight"},                                     # 11
        {"type": "keyUp", "target": "main", "key": "ArrowRight"},
        {"type": "customStep", "name": "upload",                                                       # 12
         "parameters": {"selector": "input[type=file]", "paths": [str(case.file)]}},
        read("form", read_form),                                                                       # 13
        {"type": "click", "target": "main", "offsetX": 10, "offsetY": 8,                               # 14
         "selectors": selectors("Place order", "#f button", '//*[@id="f"]/button', "Place order"),
         "assertedEvents": [{"type": "navigation", "url": f"{base}/submit", "title": "Thanks"}]},
        read("result", "document.querySelector('#done').textContent"),                                # 15
        {"type": "click", "target": "main", "offsetX": 10, "offsetY": 8,                               # 16
         "selectors": selectors("New order", "#again", '//*[@id="again"]', "New order"),
         "assertedEvents": [{"type": "navigation", "url": f"{base}/form", "title": "Order form"}]},
        {"type": "waitForElement", "target": "main", "selectors": [["#f button"]]},                   # 17
        read("counter", "document.getElementById('orders').textContent"),                             # 18
        field_step("first", "First name", case.again),                                                 # 19
        read("again", "document.querySelector('[name=first]').value"),                               # 20
    ]
    return {"title": f"Order form {case.tag}", "steps": steps}


# -- processes -----------------------------------------------------------------------------------------------
def ensure_node_packages() -> str:
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None:
        raise BenchError("node is needed for @puppeteer/replay (apt-get install nodejs npm)")
    if all(path.exists() for path in NODE_PACKAGES):
        return node
    if npm is None:
        raise BenchError("npm is needed to install @puppeteer/replay and puppeteer-core")
    print(f"installing bench/package.json's packages into {BENCH / 'node_modules'} ...", file=sys.stderr, flush=True)
    # From bench/package.json (which lists every bench's packages: npm removes unlisted ones on install).
    subprocess.run([npm, "install", "--no-package-lock", "--no-audit", "--no-fund"], cwd=BENCH, check=True,
                   env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"})
    return node


@dataclass
class Spawned:
    seconds: float
    stdout: str


def spawn(label: str, command: Sequence[str], env: dict[str, str] | None = None) -> Spawned:
    """Run a process to its end; its wall time from spawn to exit."""
    started = time.perf_counter()
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S,
                              env=env, cwd=str(ROOT))
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{label}: no exit within {PROCESS_TIMEOUT_S:.0f} s") from exc
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise BenchError(f"{label}: exit status {done.returncode}:\n  " + "\n  ".join(tail))
    return Spawned(seconds, done.stdout)


def last_json(label: str, text: str) -> Any:
    """The JSON document a process printed (ours: indented, possibly after other lines)."""
    start = text.find("{")
    try:
        return json.loads(text[start:]) if start >= 0 else json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchError(f"{label}: its output is not JSON ({exc}): {text[:300]!r}") from exc


class Sides:
    """What the cold and in-process phases need to build each side's run."""

    def __init__(self, base: str, work: Path, node: str) -> None:
        self.base = base
        self.work = work
        self.node = node
        self.ours_point: tuple[float, float] = (0.0, 0.0)
        self.pw_point: tuple[float, float] = (0.0, 0.0)
        self.pw_offset: tuple[float, float] = (0.0, 0.0)
        self.workflow_file = work / "order-form.workflow.json"
        self.doc: dict[str, Any] = {}
        self.spec_args = list(rp.CHROMIUM_FLAGS)

    def ours_cold(self, case: Case, run: int) -> tuple[float, dict[str, Any], dict[str, Any]]:
        data = self.work / f"cold-data-{run}"
        command = [str(BROWSERPILOT), "run", str(self.workflow_file), "--headless", "--json", "--data-dir", str(data)]
        for key, value in case.inputs().items():
            command += ["--input", f"{key}={value}"]
        done = spawn(case.label, command)
        record = last_json(case.label, done.stdout)
        if record.get("status") != "ok":
            raise BenchError(f"{case.label}: the run ended {record.get('status')}: {record.get('error')}")
        shutil.rmtree(data, ignore_errors=True)
        return done.seconds, record.get("outputs") or {}, record

    def playwright_cold(self, case: Case, run: int) -> tuple[float, dict[str, Any], dict[str, Any]]:
        spec = self.work / f"pw-spec-{run}.json"
        spec.write_text(json.dumps({"chromium": sl.CHROMIUM, "cases": [case.playwright(self.base, self.pw_point)]},
                                   ensure_ascii=False), "utf-8")
        done = spawn(case.label, [sys.executable, str(BENCH / "replay_playwright.py"), str(spec)])
        result = last_json(case.label, done.stdout)
        return done.seconds, result["runs"][0]["readings"], result

    def replay_spec(self, cases: Sequence[Case], name: str) -> Path:
        spec = self.work / name
        spec.write_text(json.dumps({"chromium": sl.CHROMIUM, "args": self.spec_args,
                                    "recordings": [recording(c, self.base, self.pw_offset) for c in cases]},
                                   ensure_ascii=False), "utf-8")
        return spec

    def replay_cold(self, case: Case, run: int) -> tuple[float, dict[str, Any], dict[str, Any]]:
        spec = self.replay_spec([case], f"replay-spec-{run}.json")
        done = spawn(case.label, [self.node, str(BENCH / "replay.mjs"), str(spec)],
                     env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
        result = last_json(case.label, done.stdout)
        return done.seconds, result["runs"][0]["readings"], result


# -- results -------------------------------------------------------------------------------------------------
@dataclass
class Results:
    reps: int
    rows: int
    concurrency: int = CONCURRENCY
    source_digest: str = ""
    chromium_version: str = ""
    qtwebengine_version: str = ""
    replay_versions: str = ""
    ours_point: list[float] = field(default_factory=list)
    playwright_point: list[float] = field(default_factory=list)
    probe_cold_s: float = 0.0
    app_start_s: float = 0.0
    playwright_launch_s: float = 0.0
    # (a) and (c): per repetition
    ours_run_ms: list[float] = field(default_factory=list)          # workflow_run call
    ours_record_ms: list[float] = field(default_factory=list)       # the record's durationMs (executor)
    ours_node_ms: list[list[float]] = field(default_factory=list)   # the 20 step nodes' trace ms
    ours_all_nodes_ms: list[float] = field(default_factory=list)    # sum of every node's trace ms (start, end too)
    ours_full_history_run_ms: list[float] = field(default_factory=list)  # workflow_run, 200 runs in runs.json
    pw_flow_ms: list[float] = field(default_factory=list)           # sum of the 20 steps
    pw_step_ms: list[list[float]] = field(default_factory=list)
    # (b) and (d) cold, and (d) in one process
    ours_cold_s: list[float] = field(default_factory=list)
    pw_cold_s: list[float] = field(default_factory=list)
    replay_cold_s: list[float] = field(default_factory=list)
    replay_cold_run_ms: list[float] = field(default_factory=list)   # the replay inside each cold process
    replay_run_ms: list[float] = field(default_factory=list)        # warm, in one process
    # batch
    ours_batch_s: float = 0.0
    pw_batch_s: float = 0.0
    ours_batch_run_ms: list[float] = field(default_factory=list)    # each row's durationMs
    orders_verified: int = 0
    load_average: list[float] = field(default_factory=list)     # 1-minute load at the start and at the end
    seconds: float = 0.0
    one_window_rows: int = ONE_WINDOW_ROWS
    one_window_ok: int = 0
    one_window_s: float = 0.0
    one_window_errors: list[str] = field(default_factory=list)


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def ratio(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or not theirs else ours / theirs


def fmt(value: float | None, spec: str = ".0f") -> str:
    return "n/a" if value is None else format(value, spec)


def verdict(value: float | None, target: float, at_most: bool) -> str:
    if value is None:
        return "NOT MEASURED"
    return "MET" if (value <= target if at_most else value >= target) else "NOT MET"


def summary(r: Results) -> dict[str, Any]:
    a, c = median(r.ours_run_ms), median(r.pw_flow_ms)
    b_ours, b_pw = median(r.ours_cold_s), median(r.pw_cold_s)
    ours_rpm = r.rows / r.ours_batch_s * 60 if r.ours_batch_s else None
    pw_rpm = r.rows / r.pw_batch_s * 60 if r.pw_batch_s else None
    per_step = []
    for index, node_id in enumerate(STEP_NODES):
        o = median([run[index] for run in r.ours_node_ms])
        p = median([run[index] for run in r.pw_step_ms])
        per_step.append({"step": index + 1, "node": node_id, "ours_node_ms": o, "playwright_ms": p,
                         "ratio": ratio(o, p)})
    overhead = [run - nodes for run, nodes in zip(r.ours_run_ms, r.ours_all_nodes_ms)]
    return {
        "in_app": {"ours_run_ms": a, "playwright_steps_ms": c, "ratio": ratio(a, c), "target_max": TARGET_IN_APP,
                   "verdict": verdict(ratio(a, c), TARGET_IN_APP, True),
                   "ours_record_duration_ms": median(r.ours_record_ms),
                   "ours_nodes_sum_ms": median([sum(run) for run in r.ours_node_ms]),
                   "ours_outside_nodes_ms": median(overhead),
                   "ours_full_history_run_ms": median(r.ours_full_history_run_ms),
                   "full_history_ratio": ratio(median(r.ours_full_history_run_ms), c), "per_step": per_step},
        "cold": {"ours_s": b_ours, "playwright_s": b_pw, "ratio": ratio(b_ours, b_pw), "target_max": TARGET_COLD,
                 "verdict": verdict(ratio(b_ours, b_pw), TARGET_COLD, True)},
        "replay": {"run_ms": median(r.replay_run_ms), "cold_s": median(r.replay_cold_s),
                   "cold_run_ms": median(r.replay_cold_run_ms),
                   "ours_in_app_ratio": ratio(a, median(r.replay_run_ms)),
                   "ours_cold_ratio": ratio(b_ours, median(r.replay_cold_s))},
        "batch": {"rows": r.rows, "concurrency": r.concurrency, "ours_s": r.ours_batch_s or None,
                  "playwright_s": r.pw_batch_s or None, "ours_rows_per_min": ours_rpm,
                  "playwright_rows_per_min": pw_rpm, "ratio": ratio(ours_rpm, pw_rpm), "target_min": TARGET_BATCH,
                  "verdict": verdict(ratio(ours_rpm, pw_rpm), TARGET_BATCH, False),
                  "ours_row_run_ms_median": median(r.ours_batch_run_ms),
                  "one_window_check": {"rows": r.one_window_rows, "ok": r.one_window_ok, "seconds": r.one_window_s,
                                       "errors": r.one_window_errors}},
    }


# -- phase 1: cold processes ---------------------------------------------------------------------------------
def measure_playwright_point(base: str) -> tuple[dict[str, float], str]:
    """The range's box in Debian's chromium (Playwright's default 1280x720 page)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=sl.CHROMIUM, headless=True, args=rp.CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.goto(f"{base}/form", wait_until="load")
            box = page.locator("input[type=range]").bounding_box()
            size = page.viewport_size or {"width": 0, "height": 0}
            if box is None:
                raise BenchError("Playwright found no box for the range")
            return ({"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"],
                     "vw": size["width"], "vh": size["height"]}, browser.version)
        finally:
            browser.close()


def cold_phase(sides: Sides, reps: int, verifier: Verifier, files: Path, r: Results) -> None:
    runners: dict[Side, Callable[[Case, int], tuple[float, dict[str, Any], dict[str, Any]]]] = {
        "ours": sides.ours_cold, "playwright": sides.playwright_cold, "replay": sides.replay_cold}
    order: list[Side] = ["ours", "playwright", "replay"]
    run = 0
    for rep in range(-1, reps):
        label = "warm-up" if rep < 0 else f"repetition {rep + 1}/{reps}"
        shift = (rep + 1) % len(order)
        for side in order[shift:] + order[:shift]:
            run += 1
            case = make_case(f"{side} cold process, {label}", f"c{side[0]}{rep + 1}", run, files)
            seconds, readings, raw = runners[side](case, run)
            verifier.check(case, readings)
            if rep < 0:
                continue
            {"ours": r.ours_cold_s, "playwright": r.pw_cold_s, "replay": r.replay_cold_s}[side].append(seconds)
            if side == "replay":
                r.replay_cold_run_ms.append(raw["runs"][0]["ms"])
                r.replay_versions = f"@puppeteer/replay + puppeteer-core, {raw.get('version')}"
        print(f"cold processes, {label}: done", file=sys.stderr, flush=True)
    verifier.check_count("the cold processes")


# -- phase 2 and 3: in the app -------------------------------------------------------------------------------
class PlaywrightThread:
    """The sync API in its one worker thread (it is thread-bound): one browser, one page."""

    def __init__(self) -> None:
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._page: Page | None = None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self.executor.submit(fn, *args))

    def start(self) -> float:
        from playwright.sync_api import sync_playwright

        started = time.perf_counter()
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=sl.CHROMIUM, headless=True,
                                                 args=rp.CHROMIUM_FLAGS)
        self._page = self._browser.new_page()
        self._page.set_default_timeout(rp.TIMEOUT_MS)
        return time.perf_counter() - started

    def flow(self, case: dict[str, Any]) -> tuple[list[float], dict[str, Any]]:
        assert self._page is not None
        return rp.run_flow(self._page, case)

    def traced_flow(self, case: dict[str, Any], tracing: dict[str, bool] | None,
                    path: Path) -> tuple[float, dict[str, Any]]:
        """The flow with the page's context traced (`tracing`: the options of `tracing.start`; None: not traced),
        until the trace's zip is written; its milliseconds and what the page said."""
        assert self._page is not None
        started = time.perf_counter()
        if tracing is not None:
            self._page.context.tracing.start(**tracing)
        _steps, readings = rp.run_flow(self._page, case)
        if tracing is not None:
            self._page.context.tracing.stop(path=str(path))
        return (time.perf_counter() - started) * 1000, readings

    def stop(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            if self._pw is not None:
                self._pw.stop()
            self._browser = self._pw = None


async def in_app(sides: Sides, reps: int, rows: int, verifier: Verifier, files: Path, r: Results) -> None:
    from PySide6 import QtWebEngineCore

    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    qt_version, chromium = (str(v) for v in (QtWebEngineCore.qWebEngineVersion(),  # str at run time
                                             QtWebEngineCore.qWebEngineChromiumVersion()))
    r.qtwebengine_version = f"{qt_version} (Chromium {chromium})"
    data_dir = sides.work / "app-data"
    pw = PlaywrightThread()
    shell: BrowserPilotApp | None = None
    try:
        print("starting Playwright's chromium ...", file=sys.stderr, flush=True)
        r.playwright_launch_s = await pw.call(pw.start)
        print("starting BrowserPilot in-process ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        shell = BrowserPilotApp(DataDir(data_dir), headless=True)
        shell.start([])
        opened = await shell.registry.call(shell.ctx, "tab_open", {"url": "about:blank"})
        if not opened.get("ok"):
            raise BenchError(f"tab_open failed: {opened.get('error')}")
        tab = opened["tabId"]
        r.app_start_s = time.perf_counter() - started
        app = shell

        async def op(name: str, params: dict[str, Any], timeout: float) -> tuple[float, dict[str, Any]]:
            began = time.perf_counter()
            envelope = await asyncio.wait_for(app.registry.call(app.ctx, name, params), timeout)
            return (time.perf_counter() - began) * 1000, envelope

        # (a) and (c), alternating
        run = 1000
        for rep in range(-1, reps):
            label = "warm-up" if rep < 0 else f"repetition {rep + 1}/{reps}"
            order: list[Side] = ["ours", "playwright"] if rep % 2 else ["playwright", "ours"]
            for side in order:
                run += 1
                case = make_case(f"{side} in-process, {label}", f"i{side[0]}{rep + 1}", run, files)
                if side == "ours":
                    ms, envelope = await op("workflow_run", {"workflow": sides.doc, "inputs": case.inputs(),
                                                             "tabId": tab}, OP_TIMEOUT_S)
                    if not envelope.get("ok"):
                        raise BenchError(f"{case.label}: {envelope.get('error')}")
                    record = envelope["run"]
                    verifier.check(case, record.get("outputs"))
                    if rep >= 0:
                        trace = {entry["node"]: entry["ms"] for entry in record["trace"]}
                        r.ours_run_ms.append(ms)
                        r.ours_record_ms.append(record["durationMs"])
                        r.ours_node_ms.append([trace[n] for n in STEP_NODES])
                        r.ours_all_nodes_ms.append(sum(trace.values()))
                else:
                    step_ms, readings = await pw.call(pw.flow, case.playwright(sides.base, sides.pw_point))
                    verifier.check(case, readings)
                    if rep >= 0:
                        r.pw_flow_ms.append(sum(step_ms))
                        r.pw_step_ms.append(step_ms)
            print(f"in-process, {label}: done", file=sys.stderr, flush=True)
        await pw.call(pw.stop)

        # (d) warm: one node process replays reps + 1 recordings on one page (the first is the warm-up)
        cases = [make_case(f"replay in one process, {'warm-up' if i == 0 else f'repetition {i}/{reps}'}",
                           f"ir{i}", 2000 + i, files) for i in range(reps + 1)]
        spec = sides.replay_spec(cases, "replay-spec-warm.json")
        done = await asyncio.to_thread(spawn, "replay in one process", [sides.node, str(BENCH / "replay.mjs"),
                                                                        str(spec)],
                                       {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
        result = last_json("replay in one process", done.stdout)
        for case, replayed in zip(cases, result["runs"]):
            verifier.check(case, replayed["readings"])
        r.replay_run_ms = [replayed["ms"] for replayed in result["runs"][1:]]
        print("replay in one process: done", file=sys.stderr, flush=True)
        verifier.check_count("the in-process runs")

        # the batch: Playwright with three contexts, then ours
        pw_cases = [make_case(f"Playwright batch, row {i}", f"bp{i}", 3000 + i, files) for i in range(rows)]
        print(f"batch: Playwright, {rows} rows through {CONCURRENCY} contexts ...", file=sys.stderr, flush=True)
        seconds, readings_list, errors = await asyncio.to_thread(
            rp.run_batch, [c.playwright(sides.base, sides.pw_point) for c in pw_cases], CONCURRENCY, sl.CHROMIUM)
        if errors:
            raise BenchError(f"Playwright batch: {len(errors)} rows failed: {'; '.join(errors[:3])}")
        for case, row_readings in zip(pw_cases, readings_list):
            verifier.check(case, row_readings)
        r.pw_batch_s = seconds
        envs = ["env-default"]
        for name in ("Bench B", "Bench C"):
            created = (await op("env_create", {"name": name}, 30))[1]
            if not created.get("ok"):
                raise BenchError(f"env_create failed: {created.get('error')}")
            envs.append(created["environment"]["id"])
        ours_cases = [make_case(f"ours batch, row {i}", f"bo{i}", 4000 + i, files) for i in range(rows)]
        print(f"batch: ours, workflow_batch of {rows} rows at concurrency {CONCURRENCY} over {len(envs)} "
              "environments ...", file=sys.stderr, flush=True)
        ms, envelope = await op("workflow_batch", {"workflow": sides.doc, "rows": [c.inputs() for c in ours_cases],
                                                   "concurrency": CONCURRENCY, "envs": envs}, OP_TIMEOUT_S * rows)
        if "results" not in envelope:  # (its data's "ok" is the count of ok rows: it replaces the envelope's)
            raise BenchError(f"workflow_batch: {envelope.get('error')}")
        failed = [row for row in envelope["results"] if row["status"] != "ok"]
        if failed or envelope.get("total") != rows or len(envelope["results"]) != rows:
            raise BenchError(f"workflow_batch: {len(failed)} of {envelope.get('total')} rows failed: " +
                             "; ".join(f"row {row['row']}: {row.get('error')}" for row in failed[:3]))
        for case, row in zip(ours_cases, envelope["results"]):
            verifier.check(case, row.get("outputs"))
        r.ours_batch_s = ms / 1000
        listed = await op("run_list", {"limit": 200}, 30)
        durations = {run["id"]: run["durationMs"] for run in listed[1].get("runs", [])}
        r.ours_batch_run_ms = [durations[row["runId"]] for row in envelope["results"] if row["runId"] in durations]
        verifier.check_count("the batches")

        # Not measured, reported: the same batch with its three tabs in one environment's window.
        one_env = [make_case(f"ours one-window batch, row {i}", f"b1{i}", 5000 + i, files)
                   for i in range(ONE_WINDOW_ROWS)]
        print(f"batch check: {ONE_WINDOW_ROWS} rows at concurrency {CONCURRENCY} in one environment ...",
              file=sys.stderr, flush=True)
        ms, envelope = await op("workflow_batch", {"workflow": sides.doc, "rows": [c.inputs() for c in one_env],
                                                   "concurrency": CONCURRENCY}, OP_TIMEOUT_S * ONE_WINDOW_ROWS)
        if "results" not in envelope:
            raise BenchError(f"workflow_batch in one environment: {envelope.get('error')}")
        r.one_window_s = ms / 1000
        for case, row in zip(one_env, envelope["results"]):
            if row["status"] == "ok":
                verifier.check(case, row.get("outputs"))
                r.one_window_ok += 1
            else:
                r.one_window_errors.append(f"row {row['row']}: {row.get('error')}")
        verifier.runs = max(verifier.runs, verifier.book.count())  # a failed row may have submitted

        # (a) again with a full run history: runs.json holds its maximum of 200 records (copies of real ones),
        # as it does for anyone who has used the app for a while.
        from workflows.runs import MAX_RUNS, new_run_id

        model = app.ctx.runs.list(limit=1)[0]
        while len(app.ctx.runs.list(limit=MAX_RUNS)) < MAX_RUNS:
            app.ctx.runs.save(model.model_copy(update={"id": new_run_id()}, deep=True))
        print(f"in-process with {MAX_RUNS} runs in runs.json ...", file=sys.stderr, flush=True)
        for rep in range(reps):
            case = make_case(f"ours in-process with a full run history, repetition {rep + 1}/{reps}",
                             f"ih{rep + 1}", 6000 + rep, files)
            ms, envelope = await op("workflow_run", {"workflow": sides.doc, "inputs": case.inputs(), "tabId": tab},
                                    OP_TIMEOUT_S)
            if not envelope.get("ok"):
                raise BenchError(f"{case.label}: {envelope.get('error')}")
            verifier.check(case, envelope["run"].get("outputs"))
            r.ours_full_history_run_ms.append(ms)
        verifier.check_count("the runs with a full history")
    finally:
        if shell is not None:
            shell.shutdown()
            await asyncio.sleep(0.3)  # let Qt delete the pages and profiles
        try:
            await pw.call(pw.stop)
        except Exception as exc:  # stopping must not hide the run's own error
            print(f"replay: stopping Playwright: {exc}", file=sys.stderr)
        pw.executor.shutdown(wait=True)


TRACE_SIDES: tuple[tuple[str, dict[str, str]], ...] = (
    ("off", {"trace": "off", "video": "off"}), ("on-failure", {"trace": "on-failure", "video": "off"}),
    ("trace always", {"trace": "always", "video": "off"}),
    ("video always", {"trace": "off", "video": "always"}), ("both always", {"trace": "always", "video": "always"}))
TARGET_TRACE = 1.2   # trace always / off, at most
TARGET_VIDEO = 1.4   # video always / off, at most


async def traces_in_app(sides: Sides, reps: int, verifier: Verifier, files: Path) -> dict[str, Any]:
    """(a) with each trace and video mode, rotating: workflow_run times (ms) and the disk each run kept."""
    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir
    from workflows.tracing import size_of, trace_files

    shell = BrowserPilotApp(DataDir(sides.work / "traces-data"), headless=True)
    shell.start([])
    times: dict[str, list[float]] = {name: [] for name, _modes in TRACE_SIDES}
    disk: dict[str, list[int]] = {name: [] for name, _modes in TRACE_SIDES}
    try:
        opened = await shell.registry.call(shell.ctx, "tab_open", {"url": "about:blank"})
        if not opened.get("ok"):
            raise BenchError(f"tab_open failed: {opened.get('error')}")
        tab = opened["tabId"]
        run = 7000
        for rep, label, name, modes in rotating(TRACE_SIDES, reps, "traces"):
            run += 1
            case = make_case(f"ours, {name}, {label}", f"t{run}", run, files)
            began = time.perf_counter()
            envelope = await asyncio.wait_for(shell.registry.call(shell.ctx, "workflow_run", {
                "workflow": sides.doc, "inputs": case.inputs(), "tabId": tab, **modes}), OP_TIMEOUT_S)
            ms = (time.perf_counter() - began) * 1000
            if not envelope.get("ok"):
                raise BenchError(f"{case.label}: {envelope.get('error')}")
            record = envelope["run"]
            verifier.check(case, record.get("outputs"))
            kept = await asyncio.to_thread(lambda: sum(size_of(path) for path in trace_files(
                shell.ctx.runs.folder(record["id"]))))
            missing = [e["node"] for e in record["trace"] if not e.get("after")]
            if modes["trace"] == "always" and missing:
                raise BenchError(f"{case.label}: nodes without a screenshot: {missing} ({record.get('notes')})")
            if modes["video"] == "always" and not record.get("video"):
                raise BenchError(f"{case.label}: no video was kept ({record.get('notes')})")
            if rep >= 0:
                times[name].append(ms)
                disk[name].append(kept)
        verifier.check_count("the traced runs")
    finally:
        shell.shutdown()
        await asyncio.sleep(0.3)
    result = by_mode(times, disk)
    result["playwright"] = await playwright_traces(sides, reps, verifier, files)
    return result


def rotating(modes: Sequence[tuple[str, T]], reps: int, what: str) -> Iterator[tuple[int, str, str, T]]:
    """A warm-up (rep -1), then `reps` repetitions of every mode, the order shifted by one each time: (rep, label,
    mode name, mode); says on stderr when each repetition is done."""
    for rep in range(-1, reps):
        label = "warm-up" if rep < 0 else f"repetition {rep + 1}/{reps}"
        shift = (rep + 1) % len(modes)
        for name, mode in [*modes[shift:], *modes[:shift]]:
            yield rep, label, name, mode
        print(f"{what}, {label}: done", file=sys.stderr, flush=True)


def by_mode(times: dict[str, list[float]], disk: dict[str, list[int]]) -> dict[str, Any]:
    """Each mode's median ms, its ratio to and ms over "off", its median disk (KB) and its runs."""
    base = median(times["off"])
    return {name: {"ms": median(runs), "ratio": ratio(median(runs), base),
                   "addedMs": median(runs) - base if base is not None and runs else None,
                   "diskKB": (median([float(v) for v in disk[name]]) or 0) / 1024, "runs": runs}
            for name, runs in times.items()}


PLAYWRIGHT_TRACE_SIDES: tuple[tuple[str, dict[str, bool] | None], ...] = (
    ("off", None), ("screenshots", {"screenshots": True}),
    ("screenshots + snapshots", {"screenshots": True, "snapshots": True}))


async def playwright_traces(sides: Sides, reps: int, verifier: Verifier, files: Path) -> dict[str, Any]:
    """For reference: the flow in Playwright with its tracing off and on, rotating (see the module docstring)."""
    pw = PlaywrightThread()
    rect, _version = await asyncio.to_thread(measure_playwright_point, sides.base)
    point = range_point(rect)
    times: dict[str, list[float]] = {name: [] for name, _options in PLAYWRIGHT_TRACE_SIDES}
    disk: dict[str, list[int]] = {name: [] for name, _options in PLAYWRIGHT_TRACE_SIDES}
    try:
        await pw.call(pw.start)
        run = 8000
        for rep, label, name, options in rotating(PLAYWRIGHT_TRACE_SIDES, reps, "Playwright traces"):
            run += 1
            case = make_case(f"Playwright, tracing {name}, {label}", f"pt{run}", run, files)
            path = sides.work / f"playwright-trace-{run}.zip"
            ms, readings = await pw.call(pw.traced_flow, case.playwright(sides.base, point), options, path)
            verifier.check(case, readings)
            if rep >= 0:
                times[name].append(ms)
                disk[name].append(path.stat().st_size if path.exists() else 0)
            path.unlink(missing_ok=True)
        verifier.check_count("the traced runs and Playwright's")
    finally:
        await pw.call(pw.stop)
        pw.executor.shutdown()
    return by_mode(times, disk)


def probe_run(base: str, work: Path) -> tuple[float, dict[str, Any]]:
    """The cold probe run (where the range's point is, for ours): its seconds and outputs."""
    probe_file = work / "probe.workflow.json"
    probe_file.write_text(json.dumps(probe_document(base)), "utf-8")
    probe = spawn("ours: the probe run", [str(BROWSERPILOT), "run", str(probe_file), "--headless", "--json",
                                          "--data-dir", str(work / "probe-data")])
    record = last_json("ours: the probe run", probe.stdout)
    if record.get("status") != "ok":
        raise BenchError(f"ours: the probe run ended {record.get('status')}: {record.get('error')}")
    return probe.seconds, record["outputs"]


def run_traces(reps: int) -> dict[str, Any]:
    """`--traces`: the probe (for the range's point), then `traces_in_app`."""
    book = sl.OrderBook()
    server = sl.start_server(book)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    work = Path(tempfile.mkdtemp(prefix="bench-replay-traces-"))
    files = work / "files"
    files.mkdir()
    try:
        sides = Sides(base, work, "")
        _seconds, outputs = probe_run(base, work)
        sides.doc = workflow_document(base, range_point(outputs))
        return run_in_qt(lambda: traces_in_app(sides, reps, Verifier(book), files))
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(work, ignore_errors=True)


def print_traces(result: dict[str, Any], reps: int) -> None:
    print(f"Workflow replay (20 steps) in the app, {reps} repetitions per mode (+1 warm-up), medians; every run "
          "verified.")
    print(f"{'mode':<14} {'workflow_run ms':>16} {'/ off':>7} {'added ms':>9} {'kept per run':>14}")
    for name, _modes in TRACE_SIDES:
        row = result[name]
        print(f"{name:<14} {fmt(row['ms']):>16} {fmt(row['ratio'], '.2f'):>7} {fmt(row['addedMs']):>9} "
              f"{row['diskKB']:>11.0f} KB")
    print(f"For reference, the same flow in Playwright ({reps} repetitions per mode, +1 warm-up), tracing until its "
          "zip is written:")
    print(f"{'tracing':<24} {'flow ms':>8} {'/ off':>7} {'added ms':>9} {'zip':>10}")
    for name, _options in PLAYWRIGHT_TRACE_SIDES:
        row = result["playwright"][name]
        print(f"{name:<24} {fmt(row['ms']):>8} {fmt(row['ratio'], '.2f'):>7} {fmt(row['addedMs']):>9} "
              f"{row['diskKB']:>7.0f} KB")
    print(f"targets: trace always <= {TARGET_TRACE}x off: "
          f"{verdict(result['trace always']['ratio'], TARGET_TRACE, True)}; video always <= {TARGET_VIDEO}x off: "
          f"{verdict(result['video always']['ratio'], TARGET_VIDEO, True)}")


def run_in_qt(main: Callable[[], Awaitable[T]]) -> T:
    """Start Qt and asyncio as the headless app does (app/startup/qt_asyncio.py) and run."""
    from app.startup.qt_asyncio import run_in_qt as run_headless

    return run_headless(main)


# -- the run -------------------------------------------------------------------------------------------------
def run_all(reps: int, rows: int, r: Results) -> None:
    node = ensure_node_packages()
    if not BROWSERPILOT.exists():
        raise BenchError(f"{BROWSERPILOT} is missing (pip install -e . into the venv)")
    book = sl.OrderBook()
    server = sl.start_server(book)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    work = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    files = work / "files"
    files.mkdir()
    verifier = Verifier(book)
    try:
        sides = Sides(base, work, node)
        # Where the range's 80% point is, in each engine (not timed).
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as one:
            pw_rect, r.chromium_version = one.submit(measure_playwright_point, base).result()
        sides.pw_point = range_point(pw_rect)
        sides.pw_offset = range_offset(pw_rect)
        r.probe_cold_s, outputs = probe_run(base, work)
        sides.ours_point = range_point(outputs)
        r.ours_point = [round(v, 1) for v in sides.ours_point]
        r.playwright_point = [round(v, 1) for v in sides.pw_point]
        sides.doc = workflow_document(base, sides.ours_point)
        sides.workflow_file.write_text(json.dumps(sides.doc, ensure_ascii=False, indent=1), "utf-8")

        print("phase 1: cold processes ...", file=sys.stderr, flush=True)
        cold_phase(sides, reps, verifier, files, r)
        print("phase 2: in-process ...", file=sys.stderr, flush=True)
        run_in_qt(lambda: in_app(sides, reps, rows, verifier, files, r))
        r.orders_verified = verifier.runs
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(work, ignore_errors=True)


def print_table(r: Results, s: dict[str, Any]) -> None:
    a, b, d, batch = s["in_app"], s["cold"], s["replay"], s["batch"]
    print(f"Workflow replay, {r.reps} repetitions per side (+1 warm-up each), medians; batch {r.rows} rows at "
          f"concurrency {r.concurrency}. Every run verified: {r.orders_verified} orders.")
    print(f"Ours: QtWebEngine {r.qtwebengine_version} (code digest {r.source_digest}); peers: chromium "
          f"{r.chromium_version}; {r.replay_versions}.")
    print(f"Range point (80%): ours {r.ours_point}, chromium {r.playwright_point}. Whole run {r.seconds:.0f} s; "
          f"1-minute load average {' -> '.join(f'{v:.1f}' for v in r.load_average)} on {os.cpu_count()} CPUs.")
    print()
    print(f"{'#':>2}  {'ours node':<12} {'ours ms':>8} {'pw ms':>8} {'ours/pw':>7}")
    for row in a["per_step"]:
        print(f"{row['step']:>2}  {row['node']:<12} {fmt(row['ours_node_ms'], '.1f'):>8} "
              f"{fmt(row['playwright_ms'], '.1f'):>8} {fmt(row['ratio'], '.2f'):>7}")
    print(f"    {'sum':<12} {fmt(a['ours_nodes_sum_ms'], '.0f'):>8} {fmt(a['playwright_steps_ms'], '.0f'):>8}")
    print()
    print(f"(a) in the app, workflow_run call (run start to record written): {fmt(a['ours_run_ms'])} ms; "
          f"(c) Playwright's 20 steps: {fmt(a['playwright_steps_ms'])} ms -> {fmt(a['ratio'], '.2f')}x "
          f"(target <= {TARGET_IN_APP}x: {a['verdict']})")
    print(f"    ours: run record durationMs {fmt(a['ours_record_duration_ms'])} ms, the 20 step nodes "
          f"{fmt(a['ours_nodes_sum_ms'])} ms, outside the nodes (validation, tab, lock, records) "
          f"{fmt(a['ours_outside_nodes_ms'])} ms")
    print(f"    ours with a full run history (200 runs in runs.json, after the batch): workflow_run "
          f"{fmt(a['ours_full_history_run_ms'])} ms -> {fmt(a['full_history_ratio'], '.2f')}x Playwright's steps")
    print(f"(b) cold process, spawn to exit: browserpilot run {fmt(b['ours_s'], '.2f')} s; python Playwright "
          f"script {fmt(b['playwright_s'], '.2f')} s -> {fmt(b['ratio'], '.2f')}x "
          f"(target <= {TARGET_COLD}x: {b['verdict']})")
    print(f"(d) @puppeteer/replay: {fmt(d['run_ms'])} ms per replay in one process (ours (a) / it: "
          f"{fmt(d['ours_in_app_ratio'], '.2f')}x); cold node process {fmt(d['cold_s'], '.2f')} s (ours (b) / it: "
          f"{fmt(d['ours_cold_ratio'], '.2f')}x; the replay inside it {fmt(d['cold_run_ms'])} ms)")
    print(f"Batch, {batch['rows']} rows at concurrency {batch['concurrency']}: ours workflow_batch over 3 environments "
          f"{fmt(batch['ours_s'], '.1f')} s = {fmt(batch['ours_rows_per_min'], '.1f')} rows/min (a row's run "
          f"{fmt(batch['ours_row_run_ms_median'])} ms median); Playwright, 3 contexts {fmt(batch['playwright_s'], '.1f')} s "
          f"= {fmt(batch['playwright_rows_per_min'], '.1f')} rows/min -> {fmt(batch['ratio'], '.2f')}x "
          f"(target >= {TARGET_BATCH}x: {batch['verdict']})")
    check = batch["one_window_check"]
    errors = check["errors"]
    print(f"Check (not measured): workflow_batch of {check['rows']} rows at concurrency {r.concurrency} in ONE "
          f"environment: {check['ok']} ok, {len(errors)} failed in {check['seconds']:.1f} s"
          + (f"; first error: {errors[0]}" if errors else ""))
    print(f"Start-up (not in the in-process times): app + tab {r.app_start_s:.2f} s; Playwright + chromium "
          f"{r.playwright_launch_s:.2f} s; the cold probe run {r.probe_cold_s:.2f} s")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=None, help=f"repetitions per side (default {DEFAULT_REPS})")
    parser.add_argument("--rows", type=int, default=None, help=f"rows in each batch (default {DEFAULT_ROWS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_REPS} repetitions and {QUICK_ROWS} rows unless --reps/--rows say otherwise")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (with its .venv) measured first with its own bench/replay.py")
    parser.add_argument("--traces", action="store_true",
                        help="only the in-app runs with trace and video off, always, and both")
    args = parser.parse_args(argv)
    args.reps = args.reps if args.reps is not None else (QUICK_REPS if args.quick else DEFAULT_REPS)
    args.rows = args.rows if args.rows is not None else (QUICK_ROWS if args.quick else DEFAULT_ROWS)
    if args.reps < 1 or args.rows < CONCURRENCY:
        parser.error(f"--reps must be at least 1 and --rows at least {CONCURRENCY}")
    return args


BEFORE_AFTER = (("in_app", "ours_run_ms", "(a) in-app workflow_run, ms"), ("in_app", "ratio", "(a) / Playwright's steps"),
                ("in_app", "ours_nodes_sum_ms", "(a) the 20 nodes, ms"),
                ("in_app", "ours_outside_nodes_ms", "(a) outside the nodes, ms"),
                ("in_app", "ours_full_history_run_ms", "(a) with 200 runs in history, ms"),
                ("in_app", "full_history_ratio", "(a) with history / Playwright"),
                ("cold", "ours_s", "(b) cold browserpilot run, s"), ("cold", "ratio", "(b) / Playwright's script"),
                ("batch", "ours_rows_per_min", "batch rows/min"), ("batch", "ratio", "batch / Playwright"))


def against(checkout: Path, reps: int, rows: int) -> dict[str, Any] | None:
    """DIR's own bench/replay.py, with its .venv, same repetitions and rows: its JSON summary."""
    python = checkout / ".venv" / "bin" / "python"
    done = subprocess.run([str(python), str(checkout / "bench" / "replay.py"), "--reps", str(reps), "--rows",
                           str(rows), "--json"], capture_output=True, text=True, cwd=checkout)
    if done.returncode != 0:
        print(f"replay: {checkout} failed: {done.stderr.strip()[-2000:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout)["summary"]


def print_before_after(before: dict[str, Any], after: dict[str, Any], checkout: Path) -> None:
    print()
    print(f"Before ({checkout}) and after (this checkout), measured one after the other in this run:")
    print(f"{'':<38} {'before':>9} {'after':>9} {'after/before':>12}")
    for section, key, label in BEFORE_AFTER:
        old, new = before[section].get(key), after[section].get(key)
        print(f"{label:<38} {fmt(old, '.2f'):>9} {fmt(new, '.2f'):>9} {fmt(ratio(new, old), '.2f'):>12}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.traces:
        try:
            traced = run_traces(args.reps)
        except BenchError as exc:
            print(f"replay: {exc}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps(traced, indent=2))
        else:
            print_traces(traced, args.reps)
        return 0
    if not os.access(sl.CHROMIUM, os.X_OK):
        print(f"replay: {sl.CHROMIUM} is missing or not executable", file=sys.stderr)
        return 1
    before = against(args.against, args.reps, args.rows) if args.against else None
    if args.against and before is None:
        return 1
    results = Results(reps=args.reps, rows=args.rows, source_digest=sl.source_digest())
    began = time.perf_counter()
    results.load_average.append(os.getloadavg()[0])
    try:
        run_all(args.reps, args.rows, results)
    except BenchError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 1
    results.load_average.append(os.getloadavg()[0])
    results.seconds = round(time.perf_counter() - began, 1)
    s = summary(results)
    if args.json:
        print(json.dumps({"run": asdict(results), "summary": s, "before": before}, indent=2, ensure_ascii=False))
    else:
        print_table(results, s)
        if before is not None:
            print_before_after(before, s, args.against)
    return 0


if __name__ == "__main__":
    sys.exit(main())
