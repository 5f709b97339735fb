"""A long soak: memory, open files and threads of a long-lived app over many runs of one small workflow, and the
same flow in one Playwright page for comparison.

The flow (a stdlib HTTP server on 127.0.0.1, port 0, in a thread): load an order form, fill a name, choose a size,
tick "Gift wrap", submit (a POST answered with a redirect), wait for the thanks page. As a BrowserPilot 0.3.0
workflow: start (inputs `name`, `size`), goto, fill, select, click, click, wait `#thanks`, end (the thanks
text). Every run is verified by the server: each name must arrive exactly once, with its size and the box
ticked, and the run's output must be the thanks text of that order.

Scenarios (`--scenarios`, default all five):
- `app-1`: the app (`browserpilot --headless` on a fresh data folder, a subprocess) reached over MCP like any
  agent client; N `workflow_run` calls one after another in env-default (each run in the environment's active
  tab, the tab an agent or a schedule uses: the tab lives as long as the app);
- `app-3`: the same in three environments, three callers at once (one per environment, N/3 runs each);
- `batch-1`: one `workflow_batch` call of N rows at concurrency 1 in env-default;
- `batch-3`: one `workflow_batch` call of N rows at concurrency 3 over three environments;
- `playwright`: Playwright for Python (sync API) on Debian's chromium, one page, the same flow N times.

Sampling: a thread samples every `--interval` seconds, for the app, every process of its tree (the app process
and QtWebEngine's renderers, zygotes, utility processes), for Playwright every Chromium process under this
process: PSS (from /proc/PID/smaps_rollup; RSS would count shared pages once per process), open files
(/proc/PID/fd), threads; with each sample the number of orders the server had received, so a sample is placed
at its run count whatever the scenario's pace. Growth per 100 runs is the least-squares slope of the tree's
PSS over the run count, over the samples after the warm-up (`--warmup`, default a tenth of N, at least 50
runs); the same for the app process and the renderers alone, to tell where memory goes. Per-run time: the
median of the `workflow_run` calls (app-*; with three callers at once, each call's own time), the batch's
wall time over its rows (batch-*), the median flow (playwright).

Target: at most 10 MB per 100 runs after warm-up over 1,000 runs, in one and in several environments.

Before and after: `--checkout DIR` starts the app from another checkout (its code on PYTHONPATH with this
checkout's interpreter and packages; read only: the data folder is a fresh temporary one), for example the
main branch's, so one run of this file gives the "before" figures of the same harness.

Run: `.venv/bin/python bench/soak.py [--runs N] [--scenarios app-1,batch-3,...] [--checkout DIR] [--json]`
(N defaults to 1000; `--quick` is 150 runs). Needs `pip install playwright` (the bench extra) and
/usr/bin/chromium; never `playwright install`. Exit status: 0 when every run was verified (whether or not the
target is met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import parse_qs, urlsplit

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from app.mcp.client import wait_for_endpoint  # noqa: E402
from plumbing.datadir import DataDir  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
SCENARIOS = ("app-1", "app-3", "batch-1", "batch-3", "playwright")
DEFAULT_RUNS = 1000
QUICK_RUNS = 150
TARGET_MB_PER_100 = 10.0
SIZES = ("S", "M", "L")
MB = 1024 * 1024
CALL_TIMEOUT_S = 120.0

FORM = """<!doctype html><html lang=en><head><meta charset=utf-8><title>Order form</title>
<style>body{font:15px sans-serif;margin:2em} label{display:block;margin:.6em 0}</style></head><body>
<h1>Order</h1><p>Orders so far: <span id=orders>%d</span></p>
<form id=f method=post action=/order>
<label>Name <input name=name autocomplete=off></label>
<label>Size <select name=size><option value="">Choose</option><option value=S>Small</option>
<option value=M>Medium</option><option value=L>Large</option></select></label>
<label><input type=checkbox name=gift value=yes> Gift wrap</label>
<button type=submit>Place order</button></form>
<script>document.getElementById('f').addEventListener('submit', () => { window.sent = Date.now(); });</script>
</body></html>"""
THANKS = """<!doctype html><html lang=en><head><meta charset=utf-8><title>Thanks</title></head><body>
<h1 id=thanks>Thanks, %s: order %d</h1><p><a href=/form>New order</a></p></body></html>"""


class BenchError(RuntimeError):
    """A run failed or was not verified."""


# -- the shop ------------------------------------------------------------------------------------------------
@dataclass
class Order:
    number: int
    name: str
    size: str
    gift: bool


class Shop:
    """The form's server: every order by name (a name ordered twice is a double submit)."""

    def __init__(self) -> None:
        self.orders: dict[str, Order] = {}
        self.doubles: list[str] = []
        self._lock = threading.Lock()
        shop = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = urlsplit(self.path)
                if path.path == "/form":
                    self._send(200, (FORM % shop.count()).encode())
                elif path.path == "/thanks":
                    number = int(parse_qs(path.query).get("n", ["0"])[0])
                    order = shop.by_number(number)
                    self._send(200, (THANKS % (order.name if order else "?", number)).encode())
                else:
                    self._send(404, b"not found")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                fields = parse_qs(self.rfile.read(length).decode())
                number = shop.take(fields.get("name", [""])[0], fields.get("size", [""])[0],
                                   fields.get("gift", [""])[0] == "yes")
                self._send(303, b"", {"Location": f"/thanks?n={number}"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self, name: str, size: str, gift: bool) -> int:
        with self._lock:
            if name in self.orders:
                self.doubles.append(name)
                return self.orders[name].number
            order = Order(len(self.orders) + 1, name, size, gift)
            self.orders[name] = order
            return order.number

    def count(self) -> int:
        with self._lock:
            return len(self.orders)

    def by_number(self, number: int) -> Order | None:
        with self._lock:
            return next((o for o in self.orders.values() if o.number == number), None)

    def verify(self, names: Sequence[str], sizes: dict[str, str]) -> None:
        """Each name ordered exactly once, with its size and the box ticked."""
        with self._lock:
            if self.doubles:
                raise BenchError(f"double submits: {self.doubles[:5]}")
            missing = [name for name in names if name not in self.orders]
            if missing:
                raise BenchError(f"{len(missing)} order(s) never reached the server, e.g. {missing[:5]}")
            wrong = [name for name in names if self.orders[name].size != sizes[name] or not self.orders[name].gift]
            if wrong:
                raise BenchError(f"{len(wrong)} order(s) arrived with wrong values, e.g. {wrong[:5]}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def workflow_document(base: str) -> dict[str, Any]:
    def node(node_id: str, kind: str, **fields: Any) -> dict[str, Any]:
        return {"id": node_id, "data": {"type": kind, "title": node_id, **fields}}

    nodes = [
        node("start", "start", variables=[{"variable": "name", "label": "Name", "type": "string"},
                                          {"variable": "size", "label": "Size", "type": "string"}]),
        node("open", "goto", url=f"{base}/form"),
        node("name", "fill", locator={"selector": "[name=name]"}, entry="type", text="{{#input.name#}}"),
        node("size", "select", locator={"selector": "[name=size]"}, option="{{#input.size#}}"),
        node("gift", "click", locator={"selector": "[name=gift]"}),
        node("submit", "click", locator={"selector": "text=Place order"}),
        node("thanks", "wait", locator={"selector": "#thanks"}, state="appear", timeout=20),
        node("read", "script", source="return {value: document.querySelector('#thanks').textContent};"),
        node("end", "end", outputs=[{"variable": "thanks", "value_selector": ["read", "value"]}]),
    ]
    edges = [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Soak order", "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": edges}}}


def row(scenario: str, index: int) -> dict[str, str]:
    return {"name": f"{scenario}-{index:05d}", "size": SIZES[index % 3]}


# -- sampling ------------------------------------------------------------------------------------------------
def pss_bytes(pid: int) -> tuple[int, int]:
    """The process's PSS and the anonymous part of it (its heaps: what a leak grows; the rest is mostly shared
    libraries, whose share moves whenever another process maps the same files or stops)."""
    pss = anon = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith(b"Pss_Anon:"):
                    anon = int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return pss, anon


def kind_of(proc: psutil.Process, root_pid: int) -> str:
    try:
        cmdline = proc.cmdline()
    except psutil.Error:
        return "other"
    if proc.pid == root_pid:
        return "browser" if cmdline and "chrom" in cmdline[0] else "app"
    kind = next((arg.split("=", 1)[1] for arg in cmdline if arg.startswith("--type=")), None)
    if kind is None:
        return "browser" if cmdline and "chrom" in cmdline[0] else "other"
    if kind == "zygote":  # QtWebEngine's renderers are forked from the zygote and keep its command line
        try:
            parent = proc.parent()
            if parent is not None and "--type=zygote" in parent.cmdline():
                return "renderer"
        except psutil.Error:
            pass
    return kind


@dataclass
class Sample:
    at: float
    runs: int
    pss_mb: float
    by_kind: dict[str, float]
    anon_mb: float
    processes: int
    files: int
    threads: int


class Sampler:
    """Samples a process tree every `interval` seconds on a thread (see the module docstring)."""

    def __init__(self, roots: Callable[[], list[psutil.Process]], root_pid: int, runs: Callable[[], int],
                 interval: float) -> None:
        self._roots = roots
        self._root_pid = root_pid
        self._runs = runs
        self._interval = interval
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="soak-sampler", daemon=True)

    def sample(self) -> Sample:
        processes: dict[int, psutil.Process] = {}
        for root in self._roots():
            processes[root.pid] = root
            try:
                for child in root.children(recursive=True):
                    processes[child.pid] = child
            except psutil.Error:
                pass
        by_kind: dict[str, float] = {}
        files = threads = 0
        total = anon = 0
        for proc in processes.values():
            pss, private = pss_bytes(proc.pid)
            total += pss
            anon += private
            kind = kind_of(proc, self._root_pid)
            by_kind[kind] = by_kind.get(kind, 0.0) + pss / MB
            try:
                files += proc.num_fds()
                threads += proc.num_threads()
            except psutil.Error:
                pass
        sample = Sample(time.monotonic(), self._runs(), total / MB, by_kind, anon / MB, len(processes), files, threads)
        self.samples.append(sample)
        return sample

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def __enter__(self) -> "Sampler":
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()  # after the runs (a batch has closed its tabs): reported, not part of the growth


def slope_per_100(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of y over x, times 100 (MB per 100 runs); None with fewer than 3 points."""
    if len(points) < 3:
        return None
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    if var == 0:
        return None
    return 100 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var


@dataclass
class Result:
    scenario: str
    runs: int
    per_run_ms: float
    growth_mb_per_100: float | None
    growth_by_kind: dict[str, float | None]
    anon_growth_mb_per_100: float | None
    pss_after_warmup_mb: float
    pss_end_mb: float
    pss_after_mb: float  # once the runs were over (a batch's tabs closed)
    files: tuple[int, int]
    threads: tuple[int, int]
    processes: tuple[int, int]
    samples: list[dict[str, Any]] = field(default_factory=list)

    def line(self) -> str:
        growth = "n/a" if self.growth_mb_per_100 is None else f"{self.growth_mb_per_100:+.1f}"
        anon = "n/a" if self.anon_growth_mb_per_100 is None else f"{self.anon_growth_mb_per_100:+.1f}"
        kinds = ", ".join(f"{kind} {value:+.1f}" for kind, value in sorted(self.growth_by_kind.items())
                          if value is not None and abs(value) >= 0.05)
        return (f"  {self.scenario:<11} {self.runs:>5} runs  {self.per_run_ms:7.0f} ms/run  PSS "
                f"{self.pss_after_warmup_mb:6.0f} -> {self.pss_end_mb:6.0f} MB (after: {self.pss_after_mb:4.0f})  "
                f"growth {growth:>6} MB/100 runs, anonymous {anon:>6}"
                f"  ({kinds})  files {self.files[0]}->{self.files[1]}  threads {self.threads[0]}->{self.threads[1]}"
                f"  processes {self.processes[0]}->{self.processes[1]}")


def summarise(scenario: str, runs: int, per_run_ms: float, samples: list[Sample], warmup: int) -> Result:
    """The growth over the samples taken while the runs went on (before every run was done), after the warm-up;
    the last sample, taken once they were over (a batch has closed its tabs), is reported apart."""
    during = [sample for sample in samples[:-1] if sample.runs < runs] or samples[:1]
    after = [s for s in during if s.runs >= warmup] or during[-1:]
    kinds = sorted({kind for s in after for kind in s.by_kind})
    growth_by_kind = {kind: slope_per_100([(s.runs, s.by_kind.get(kind, 0.0)) for s in after]) for kind in kinds}
    first, last = after[0], during[-1]
    return Result(scenario, runs, per_run_ms, slope_per_100([(s.runs, s.pss_mb) for s in after]), growth_by_kind,
                  slope_per_100([(s.runs, s.anon_mb) for s in after]), first.pss_mb, last.pss_mb,
                  samples[-1].pss_mb, (first.files, last.files),
                  (first.threads, last.threads), (first.processes, last.processes), [asdict(s) for s in samples])


def report(results: list[Result]) -> None:
    print(f"target: at most {TARGET_MB_PER_100:g} MB per 100 runs after warm-up")
    for result in results:
        if result.scenario != "playwright" and result.growth_mb_per_100 is not None:
            verdict = "met" if result.growth_mb_per_100 <= TARGET_MB_PER_100 else "NOT met"
            print(f"  {result.scenario:<11} {result.growth_mb_per_100:+.1f} MB/100 runs: {verdict}")


def reprint(path: Path, warmup: int | None) -> int:
    """The figures of a saved run (`--json`), summarised again (another warm-up, or this file's rules)."""
    saved = json.loads(path.read_text())
    warm = warmup if warmup is not None else int(saved["warmup"])
    print(f"soak (from {path}): {saved['runs']} runs per scenario, growth after {warm} warm-up runs; app from "
          f"{saved['app']}")
    results = []
    for item in saved["results"]:
        samples = [Sample(**{"anon_mb": 0.0, **sample}) for sample in item["samples"]]
        results.append(summarise(item["scenario"], item["runs"], item["per_run_ms"], samples, warm))
        if not any(sample.anon_mb for sample in samples):  # a file from before the anonymous part was sampled
            results[-1].anon_growth_mb_per_100 = None
        print(results[-1].line())
    report(results)
    return 0


# -- ours ----------------------------------------------------------------------------------------------------
def app_command(checkout: Path | None) -> tuple[list[str], dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("BROWSERPILOT_HOME", "QT_QPA_PLATFORM")}
    if checkout is None:
        script = Path(sys.executable).with_name("browserpilot")
        return ([str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]), env
    env["PYTHONPATH"] = str(checkout) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # read only: no __pycache__ in the other checkout
    return [sys.executable, "-m", "app.cli"], env


def check(result: Any, what: str) -> dict[str, Any]:
    data = getattr(result, "structured_content", None) or {}
    if getattr(result, "is_error", False) or not data.get("ok", False):
        text = " ".join(getattr(block, "text", "") for block in getattr(result, "content", []))
        raise BenchError(f"{what} failed: {(data.get('error') if data else None) or text[:400]}")
    return data


class App:
    """`browserpilot --headless` on a fresh data folder, and an MCP client session to it."""

    def __init__(self, checkout: Path | None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bp-soak-"))
        command, env = app_command(checkout)
        self.process = subprocess.Popen([*command, "--headless", "--data-dir", str(self.folder)], env=env,
                                        cwd=str(checkout) if checkout else None,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.psutil = psutil.Process(self.process.pid)

    async def call(self, client: Client, name: str, params: dict[str, Any]) -> dict[str, Any]:
        return check(await client.call_tool(name, params), name)

    def client(self) -> Any:
        found = wait_for_endpoint(DataDir(self.folder), timeout=90)
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {found.token}"}, trust_env=False, verify=False,
                                  timeout=httpx2.Timeout(60, read=None))
        return http, Client(streamable_http_client(found.url, http_client=http))

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


async def ours(scenario: str, runs: int, warmup: int, interval: float, checkout: Path | None, shop: Shop) -> Result:
    app = App(checkout)
    try:
        http, client = app.client()
        async with http, client:
            await app.call(client, "workflow_write", {"workflow": workflow_document(shop.base)})
            envs = ["env-default"]
            if scenario.endswith("-3"):
                for name in ("Soak two", "Soak three"):
                    envs.append(str((await app.call(client, "env_create", {"name": name}))["env"]))
            rows = [row(scenario, index) for index in range(runs)]
            start_count = shop.count()
            times: list[float] = []
            with Sampler(lambda: [app.psutil], app.process.pid, lambda: shop.count() - start_count,
                         interval) as sampler:
                if scenario.startswith("app"):
                    async def caller(env: str, mine: list[dict[str, str]]) -> None:
                        for inputs in mine:
                            started = time.perf_counter()
                            done = await app.call(client, "workflow_run",
                                                  {"name": "Soak order", "inputs": inputs, "env": env})
                            times.append((time.perf_counter() - started) * 1000)
                            thanks = str(done.get("outputs", {}).get("thanks", ""))
                            if not thanks.startswith(f"Thanks, {inputs['name']}:"):
                                raise BenchError(f"run {done.get('id')} ended on {thanks!r}")
                    await asyncio.gather(*(caller(env, rows[i::len(envs)]) for i, env in enumerate(envs)))
                    per_run = statistics.median(times)
                else:
                    started = time.perf_counter()
                    done = await app.call(client, "workflow_batch",
                                          {"name": "Soak order", "rows": rows, "envs": envs,
                                           "concurrency": len(envs)})
                    per_run = (time.perf_counter() - started) * 1000 / runs
                    counts = done.get("progress") or done
                    if done.get("failed"):
                        raise BenchError(f"the batch had failed rows: {json.dumps(counts)[:400]}")
            shop.verify([r["name"] for r in rows], {r["name"]: r["size"] for r in rows})
            return summarise(scenario, runs, per_run, sampler.samples, warmup)
    finally:
        app.stop()


# -- Playwright ----------------------------------------------------------------------------------------------
def playwright(runs: int, warmup: int, interval: float, shop: Shop) -> Result:
    from playwright.sync_api import sync_playwright

    me = psutil.Process()

    def chromium_tree() -> list[psutil.Process]:
        found = []
        for child in me.children(recursive=True):
            try:
                if "chrom" in child.name() and child.parent() is not None and "chrom" not in child.parent().name():
                    found.append(child)  # the browser process; the sampler adds its descendants
            except psutil.Error:
                pass
        return found

    times: list[float] = []
    rows = [row("playwright", index) for index in range(runs)]
    start_count = shop.count()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        roots = chromium_tree()
        root_pid = roots[0].pid if roots else 0
        with Sampler(lambda: roots, root_pid, lambda: shop.count() - start_count, interval) as sampler:
            for inputs in rows:
                started = time.perf_counter()
                page.goto(f"{shop.base}/form")
                page.locator("[name=name]").press_sequentially(inputs["name"])
                page.locator("[name=size]").select_option(inputs["size"])
                page.locator("[name=gift]").click()
                page.get_by_text("Place order").click()
                page.locator("#thanks").wait_for(state="visible", timeout=20_000)
                thanks = page.locator("#thanks").text_content() or ""
                times.append((time.perf_counter() - started) * 1000)
                if not thanks.startswith(f"Thanks, {inputs['name']}:"):
                    raise BenchError(f"playwright ended on {thanks!r}")
        browser.close()
    shop.verify([r["name"] for r in rows], {r["name"]: r["size"] for r in rows})
    return summarise("playwright", runs, statistics.median(times), sampler.samples, warmup)


# -- main ----------------------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=None, help=f"runs per scenario (default {DEFAULT_RUNS})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs per scenario")
    parser.add_argument("--warmup", type=int, default=None, help="runs left out of the growth (default N/10, >= 50)")
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between samples (default 3)")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}")
    parser.add_argument("--checkout", type=Path, default=None,
                        help="start the app from this checkout instead (e.g. the main branch's, for 'before')")
    parser.add_argument("--json", type=Path, default=None, help="also write every sample to this JSON file")
    parser.add_argument("--report", type=Path, default=None, help="print the figures of a saved --json file again")
    args = parser.parse_args(argv)
    if args.report is not None:
        return reprint(args.report, args.warmup)
    runs = args.runs or (QUICK_RUNS if args.quick else DEFAULT_RUNS)
    warmup = args.warmup if args.warmup is not None else max(50, runs // 10)
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = set(scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    checkout = args.checkout.resolve() if args.checkout else None
    print(f"soak: {runs} runs per scenario, growth after {warmup} warm-up runs; app from "
          f"{checkout or ROOT}", flush=True)
    results: list[Result] = []
    status = 0
    for scenario in scenarios:
        shop = Shop()
        started = time.monotonic()
        try:
            if scenario == "playwright":
                result = playwright(runs, warmup, args.interval, shop)
            else:
                result = asyncio.run(ours(scenario, runs, warmup, args.interval, checkout, shop))
        except BenchError as exc:
            print(f"  {scenario:<11} FAILED: {exc}", flush=True)
            status = 1
            continue
        finally:
            shop.close()
        results.append(result)
        print(result.line() + f"  [{time.monotonic() - started:.0f} s]", flush=True)
    report(results)
    if args.json is not None:
        args.json.write_text(json.dumps({"runs": runs, "warmup": warmup, "app": str(checkout or ROOT),
                                         "results": [asdict(r) for r in results]}, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
